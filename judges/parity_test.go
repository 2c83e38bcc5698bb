package judges

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// The tests in this file pin each judge's value to a hand-computed figure
// under RAGAS's definitions, with a scripted model, and each judge's
// neutral default when the model fails.

// sources builds n contexts c1..cn with the given texts.
func sources(texts ...string) []eval.Source {
	out := make([]eval.Source, len(texts))
	for i, t := range texts {
		out[i] = eval.Source{ID: fmt.Sprintf("c%d", i+1), Text: t}
	}
	return out
}

// usefulReply is a context.precision reply judging c1..cn as given.
func usefulReply(useful ...bool) string {
	var vs []string
	for i, u := range useful {
		vs = append(vs, fmt.Sprintf(`{"context":"c%d","useful":%t,"reason":"r%d"}`, i+1, u, i+1))
	}
	return `{"verdicts":[` + strings.Join(vs, ",") + `]}`
}

func TestEveryJudgeDefaultsToNeutralOnModelFailure(t *testing.T) {
	t.Parallel()
	down := []string{"ERR:model down", "ERR:model down", "ERR:model down"}
	tests := map[string]struct {
		judge   func(Model) eval.Scorer
		replies map[string][]string
		points  float64
		max     float64
	}{
		"faithfulness, claim extraction fails": {
			judge:   func(m Model) eval.Scorer { return Faithfulness{Model: m} },
			replies: map[string][]string{"faithfulness.claims": down}, points: 0.5, max: 1,
		},
		"faithfulness, verification fails": {
			judge: func(m Model) eval.Scorer { return Faithfulness{Model: m} },
			replies: map[string][]string{
				"faithfulness.claims": {`{"claims":["Completed in 1889."]}`}, "faithfulness.verify": down,
			}, points: 0.5, max: 1,
		},
		"answer relevancy, question generation fails": {
			judge:   func(m Model) eval.Scorer { return AnswerRelevancy{Model: m} },
			replies: map[string][]string{"relevancy.questions": down}, points: 0.5, max: 1,
		},
		"answer relevancy grade, the 1-5 grade fails": {
			judge:   func(m Model) eval.Scorer { return AnswerRelevancyGrade{Model: m} },
			replies: map[string][]string{"relevancy.rate": down}, points: 2.5, max: 5,
		},
		"context precision": {
			judge:   func(m Model) eval.Scorer { return ContextPrecision{Model: m} },
			replies: map[string][]string{"context.precision": down}, points: 0.5, max: 1,
		},
		"context recall": {
			judge:   func(m Model) eval.Scorer { return ContextRecall{Model: m} },
			replies: map[string][]string{"faithfulness.verify": down}, points: 0.5, max: 1,
		},
		"completeness": {
			judge:   func(m Model) eval.Scorer { return Completeness{Model: m} },
			replies: map[string][]string{"completeness": down}, points: 0.5, max: 1,
		},
		"completeness on a 2-point card": {
			judge:   func(m Model) eval.Scorer { return Completeness{Model: m, Max: 2} },
			replies: map[string][]string{"completeness": down}, points: 1, max: 2,
		},
		"source relevance, every source fails": {
			judge:   func(m Model) eval.Scorer { return SourceRelevance{Model: m} },
			replies: map[string][]string{"source.relevance": down}, points: 3, max: 5,
		},
		"reasoning": {
			judge:   func(m Model) eval.Scorer { return Reasoning{Model: m} },
			replies: map[string][]string{"reasoning": down}, points: 50, max: 100,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: tc.replies}
			sc, err := tc.judge(m).Score(context.Background(), ragSample)
			require.NoError(t, err, "a model failure is data, not an error")
			assert.True(t, sc.Defaulted)
			assert.InDelta(t, 0.5, sc.Value, 1e-9)
			assert.InDelta(t, tc.points, sc.Points, 1e-9)
			assert.InDelta(t, tc.max, sc.Max, 1e-9)
			require.Error(t, sc.Err)
			assert.Contains(t, sc.Err.Error(), "model down")
			assert.True(t, strings.HasPrefix(sc.Method, "llm:fake:judge"), sc.Method)
			assert.NotEmpty(t, sc.Metric)
			if sc.Metric == MetricSourceRelevance {
				assert.Contains(t, sc.Reason, "2 defaulted to 3")
				for _, r := range sc.Evidence.Sources {
					assert.Equal(t, 3.0, r.Rating)
					assert.Contains(t, r.Basis, "model down")
				}
				return
			}
			assert.Contains(t, sc.Reason, "neutral grade 3 of 5")
			assert.Contains(t, sc.Reason, "model down")
		})
	}
}

