package heuristics

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/jsstr"
)

func ctxF64(f float64) *float64 { return &f }

func ctxChunk(id, text string, score float64) eval.Source {
	return eval.Source{ID: id, Text: text, Score: score}
}

func TestAssessContextMatchesSeedArithmetic(t *testing.T) {
	t.Parallel()
	// K's content: 12 words of facts, then 100 plain ones.
	facts := "Acme\u00a0Corp met Big Co on 2024-01-15 and on may 3, 2024" + strings.Repeat(" filler", 100)
	tests := map[string]struct {
		s    eval.Sample
		want ContextAssessment
	}{
		// Every sub-score is 0 without chunks and without context text.
		// overall = 0 -> very low.
		"no chunks and no context scores zero": {
			s:    eval.Sample{Query: "vector database latency"},
			want: ContextAssessment{Warning: WarnVeryLowConfidence},
		},
		// retrieval: scores [0.8] (no rerank) -> avg 0.8, spread 0.8/0.8 = 1
		//   -> 0.8*0.7 + 1*0.3 = 0.86.
		// sufficiency: nil context -> 0. diversity: one chunk -> 0.
		// faithfulness: "Vector search finds similar embeddings." has
		//   0 numbers, 0 dates, 1 proper noun ("Vector"), 5 words
		//   -> min(1/(5/100)*0.1, 1) = min(2, 1) = 1;
		//   min(0.8*1.5, 1) = 1 -> 1*0.4 + 1*0.6 = 1.
		// overall = 0.86*0.3 + 0 + 0 + 1*0.25 = 0.258 + 0.25 = 0.508;
		// not below 0.5, diversity 0 < 0.2 -> low diversity.
		"one chunk without rerank score and no context": {
			s: eval.Sample{
				Query:   "What is vector search?",
				Sources: []eval.Source{ctxChunk("doc-a", "Vector search finds similar embeddings.", 0.8)},
			},
			want: ContextAssessment{Overall: 0.508, RetrievalConfidence: 0.86, EstimatedFaithfulness: 1, Warning: WarnLowDiversity},
		},
		// retrieval: rerank ?? score = [0.6, 0.5, 0.3] -> avg 1.4/3 =
		//   0.466667, spread 0.3/0.6 = 0.5 -> 0.326667 + 0.15 = 0.476667.
		// sufficiency: terms alpha, gamma, omega; 2 of 3 in "alpha beta
		//   gamma" -> 0.666667*0.6 = 0.4; min(120/(3*50), 1) = 0.8 -> 0.32;
		//   0.4 + 0.32 = 0.72.
		// diversity: documents {d1, d2} -> 2/3; no section titles, so the
		//   documents again -> 2/3; 0.4 + 0.266667 = 0.666667.
		// faithfulness: "alpha beta gamma delta epsilon zeta" has no facts
		//   -> 0; first chunk's score (not rerank) 0.9*1.5 = 1.35 -> 1
		//   -> 0.6.
		// overall = 0.143 + 0.216 + 0.1 + 0.15 = 0.609, no warning.
		"rerank score replaces score where present": {
			s: eval.Sample{
				Query: "alpha gamma omega",
				Sources: []eval.Source{
					{ID: "d1", Text: "alpha beta", Score: 0.9, RerankScore: ctxF64(0.6)},
					ctxChunk("d2", "gamma delta", 0.5),
					{ID: "d1", Text: "epsilon zeta", Score: 0.4, RerankScore: ctxF64(0.3)},
				},
				Context: &eval.Context{Text: "alpha beta gamma", TokenCount: 120},
			},
			want: ContextAssessment{Overall: 0.609, RetrievalConfidence: 0.4766666666666667, ContextSufficiency: 0.72,
				DiversityScore: 0.6666666666666666, EstimatedFaithfulness: 0.6},
		},
		// retrieval: [0, 0.6] -> avg 0.3; top 0 is not > 0 -> spread 0
		//   -> 0.21.
		// diversity: d1, d2 -> 1*0.6 + 1*0.4 = 1.
		// faithfulness: content "" + " " + "" = " " splits into ["", ""]
		//   (2 words, no facts) -> 0; first score 0 -> 0.
		// overall = 0.063 + 0 + 0.15 + 0 = 0.213 -> very low.
		"zero top score gives no spread": {
			s: eval.Sample{
				Query:   "x",
				Sources: []eval.Source{ctxChunk("d1", "", 0), ctxChunk("d2", "", 0.6)},
			},
			want: ContextAssessment{Overall: 0.213, RetrievalConfidence: 0.21, DiversityScore: 1, Warning: WarnVeryLowConfidence},
		},
		// "what" and "the" are stop words, "is" is too short: no terms ->
		// sufficiency 0.5; overall = 0.5*0.3 = 0.15.
		"query of stop words only is neutral": {
			s:    eval.Sample{Query: "what is the", Context: &eval.Context{Text: "anything", TokenCount: 10}},
			want: ContextAssessment{Overall: 0.15, ContextSufficiency: 0.5, Warning: WarnVeryLowConfidence},
		},
		// "ai", "in", "ml", "vs" have two letters; the one term is "rag",
		// found in "(rag)" -> 1*0.6; min(25/50, 1) = 0.5 -> 0.2; 0.8.
		// overall = 0.8*0.3 = 0.24.
		"short words are not query terms": {
			s: eval.Sample{Query: "AI in ML vs RAG",
				Context: &eval.Context{Text: "Retrieval-augmented generation (RAG) grounds answers.", TokenCount: 25}},
			want: ContextAssessment{Overall: 0.24, ContextSufficiency: 0.8, Warning: WarnVeryLowConfidence},
		},
		// NBSP, EM SPACE and IDEOGRAPHIC SPACE separate: terms latency,
		// budget, cost, model; 2 of 4 in the context -> 0.3;
		// min(100/200, 1) = 0.5 -> 0.2; 0.5. overall = 0.15.
		"unicode whitespace splits the query": {
			s: eval.Sample{Query: "latency\u00a0budget\u2003cost\u3000model",
				Context: &eval.Context{Text: "the latency budget is fixed", TokenCount: 100}},
			want: ContextAssessment{Overall: 0.15, ContextSufficiency: 0.5, Warning: WarnVeryLowConfidence},
		},
		// U+0085 is not JavaScript whitespace: one term "cost\u0085latency",
		// not in the context -> 0; min(50/50, 1) = 1 -> 0.4. overall 0.12.
		"next line character does not split the query": {
			s:    eval.Sample{Query: "cost\u0085latency", Context: &eval.Context{Text: "cost latency", TokenCount: 50}},
			want: ContextAssessment{Overall: 0.12, ContextSufficiency: 0.4, Warning: WarnVeryLowConfidence},
		},
		// "ΟΔΟΣ" lower-cases to "οδος" with a final sigma, so the term is
		// found: 0.6 + 0.4 = 1; overall = 0.3, which is not below 0.3 ->
		// moderate.
		"capital sigma at a word end becomes final sigma": {
			s:    eval.Sample{Query: "οδος", Context: &eval.Context{Text: "ΟΔΟΣ", TokenCount: 50}},
			want: ContextAssessment{Overall: 0.3, ContextSufficiency: 1, Warning: WarnModerateConfidence},
		},
		// "İSTANBUL" lower-cases to "i\u0307stanbul", which does not contain
		// "istanbul": 0 + 0.4 = 0.4; overall 0.12.
		"dotted capital I keeps its dot": {
			s:    eval.Sample{Query: "istanbul", Context: &eval.Context{Text: "İSTANBUL", TokenCount: 50}},
			want: ContextAssessment{Overall: 0.12, ContextSufficiency: 0.4, Warning: WarnVeryLowConfidence},
		},
		// retrieval: four 0.5 -> 0.35 + 0.3 = 0.65.
		// diversity: one document -> 1/4*0.6 = 0.15; sections "1" (string),
		//   1 (number), d1 (no metadata), d1 (null title) -> 3/4*0.4 = 0.3;
		//   0.45.
		// faithfulness: "   " is one whitespace run -> 2 words, no facts;
		//   min(0.5*1.5, 1) = 0.75 -> 0.45.
		// overall = 0.195 + 0 + 0.0675 + 0.1125 = 0.375 -> moderate.
		"section titles: string, number, absent and null": {
			s: eval.Sample{
				Query: "q",
				Sources: []eval.Source{
					{ID: "d1", Score: 0.5, Metadata: map[string]any{"sectionTitle": "1"}},
					{ID: "d1", Score: 0.5, Metadata: map[string]any{"sectionTitle": 1.0}},
					{ID: "d1", Score: 0.5},
					{ID: "d1", Score: 0.5, Metadata: map[string]any{"sectionTitle": nil}},
				},
			},
			want: ContextAssessment{Overall: 0.375, RetrievalConfidence: 0.65, DiversityScore: 0.45,
				EstimatedFaithfulness: 0.45, Warning: WarnModerateConfidence},
		},
		// retrieval: 0.5 -> 0.35 + 0.3 = 0.65.
		// faithfulness: numbers 2024, 01, 15, 3, 2024 = 5; dates
		//   "2024-01-15" and "may 3, 2024" = 2 (counted twice); proper
		//   nouns "Acme\u00a0Corp" (NBSP is \s) and "Big Co" = 2; words 12 +
		//   100 = 112. min((5 + 4 + 2)/(112/100)*0.1, 1) = 0.982143 -> 0.392857;
		//   min(0.5*1.5, 1) = 0.75 -> 0.45; 0.842857.
		// overall = 0.195 + 0.842857*0.25 = 0.405714 -> moderate.
		"factual density counts numbers, both date forms and proper nouns": {
			s:    eval.Sample{Query: "q", Sources: []eval.Source{ctxChunk("d1", facts, 0.5)}},
			want: ContextAssessment{Overall: 0.4057142857142857, RetrievalConfidence: 0.65, EstimatedFaithfulness: 0.8428571428571429, Warning: WarnModerateConfidence},
		},
		// Scores above 1 are not clamped: 1.2*0.7 + 1*0.3 = 1.14;
		// faithfulness min(1.8, 1)*0.6 = 0.6; overall = 0.342 + 0.15 = 0.492.
		"score above one is used as it is": {
			s:    eval.Sample{Query: "q", Sources: []eval.Source{ctxChunk("d1", "", 1.2)}},
			want: ContextAssessment{Overall: 0.492, RetrievalConfidence: 1.14, EstimatedFaithfulness: 0.6, Warning: WarnModerateConfidence},
		},
		// Empty context text scores 0 whatever the token count; the rest
		// as "one chunk" with a 0.5 score and content "x": retrieval 0.65,
		// faithfulness 0 facts in 1 word -> 0 + 0.45. overall = 0.195 +
		// 0.1125 = 0.3075 -> moderate.
		"empty context text scores zero sufficiency": {
			s: eval.Sample{Query: "latency", Sources: []eval.Source{ctxChunk("d1", "x", 0.5)},
				Context: &eval.Context{Text: "", TokenCount: 900}},
			want: ContextAssessment{Overall: 0.3075, RetrievalConfidence: 0.65, EstimatedFaithfulness: 0.45, Warning: WarnModerateConfidence},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := AssessContext(tc.s)
			assert.InDelta(t, tc.want.Overall, got.Overall, 1e-9, "overall")
			assert.InDelta(t, tc.want.RetrievalConfidence, got.RetrievalConfidence, 1e-9, "retrieval confidence")
			assert.InDelta(t, tc.want.ContextSufficiency, got.ContextSufficiency, 1e-9, "context sufficiency")
			assert.InDelta(t, tc.want.DiversityScore, got.DiversityScore, 1e-9, "diversity")
			assert.InDelta(t, tc.want.EstimatedFaithfulness, got.EstimatedFaithfulness, 1e-9, "estimated faithfulness")
			assert.Equal(t, tc.want.Warning, got.Warning)
		})
	}
}

