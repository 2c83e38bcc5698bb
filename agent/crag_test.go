package agent

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func f64(f float64) *float64 { return &f }

func TestClassifyRetrievalAtTheThresholds(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		s           eval.Sample
		class       CRAGClass
		action      CRAGActionType
		confidence  float64
		searchQuery string
	}{
		// retrieval: rerank 1 -> 1*0.7 + 1*0.3 = 1. sufficiency: "revenue"
		// found, min(50/50, 1) = 1 -> 0.6 + 0.4 = 1. diversity: one chunk
		// -> 0. faithfulness: "2024" is 1 number in 1 word -> min(10, 1)
		// = 1 -> 0.4; first score 0 -> 0; 0.4.
		// overall = 0.3 + 0.3 + 0 + 0.1 = 0.7 exactly -> correct (>=).
		"overall of exactly 0.7 is correct": {
			s: eval.Sample{Query: "revenue",
				Sources: []eval.Source{{ID: "d1", Text: "2024", Score: 0, RerankScore: f64(1)}},
				Context: &eval.Context{Text: "revenue", TokenCount: 50}},
			class: CRAGCorrect, action: ActionUseRetrieved, confidence: 0.7,
		},
		// No chunks; sufficiency 1 as above. overall = 1*0.3 = 0.3 exactly
		// -> incorrect (<=), confidence 1 - 0.3 = 0.7.
		"overall of exactly 0.3 is incorrect": {
			s:     eval.Sample{Query: "revenue", Context: &eval.Context{Text: "revenue", TokenCount: 50}},
			class: CRAGIncorrect, action: ActionSupplementalSearch, confidence: 0.7, searchQuery: "revenue",
		},
		// overall 0 -> incorrect with confidence 1; "What is" goes, then
		// "?" and the trim.
		"nothing retrieved is incorrect": {
			s:     eval.Sample{Query: "What is hybrid search?"},
			class: CRAGIncorrect, action: ActionSupplementalSearch, confidence: 1, searchQuery: "is hybrid search",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := ClassifyRetrieval(tc.s)
			assert.Equal(t, tc.class, got.Classification)
			assert.Equal(t, tc.action, got.Action.Type)
			assert.InDelta(t, tc.confidence, got.Confidence, 1e-9)
			assert.Equal(t, tc.searchQuery, got.Action.SearchQuery)
		})
	}
}

func TestClassifyCRAGBoundaries(t *testing.T) {
	t.Parallel()
	below07 := math.Nextafter(0.7, 0)
	above03 := math.Nextafter(0.3, 1)
	tests := map[string]struct {
		overall    float64
		class      CRAGClass
		confidence float64
	}{
		"0.7 is correct":                {0.7, CRAGCorrect, 0.7},
		"just below 0.7 is ambiguous":   {below07, CRAGAmbiguous, below07},
		"just above 0.3 is ambiguous":   {above03, CRAGAmbiguous, above03},
		"0.3 is incorrect":              {0.3, CRAGIncorrect, 0.7},
		"0 is incorrect with certainty": {0, CRAGIncorrect, 1},
		"above 1 is correct":            {1.14, CRAGCorrect, 1.14},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := ClassifyCRAG("q", tc.overall)
			assert.Equal(t, tc.class, got.Classification)
			assert.InDelta(t, tc.confidence, got.Confidence, 1e-9)
		})
	}

	t.Run("NaN fails both comparisons and is ambiguous", func(t *testing.T) {
		t.Parallel()
		got := ClassifyCRAG("q", math.NaN())
		assert.Equal(t, CRAGAmbiguous, got.Classification)
		assert.True(t, math.IsNaN(got.Confidence))
	})
}

