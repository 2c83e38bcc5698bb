package agent

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/jsstr"
)

// Seed 002's CRAG thresholds: an overall context quality at or above
// CRAGCorrectAt is correct, at or below CRAGIncorrectAt incorrect, and
// anything between (or NaN) ambiguous. They are the seed's and fixed: the
// research workflow and the context profile's card route alike.
const (
	CRAGCorrectAt   = 0.7
	CRAGIncorrectAt = 0.3
)

// CRAGClass is seed 002's classification of a retrieval.
type CRAGClass string

// CRAG classifications.
const (
	CRAGCorrect   CRAGClass = "correct"
	CRAGAmbiguous CRAGClass = "ambiguous"
	CRAGIncorrect CRAGClass = "incorrect"
)

// CRAGActionType is what a CRAG classification asks for.
type CRAGActionType string

// CRAG action types.
const (
	ActionUseRetrieved       CRAGActionType = "use_retrieved"
	ActionDecompose          CRAGActionType = "decompose_and_recompose"
	ActionSupplementalSearch CRAGActionType = "supplemental_search"
)

// CRAGClassification is seed 002's verdict on a retrieval and the action
// that follows from it.
type CRAGClassification struct {
	// Classification is CRAGCorrect, CRAGAmbiguous or CRAGIncorrect.
	Classification CRAGClass `json:"classification"`
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
	Type        CRAGActionType `json:"type"`
	SubQueries  []string       `json:"subQueries,omitempty"`
	SearchQuery string         `json:"searchQuery,omitempty"`
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
			Type       CRAGActionType `json:"type"`
			SubQueries []string       `json:"subQueries"`
		}{a.Type, sub})
	case ActionSupplementalSearch:
		return json.Marshal(struct {
			Type        CRAGActionType `json:"type"`
			SearchQuery string         `json:"searchQuery"`
		}{a.Type, a.SearchQuery})
	}
	type plain CRAGAction // drops this method
	return json.Marshal(plain(a))
}

// ClassifyRetrieval is seed 002's CRAGRouter.classifyRetrieval: it scores
// the sample with heuristics.AssessContext and classifies the overall
// quality with ClassifyCRAG.
func ClassifyRetrieval(s eval.Sample) CRAGClassification {
	return ClassifyCRAG(s.Query, heuristics.AssessContext(s).Overall)
}

// ClassifyCRAG is the one CRAG classifier (seed 002): it classifies an
// overall context quality for the query, at the seed's thresholds.
//
//   - correct (overall >= 0.7): use the retrieved chunks.
//   - incorrect (overall <= 0.3): run a supplemental search for the query
//     without its leading question word and trailing "?".
//   - ambiguous (between, or NaN): decompose the query at "and", "or",
//     "also" and "additionally" into the parts longer than 10 characters,
//     or, when none of those words occurs, search three variant phrasings.
//
// The decomposition follows JavaScript's split exactly, so the separators
// themselves are parts too (dropped for being short), and a compound query
// whose parts are all short decomposes into no sub-queries at all.
func ClassifyCRAG(query string, overall float64) CRAGClassification {
	if overall >= CRAGCorrectAt {
		return CRAGClassification{
			Classification: CRAGCorrect,
			Confidence:     overall,
			Action:         CRAGAction{Type: ActionUseRetrieved},
		}
	}
	if overall <= CRAGIncorrectAt {
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

// The CRAG patterns are compiled on first use, not at start-up.
var (
	// cragConjunction is /\b(and|or|also|additionally)\b/i; Go's \b is
	// ASCII, like JavaScript's.
	cragConjunction = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(` + jsstr.ASCIIFold("and", "or", "also", "additionally") + `)\b`)
	})
	// cragQuestionWord is /^(what|how|...|does)\s+/i.
	cragQuestionWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(` +
			jsstr.ASCIIFold("what", "how", "when", "where", "who", "why", "is", "are", "can", "do", "does") +
			`)[` + jsstr.SpaceClass + `]+`)
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
		if p = jsstr.Trim(p); jsstr.Len(p) > minSubQueryLen {
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
	return jsstr.Trim(strings.TrimSuffix(query, "?"))
}