func TestContextQualityScore(t *testing.T) {
	t.Parallel()
	s := eval.Sample{
		Query: "alpha gamma omega",
		Sources: []eval.Source{
			{ID: "d1", Text: "alpha beta", Score: 0.9, RerankScore: ctxF64(0.6)},
			ctxChunk("d2", "gamma delta", 0.5),
			{ID: "d1", Text: "epsilon zeta", Score: 0.4, RerankScore: ctxF64(0.3)},
		},
		Context: &eval.Context{Text: "alpha beta gamma", TokenCount: 120},
	}

	t.Run("reports the overall out of 1 with the sub-scores as evidence", func(t *testing.T) {
		t.Parallel()
		sc, err := ContextQuality{}.Score(context.Background(), s)
		require.NoError(t, err)
		assert.Equal(t, "context_quality", sc.Metric)
		assert.Equal(t, "heuristic", sc.Method)
		assert.InDelta(t, 0.609, sc.Value, 1e-9)
		assert.InDelta(t, 0.609, sc.Points, 1e-9)
		assert.Equal(t, 1.0, sc.Max)
		assert.Equal(t, "overall 0.609: retrieval confidence 0.477, context sufficiency 0.720, diversity 0.667, estimated faithfulness 0.600", sc.Reason)
		require.Len(t, sc.Evidence.Counts, 5)
		for key, want := range map[string]float64{
			"retrieval_confidence": 0.4766666666666667, "context_sufficiency": 0.72, "diversity_score": 0.6666666666666666,
			"estimated_faithfulness": 0.6, "overall": 0.609,
		} {
			assert.InDelta(t, want, sc.Evidence.Counts[key], 1e-9, key)
		}
	})

	t.Run("the warning is the reason when there is one", func(t *testing.T) {
		t.Parallel()
		sc, err := ContextQuality{}.Score(context.Background(), eval.Sample{Query: "q"})
		require.NoError(t, err)
		assert.Equal(t, WarnVeryLowConfidence, sc.Reason)
		assert.Zero(t, sc.Value)
	})

	t.Run("weights replace the defaults", func(t *testing.T) {
		t.Parallel()
		// Only retrieval confidence counts: overall = 0.476667.
		a := ContextQuality{Weights: ContextWeights{RetrievalConfidence: 1}}.Assess(s)
		assert.InDelta(t, 0.4766666666666667, a.Overall, 1e-9)
		assert.Equal(t, WarnModerateConfidence, a.Warning)
	})

	t.Run("non-finite scores are an error", func(t *testing.T) {
		t.Parallel()
		_, err := ContextQuality{}.Score(context.Background(), eval.Sample{Sources: []eval.Source{ctxChunk("d", "", math.NaN())}})
		require.ErrorContains(t, err, "not finite")
	})

	t.Run("a cancelled context stops it", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := ContextQuality{}.Score(ctx, s)
		require.ErrorIs(t, err, context.Canceled)
	})

	t.Run("the assessment encodes with the seed's field names", func(t *testing.T) {
		t.Parallel()
		b, err := json.Marshal(ContextAssessment{Overall: 0.5, RetrievalConfidence: 0.25})
		require.NoError(t, err)
		assert.JSONEq(t, `{"overall":0.5,"retrievalConfidence":0.25,"contextSufficiency":0,"diversityScore":0,"estimatedFaithfulness":0}`, string(b))
	})
}

