package daily

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/clipperhouse/uax29/v2/words"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/internal/lex"
)

// Citations point at what their sentence talks about (seed 003: "[1] must
// reference the first news item"). A citation [n] in range is wrong when
// its sentence shares with another news item at least minSharedTerms key
// terms, a third of that item's or more, and more than twice what it
// shares with item n (an item's terms: its title and the words of its
// URL's path). A sentence in another script than its cited item (a Thai
// sentence citing an English headline) is matched by its anchors instead:
// the numbers, names and tickers it shares (newsacross.go).

// minSharedTerms is how many key terms, and a third of the item's at
// least, a sentence must share with another news item for its citation of
// an unrelated one to be wrong.
const minSharedTerms = 2

// cite is a numbered reference with the sentence it stands in.
type cite struct {
	n        int
	sentence string
}

// misdirected returns why citation c points at the wrong item, or "".
func misdirected(c cite, news []eval.News) string {
	if c.n < 1 || c.n > len(news) {
		return ""
	}
	if why := misdirectedWithin(c, news); why != "" || !acrossScripts(c.sentence, news[c.n-1]) {
		return why
	}
	return misdirectedAcross(c, news)
}

// misdirectedWithin judges a citation by the key terms its sentence
// shares with the news items.
func misdirectedWithin(c cite, news []eval.News) string {
	terms := keyTerms(c.sentence)
	own := shared(terms, keyTerms(newsText(news[c.n-1])))
	best, bestN := 2*own, 0
	for i, it := range news {
		if i == c.n-1 {
			continue
		}
		other := keyTerms(newsText(it))
		if s := shared(terms, other); s > best && s >= minSharedTerms && 3*s >= len(other) {
			best, bestN = s, i+1
		}
	}
	if bestN == 0 {
		return ""
	}
	return fmt.Sprintf("citation [%d] points at news item %d (%q) but its sentence is about item %d (%q)", c.n, c.n, news[c.n-1].Title, bestN, news[bestN-1].Title)
}

// newsText is what a news item says: its title and the words of its URL's
// path ("/news/dbs-q3-profit").
func newsText(n eval.News) string {
	s := n.Title
	if u, err := url.Parse(n.URL); err == nil {
		s += " " + strings.NewReplacer("/", " ", "-", " ", "_", " ").Replace(u.Path)
	}
	return s
}

// keyTerms are the key terms of s, stemmed; of Thai, its pairs of
// characters (a single character says too little).
func keyTerms(s string) map[string]bool {
	l := lex.Default()
	out := map[string]bool{}
	for _, t := range l.Terms(s) {
		if lex.IsGram(t) {
			n := 0
			for seg := words.FromString(t); seg.Next(); {
				n++
			}
			if n >= 2 {
				out[t] = true
			}
			continue
		}
		out[l.Stem(t)] = true
	}
	return out
}

// shared counts the terms a and b have in common.
func shared(a, b map[string]bool) int {
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return n
}