func TestContextPrecisionAveragePrecisionThroughTheJudge(t *testing.T) {
	t.Parallel()
	four := sources("a", "b", "c", "d")
	tests := map[string]struct {
		sources []eval.Source
		useful  []bool
		value   float64
	}{
		"single context, useful":      {sources("a"), []bool{true}, 1},
		"single context, not useful":  {sources("a"), []bool{false}, 0},
		"all useful":                  {four, []bool{true, true, true, true}, 1},
		"none useful is 0, never NaN": {four, []bool{false, false, false, false}, 0},
		// (1/2 + 2/3) / 2
		"useful at ranks 2 and 3": {four, []bool{false, true, true, false}, (0.5 + 2.0/3) / 2},
		// (1/1 + 2/4) / 2
		"useful at ranks 1 and 4": {four, []bool{true, false, false, true}, 0.75},
		// Same count of useful contexts, ranked lower: a lower value.
		"useful at ranks 3 and 4": {four, []bool{false, false, true, true}, (1.0/3 + 2.0/4) / 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := ragSample
			s.Sources = tc.sources
			m := &fakeModel{replies: map[string][]string{"context.precision": {usefulReply(tc.useful...)}}}
			sc, err := ContextPrecision{Model: m}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.InDelta(t, tc.value, sc.Points, 1e-9)
			assert.False(t, sc.Defaulted)
			require.Len(t, sc.Evidence.Sources, len(tc.sources))
		})
	}
}

func TestContextPrecisionEmptyContextsIsAnError(t *testing.T) {
	t.Parallel()
	s := ragSample
	s.Sources = nil
	m := &fakeModel{replies: map[string][]string{}}
	_, err := ContextPrecision{Model: m}.Score(context.Background(), s)
	require.ErrorIs(t, err, ErrNoContexts)
	assert.Empty(t, m.calls)
}

func TestContextRecallValues(t *testing.T) {
	t.Parallel()
	// ragSample's reference splits into two statements.
	tests := map[string]struct {
		reply  string
		value  float64
		reason string
	}{
		"both statements attributable": {
			reply: `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""},{"statement":2,"verdict":"supported","context":"c2","reason":""}]}`,
			value: 1, reason: "2 of 2 claims supported by the contexts",
		},
		"one of two": {
			reply: `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""},{"statement":2,"verdict":"unsupported","context":"","reason":""}]}`,
			value: 0.5, reason: "1 of 2 claims supported by the contexts",
		},
		"none attributable": {
			reply: `{"verdicts":[{"statement":1,"verdict":"unsupported","context":"","reason":""},{"statement":2,"verdict":"contradicted","context":"","reason":""}]}`,
			value: 0, reason: "0 of 2 claims supported by the contexts",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: map[string][]string{"faithfulness.verify": {tc.reply}}}
			sc, err := ContextRecall{Model: m}.Score(context.Background(), ragSample)
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.Equal(t, tc.reason, sc.Reason)
			assert.NoError(t, sc.Err)
			assert.Len(t, m.calls, 1)
		})
	}
}