func TestContextQueryTerms(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query string
		want  []string
	}{
		"stop words and short words go":       {"What is the cost of RAG in AI", []string{"cost", "rag"}},
		"duplicates stay":                     {"cost cost", []string{"cost", "cost"}},
		"leading and trailing space add none": {"  latency  ", []string{"latency"}},
		"punctuation stays on the word":       {"latency?", []string{"latency?"}},
		"unicode whitespace separates":        {"a\u00a0cost\u2028latency\ufeffbudget\u1680model", []string{"cost", "latency", "budget", "model"}},
		"next line does not separate":         {"cost\u0085latency", []string{"cost\u0085latency"}},
		// "ab😀" is 4 UTF-16 units (the emoji is a surrogate pair), "éé"
		// is 2.
		"length counts UTF-16 units": {"ab😀 éé", []string{"ab😀"}},
		"empty query has no terms":   {"", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, slices.Collect(contextQueryTerms(tc.query)))
		})
	}
}

// jsSplitSpace is s.split(/\s+/), as jsFields yields it.
func jsSplitSpace(s string) []string { return slices.Collect(jsFields(s)) }

func TestJSSplitSpace(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want []string
	}{
		"empty string is one empty field": {"", []string{""}},
		"space only is two empty fields":  {" ", []string{"", ""}},
		"edges give empty fields":         {" a ", []string{"", "a", ""}},
		"runs of mixed spaces split once": {"a \t\u00a0\u3000b", []string{"a", "b"}},
		"line terminators split":          {"a\u2028b\u2029c\r\nd", []string{"a", "b", "c", "d"}},
		"zero width space does not split": {"a\u200bb", []string{"a\u200bb"}},
		"U+180E does not split":           {"a\u180eb", []string{"a\u180eb"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, jsSplitSpace(tc.in))
			assert.Equal(t, len(tc.want), countJSFields(tc.in))
		})
	}
}

