package heuristics

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Weights of SourceRelevance's parts. A passage holding every query word and
// the kind of answer asked for, without page furniture, scores 1 less the
// mark-down for the length of its first sentence.
const (
	srcAnswer   = 0.1 // answerTypeMatch: the kind of answer asked for
	srcCoverage = 0.4 // plain share of query stems found
	srcRarity   = 0.4 // rarity-weighted share of query stems found
	srcTokens   = 0.1 // TokenOverlap of the query's words, stop words too
	srcChrome   = 0.3 // taken off for page or forum furniture (pageChrome)
	// srcLeadPerWord is taken off for each word of the first sentence,
	// counted up to srcLeadWords words: at most 0.2.
	srcLeadPerWord = 0.005
	srcLeadWords   = 40
	// srcNoAnswerCap is the most a passage without the kind of answer the
	// query asks for scores: grade 3, partially relevant, at best.
	srcNoAnswerCap = RelevanceGrade4 - 0.01
)

// pageChrome matches the furniture of a web page or a question-and-answer
// site that a crawler keeps with the text: bylines of forum answers, vote
// counts, search and navigation links. Compiled on first use.
var pageChrome = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(answer(ed)? by|confidence votes|best answer|sponsored (topics|links)|custom search|skip to content|medically reviewed by|click here|read more|all rights reserved|thank you for)\b`)
})

// chromeEdge is how far into a passage, from either end, page furniture is
// looked for, in bytes: a page's header and footer are at its edges, and
// "click here" inside a long body is prose.
const chromeEdge = 120

// hasPageChrome reports whether pageChrome matches within chromeEdge bytes
// of the start or the end of the passage.
func hasPageChrome(passage string) bool {
	p := strings.TrimSpace(passage)
	if len(p) <= 2*chromeEdge {
		return pageChrome().MatchString(p)
	}
	head, tail := chromeEdge, len(p)-chromeEdge
	for head < len(p) && !utf8.RuneStart(p[head]) {
		head++
	}
	for tail > 0 && !utf8.RuneStart(p[tail]) {
		tail--
	}
	return pageChrome().MatchString(p[:head]) || pageChrome().MatchString(p[tail:])
}

// SourceRelevance scores, in [0, 1], how well a retrieved passage serves
// the query as a source on its own: the per-source relevance judge's
// offline grade (GradeOfRelevance maps it to 1-5). It is tuned for
// deciding, one passage at a time, whether a passage is the one a reader
// would pick for the query (MS MARCO's selected passage against other
// results for the same query), where PassageRelevance ranks passages and
// sentences for one query and keeps its own weights.
//
// It adds, as PassageRelevance does, the plain and the rarity-weighted
// share of the query's content words found (0.4 each) and whether the
// passage holds the kind of answer the query asks for (0.1, in full for a
// query asking for no particular kind; answerTypeMatch), and the share of
// all the query's words, stop words too, found (0.1: a passage that says
// "does mean" for "what does fb mean" echoes the question). From that it
// takes:
//
//   - 0.3 when the passage carries page or forum furniture ("Answer by
//     ...", "Confidence votes 460", "Skip to content") near its start or
//     end (hasPageChrome): text kept from the page around the content
//     rather than a passage that answers the query directly with
//     specifics;
//   - 0.005 for each word of its first sentence, counting at most 40
//     words (0.2): a passage that opens with a heading or a short direct
//     statement is more often the one picked than one that opens with a
//     long sentence, and the longer the opening sentence the less often.
//     The mark-down grows with the length rather than stepping at a cut,
//     as no one length separates the two, and it stops growing so that
//     one very long sentence (a list or table run together) does not
//     outweigh the query's words.
//
// A passage without the kind of answer the query asks for (no number or
// duration for "how long") scores at most srcNoAnswerCap, grade 3: the
// rubric keeps 4 and 5 for passages that answer. On MS MARCO's relevant or
// not this changes nothing, as grade 3 is already relevant.
//
// A passage that asks a question of its own (an FAQ's "How long does it
// take?") or starts in lower case is not marked down: each told two rows
// of MS MARCO's 130 apart, and FAQ pages and chunks cut mid-sentence are
// common sources that answer well.
//
// A query with no content words, or an empty passage, scores 0.
func SourceRelevance(query, passage string) float64 {
	q := queryStems(query)
	if len(q) == 0 || strings.TrimSpace(passage) == "" {
		return 0
	}
	lower := lexicon.LowerWords(passage)
	pset, _ := passageTerms(lower)
	ans := answerTypeMatch(query, passage)
	r := srcAnswer*ans + srcCoverage*coverage(q, pset) +
		srcRarity*rarityWeightedCoverage(query, q, pset) +
		srcTokens*tokenShare(lexicon.LowerWords(query), toBoolSet(lower))
	if hasPageChrome(passage) {
		r -= srcChrome
	}
	r -= srcLeadPerWord * float64(min(lexicon.WordCount(leadSentence(passage)), srcLeadWords))
	if ans == 0 {
		r = min(r, srcNoAnswerCap)
	}
	return min(max(r, 0), 1)
}
