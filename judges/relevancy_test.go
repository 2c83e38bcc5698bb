package judges_test

import (
	"errors"
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

// ragasRelevancy is RAGAS answer relevancy of questions to query as the
// fake server embeds them: the mean cosine, computed here apart from the
// judge.
func ragasRelevancy(query string, questions ...string) float64 {
	q := llmtest.Vector(query, 8)
	sum := 0.0
	for _, g := range questions {
		v := llmtest.Vector(g, 8)
		var dot, nq, nv float64
		for i := range q {
			dot += float64(q[i]) * float64(v[i])
			nq += float64(q[i]) * float64(q[i])
			nv += float64(v[i]) * float64(v[i])
		}
		sum += dot / math.Sqrt(nq*nv)
	}
	return max(0, sum/float64(len(questions)))
}

// TestAnswerRelevancyAndItsGradeAreTwoMetrics: RAGAS's generated-questions
// answer relevancy and the model's direct 1-5 grade are different
// quantities under different names. answer_relevancy is only ever RAGAS's
// method: with a model that has no embedding model it makes no call and
// stops the run with an input error naming the other metric; it never
// falls back on a grade under its own name. answer_relevancy_grade is only
// ever the grade, one call, embedding model or not.
func TestAnswerRelevancyAndItsGradeAreTwoMetrics(t *testing.T) {
	t.Parallel()
	thaiQuestions := `{"questions":["กรุงเทพฯ เป็นเมืองหลวงตั้งแต่เมื่อใด","ใครย้ายราชธานีมากรุงเทพฯ"],"noncommittal":false}`
	tests := map[string]struct {
		metric     string
		sample     eval.Sample // default strictSample
		embeds     bool        // the backend has an embedding model
		offline    bool
		replies    []string
		calls      int
		embedCalls int
		value      float64
		points     float64
		max        float64
		method     string
		err        error // the run-stopping error, nil for a score
	}{
		"answer_relevancy with an embedding model: questions and their cosine to the query": {
			metric: judges.MetricAnswerRelevancy, embeds: true, replies: []string{questions}, calls: 1, embedCalls: 1,
			value:  ragasRelevancy(strictSample.Query, "When was it built?", "How tall is it?", "Who built it?"),
			points: ragasRelevancy(strictSample.Query, "When was it built?", "How tall is it?", "Who built it?"), max: 1,
			method: "llm:openai:judge (questions+embeddings)",
		},
		"answer_relevancy in Thai with an embedding model": {
			metric: judges.MetricAnswerRelevancy, sample: thaiSample, embeds: true, replies: []string{thaiQuestions}, calls: 1, embedCalls: 1,
			value:  ragasRelevancy(thaiSample.Query, "กรุงเทพฯ เป็นเมืองหลวงตั้งแต่เมื่อใด", "ใครย้ายราชธานีมากรุงเทพฯ"),
			points: ragasRelevancy(thaiSample.Query, "กรุงเทพฯ เป็นเมืองหลวงตั้งแต่เมื่อใด", "ใครย้ายราชธานีมากรุงเทพฯ"), max: 1,
			method: "llm:openai:judge (questions+embeddings)",
		},
		"answer_relevancy without an embedding model: refused before any call, no grade in its place": {
			metric: judges.MetricAnswerRelevancy, replies: []string{questions, `{"grade":4,"reason":"mostly"}`}, err: judges.ErrNoEmbeddingModel,
		},
		"answer_relevancy_grade without an embedding model: one grade": {
			metric: judges.MetricAnswerRelevancyGrade, replies: []string{`{"grade":4,"reason":"answers both parts, one detail off"}`}, calls: 1,
			value: 0.75, points: 4, max: 5, method: "llm:openai:judge",
		},
		"answer_relevancy_grade written 4.0, as open models write it: the integer 4": {
			metric: judges.MetricAnswerRelevancyGrade, replies: []string{`{"grade":4.0,"reason":"answers both parts, one detail off"}`}, calls: 1,
			value: 0.75, points: 4, max: 5, method: "llm:openai:judge",
		},
		"answer_relevancy_grade with an embedding model: still one grade, nothing embedded": {
			metric: judges.MetricAnswerRelevancyGrade, sample: thaiSample, embeds: true, replies: []string{`{"grade":5,"reason":"ตอบตรงคำถาม"}`}, calls: 1,
			value: 1, points: 5, max: 5, method: "llm:openai:judge",
		},
		"answer_relevancy_grade of an evasive answer": {
			metric: judges.MetricAnswerRelevancyGrade, sample: eval.Sample{Query: strictSample.Query, Answer: "Towers are interesting structures."},
			replies: []string{`{"grade":2,"reason":"about something else"}`}, calls: 1, value: 0.25, points: 2, max: 5, method: "llm:openai:judge",
		},
		"answer_relevancy_grade offline: a noncommittal answer is grade 1": {
			metric: judges.MetricAnswerRelevancyGrade, offline: true, sample: eval.Sample{Query: strictSample.Query, Answer: "I'm not sure, it depends."},
			value: 0, points: 1, max: 5, method: judges.MethodOffline,
		},
		"answer_relevancy_grade offline: the answer's lexical relevance as a grade": {
			metric: judges.MetricAnswerRelevancyGrade, offline: true, value: 1, points: 5, max: 5, method: judges.MethodOffline,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replies := make([]llmtest.Reply, len(tc.replies))
			for i, r := range tc.replies {
				replies[i] = llmtest.Reply{Content: r}
			}
			srv := llmtest.New(t, llmtest.Script(replies...), llmtest.Dim(8),
				llmtest.Default(llmtest.Reply{Status: 500, Body: `{"error":{"message":"no scripted reply left"}}`}))
			var m judges.Model
			if !tc.offline {
				cfg := openai.Config{BaseURL: srv.URL(), Model: "judge"}
				if tc.embeds {
					cfg.EmbeddingModel = "embed"
				}
				b, err := openai.New(cfg)
				require.NoError(t, err)
				m = llm.New(llm.Config{Backend: b})
			}
			j, err := judges.New(tc.metric, m)
			require.NoError(t, err)
			s := tc.sample
			if s.Query == "" {
				s = strictSample
			}

			sc, err := j.Score(t.Context(), s)
			assert.Equal(t, tc.calls, srv.Calls(), "chat calls")
			assert.Equal(t, tc.embedCalls, srv.EmbedCalls(), "embedding calls")
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.ErrorIs(t, err, llm.ErrNoEmbeddings)
				var ie *eval.InputError
				require.True(t, errors.As(err, &ie), "an input error (exit 2), not a judge failure: %T", err)
				assert.Equal(t, "--metric", ie.Field)
				assert.Contains(t, ie.Msg, "llm:openai:judge has no embedding model")
				assert.Contains(t, ie.Msg, "ASSAY_EMBEDDING_MODEL")
				assert.Contains(t, ie.Msg, judges.MetricAnswerRelevancyGrade)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.metric, sc.Metric, "the value is under its own metric's name")
			assert.InDelta(t, tc.value, sc.Value, 1e-6)
			assert.InDelta(t, tc.points, sc.Points, 1e-6)
			assert.InDelta(t, tc.max, sc.Max, 1e-9)
			assert.Equal(t, tc.method, sc.Method)
			assert.False(t, sc.Defaulted, "%v", sc.Err)
			assert.False(t, sc.Skipped)
			assert.NotEmpty(t, sc.Reason)
		})
	}
}