func TestJSToLower(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"ascii":                                  {"Hello WORLD", "hello world"},
		"dotted capital I gains a combining dot": {"İstanbul", "i\u0307stanbul"},
		"sigma at word end is final":             {"ΟΔΟΣ ΟΔΟΣ.", "οδος οδος."},
		"sigma inside a word is not":             {"ΣΟΣΟ", "σοσο"},
		"lone sigma is not final":                {"Σ", "σ"},
		"sigma after a space is not final":       {"Α Σ", "α σ"},
		// U+0345 is both cased and case-ignorable; ICU skips it.
		"ignorable marks are skipped both ways":   {"Α\u0345Σ", "α\u0345ς"},
		"a cased letter after the marks keeps σ":  {"ΑΣ\u0345Β", "ασ\u0345β"},
		"modifier letter does not count as cased": {"\u02b0Σ", "\u02b0σ"},
		"sharp s and other letters map simply":    {"ẞÉ", "ßé"},
		"invalid UTF-8 reads as U+FFFD":           {"A\xffB", "a\uFFFDb"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, jsToLower(tc.in))
		})
	}
}

// FuzzJSStrings checks the split against a regular expression of
// JavaScript's whitespace, and the lower-casing against a rune by rune
// mapping where neither special case (U+0130, U+03A3) occurs.
func FuzzJSStrings(f *testing.F) {
	for _, s := range []string{"Hello WORLD", "a \t\u00a0\u3000b", "A\xffB\u2028c", " Ab CD ", "ÉCOLE Été"} {
		f.Add(s)
	}
	spaces := regexp.MustCompile(`[` + jsstr.SpaceClass + `]+`)
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, spaces.Split(s, -1), jsSplitSpace(s), "split of %q", s)
		if strings.ContainsAny(s, "\u0130\u03a3") {
			return
		}
		var want strings.Builder
		for _, r := range s {
			want.WriteRune(unicode.ToLower(r))
		}
		require.Equal(t, want.String(), jsToLower(s), "lower case of %q", s)
	})
}