func TestDecomposeQuery(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query string
		want  []string
	}{
		// split -> ["Compare cost ", "and", " latency of X"]; trimmed,
		// "Compare cost" (12) and "latency of X" (12) are longer than 10.
		"conjunction splits into the long parts": {
			"Compare cost and latency of X", []string{"Compare cost", "latency of X"},
		},
		// ["pros ", "AND", " cons of graph databases ", "OR", " vector stores"]:
		// "pros", "AND" and "OR" are short.
		"conjunctions match in any case and are dropped as parts": {
			"pros AND cons of graph databases OR vector stores", []string{"cons of graph databases", "vector stores"},
		},
		// ["cats ", "and", " dogs"]: every part is short.
		"short parts leave no sub-queries": {"cats and dogs", []string{}},
		// ["Summarise the findings, ", "also", " list open questions ",
		// "additionally", ""]: the captured "additionally" is 12 units long,
		// so it survives as a sub-query of its own, as in the seed.
		"a long separator is kept as a part": {
			"Summarise the findings, also list open questions additionally",
			[]string{"Summarise the findings,", "list open questions", "additionally"},
		},
		// No separator: the query, a question about it, and the query
		// without its "?" plus " details and specifics".
		"no conjunction gives three phrasings": {
			"What is retrieval augmented generation?",
			[]string{
				"What is retrieval augmented generation?",
				"What information exists about: What is retrieval augmented generation?",
				"What is retrieval augmented generation details and specifics",
			},
		},
		// \b needs a non-word character: "Sandy" and "order" hold no
		// separator.
		"words containing a conjunction do not split": {
			"Sandy order", []string{"Sandy order", "What information exists about: Sandy order", "Sandy order details and specifics"},
		},
		// JavaScript's /i without u does not fold "ſ" (U+017F) to "s";
		// Go's (?i) would.
		"long s is not an s": {
			"costs alſo latency", []string{"costs alſo latency", "What information exists about: costs alſo latency", "costs alſo latency details and specifics"},
		},
		// "😀😀😀😀😀😀" is 6 code points but 12 UTF-16 units: kept.
		"length counts UTF-16 units": {"😀😀😀😀😀😀 and 日本語のテキスト", []string{"😀😀😀😀😀😀"}},
		// JavaScript's trim strips U+3000 and NBSP.
		"trim strips unicode whitespace": {"\u3000latency budget\u00a0 or cost", []string{"latency budget"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, decomposeQuery(tc.query))
		})
	}
}

func TestReformulateQuery(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ query, want string }{
		"question word and mark go":         {"how does caching work?", "does caching work"},
		"only the first question word goes": {"What is RAG?", "is RAG"},
		"longer alternative after a prefix": {"Does it scale", "it scale"},
		"any ASCII case":                    {"WHO\u00a0won?", "won"},
		"a word that only starts like one":  {"whatever happened?", "whatever happened"},
		"leading space blocks the anchor":   {"  what is x?", "what is x"},
		"only a final question mark goes":   {"Is it fast? ", "it fast?"},
		"only one question mark goes":       {"why??", "why?"},
		"ideographic space after the word":  {"does\u3000it", "it"},
		"question word alone is kept":       {"what", "what"},
		"empty query":                       {"", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, reformulateQuery(tc.query))
		})
	}
}

func TestCRAGActionJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		action CRAGAction
		want   string
	}{
		"use retrieved has only a type":            {CRAGAction{Type: ActionUseRetrieved}, `{"type":"use_retrieved"}`},
		"empty sub-queries stay an empty array":    {CRAGAction{Type: ActionDecompose}, `{"type":"decompose_and_recompose","subQueries":[]}`},
		"sub-queries":                              {CRAGAction{Type: ActionDecompose, SubQueries: []string{"a"}}, `{"type":"decompose_and_recompose","subQueries":["a"]}`},
		"empty search query stays an empty string": {CRAGAction{Type: ActionSupplementalSearch}, `{"type":"supplemental_search","searchQuery":""}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.action)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
		})
	}

	t.Run("a classification nests its action", func(t *testing.T) {
		t.Parallel()
		b, err := json.Marshal(ClassifyCRAG("q", 0.8))
		require.NoError(t, err)
		assert.JSONEq(t, `{"classification":"correct","confidence":0.8,"action":{"type":"use_retrieved"}}`, string(b))
	})
}

// TestOneCRAGClassifier: the context profile's card and the research
// workflow route with the same classifier at seed 002's thresholds, whatever
// pass rule a context profile writes for its status.
func TestOneCRAGClassifier(t *testing.T) {
	t.Parallel()
	builtIn, err := LoadProfile("context")
	require.NoError(t, err)
	strict, err := ParseProfile("strict.yaml", []byte("name: strict\nkind: context\npass:\n  threshold: 0.9\n  fail_at_or_below: 0.5\nscorers:\n  - metric: context_quality\n    max: 1\n"))
	require.NoError(t, err)
	tests := map[string]struct {
		profile *Profile
		overall float64
		want    CRAGClass
	}{
		"built-in at 0.7 is correct":                   {builtIn, 0.7, CRAGCorrect},
		"built-in at 0.5 is ambiguous":                 {builtIn, 0.5, CRAGAmbiguous},
		"built-in at 0.3 is incorrect":                 {builtIn, 0.3, CRAGIncorrect},
		"a stricter pass rule: 0.7 is still correct":   {strict, 0.7, CRAGCorrect},
		"a stricter pass rule: 0.4 is still ambiguous": {strict, 0.4, CRAGAmbiguous},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			card := eval.Card{Profile: tc.profile.Name, Scores: []eval.Score{{Metric: "context_quality",
				Evidence: eval.Evidence{Counts: map[string]float64{"overall": tc.overall}}}}}
			v := NewContextView(tc.profile, card, eval.Sample{Query: "Compare cost and latency of hybrid search"})
			assert.Equal(t, tc.want, v.CRAG.Classification)
			assert.Equal(t, ClassifyCRAG("Compare cost and latency of hybrid search", tc.overall), v.CRAG)
		})
	}
}