func TestSourceRelevanceGrades(t *testing.T) {
	t.Parallel()
	g := func(n int) string { return fmt.Sprintf(`{"grade":%d,"reason":"g%d"}`, n, n) }
	tests := map[string]struct {
		sources []eval.Source
		grades  []string
		cutoff  int
		points  float64
		kept    float64
	}{
		"single source graded 5":            {sources("a"), []string{g(5)}, 0, 5, 1},
		"single source graded 1":            {sources("a"), []string{g(1)}, 0, 1, 0},
		"a grade equal to the cutoff stays": {sources("a", "b"), []string{g(3), g(3)}, 0, 3, 2},
		"a stricter cutoff":                 {sources("a", "b"), []string{g(3), g(3)}, 4, 3, 0},
		"all irrelevant":                    {sources("a", "b", "c"), []string{g(1), g(1), g(1)}, 0, 1, 0},
		"all relevant":                      {sources("a", "b", "c"), []string{g(5), g(5), g(5)}, 0, 5, 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := ragSample
			s.Sources = tc.sources
			// Every grade is the same within a case, or the case has one
			// source, so the order the parallel calls take them does not
			// matter.
			m := &fakeModel{replies: map[string][]string{"source.relevance": tc.grades}}
			sc, err := SourceRelevance{Model: m, Cutoff: tc.cutoff}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.InDelta(t, tc.points, sc.Points, 1e-9)
			assert.InDelta(t, (tc.points-1)/4, sc.Value, 1e-9)
			assert.Equal(t, 5.0, sc.Max)
			assert.Equal(t, tc.kept, sc.Evidence.Counts["kept"])
			assert.False(t, sc.Defaulted)
			require.Len(t, sc.Evidence.Sources, len(tc.sources))
			assert.Equal(t, "c1", sc.Evidence.Sources[0].URL, "a source without a URL is named by its id")
		})
	}
}

func TestFaithfulnessEdgeCases(t *testing.T) {
	t.Parallel()
	two := `{"claims":["The tower is 330 metres tall.","It was completed in 1889."]}`
	tests := map[string]struct {
		sources        []eval.Source
		claims, verify []string
		value          float64
		calls          int
		reason         string
		counts         map[string]float64
		err            error
		skipped        bool
	}{
		"no claims is skipped, flagged with ErrNoClaims, never NaN nor 1": {
			sources: ragSample.Sources, claims: []string{`{"claims":[]}`}, value: 0, calls: 1, err: eval.ErrNoClaims, skipped: true,
			reason: "skipped, not scored: no verifiable claims: the answer states nothing the contexts could support or contradict",
		},
		"a repeated claim is verified and counted once": {
			sources: ragSample.Sources,
			claims:  []string{`{"claims":["The tower is 330 metres tall.","the tower is  330 metres tall","It was completed in 1899."]}`},
			verify: []string{`{"verdicts":[{"statement":1,"verdict":"supported","context":"c2","reason":""},` +
				`{"statement":2,"verdict":"contradicted","context":"","reason":"1889"}]}`},
			value: 0.5, calls: 2,
			reason: "1 of 2 claims supported by the contexts; 1 repeated claim counted once",
			counts: map[string]float64{"claims": 2, "supported": 1, "duplicates": 1},
		},
		"conflicting verdicts for one statement: the worse one holds": {
			sources: ragSample.Sources, claims: []string{two},
			verify: []string{`{"verdicts":[{"statement":1,"verdict":"unsupported","context":"","reason":""},` +
				`{"statement":1,"verdict":"supported","context":"c2","reason":""},{"statement":2,"verdict":"supported","context":"c1","reason":""}]}`},
			value: 0.5, calls: 2, reason: "1 of 2 claims supported by the contexts; 1 claim given more than one verdict, the worse kept",
			counts: map[string]float64{"claims": 2, "supported": 1, "repeated_verdicts": 1},
		},
		"a verdict for a statement never asked about is an invalid reply, repaired": {
			sources: ragSample.Sources, claims: []string{two},
			verify: []string{`{"verdicts":[{"statement":1,"verdict":"supported","context":"c2","reason":""},{"statement":2,"verdict":"supported","context":"c1","reason":""},` +
				`{"statement":3,"verdict":"unsupported","context":"","reason":""}]}`,
				`{"verdicts":[{"statement":1,"verdict":"supported","context":"c2","reason":""},{"statement":2,"verdict":"supported","context":"c1","reason":""}]}`},
			value: 1, calls: 3, reason: "2 of 2 claims supported by the contexts",
			counts: map[string]float64{"claims": 2, "supported": 2},
		},
		"single context": {
			sources: sources("The tower is 330 metres tall."), claims: []string{two},
			verify: []string{`{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""},{"statement":2,"verdict":"unsupported","context":"","reason":""}]}`},
			value:  0.5, calls: 2, reason: "1 of 2 claims supported by the contexts",
			counts: map[string]float64{"claims": 2, "supported": 1},
		},
		"no contexts: nothing supports the claims, and no call asks": {
			sources: nil, claims: []string{two}, value: 0, calls: 1,
			reason: "0 of 2 claims supported by the contexts; the sample has no context text to support them",
			counts: map[string]float64{"claims": 2, "supported": 0},
		},
		"blank contexts are no contexts": {
			sources: sources("", "  "), claims: []string{two}, value: 0, calls: 1,
			reason: "0 of 2 claims supported by the contexts; the sample has no context text to support them",
			counts: map[string]float64{"claims": 2, "supported": 0},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := ragSample
			s.Sources = tc.sources
			m := &fakeModel{replies: map[string][]string{"faithfulness.claims": tc.claims, "faithfulness.verify": tc.verify}}
			sc, err := Faithfulness{Model: m}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.False(t, sc.Defaulted, "%v", sc.Err)
			assert.Equal(t, tc.skipped, sc.Skipped)
			assert.Len(t, m.calls, tc.calls)
			assert.Equal(t, tc.reason, sc.Reason)
			assert.Equal(t, tc.counts, sc.Evidence.Counts)
			if tc.err != nil {
				require.ErrorIs(t, sc.Err, tc.err)
			} else {
				assert.NoError(t, sc.Err)
			}
		})
	}
}