func TestSourceDiversityUsesJavaScriptSetEquality(t *testing.T) {
	t.Parallel()
	withTitle := func(id string, title any) eval.Source {
		return eval.Source{ID: id, Metadata: map[string]any{"sectionTitle": title}}
	}
	tests := map[string]struct {
		chunks []eval.Source
		want   float64
	}{
		// docs {a, b} -> 1*0.6; sections {"b"} (a's title equals b's id)
		// -> 1/2*0.4 = 0.2; 0.8.
		"a title equal to another chunk's document id is the same section": {
			[]eval.Source{withTitle("a", "b"), {ID: "b"}}, 0.8,
		},
		// docs {d} -> 0.5*0.6 = 0.3; sections {2} -> 0.2; 0.5.
		"int and float of the same value are one section": {
			[]eval.Source{withTitle("d", 2), withTitle("d", 2.0)}, 0.5,
		},
		// sections {true, "true"} -> 1*0.4; 0.3 + 0.4 = 0.7.
		"boolean and string are different sections": {
			[]eval.Source{withTitle("d", true), withTitle("d", "true")}, 0.7,
		},
		// sections {0}: -0 and 0 are one -> 0.3 + 0.2 = 0.5.
		"negative zero is zero": {
			[]eval.Source{withTitle("d", math.Copysign(0, -1)), withTitle("d", 0.0)}, 0.5,
		},
		// objects are only equal to themselves -> 2 sections: 0.3 + 0.4.
		"each object is its own section": {
			[]eval.Source{withTitle("d", map[string]any{}), withTitle("d", map[string]any{})}, 0.7,
		},
		// an empty title is a title: sections {"", "d"} -> 0.3 + 0.4.
		"empty string title does not fall back": {
			[]eval.Source{withTitle("d", ""), {ID: "d"}}, 0.7,
		},
		"one chunk scores zero": {[]eval.Source{{ID: "d"}}, 0},
		// 40 chunks, past distinctByScan: docs d0..d9 -> 10/40*0.6 =
		// 0.15; sections s0..s4 -> 5/40*0.4 = 0.05; 0.2.
		"many chunks": {manyChunks(40, 10, 5), 0.2},
		// 16 chunks, the most compared one by one: 8/16*0.6 + 4/16*0.4.
		"as many chunks as are scanned": {manyChunks(16, 8, 4), 0.4},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, chunkDiversity(tc.chunks), 1e-9)
		})
	}
}

