package heuristics

import (
	"strings"

	"github.com/assaylabs/assay/heuristics/reportdoc"
)

// Relevance grade cut-points on SourceRelevance (and PassageRelevance),
// following the seed-004 rubric: 5 answers the query directly (nearly all
// of its weight found), 4 strongly relevant (three quarters), 3 partially
// relevant (half), 2 tangential (shares a quarter: keywords), 1 off topic.
// A grade of 3 or more is the binary "relevant" decision: at least half of
// what the query asks, by weight, is in one window of the passage.
const (
	RelevanceGrade5 = 0.9
	RelevanceGrade4 = 0.75
	RelevanceGrade3 = 0.5
	RelevanceGrade2 = 0.25
)

// GradeOfRelevance maps a SourceRelevance or PassageRelevance score to the
// 1-5 rubric with the RelevanceGrade* cut-points.
func GradeOfRelevance(r float64) int {
	switch {
	case r >= RelevanceGrade5:
		return 5
	case r >= RelevanceGrade4:
		return 4
	case r >= RelevanceGrade3:
		return 3
	case r >= RelevanceGrade2:
		return 2
	}
	return 1
}

// Weights of PassageRelevance's parts; they sum to 1.
const (
	relCoverage = 0.4
	relBigram   = 0.15
	relLead     = 0.15
	relMeasure  = 0.3
)

// PassageRelevance scores, in [0, 1], how well passage serves query, for
// ranking sentences and answers against one query, from four lexical
// signals, without corpus statistics beyond an embedded general
// word-frequency list:
//
//   - coverage: the share of the query's content words (compared by
//     Snowball stem) found in the passage, averaged with the same share
//     weighted by word rarity (wordfreq.go);
//   - phrases: the share of adjacent query content-word pairs found
//     adjacent in the passage (stop words skipped on both sides);
//   - lead: the coverage of the passage's first sentence, since a passage
//     about the query names it early;
//   - measure: whether the passage holds the measure a measure question
//     asks for (a number with a unit of length or time for "how long";
//     see SourceRelevance). Other queries get this part in full.
//
// A query with no content words, or an empty passage, scores 0.
func PassageRelevance(query, passage string) float64 {
	q := readQuery(query)
	if len(q.stems) == 0 || strings.TrimSpace(passage) == "" {
		return 0
	}
	pset, pseq := passageTerms(lexicon().LowerWords(passage))
	weights := make(map[string]float64, len(q.stems))
	for i, s := range q.stems {
		weights[s] = q.weights[i]
	}
	cov := (coverage(q.stems, pset) + share(q.stems, weights, pset)) / 2
	bi := bigramShare(q.stems, pseq)
	lead := coverage(q.stems, lexicon().StemSet(leadSentence(passage)))
	ms := 1.0
	if q.measure != 0 && !holdsMeasure(passage, q.measure, q.lower) {
		ms = 0
	}
	r := relCoverage*cov + relBigram*bi + relLead*lead + relMeasure*ms
	return min(max(r, 0), 1)
}

// share is the share of stems found in set, each weighted by weights
// (coverage, in support.go, is the unweighted share).
func share(stems []string, weights map[string]float64, set map[string]bool) float64 {
	hit, total := 0.0, 0.0
	for _, s := range stems {
		w := weights[s]
		total += w
		if set[s] {
			hit += w
		}
	}
	if total == 0 {
		return 1
	}
	return hit / total
}

// passageTerms returns the set of a passage's lower-cased words (lower) and
// their stems, hyphenated words by their parts too, and the stems of its
// content words in order.
func passageTerms(lower []string) (set map[string]bool, seq []string) {
	set = map[string]bool{}
	for _, w := range lower {
		s := lexicon().Stem(w)
		set[w], set[s] = true, true
		for _, p := range strings.Split(w, "-") {
			set[p], set[lexicon().Stem(p)] = true, true
		}
		if !lexicon().IsStop(w) {
			seq = append(seq, s)
		}
	}
	return set, seq
}

// bigramShare is the share of adjacent pairs of q found adjacent in seq. A
// one-word query has no pairs and gets the share of its word instead.
func bigramShare(q, seq []string) float64 {
	if len(q) < 2 {
		return coverage(q, toBoolSet(seq))
	}
	pairs := map[[2]string]bool{}
	for i := 1; i < len(seq); i++ {
		pairs[[2]string{seq[i-1], seq[i]}] = true
	}
	n := 0
	for i := 1; i < len(q); i++ {
		if pairs[[2]string{q[i-1], q[i]}] || pairs[[2]string{q[i], q[i-1]}] {
			n++
		}
	}
	return float64(n) / float64(len(q)-1)
}

func toBoolSet(ss []string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// leadSentence returns the first sentence of the passage.
func leadSentence(passage string) string {
	p := strings.TrimSpace(passage)
	b := reportdoc.SplitSentences(p)
	if len(b) < 2 {
		return p
	}
	return p[:b[1]]
}
