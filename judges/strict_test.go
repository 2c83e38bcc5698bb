package judges_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// strictSample has two chunks of one document, sharing its id, as
// chunked retrieval returns them.
var strictSample = eval.Sample{
	Query:  "When was the Eiffel Tower completed and how tall is it?",
	Answer: "The Eiffel Tower was completed in 1889. It is 330 metres tall. It was designed by Gustave Eiffel's company.",
	Sources: []eval.Source{
		{ID: "doc-1", Text: "The Eiffel Tower in Paris was completed in 1889 for the World's Fair."},
		{ID: "doc-1", Text: "The tower is 330 metres tall, about the height of an 81-storey building."},
	},
	Reference: "The tower was completed in 1889. It is 330 metres tall.",
}

// Replies used by several cases.
const (
	claims3 = `{"claims":["The Eiffel Tower was completed in 1889.","It is 330 metres tall.","It was designed by Gustave Eiffel's company."]}`
	// verdicts3 supports claims 1 and 2: 2/3, RAGAS's value.
	verdicts3 = `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":"c1 says 1889"},` +
		`{"statement":2,"verdict":"supported","context":"c2","reason":"c2 says 330"},` +
		`{"statement":3,"verdict":"unsupported","context":"","reason":"not stated"}]}`
	verdicts2 = `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""},` +
		`{"statement":2,"verdict":"supported","context":"c2","reason":""}]}`
	questions = `{"questions":["When was it built?","How tall is it?","Who built it?"],"noncommittal":false}`
	reasoning = `{"clarity":100,"coverage":80,"specificity":60,"alignment":100,"minimality":40,"consistency":100,"issues":[]}`
)

