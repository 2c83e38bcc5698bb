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

// TestJudgesDefaultOnAnErrorInA200Reply: a server that answers 200 with an
// error body instead of a completion makes a judge keep its neutral
// default, with the server's message as the error, after the retries its
// code allows.
func TestJudgesDefaultOnAnErrorInA200Reply(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body    string
		calls   int // per judgement: 1 + MaxRetries when retried
		message string
	}{
		"rate limit: retried, then kept at 3": {
			body:  `{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":429}}`,
			calls: 3, message: "Rate limit exceeded",
		},
		"model not found: permanent, kept at 3": {
			body:  `{"error":"model \"judge\" not found, try pulling it first"}`,
			calls: 1, message: `model "judge" not found`,
		},
	}
	sample := eval.Sample{
		Query:   "How do heat pumps perform in cold climates?",
		Answer:  "Heat pumps keep working well below freezing.",
		Sources: []eval.Source{{ID: "c1", Text: "Cold-climate heat pumps keep working at -25 C."}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Body: tc.body}))
			b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
			require.NoError(t, err)
			c := llm.New(llm.Config{Backend: b, Retry: llm.RetryPolicy{
				MaxRetries: 2, Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond,
			}})

			sg, err := judges.SourceRelevance{Model: c}.Grade(t.Context(), sample.Query, sample.Sources[0])
			require.NoError(t, err, "a model failure is data, not an error")
			assert.Equal(t, 3, sg.Grade)
			assert.True(t, sg.Defaulted)
			require.Error(t, sg.Err)
			assert.Contains(t, sg.Err.Error(), tc.message)
			assert.Equal(t, tc.calls, srv.Calls())

			sc, err := judges.Faithfulness{Model: c}.Score(t.Context(), sample)
			require.NoError(t, err, "a model failure is data, not an error")
			assert.True(t, sc.Defaulted)
			assert.InDelta(t, 0.5, sc.Value, 1e-9)
			require.Error(t, sc.Err)
			assert.Contains(t, sc.Err.Error(), tc.message)
			assert.Contains(t, sc.Reason, tc.message)
			assert.Equal(t, 2*tc.calls, srv.Calls())
		})
	}
}