// TestTheTwoRelevanciesAreTwoSeries: results of the two metrics on the
// same records are summarised as two rows, each its own mean, never one.
func TestTheTwoRelevanciesAreTwoSeries(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		scores []eval.Score
		want   map[string]float64 // metric -> mean
	}{
		"both on every record": {
			scores: []eval.Score{
				{Metric: judges.MetricAnswerRelevancy, Value: 0.9, Max: 1}, {Metric: judges.MetricAnswerRelevancyGrade, Value: 0.25, Points: 2, Max: 5},
				{Metric: judges.MetricAnswerRelevancy, Value: 0.7, Max: 1}, {Metric: judges.MetricAnswerRelevancyGrade, Value: 0.75, Points: 4, Max: 5},
			},
			want: map[string]float64{judges.MetricAnswerRelevancy: 0.8, judges.MetricAnswerRelevancyGrade: 0.5},
		},
		"the grade alone": {
			scores: []eval.Score{{Metric: judges.MetricAnswerRelevancyGrade, Value: 1, Points: 5, Max: 5}},
			want:   map[string]float64{judges.MetricAnswerRelevancyGrade: 1},
		},
		"RAGAS's alone": {
			scores: []eval.Score{{Metric: judges.MetricAnswerRelevancy, Value: 0.6, Max: 1}, {Metric: judges.MetricAnswerRelevancy, Value: 0.4, Max: 1}},
			want:   map[string]float64{judges.MetricAnswerRelevancy: 0.5},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stats := run.Stats{Threshold: func(string) float64 { return 0.5 }}
			for i, sc := range tc.scores {
				stats.Add(run.ResultOf(string(rune('a'+i/2)), sc))
			}
			got := map[string]float64{}
			for _, m := range stats.Metrics() {
				got[m.Metric] = float64(m.Mean)
			}
			require.Len(t, got, len(tc.want))
			for m, mean := range tc.want {
				assert.InDelta(t, mean, got[m], 1e-9, m)
			}
		})
	}
}