// TestEveryJudgeReadsRepliesStrictly drives each judge, through the real
// client and OpenAI wire protocol, with replies off the schema, partial,
// duplicated, out of range and missing fields: each bad reply gets exactly
// one repair request, then the neutral default with the reason, and a
// judgement with an error is never a clean score.
func TestEveryJudgeReadsRepliesStrictly(t *testing.T) {
	t.Parallel()
	oneSource := strictSample
	oneSource.Sources = strictSample.Sources[:1]
	tests := map[string]struct {
		metric  string
		sample  eval.Sample // default strictSample
		replies []string
		calls   int
		value   float64
		// defaulted is the error a neutral default must hold, "" for none.
		defaulted string
		wantErr   error
		counts    map[string]float64 // a subset of the evidence counts
		issue     string             // a note among the evidence issues
		method    string
	}{
		// faithfulness: claims.
		"faithfulness: {} for claims, twice, defaults": {
			metric: judges.MetricFaithfulness, replies: []string{`{}`, `{}`}, calls: 2, value: 0.5,
			defaulted: `required: missing properties: ["claims"]`, wantErr: llm.ErrInvalidOutput,
		},
		"faithfulness: another object, then claims, is repaired": {
			metric: judges.MetricFaithfulness, replies: []string{`{"hello":"world"}`, claims3, verdicts3}, calls: 3, value: 2.0 / 3,
			counts: map[string]float64{"claims": 3, "supported": 2},
		},
		"faithfulness: claims under another key, twice, defaults": {
			metric: judges.MetricFaithfulness, replies: []string{`{"statements":["It is 330 metres tall."]}`, `{"statements":["It is 330 metres tall."]}`},
			calls: 2, value: 0.5, defaulted: `missing properties: ["claims"]`, wantErr: llm.ErrInvalidOutput,
		},
		// faithfulness: verdicts.
		"faithfulness: statement 0 is repaired": {
			metric:  judges.MetricFaithfulness,
			replies: []string{claims3, `{"verdicts":[{"statement":0,"verdict":"supported","context":"c1","reason":""}]}`, verdicts3},
			calls:   3, value: 2.0 / 3, counts: map[string]float64{"claims": 3, "supported": 2},
		},
		"faithfulness: statement n+1, twice, defaults instead of being dropped": {
			metric: judges.MetricFaithfulness,
			replies: []string{claims3,
				`{"verdicts":[{"statement":4,"verdict":"supported","context":"c1","reason":""}]}`,
				`{"verdicts":[{"statement":4,"verdict":"supported","context":"c1","reason":""}]}`},
			calls: 3, value: 0.5, defaulted: "statement 4 is not a statement number: the statements are numbered 1 to 3", wantErr: llm.ErrInvalidOutput,
		},
		"faithfulness: an unknown context id is repaired": {
			metric:  judges.MetricFaithfulness,
			replies: []string{claims3, `{"verdicts":[{"statement":1,"verdict":"supported","context":"doc-9","reason":""}]}`, verdicts3},
			calls:   3, value: 2.0 / 3,
		},
		"faithfulness: a missing field is repaired": {
			metric:  judges.MetricFaithfulness,
			replies: []string{claims3, `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1"}]}`, verdicts3},
			calls:   3, value: 2.0 / 3,
		},
		"faithfulness: a verdict off the enum, twice, defaults": {
			metric: judges.MetricFaithfulness,
			replies: []string{claims3, `{"verdicts":[{"statement":1,"verdict":"maybe","context":"","reason":""}]}`,
				`{"verdicts":[{"statement":1,"verdict":"maybe","context":"","reason":""}]}`},
			calls: 3, value: 0.5, defaulted: "verdicts[].verdict: enum", wantErr: llm.ErrInvalidOutput,
		},
		"faithfulness: partial, the rest asked about again": {
			metric: judges.MetricFaithfulness,
			replies: []string{claims3, `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""}]}`,
				`{"verdicts":[{"statement":1,"verdict":"supported","context":"c2","reason":""},{"statement":2,"verdict":"unsupported","context":"","reason":""}]}`},
			calls: 3, value: 2.0 / 3, counts: map[string]float64{"claims": 3, "supported": 2},
		},
		"faithfulness: partial twice, the whole score defaults, the missing counted": {
			metric:  judges.MetricFaithfulness,
			replies: []string{claims3, `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""}]}`, `{"verdicts":[]}`},
			calls:   3, value: 0.5, defaulted: "2 of 3 claims without a verdict", wantErr: judges.ErrMissingVerdicts,
			counts: map[string]float64{"claims": 3, "supported": 1, "unjudged": 2},
		},
		"faithfulness: two verdicts for a statement, the worse kept and noted": {
			metric: judges.MetricFaithfulness,
			replies: []string{claims3, `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""},` +
				`{"statement":1,"verdict":"contradicted","context":"","reason":""},{"statement":2,"verdict":"supported","context":"c2","reason":""},` +
				`{"statement":3,"verdict":"unsupported","context":"","reason":""}]}`},
			calls: 2, value: 1.0 / 3, counts: map[string]float64{"claims": 3, "supported": 1, "repeated_verdicts": 1},
			issue: `"The Eiffel Tower was completed in 1889." given 2 verdicts: the worse, contradicted, kept`,
		},
		// context_recall: the reference's two statements.
		"context_recall: {} twice defaults": {
			metric: judges.MetricContextRecall, replies: []string{`{}`, `{}`}, calls: 2, value: 0.5,
			defaulted: `required: missing properties: ["verdicts"]`, wantErr: llm.ErrInvalidOutput,
		},
		"context_recall: statement n+1 is repaired": {
			metric:  judges.MetricContextRecall,
			replies: []string{`{"verdicts":[{"statement":3,"verdict":"supported","context":"c1","reason":""}]}`, verdicts2},
			calls:   2, value: 1, counts: map[string]float64{"claims": 2, "supported": 2},
		},
		"context_recall: partial twice defaults": {
			metric:  judges.MetricContextRecall,
			replies: []string{`{"verdicts":[{"statement":2,"verdict":"supported","context":"c2","reason":""}]}`, `{"verdicts":[]}`},
			calls:   2, value: 0.5, defaulted: "1 of 2 statements without a verdict", wantErr: judges.ErrMissingVerdicts,
			counts: map[string]float64{"unjudged": 1},
		},
		"context_recall: two verdicts, the worse kept": {
			metric: judges.MetricContextRecall,
			replies: []string{`{"verdicts":[{"statement":1,"verdict":"unsupported","context":"","reason":""},` +
				`{"statement":1,"verdict":"supported","context":"c1","reason":""},{"statement":2,"verdict":"supported","context":"c2","reason":""}]}`},
			calls: 1, value: 0.5, counts: map[string]float64{"supported": 1, "repeated_verdicts": 1},
		},
		// context_precision: two chunks sharing doc-1, named c1 and c2.
		"context_precision: chunks sharing an id get a verdict each (RAGAS: 1.0)": {
			metric: judges.MetricContextPrecision,
			replies: []string{`{"verdicts":[{"context":"c1","useful":true,"reason":"the date"},` +
				`{"context":"c2","useful":false,"reason":"only the height"}]}`},
			calls: 1, value: 1, counts: map[string]float64{"contexts": 2, "useful": 1},
		},
		"context_precision: an unknown id is repaired": {
			metric: judges.MetricContextPrecision,
			replies: []string{`{"verdicts":[{"context":"doc-1","useful":true,"reason":""},{"context":"c2","useful":true,"reason":""}]}`,
				`{"verdicts":[{"context":"c1","useful":false,"reason":""},{"context":"c2","useful":true,"reason":""}]}`},
			calls: 2, value: 0.5,
		},
		"context_precision: another object twice defaults": {
			metric: judges.MetricContextPrecision, replies: []string{`{"hello":"world"}`, `{"hello":"world"}`}, calls: 2, value: 0.5,
			defaulted: `missing properties: ["verdicts"]`, wantErr: llm.ErrInvalidOutput,
		},
		"context_precision: two verdicts, the worse kept, not the last": {
			metric: judges.MetricContextPrecision,
			replies: []string{`{"verdicts":[{"context":"c1","useful":false,"reason":"a"},{"context":"c1","useful":true,"reason":"b"},` +
				`{"context":"c2","useful":true,"reason":""}]}`},
			calls: 1, value: 0.5, counts: map[string]float64{"useful": 1, "repeated_verdicts": 1},
			issue: "context c1 (doc-1) given 2 verdicts: the worse, not useful, kept",
		},
		"context_precision: partial, asked about again": {
			metric: judges.MetricContextPrecision,
			replies: []string{`{"verdicts":[{"context":"c2","useful":true,"reason":""}]}`,
				`{"verdicts":[{"context":"c1","useful":true,"reason":""}]}`},
			calls: 2, value: 1, counts: map[string]float64{"useful": 2},
		},
		"context_precision: partial twice defaults": {
			metric: judges.MetricContextPrecision,
			replies: []string{`{"verdicts":[{"context":"c2","useful":true,"reason":""}]}`,
				`{"verdicts":[]}`},
			calls: 2, value: 0.5, defaulted: "1 of 2 contexts without a verdict", wantErr: judges.ErrMissingVerdicts,
			counts: map[string]float64{"unjudged": 1},
		},
		// completeness.
		"completeness: {} twice defaults": {
			metric: judges.MetricCompleteness, replies: []string{`{}`, `{}`}, calls: 2, value: 0.5,
			defaulted: `required: missing properties: ["aspects"]`, wantErr: llm.ErrInvalidOutput,
		},
		"completeness: a repeated aspect counts once (0.5, not 0.75)": {
			metric: judges.MetricCompleteness,
			replies: []string{`{"aspects":[{"aspect":"completion date","covered":true,"evidence":"1889"},` +
				`{"aspect":"Completion  date.","covered":true,"evidence":"1889"},{"aspect":"completion-date","covered":true,"evidence":""},` +
				`{"aspect":"cost","covered":false,"evidence":""}]}`},
			calls: 1, value: 0.5, counts: map[string]float64{"aspects": 2, "covered": 1, "repeated_aspects": 1},
			issue: `aspect "completion date" listed 3 times: the worse, covered, kept`,
		},
		"completeness: no aspect, then a missing field, defaults": {
			metric: judges.MetricCompleteness,
			replies: []string{`{"aspects":[]}`, `{"aspects":[{"aspect":"height","covered":true}]}`,
				`{"aspects":[{"aspect":"height","covered":true,"evidence":"330"}]}`},
			calls: 2, value: 0.5, defaulted: `aspects[]: required: missing properties: ["evidence"]`, wantErr: llm.ErrInvalidOutput,
		},
		// reasoning.
		"reasoning: {} twice defaults, never 0": {
			metric: judges.MetricReasoning, replies: []string{`{}`, `{}`}, calls: 2, value: 0.5,
			defaulted: "required: missing properties", wantErr: llm.ErrInvalidOutput,
		},
		"reasoning: one dimension only is repaired, never 0.2": {
			metric: judges.MetricReasoning, replies: []string{`{"clarity":100}`, reasoning}, calls: 2, value: 0.79,
			counts: map[string]float64{"clarity": 100, "minimality": 40},
		},
		"reasoning: clarity 150 twice defaults": {
			metric:  judges.MetricReasoning,
			replies: []string{`{"clarity":150,"coverage":80,"specificity":60,"alignment":100,"minimality":40,"consistency":100,"issues":[]}`, `{"clarity":150}`},
			calls:   2, value: 0.5, defaulted: "clarity: maximum", wantErr: llm.ErrInvalidOutput,
		},
		// answer_relevancy: its questions.
		"answer_relevancy: {} twice defaults": {
			metric: judges.MetricAnswerRelevancy, replies: []string{`{}`, `{}`}, calls: 2, value: 0.5,
			defaulted: "generate questions", wantErr: llm.ErrInvalidOutput,
		},
		// answer_relevancy_grade.
		"answer_relevancy_grade: grade 7 is repaired": {
			metric: judges.MetricAnswerRelevancyGrade, replies: []string{`{"grade":7,"reason":"great"}`, `{"grade":4,"reason":"mostly"}`},
			calls: 2, value: 0.75, method: "llm:openai:judge",
		},
		"answer_relevancy: noncommittal names its method": {
			metric: judges.MetricAnswerRelevancy, replies: []string{`{"questions":[],"noncommittal":true}`},
			calls: 1, value: 0, method: "llm:openai:judge (questions: noncommittal)",
		},
		// source_relevance, one source so that the calls are in order.
		"source_relevance: grade 7 is repaired": {
			metric: judges.MetricSourceRelevance, sample: oneSource, replies: []string{`{"grade":7,"reason":""}`, `{"grade":5,"reason":"direct"}`},
			calls: 2, value: 1, counts: map[string]float64{"sources": 1, "defaulted": 0},
		},
		"source_relevance: another object twice keeps 3": {
			metric: judges.MetricSourceRelevance, sample: oneSource, replies: []string{`{"hello":"world"}`, `{"grade":"5","reason":""}`},
			calls: 2, value: 0.5, defaulted: `grade: type: 5 has type "string", want "integer"`, wantErr: llm.ErrInvalidOutput,
			counts: map[string]float64{"sources": 1, "defaulted": 1},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replies := make([]llmtest.Reply, len(tc.replies))
			for i, r := range tc.replies {
				replies[i] = llmtest.Reply{Content: r}
			}
			srv := llmtest.New(t, llmtest.Script(replies...),
				llmtest.Default(llmtest.Reply{Status: 500, Body: `{"error":{"message":"no scripted reply left"}}`}))
			b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge", EmbeddingModel: "embed"})
			require.NoError(t, err)
			c := llm.New(llm.Config{Backend: b, Retry: llm.RetryPolicy{MaxRetries: 0, Initial: time.Millisecond, Max: time.Millisecond}})
			j, err := judges.New(tc.metric, c)
			require.NoError(t, err)
			s := tc.sample
			if s.Query == "" {
				s = strictSample
			}

			sc, err := j.Score(t.Context(), s)
			require.NoError(t, err, "a bad reply is data, not an error")
			assert.Equal(t, tc.calls, srv.Calls(), "calls: the first and at most one repair per ask")
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.False(t, sc.Skipped)
			assert.Equal(t, tc.defaulted != "", sc.Defaulted, "defaulted; err %v", sc.Err)
			if tc.defaulted != "" {
				require.ErrorIs(t, sc.Err, tc.wantErr)
				assert.ErrorContains(t, sc.Err, tc.defaulted)
				if tc.metric == judges.MetricSourceRelevance {
					// Each source keeps grade 3 with its own reason.
					require.Len(t, sc.Evidence.Sources, 1)
					assert.Contains(t, sc.Evidence.Sources[0].Basis, tc.defaulted)
					assert.InDelta(t, 3, sc.Points, 1e-9)
				} else {
					assert.Contains(t, sc.Reason, tc.defaulted)
					assert.InDelta(t, 0.5*sc.Max, sc.Points, 1e-9)
				}
			} else {
				assert.NoError(t, sc.Err, "a judgement with an error is never a clean score")
			}
			for k, v := range tc.counts {
				assert.Equal(t, v, sc.Evidence.Counts[k], "evidence count %s in %v", k, sc.Evidence.Counts)
			}
			if tc.issue != "" {
				assert.Contains(t, sc.Evidence.Issues, tc.issue)
			}
			if tc.method != "" {
				assert.Equal(t, tc.method, sc.Method)
			}
		})
	}
}

// TestPrecisionEvidenceNamesTheSamplesIDs: the prompt names contexts by
// position; the evidence names them by the sample's own ids.
func TestPrecisionEvidenceNamesTheSamplesIDs(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Script(llmtest.Reply{Content: `{"verdicts":[{"context":"c2","useful":true,"reason":"height"},{"context":"c1","useful":true,"reason":"date"}]}`}))
	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)
	sc, err := judges.ContextPrecision{Model: llm.New(llm.Config{Backend: b})}.Score(t.Context(), strictSample)
	require.NoError(t, err)
	assert.Equal(t, []eval.SourceRating{{URL: "doc-1", Rating: 1, Basis: "date"}, {URL: "doc-1", Rating: 1, Basis: "height"}}, sc.Evidence.Sources)
	prompt := srv.Requests()[0].Messages[1].Content
	assert.Contains(t, prompt, `"id": "c1"`)
	assert.Contains(t, prompt, `"id": "c2"`)
	assert.NotContains(t, prompt, "doc-1", "the prompt names contexts by position")
}
