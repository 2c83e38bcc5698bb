package judges_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
)

// TestRelevanceToNoQuestionIsSkipped: the judges of relevance to the
// question skip a sample whose question is missing or blank, naming
// why, with or without a model, and send nothing: a grade of relevance
// to no question would count as scored.
func TestRelevanceToNoQuestionIsSkipped(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metric  string
		query   string
		model   bool
		wantMax float64
	}{
		"answer_relevancy_grade, no question, model":    {metric: judges.MetricAnswerRelevancyGrade, model: true, wantMax: 5},
		"answer_relevancy_grade, blank question, model": {metric: judges.MetricAnswerRelevancyGrade, query: " \n\t", model: true, wantMax: 5},
		"answer_relevancy_grade, no question, offline":  {metric: judges.MetricAnswerRelevancyGrade, wantMax: 5},
		"answer_relevancy, blank question, model":       {metric: judges.MetricAnswerRelevancy, query: "  ", model: true, wantMax: 1},
		"answer_relevancy, no question, offline":        {metric: judges.MetricAnswerRelevancy, wantMax: 1},
		"source_relevance, blank question, model":       {metric: judges.MetricSourceRelevance, query: "\u3000", model: true, wantMax: 5},
		"source_relevance, no question, offline":        {metric: judges.MetricSourceRelevance, wantMax: 5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			var m judges.Model
			if tc.model {
				m = definedClient(t, srv, nil)
			}
			sc, err := judges.New(tc.metric, m)
			require.NoError(t, err)
			s := eval.Sample{Query: tc.query, Answer: "The ferry leaves at noon.", Sources: []eval.Source{{ID: "t", Text: "The ferry leaves at noon."}}}
			got, err := sc.Score(context.Background(), s)
			require.NoError(t, err)
			assert.True(t, got.Skipped, "scored %v: %s", got.Value, got.Reason)
			assert.ErrorIs(t, got.Err, eval.ErrNoQuestion)
			assert.Equal(t, "skipped, not scored: no question to judge relevance to", got.Reason)
			assert.Equal(t, tc.metric, got.Metric)
			assert.InDelta(t, tc.wantMax, got.Max, 1e-9)
			assert.Zero(t, srv.Calls(), "nothing sent")
		})
	}
}
