package heuristics

import (
	"regexp"
	"strings"
	"sync"
)

// Relevance grade cut-points on PassageRelevance, following the seed-004
// rubric: 5 answers the query directly with specifics, 4 is strongly
// relevant, 3 partially relevant, 2 tangential (shares keywords), 1 off
// topic. A grade of 3 or more is the binary "relevant" decision; its
// cut-point was chosen for balanced accuracy on the MS MARCO dev split.
const (
	RelevanceGrade5 = 0.9
	RelevanceGrade4 = 0.8
	RelevanceGrade3 = 0.6
	RelevanceGrade2 = 0.3
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
	relAnswer   = 0.3
)

// PassageRelevance scores, in [0, 1], how well passage serves query, from
// four lexical signals, without corpus statistics beyond an embedded
// general word-frequency list:
//
//   - coverage: the share of the query's content words (compared by
//     Snowball stem) found in the passage, averaged with the same share
//     weighted by word rarity (wordfreq.go);
//   - phrases: the share of adjacent query content-word pairs found
//     adjacent in the passage (stop words skipped on both sides);
//   - lead: the coverage of the passage's first sentence, since a passage
//     about the query names it early;
//   - answer type: whether the passage holds the kind of answer the query
//     asks for (a number, duration, date or amount for "how much", "how
//     long", "when", "what year"; a definition "X is/means/refers to" for
//     "what is X" or "define X"; a person's name for "who"). Queries of no
//     recognised type get this part in full.
//
// A query with no content words, or an empty passage, scores 0.
func PassageRelevance(query, passage string) float64 {
	q := queryStems(query)
	if len(q) == 0 || strings.TrimSpace(passage) == "" {
		return 0
	}
	pset, pseq := passageTerms(lexicon.LowerWords(passage))
	cov := (coverage(q, pset) + rarityWeightedCoverage(query, q, pset)) / 2
	bi := bigramShare(q, pseq)
	lead := coverage(q, lexicon.StemSet(leadSentence(passage)))
	ans := answerTypeMatch(query, passage)
	r := relCoverage*cov + relBigram*bi + relLead*lead + relAnswer*ans
	return min(max(r, 0), 1)
}

// passageTerms returns the set of a passage's lower-cased words (lower) and
// their stems, hyphenated words by their parts too, and the stems of its
// content words in order.
func passageTerms(lower []string) (set map[string]bool, seq []string) {
	set = map[string]bool{}
	for _, w := range lower {
		s := lexicon.Stem(w)
		set[w], set[s] = true, true
		for _, p := range strings.Split(w, "-") {
			set[p], set[lexicon.Stem(p)] = true, true
		}
		if !lexicon.IsStop(w) {
			seq = append(seq, s)
		}
	}
	return set, seq
}

// rarityWeightedCoverage is coverage with each query stem weighted by the
// rarity of its word in the embedded word-frequency list: a corpus-free
// stand-in for inverse document frequency ("epineurium" outweighs "form").
func rarityWeightedCoverage(query string, stems []string, set map[string]bool) float64 {
	weights := map[string]float64{}
	for _, t := range lexicon.Terms(questionFrame().ReplaceAllString(query, " ")) {
		weights[lexicon.Stem(t)] = rarity(t)
	}
	return wcoverage(stems, weights, set, nil)
}

// queryStems returns the stems of the query's content words, once each.
func queryStems(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range lexicon.Terms(questionFrame().ReplaceAllString(query, " ")) {
		if s := lexicon.Stem(t); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
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
	b := splitSentences(p, nil)
	if len(b) < 2 {
		return p
	}
	return p[:b[1]]
}

// Answer types a query can ask for.
const (
	answerAny = iota
	answerQuantity
	answerDefinition
	answerPerson
)

// The long alternations are compiled on first use, not at start-up; the
// short patterns cost next to nothing to compile.
var (
	quantityQuery = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(how (much|many|long|old|far|big|tall|high|large|often|fast|deep|heavy)|what year|when|cost|price|salary|pay|wage|temperature|population|average|number of|calories)\b`)
	})
	definitionQuery = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(what (is|are|was|were|does)\b|define\b|definition\b|meaning\b)|\b(definition|meaning|define|means?)\s*\??\s*$`)
	})
	personQuery = regexp.MustCompile(`(?i)^\s*who\b`)

	// questionFrame is the wording of a quantity question that names the
	// kind of answer, not the topic: "how long does it take", "how much
	// does it cost". It is left out of the query's terms.
	questionFrame = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bhow (much|many|long|old|far|big|tall|high|large|often|fast|deep|heavy)\b(\s+(does|do|did|is|are|was|will|would|can|should)(\s+(it|you|i|we|they|he|she|a|an|the))?\s+(take|cost|last|need|get))?`)
	})

	quantityCue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\d|(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half|minutes?|hours?|days?|weeks?|months?|years?|century|centuries|dollars?|cents?|percent)\b`)
	})
	definitionCue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(is|are|was|were)\s+(a|an|the|any|one)\b|\b(means?|meaning|refers? to|defined as|definition|known as|is used to|describes?|denotes?)\b`)
	})
	personCue = regexp.MustCompile(`\b[A-Z][a-z]+ (?:[A-Z]\.? )?[A-Z][a-z]+\b`)
)

// queryAnswerType returns the kind of answer the query asks for.
func queryAnswerType(query string) int {
	switch {
	case personQuery.MatchString(query):
		return answerPerson
	case quantityQuery().MatchString(query):
		return answerQuantity
	case definitionQuery().MatchString(query):
		return answerDefinition
	}
	return answerAny
}

// answerTypeMatch is 1 when the passage holds the kind of answer the query
// asks for (or the query asks for none in particular), else 0.
func answerTypeMatch(query, passage string) float64 {
	var re *regexp.Regexp
	switch queryAnswerType(query) {
	case answerQuantity:
		re = quantityCue()
	case answerDefinition:
		re = definitionCue()
	case answerPerson:
		re = personCue
	default:
		return 1
	}
	if re.MatchString(passage) {
		return 1
	}
	return 0
}