// manyChunks is n chunks from docs documents and sections sections, in
// turn.
func manyChunks(n, docs, sections int) []eval.Source {
	out := make([]eval.Source, n)
	for i := range out {
		out[i] = eval.Source{ID: fmt.Sprintf("d%d", i%docs), Metadata: map[string]any{"sectionTitle": fmt.Sprintf("s%d", i%sections)}}
	}
	return out
}

func TestDistinct(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 5, distinctByScan, distinctByScan + 1, 100} {
		keys := make([]int, n)
		want := map[int]bool{}
		for i := range keys {
			keys[i] = i * 7 % 13 // 13 values at most, in no order
			want[keys[i]] = true
		}
		assert.Equal(t, len(want), distinct(n, func(i int) int { return keys[i] }), "n %d", n)
	}
}

// The seed's patterns, as Go regexps: \d, \w and [A-Z] are ASCII in both
// languages; \s in the proper-noun pattern is spelled out as JavaScript's.
// They are the reference the hand-written counters are tested against.
var (
	seedNumberPattern     = regexp.MustCompile(`[0-9]+`)
	seedDatePattern       = regexp.MustCompile(`[0-9]{4}[-/][0-9]{2}[-/][0-9]{2}|[0-9A-Za-z_]+ [0-9]{1,2},? [0-9]{4}`)
	seedProperNounPattern = regexp.MustCompile(`[A-Z][a-z]+(?:[` + jsstr.SpaceClass + `][A-Z][a-z]+)*`)
)

func TestFactCounters(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in                    string
		numbers, dates, nouns int
	}{
		"iso dates with either separator":   {"2024-01-15 and 2023/12/31", 6, 2, 0},
		"mixed separators still match":      {"2024-01/15", 3, 1, 0},
		"short iso date is not a date":      {"2024-1-15", 3, 0, 0},
		"prose date with and without comma": {"March 3, 2024 and May 12 2020", 4, 2, 2},
		"three-digit day is not a date":     {"on 123 2024", 2, 0, 0},
		// "on 2024-01-15": the word run "on" is followed by a 4-digit run,
		// so the prose form fails and the ISO form matches at "2024".
		"iso date after a word": {"on 2024-01-15", 3, 1, 0},
		// The prose form's \w+ starts at "x2024", not inside it.
		"digits inside a word count once":      {"x2024 5, 1999", 3, 1, 0},
		"proper nouns across NBSP count once":  {"Acme\u00a0Corp and Big Co", 0, 0, 2},
		"two spaces break a proper noun":       {"New  York", 0, 0, 2},
		"capitals need a lower-case letter":    {"NASA and Ab", 0, 0, 1},
		"accented letters end a proper noun":   {"Café", 0, 0, 1},
		"next line does not join proper nouns": {"New\u0085York", 0, 0, 2},
		"empty":                                {"", 0, 0, 0},
		// Each pattern searches on from its own last match: the prose date
		// starts where the ISO date ended, inside a word.
		"a date right after a date":          {"2024-01-15abc 5, 2020", 5, 2, 0},
		"a proper noun starts inside a word": {"ABc Def", 0, 0, 1},
		"an iso date inside a prose date":    {"May 12, 2020-01-01", 4, 1, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.numbers, countFactNumbers(tc.in), "numbers")
			assert.Equal(t, tc.dates, countFactDates(tc.in), "dates")
			assert.Equal(t, tc.nouns, countFactProperNouns(tc.in), "proper nouns")
			assert.Equal(t, tc.numbers, len(seedNumberPattern.FindAllStringIndex(tc.in, -1)), "reference numbers")
			assert.Equal(t, tc.dates, len(seedDatePattern.FindAllStringIndex(tc.in, -1)), "reference dates")
			assert.Equal(t, tc.nouns, len(seedProperNounPattern.FindAllStringIndex(tc.in, -1)), "reference proper nouns")
		})
	}
}

// FuzzFactCounters checks the hand-written counters against the seed's
// regular expressions, and the field counter against the splitter.
func FuzzFactCounters(f *testing.F) {
	for _, s := range []string{
		"Acme\u00a0Corp shipped v2 on 2024-01-15 and March 3, 2024.",
		"x2024 5, 1999 12 2020-01-01", "ab 1, 2024-01-01", "A\u2028Bc De\u3000Fg", " a  b ", "1999/12/31/2000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, len(seedNumberPattern.FindAllStringIndex(s, -1)), countFactNumbers(s), "numbers in %q", s)
		require.Equal(t, len(seedDatePattern.FindAllStringIndex(s, -1)), countFactDates(s), "dates in %q", s)
		require.Equal(t, len(seedProperNounPattern.FindAllStringIndex(s, -1)), countFactProperNouns(s), "proper nouns in %q", s)
		require.Equal(t, len(jsSplitSpace(s)), countJSFields(s), "fields in %q", s)
	})
}

