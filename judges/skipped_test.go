package judges_test

import (
	"math"
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

// skipCase is a record given to a judge with nothing (or something) to
// judge.
type skipCase struct {
	sample  eval.Sample
	metric  string
	offline bool
	replies []string // the model's, in order
	calls   int
	skipped error // the skip's cause; nil: scored
	value   float64
}

// TestNothingToJudgeIsSkipped: a record without an answer, or whose answer
// holds no claim, is skipped by every judge of the answer, offline and with
// a model, without a call: not scored, counted apart by bench.Stats, never
// passing a floor, never in a mean. The judges of the retrieval score it
// as any other record.
func TestNothingToJudgeIsSkipped(t *testing.T) {
	t.Parallel()
	noAnswer := strictSample
	noAnswer.Answer = ""
	blankAnswer := strictSample
	blankAnswer.Answer = " \n\t "
	noClaim := strictSample
	noClaim.Answer = "Thanks for asking!"
	tests := map[string]skipCase{}
	answerJudges := []string{judges.MetricFaithfulness, judges.MetricAnswerRelevancy, judges.MetricAnswerRelevancyGrade, judges.MetricCompleteness, judges.MetricReasoning}
	for _, m := range answerJudges {
		for _, off := range []bool{true, false} {
			mode := "model"
			if off {
				mode = "offline"
			}
			tests[m+", "+mode+": missing answer"] = skipCase{sample: noAnswer, metric: m, offline: off, skipped: eval.ErrNoAnswer}
			tests[m+", "+mode+": blank answer"] = skipCase{sample: blankAnswer, metric: m, offline: off, skipped: eval.ErrNoAnswer}
		}
	}
	tests["faithfulness, model: no claim in the answer"] = skipCase{sample: noClaim, metric: judges.MetricFaithfulness, replies: []string{`{"claims":[]}`}, calls: 1, skipped: eval.ErrNoClaims}
	tests["faithfulness, offline: no claim in the answer"] = skipCase{sample: noClaim, metric: judges.MetricFaithfulness, offline: true, skipped: eval.ErrNoClaims}
	// The judges of the retrieval do not need the answer.
	tests["context_recall, model: scored without an answer"] = skipCase{sample: noAnswer, metric: judges.MetricContextRecall, replies: []string{verdicts2}, calls: 1, value: 1}
	tests["context_precision, model: scored against the reference without an answer"] = skipCase{sample: noAnswer, metric: judges.MetricContextPrecision, calls: 1, value: 1,
		replies: []string{`{"verdicts":[{"context":"c1","useful":true,"reason":""},{"context":"c2","useful":true,"reason":""}]}`}}
	tests["source_relevance, model: scored without an answer"] = skipCase{sample: func() eval.Sample { s := noAnswer; s.Sources = s.Sources[:1]; return s }(), metric: judges.MetricSourceRelevance,
		replies: []string{`{"grade":5,"reason":"direct"}`}, calls: 1, value: 1}

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
			if !tc.offline {
				b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
				require.NoError(t, err)
				m = llm.New(llm.Config{Backend: b})
			}
			j, err := judges.New(tc.metric, m)
			require.NoError(t, err)

			sc, err := j.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.Equal(t, tc.calls, srv.Calls())
			assert.False(t, sc.Defaulted)
			assert.Equal(t, tc.metric, sc.Metric)
			stats := run.Stats{Threshold: func(string) float64 { return 0 }} // a floor of 0: any value passes
			stats.Add(run.ResultOf("s", sc))
			sum := stats.Metrics()[0]
			if tc.skipped == nil {
				assert.False(t, sc.Skipped)
				assert.InDelta(t, tc.value, sc.Value, 1e-9)
				assert.True(t, sc.Counted())
				assert.Equal(t, [3]int{1, 0, 1}, [3]int{sum.Scored, sum.Skipped, sum.Passed})
				return
			}
			assert.True(t, sc.Skipped)
			require.ErrorIs(t, sc.Err, tc.skipped)
			assert.Equal(t, "skipped, not scored: "+sc.Err.Error(), sc.Reason)
			assert.Zero(t, sc.Value)
			assert.Zero(t, sc.Points)
			assert.False(t, sc.Counted())
			assert.Equal(t, [4]int{1, 0, 1, 0}, [4]int{sum.N, sum.Scored, sum.Skipped, sum.Passed}, "counted as skipped, never passed")
			assert.True(t, math.IsNaN(float64(sum.Mean)), "no mean over skipped records")
			assert.Equal(t, 1, stats.Skipped())
		})
	}
}