func TestContextRecallWithoutContextsIsZeroWithoutACall(t *testing.T) {
	t.Parallel()
	s := ragSample
	s.Sources = nil
	m := &fakeModel{replies: map[string][]string{}}
	sc, err := ContextRecall{Model: m}.Score(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 0.0, sc.Value)
	assert.False(t, sc.Defaulted)
	assert.Empty(t, m.calls)
	assert.Equal(t, "0 of 2 claims supported by the contexts; the sample has no context text to support them", sc.Reason)
}

func TestAnswerRelevancyQuestionsAndCosines(t *testing.T) {
	t.Parallel()
	// The query embeds as (1, 0); each generated question as the vector
	// named in its text, so the cosines are known by hand.
	vecs := map[string][]float32{
		"same":     {1, 0},
		"other":    {0, 1},
		"opposite": {-1, 0},
		"near":     {0.6, 0.8}, // cosine 0.6
	}
	embed := func(texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			if i == 0 {
				out[i] = []float32{1, 0}
				continue
			}
			out[i] = vecs[t] // nil for a blank question: checkVectors rejects it
		}
		return out, nil
	}
	q := func(noncommittal bool, qs ...string) string {
		b, _ := json.Marshal(generated{Questions: qs, Noncommittal: noncommittal})
		return string(b)
	}
	tests := map[string]struct {
		n         int
		replies   []string
		value     float64
		questions []string
		calls     int
		reason    string
	}{
		"three questions, mean of the cosines": {
			replies: []string{q(false, "same", "other", "near")}, value: (1 + 0 + 0.6) / 3,
			questions: []string{"same", "other", "near"}, calls: 1,
		},
		"equal cosines": {
			replies: []string{q(false, "near", "near", "near")}, value: 0.6, questions: []string{"near", "near", "near"}, calls: 1,
		},
		"more questions than asked for: the first n count": {
			replies: []string{q(false, "same", "same", "same", "other", "other")}, value: 1,
			questions: []string{"same", "same", "same"}, calls: 1,
		},
		"strictness 5": {
			n: 5, replies: []string{q(false, "same", "same", "same", "other", "other")}, value: 3.0 / 5,
			questions: []string{"same", "same", "same", "other", "other"}, calls: 1,
		},
		"blank questions are dropped, not embedded": {
			replies: []string{q(false, "", "  ", "same")}, value: 1, questions: []string{"same"}, calls: 1,
		},
		"only blank questions is an invalid reply, repaired once": {
			replies: []string{q(false, "", " "), q(false, "near")}, value: 0.6, questions: []string{"near"}, calls: 2,
		},
		"a negative mean cosine is clipped to 0": {
			replies: []string{q(false, "opposite", "opposite", "other")}, value: 0,
			questions: []string{"opposite", "opposite", "other"}, calls: 1,
			reason: "mean cosine -0.67 between the query and 3 questions the answer answers, clipped to 0",
		},
		"noncommittal is 0 whatever the questions": {
			replies: []string{q(true, "same", "same", "same")}, value: 0, calls: 1, reason: "the answer is noncommittal",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: map[string][]string{"relevancy.questions": tc.replies}, embed: embed}
			sc, err := AnswerRelevancy{Model: m, Questions: tc.n}.Score(context.Background(), ragSample)
			require.NoError(t, err)
			assert.False(t, sc.Defaulted, "%v", sc.Err)
			assert.InDelta(t, tc.value, sc.Value, 1e-6, "float32 embeddings")
			assert.Equal(t, tc.questions, sc.Evidence.Issues)
			assert.Len(t, m.calls, tc.calls)
			n := tc.n
			if n == 0 {
				n = 3
			}
			assert.Contains(t, m.calls[0].Messages[0].Content, fmt.Sprintf("Write %d different questions", n))
			if tc.reason != "" {
				assert.Equal(t, tc.reason, sc.Reason)
			}
		})
	}
}

