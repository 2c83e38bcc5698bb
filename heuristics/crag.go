package heuristics

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
)

// Seed 002's CRAG thresholds: an overall context quality at or above
// DefaultCRAGCorrect is correct, at or below DefaultCRAGIncorrect incorrect,
// and anything between (or NaN) ambiguous.
const (
	DefaultCRAGCorrect   = 0.7
	DefaultCRAGIncorrect = 0.3
)

// CRAG classifications.
const (
	CRAGCorrect   = "correct"
	CRAGAmbiguous = "ambiguous"
	CRAGIncorrect = "incorrect"
)

// CRAG action types.
const (
	ActionUseRetrieved       = "use_retrieved"
	ActionDecompose          = "decompose_and_recompose"
	ActionSupplementalSearch = "supplemental_search"
)

// CRAGClassification is seed 002's verdict on a retrieval and the action
// that follows from it.
type CRAGClassification struct {
	// Classification is CRAGCorrect, CRAGAmbiguous or CRAGIncorrect.
	Classification string `json:"classification"`
	// Confidence is the overall quality, or 1 minus it when incorrect.
	Confidence float64    `json:"confidence"`
	Action     CRAGAction `json:"action"`
}

// CRAGAction is what to do with a retrieval. SubQueries is set for
// ActionDecompose, SearchQuery for ActionSupplementalSearch.
//
// It encodes to JSON as the seed's tagged union: only the field of its
// type, kept even when empty ("subQueries": [] and "searchQuery": "").
type CRAGAction struct {
	Type        string   `json:"type"`
	SubQueries  []string `json:"subQueries,omitempty"`
	SearchQuery string   `json:"searchQuery,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (a CRAGAction) MarshalJSON() ([]byte, error) {
	switch a.Type {
	case ActionDecompose:
		sub := a.SubQueries
		if sub == nil {
			sub = []string{}
		}
		return json.Marshal(struct {
			Type       string   `json:"type"`
			SubQueries []string `json:"subQueries"`
		}{a.Type, sub})
	case ActionSupplementalSearch:
		return json.Marshal(struct {
			Type        string `json:"type"`
			SearchQuery string `json:"searchQuery"`
		}{a.Type, a.SearchQuery})
	}
	type plain CRAGAction // drops this method
	return json.Marshal(plain(a))
}

// ClassifyRetrieval is seed 002's CRAGRouter.classifyRetrieval: it scores
// the sample with AssessContext and classifies the overall quality.
//
//   - correct (overall >= 0.7): use the retrieved chunks.
//   - incorrect (overall <= 0.3): run a supplemental search for the query
//     without its leading question word and trailing "?".
//   - ambiguous: decompose the query at "and", "or", "also" and
//     "additionally" into the parts longer than 10 characters, or, when
//     none of those words occurs, search three variant phrasings.
//
// The decomposition follows JavaScript's split exactly, so the separators
// themselves are parts too (dropped for being short), and a compound query
// whose parts are all short decomposes into no sub-queries at all.
func ClassifyRetrieval(s eval.Sample) CRAGClassification {
	return classifyCRAG(AssessContext(s).Overall, s.Query)
}

// classifyCRAG classifies an overall quality for the query.
func classifyCRAG(overall float64, query string) CRAGClassification {
	if overall >= DefaultCRAGCorrect {
		return CRAGClassification{
			Classification: CRAGCorrect,
			Confidence:     overall,
			Action:         CRAGAction{Type: ActionUseRetrieved},
		}
	}
	if overall <= DefaultCRAGIncorrect {
		return CRAGClassification{
			Classification: CRAGIncorrect,
			Confidence:     1 - overall,
			Action:         CRAGAction{Type: ActionSupplementalSearch, SearchQuery: reformulateQuery(query)},
		}
	}
	return CRAGClassification{
		Classification: CRAGAmbiguous,
		Confidence:     overall,
		Action:         CRAGAction{Type: ActionDecompose, SubQueries: decomposeQuery(query)},
	}
}

// jsASCIIFold spells each ASCII letter of the words as a two-case class, so
// that the pattern ignores ASCII case only, as a JavaScript /i regexp does
// without the u flag: Go's (?i) would also let "ſ" (U+017F) match "s".
func jsASCIIFold(words ...string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte('|')
		}
		for _, c := range []byte(w) {
			b.WriteString("[" + strings.ToLower(string(c)) + strings.ToUpper(string(c)) + "]")
		}
	}
	return b.String()
}

// The CRAG patterns are compiled on first use, not at start-up.
var (
	// cragConjunction is /\b(and|or|also|additionally)\b/i; Go's \b is
	// ASCII, like JavaScript's.
	cragConjunction = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(` + jsASCIIFold("and", "or", "also", "additionally") + `)\b`)
	})
	// cragQuestionWord is /^(what|how|...|does)\s+/i.
	cragQuestionWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(` +
			jsASCIIFold("what", "how", "when", "where", "who", "why", "is", "are", "can", "do", "does") +
			`)[` + jsSpaceClass + `]+`)
	})
)

// minSubQueryLen is the length (UTF-16 units) a sub-query must exceed.
const minSubQueryLen = 10

// decomposeQuery is the seed's decomposeQuery.
func decomposeQuery(query string) []string {
	matches := cragConjunction().FindAllStringIndex(query, -1)
	if len(matches) == 0 {
		trimmed := strings.TrimSuffix(query, "?")
		return []string{
			query,
			"What information exists about: " + query,
			trimmed + " details and specifics",
		}
	}
	// query.split(re) with a capturing group: the text between matches and
	// each captured separator, in order.
	parts := make([]string, 0, 2*len(matches)+1)
	prev := 0
	for _, m := range matches {
		parts = append(parts, query[prev:m[0]], query[m[0]:m[1]])
		prev = m[1]
	}
	parts = append(parts, query[prev:])
	sub := []string{}
	for _, p := range parts {
		if p = jsTrim(p); jsLen(p) > minSubQueryLen {
			sub = append(sub, p)
		}
	}
	return sub
}

// reformulateQuery is the seed's reformulateQuery: the query without a
// leading question word and its whitespace, without one trailing "?", and
// trimmed.
func reformulateQuery(query string) string {
	if loc := cragQuestionWord().FindStringIndex(query); loc != nil {
		query = query[loc[1]:]
	}
	return jsTrim(strings.TrimSuffix(query, "?"))
}
