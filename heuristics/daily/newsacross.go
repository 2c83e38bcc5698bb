package daily

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/clipperhouse/uax29/v2/words"

	"github.com/assaylabs/assay/eval"
)

// A Thai sentence citing an English headline shares almost no words with
// it, but what survives translation does: numbers (a quarter, a price, a
// year), and names and tickers, which Thai reports keep in Latin letters.
// These are a citation's anchors. Across languages, citation [n] is wrong
// when its sentence holds none of the anchors that only item n has, and
// at least one that only another item has; an anchor every item shares
// (the company's own ticker) tells nothing. A sentence with no
// distinguishing anchor is not judged.

// misdirectedAcross is misdirected for a sentence in another script than
// its cited item: it returns why citation c points at the wrong item, or
// "".
func misdirectedAcross(c cite, news []eval.News) string {
	sent := anchors(c.sentence)
	if len(sent) == 0 {
		return ""
	}
	items := make([]map[string]bool, len(news))
	for i, it := range news {
		items[i] = anchors(newsText(it))
	}
	// only returns the anchors of item i that no other item has, which
	// the sentence holds, sorted.
	only := func(i int) []string {
		var out []string
		for a := range items[i] {
			if !sent[a] {
				continue
			}
			alone := true
			for j := range items {
				if j != i && items[j][a] {
					alone = false
					break
				}
			}
			if alone {
				out = append(out, a)
			}
		}
		slices.Sort(out)
		return out
	}
	if len(only(c.n-1)) > 0 {
		return ""
	}
	best, bestN := []string(nil), 0
	for i := range news {
		if i == c.n-1 {
			continue
		}
		if o := only(i); len(o) > len(best) {
			best, bestN = o, i+1
		}
	}
	if bestN == 0 {
		return ""
	}
	quoted := make([]string, len(best))
	for i, a := range best {
		quoted[i] = strconv.Quote(a)
	}
	return fmt.Sprintf("citation [%d] points at news item %d (%q) but its sentence shares %s, found only in item %d (%q)",
		c.n, c.n, news[c.n-1].Title, strings.Join(quoted, ", "), bestN, news[bestN-1].Title)
}

// acrossScripts reports whether sentence and item are written in
// different scripts: a Thai sentence citing an item without Thai letters,
// or the other way round.
func acrossScripts(sentence string, item eval.News) bool {
	return (language(sentence) == "th") != strings.ContainsFunc(item.Title, func(r rune) bool { return unicode.Is(unicode.Thai, r) })
}

// anchors are the words of s that survive translation: numbers (Thai
// digits read as ASCII, "Q3" giving "3"), and words in Latin letters,
// lowered, of two letters or more. The citation markers themselves are
// left out.
func anchors(s string) map[string]bool {
	out := map[string]bool{}
	for seg := words.FromString(stripCitations(s)); seg.Next(); {
		w := seg.Value()
		var latin, digits strings.Builder
		for _, r := range w {
			switch {
			case r >= '0' && r <= '9':
				digits.WriteRune(r)
			case r >= '๐' && r <= '๙':
				digits.WriteRune('0' + (r - '๐'))
			case r == '.' || r == ',':
				if digits.Len() > 0 {
					digits.WriteRune(r)
				}
			case r < 0x80 && unicode.IsLetter(r):
				latin.WriteRune(unicode.ToLower(r))
			}
		}
		if d := strings.TrimRight(strings.ReplaceAll(digits.String(), ",", ""), "."); d != "" {
			out[d] = true
		}
		if l := latin.String(); len(l) >= 2 && digits.Len() == 0 {
			out[l] = true
		}
	}
	return out
}

// stripCitations removes the [n] markers from s.
func stripCitations(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			break
		}
		if _, ok := atoiDigits(s[i+1 : i+j]); ok {
			b.WriteString(s[:i])
			s = s[i+j+1:]
			continue
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
	}
	b.WriteString(s)
	return b.String()
}