func TestAnswerRelevancyEmptyAnswerIsSkippedWithoutACall(t *testing.T) {
	t.Parallel()
	s := ragSample
	s.Answer = " \n "
	m := &fakeModel{replies: map[string][]string{}}
	sc, err := AnswerRelevancy{Model: m}.Score(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 0.0, sc.Value)
	assert.True(t, sc.Skipped)
	assert.False(t, sc.Defaulted)
	assert.ErrorIs(t, sc.Err, eval.ErrNoAnswer)
	assert.Empty(t, m.calls)
	assert.Equal(t, "skipped, not scored: no answer to judge", sc.Reason)
}

// TestContextPrecisionNamesWhatUsefulnessWasJudgedAgainst: RAGAS has two
// variants, with a reference (context_precision) and against the response
// (context utilization); the score says which ran, and with neither there
// is nothing to judge usefulness for.
func TestContextPrecisionNamesWhatUsefulnessWasJudgedAgainst(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		reference, answer string
		method            string
		prompt            string
	}{
		"with a reference": {
			reference: ragSample.Reference, answer: ragSample.Answer,
			method: "llm:fake:judge (vs reference)", prompt: ragSample.Reference,
		},
		"without a reference, against the answer": {
			answer: ragSample.Answer, method: "llm:fake:judge (vs answer, no reference)", prompt: ragSample.Answer,
		},
		"a blank reference is no reference": {
			reference: "  ", answer: ragSample.Answer, method: "llm:fake:judge (vs answer, no reference)", prompt: ragSample.Answer,
		},
		"neither is an error": {reference: " ", answer: "\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := ragSample
			s.Reference, s.Answer = tc.reference, tc.answer
			m := &fakeModel{replies: map[string][]string{"context.precision": {usefulReply(true, false)}}}
			sc, err := ContextPrecision{Model: m}.Score(context.Background(), s)
			if tc.method == "" {
				require.ErrorIs(t, err, ErrNoReference)
				assert.Empty(t, m.calls)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.method, sc.Method)
			assert.Equal(t, 1.0, sc.Value)
			require.Len(t, m.calls, 1)
			assert.Contains(t, m.calls[0].Messages[1].Content, tc.prompt)
		})
	}
}

