package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// TestDefaultsKeepTheCauseOfAResultJudgedNow: the first default a run
// counts keeps its error's chain when the result was judged in this
// process, so that the advice after a bench run's defaults names the
// cause (a reply off the schema, a rate limit), as judge's does, and not
// "check that the model server is up" for every cause. Its text is the
// result's as written.
func TestDefaultsKeepTheCauseOfAResultJudgedNow(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want error
	}{
		"a reply off the schema, after its repair": {
			err:  fmt.Errorf("rate: after one repair request: %w: not of the schema: grade: maximum: 8 is greater than 5", llm.ErrInvalidOutput),
			want: llm.ErrInvalidOutput,
		},
		"a reply over the cap": {
			err:  fmt.Errorf("rate: %w", &llm.ReplyTooLargeError{Size: 2 << 20}),
			want: llm.ErrReplyTooLarge,
		},
		"a reply that is no chat completion": {
			err:  fmt.Errorf("rate: openai:m: chat: %w: a 200 reply with no \"choices\" field", llm.ErrNotChat),
			want: llm.ErrNotChat,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := Create(filepath.Join(t.TempDir(), "run"), Config{RunID: "causes"})
			require.NoError(t, err)
			t.Cleanup(func() { _ = r.Close() })
			sc := eval.Score{Metric: "answer_relevancy_grade", Value: 0.5, Points: 2.5, Max: 5, Defaulted: true, Err: tc.err}
			require.NoError(t, r.Append(ResultOf("q7", sc)))
			d := r.Defaults()
			require.Equal(t, 1, d.Defaulted)
			assert.True(t, errors.Is(d.First, tc.want), "first cause %v", d.First)
			assert.Equal(t, "record q7: answer_relevancy_grade: "+tc.err.Error(), d.First.Error())
		})
	}
}