// TestContextFiguresAreFmts: the reason of a card without a warning reads
// as fmt's %.3f writes each figure, rounding, negatives and large values
// included.
func TestContextFiguresAreFmts(t *testing.T) {
	t.Parallel()
	for _, a := range []ContextAssessment{
		{},
		{Overall: 0.609, RetrievalConfidence: 0.4766666666666667, ContextSufficiency: 0.72, DiversityScore: 0.6666666666666666, EstimatedFaithfulness: 0.6},
		{Overall: 0.0005, RetrievalConfidence: -0.0004, ContextSufficiency: 1.2345, DiversityScore: 1e21, EstimatedFaithfulness: math.Copysign(0, -1)},
	} {
		want := fmt.Sprintf("overall %.3f: retrieval confidence %.3f, context sufficiency %.3f, diversity %.3f, estimated faithfulness %.3f",
			a.Overall, a.RetrievalConfidence, a.ContextSufficiency, a.DiversityScore, a.EstimatedFaithfulness)
		assert.Equal(t, want, a.figures())
	}
}

// estimatedFaithfulnessAllCounts is estimatedFaithfulness with every count
// made: the reference for the one that stops at the density's cap.
func estimatedFaithfulnessAllCounts(chunks []eval.Source) float64 {
	all := joinTexts(chunks)
	facts := countFactNumbers(all) + 2*countFactDates(all) + countFactProperNouns(all)
	words := float64(countJSFields(all))
	density := min(float64(float64(facts)/(words/100))*faithDensityScale, 1)
	confidence := min(chunks[0].Score*faithScoreScale, 1)
	return float64(density*faithDensityWeight) + float64(confidence*faithScoreWeight)
}

// TestFaithfulnessStopsCountingAtTheCap: the estimate is the same whether
// the counts stop at the density's cap or not, for texts whose density
// is reached by their numbers alone, by their proper nouns, only with
// their dates, or never.
func TestFaithfulnessStopsCountingAtTheCap(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"numbers alone reach it":      "In 2021 there were 14 sites, 3 labs and 27 staff on 5 floors.",
		"proper nouns reach it":       "Ada Lovelace met Charles Babbage in London with Mary Somerville.",
		"dates are needed":            "signed on 2024-01-15 " + strings.Repeat("and then ", 28),
		"never reached":               "the quick brown fox jumps over the lazy dog and then it sleeps for a while in the warm sun of the late afternoon",
		"just under the cap":          "one two three four five six seven eight nine 10",
		"empty":                       "",
		"thai with a number":          "ปี 2024 มีผู้ใช้ 5 ล้านคน",
		"exactly at the cap, 1 in 10": "a b c d e f g h i 7",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			chunks := []eval.Source{{Text: text, Score: 0.5}, {Text: "Berlin 1999", Score: 0.4}}
			assert.Equal(t, estimatedFaithfulnessAllCounts(chunks), estimatedFaithfulness(chunks))
		})
	}
}

// FuzzFaithfulnessStopsCountingAtTheCap: any text, the same estimate.
func FuzzFaithfulnessStopsCountingAtTheCap(f *testing.F) {
	for _, s := range []string{"In 2021 14 sites", "Ada Lovelace 2024-01-15", "plain words only here", "May 12, 2020"} {
		f.Add(s, 0.5)
	}
	f.Fuzz(func(t *testing.T, s string, score float64) {
		chunks := []eval.Source{{Text: s, Score: score}}
		want, got := estimatedFaithfulnessAllCounts(chunks), estimatedFaithfulness(chunks)
		if math.IsNaN(want) {
			require.True(t, math.IsNaN(got))
			return
		}
		require.Equal(t, want, got, "estimate of %q", s)
	})
}

func TestJSClassSpaceShift(t *testing.T) {
	t.Parallel()
	assert.Equal(t, jsClassSpace, byte(1)<<jsClassSpaceShift)
}
