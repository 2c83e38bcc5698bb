package judges_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
	"github.com/assaylabs/assay/run"
)

// TestReasoningSkipsWhatItDoesNotApplyTo: offline, reasoning is the clarity
// heuristic, which reads a report's sections; an answer without a Markdown
// heading (a RAG answer, in English or Thai, bold labels included) is no
// report: it is Skipped with eval.ErrNoSections and the reason, counted
// apart, never a 0 for sections it was never meant to have. A report is
// scored, its missing sections counted against it. With a model the rubric
// reads any answer, so a RAG answer is scored.
func TestReasoningSkipsWhatItDoesNotApplyTo(t *testing.T) {
	t.Parallel()
	const fullReport = `# Heat pumps in cold climates

## Executive summary

Modern heat pumps keep working well below freezing. Their efficiency falls as the air gets colder.

## Findings

Field trials in Norway measured a seasonal efficiency near 2.5. Older units lost more heat at minus fifteen degrees.

## Conclusion

A cold-climate model is a sound choice for most homes in the north.

## Sources

1. [Trial report](https://example.org/trial)
`
	const noConclusion = `# Heat pumps in cold climates

## Summary

Modern heat pumps keep working well below freezing.

## Findings

Field trials in Norway measured a seasonal efficiency near 2.5.

## Sources

1. [Trial report](https://example.org/trial)
`
	boldLabels := eval.Sample{Query: "How tall is the Eiffel Tower?",
		Answer: "**Answer:** It is 330 metres tall.\n\n**Details:**\n- The height includes its antennas.\n- It was the tallest structure until 1930."}
	report := func(answer string) eval.Sample {
		return eval.Sample{Query: "How do heat pumps perform in cold climates?", Answer: answer}
	}
	tests := map[string]struct {
		sample  eval.Sample
		model   bool
		replies []string
		skipped bool
		value   float64
		reason  string // a part of the reason
	}{
		"offline, an English RAG answer is skipped": {
			sample: strictSample, skipped: true,
			reason: "skipped, not scored: offline reasoning reads a report's sections: the answer has no sections (no Markdown heading), so it is no report",
		},
		"offline, a Thai RAG answer is skipped": {
			sample: thaiSample, skipped: true, reason: "offline reasoning reads a report's sections",
		},
		"offline, bold labels are no sections: skipped": {
			sample: boldLabels, skipped: true, reason: "no Markdown heading",
		},
		"offline, a report with every section is scored in full": {
			sample: report(fullReport), value: 1, reason: "well structured and readable",
		},
		"offline, a report missing its conclusion is scored 0 for it": {
			sample: report(noConclusion), value: 0, reason: "missing conclusion section",
		},
		"with a model, an English RAG answer is scored by the rubric": {
			sample: strictSample, model: true, replies: []string{reasoning}, value: 0.79, reason: "reasoning 79.0/100",
		},
		"with a model, a Thai RAG answer is scored by the rubric": {
			sample: thaiSample, model: true, value: 0.9, reason: "reasoning 90.0/100",
			replies: []string{`{"clarity":90,"coverage":90,"specificity":90,"alignment":90,"minimality":90,"consistency":90,"issues":[]}`},
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
			var m judges.Model
			if tc.model {
				b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
				require.NoError(t, err)
				m = llm.New(llm.Config{Backend: b})
			}
			j, err := judges.New(judges.MetricReasoning, m)
			require.NoError(t, err)

			sc, err := j.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.Equal(t, len(tc.replies), srv.Calls())
			assert.Equal(t, judges.MetricReasoning, sc.Metric)
			assert.False(t, sc.Defaulted, "%v", sc.Err)
			assert.Contains(t, sc.Reason, tc.reason)
			stats := run.Stats{Threshold: func(string) float64 { return 0 }}
			stats.Add(run.ResultOf("s", sc))
			sum := stats.Metrics()[0]
			if !tc.skipped {
				assert.False(t, sc.Skipped)
				assert.NoError(t, sc.Err)
				assert.InDelta(t, tc.value, sc.Value, 1e-9)
				assert.InDelta(t, 100*tc.value, sc.Points, 1e-9)
				assert.Equal(t, [2]int{1, 0}, [2]int{sum.Scored, sum.Skipped})
				return
			}
			assert.True(t, sc.Skipped)
			require.ErrorIs(t, sc.Err, eval.ErrNoSections)
			assert.Equal(t, judges.MethodOffline, sc.Method)
			assert.Zero(t, sc.Points)
			assert.Equal(t, [3]int{0, 1, 0}, [3]int{sum.Scored, sum.Skipped, sum.Passed}, "counted as skipped, never passing")
		})
	}
}