func TestCompletenessValuesAndGaps(t *testing.T) {
	t.Parallel()
	a := func(name string, covered bool) string {
		return fmt.Sprintf(`{"aspect":%q,"covered":%t,"evidence":""}`, name, covered)
	}
	tests := map[string]struct {
		aspects []string
		max     float64
		value   float64
		gaps    []string
		reason  string
	}{
		"all covered": {
			aspects: []string{a("date", true), a("height", true)}, value: 1,
			reason: "covers 2 of 2 aspects (date; height)",
		},
		"none covered": {
			aspects: []string{a("date", false), a("height", false)}, value: 0, gaps: []string{"date", "height"},
			reason: "covers 0 of 2 aspects; missing: date; height",
		},
		"single aspect": {aspects: []string{a("date", true)}, value: 1, reason: "covers 1 of 1 aspect (date)"},
		"points on the card's scale": {
			aspects: []string{a("date", true), a("height", false)}, max: 2, value: 0.5, gaps: []string{"height"},
			reason: "covers 1 of 2 aspects (date); missing: height",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: map[string][]string{"completeness": {`{"aspects":[` + strings.Join(tc.aspects, ",") + `]}`}}}
			sc, err := Completeness{Model: m, Max: tc.max}.Score(context.Background(), ragSample)
			require.NoError(t, err)
			maxPts := tc.max
			if maxPts == 0 {
				maxPts = 1
			}
			assert.Equal(t, MetricCompleteness, sc.Metric)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.InDelta(t, tc.value*maxPts, sc.Points, 1e-9)
			assert.Equal(t, maxPts, sc.Max)
			assert.Equal(t, tc.gaps, sc.Evidence.Gaps)
			assert.Equal(t, tc.reason, sc.Reason)
		})
	}
}

// TestCompletenessQuestion: with no query the judge asks about the
// report's title, as the heuristic does (assay score without --query);
// with neither it makes no call and says to pass --query.
func TestCompletenessQuestion(t *testing.T) {
	t.Parallel()
	question := regexp.MustCompile(`(?s)<question-[0-9a-f]+>\n(.*?)\n</question-`)
	tests := map[string]struct {
		sample   eval.Sample
		question string // "" when no call is made
	}{
		"the query": {
			sample:   eval.Sample{Query: "Why is the sky blue?", Answer: "# Sky colour\n\nRayleigh scattering favours short wavelengths."},
			question: "Why is the sky blue?",
		},
		"no query: the report's title": {
			sample:   eval.Sample{Answer: "# How does HTTP/3 differ from HTTP/2?\n\nHTTP/3 runs over QUIC."},
			question: "How does HTTP/3 differ from HTTP/2?",
		},
		"a blank query: the report's title": {
			sample:   eval.Sample{Query: "  ", Answer: "# How does HTTP/3 differ from HTTP/2?\n\nHTTP/3 runs over QUIC."},
			question: "How does HTTP/3 differ from HTTP/2?",
		},
		"neither: no call": {sample: eval.Sample{Answer: "HTTP/3 runs over QUIC."}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: map[string][]string{"completeness": {`{"aspects":[{"aspect":"a","covered":true,"evidence":"x"}]}`}}}
			sc, err := Completeness{Model: m}.Score(context.Background(), tc.sample)
			require.NoError(t, err)
			if tc.question == "" {
				assert.Empty(t, m.calls)
				assert.Zero(t, sc.Points)
				assert.False(t, sc.Defaulted)
				assert.Contains(t, sc.Reason, "--query")
				return
			}
			require.Len(t, m.calls, 1)
			got := question.FindStringSubmatch(m.calls[0].Messages[len(m.calls[0].Messages)-1].Content)
			require.NotNil(t, got)
			assert.Equal(t, tc.question, got[1])
		})
	}
}
