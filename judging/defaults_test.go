package judging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
)

func TestDefaultsCheck(t *testing.T) {
	t.Parallel()
	down := errors.New("faithfulness: dial tcp 127.0.0.1:9: connection refused")
	ok := eval.Score{Metric: "faithfulness", Value: 0.9}
	def := func(err error) eval.Score {
		return eval.Score{Metric: "faithfulness", Value: 0.5, Defaulted: true, Err: err}
	}
	tests := map[string]struct {
		scores []eval.Score
		max    float64
		want   string // "" for no error
	}{
		"nothing counted passes":      {max: 0},
		"no default passes under 0":   {scores: []eval.Score{ok, ok}, max: 0},
		"every one defaulted":         {scores: []eval.Score{def(down), def(errors.New("later"))}, max: 0.05, want: "2 of 2 judgements (100%) fell back to the neutral default, over the maximum default rate 0.05: faithfulness: dial tcp 127.0.0.1:9: connection refused"},
		"half, over a limit of 0.4":   {scores: []eval.Score{ok, def(down)}, max: 0.4, want: "1 of 2 judgements (50%)"},
		"half, at a limit of 0.5":     {scores: []eval.Score{ok, def(down)}, max: 0.5},
		"one in three, strict":        {scores: []eval.Score{ok, def(down), ok}, max: 0, want: "1 of 3 judgements (33.3%) fell back to the neutral default, over the maximum default rate 0:"},
		"a default with no cause":     {scores: []eval.Score{def(nil)}, max: 0, want: "over the maximum default rate 0: the judges gave no cause"},
		"only the first line of many": {scores: []eval.Score{def(errors.New("panic: boom\ngoroutine 1 [running]"))}, max: 0, want: "rate 0: panic: boom"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d Defaults
			for _, s := range tc.scores {
				d.Add(s)
			}
			err := d.Check(tc.max)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			var re *DefaultRateError
			require.ErrorAs(t, err, &re)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
			assert.Equal(t, len(tc.scores), re.Total)
		})
	}
}

func TestDefaultRateErrorUnwrapsTheFirstCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("status 401: bad key")
	err := CheckDefaultRate(3, 4, 0.05, cause)
	require.ErrorIs(t, err, cause)
	var re *DefaultRateError
	require.ErrorAs(t, err, &re)
	assert.InDelta(t, 0.75, re.Rate(), 1e-9)
	assert.Equal(t, "3 of 4 judgements (75%)", re.Summary())
}

// TestDefaultsCountedByCause: the defaults of a run are counted by the
// kind of their cause, and a run that failed in more than one way names
// each kind with its count, most first, not only the first cause.
func TestDefaultsCountedByCause(t *testing.T) {
	t.Parallel()
	def := func(err error) eval.Score {
		return eval.Score{Metric: "faithfulness", Value: 0.5, Defaulted: true, Err: err}
	}
	rec := func(err error) error { return fmt.Errorf("record r1: faithfulness: %w", err) }
	s500 := rec(fmt.Errorf("after 4 attempts: %w", &llm.StatusError{Code: 500}))
	tests := map[string]struct {
		scores []eval.Score
		causes map[string]int
		by     string // ByCause
		msg    string // in the failure's message
	}{
		"one kind: the first cause names it": {
			scores: []eval.Score{def(s500), def(s500)},
			causes: map[string]int{"status 500": 2},
			msg:    "2 of 2 judgements (100%) fell back to the neutral default, over --max-default-rate 0.05: record r1: faithfulness: after 4 attempts: status 500",
		},
		"each kind counted, most first, ties by name": {
			scores: []eval.Score{
				def(rec(fmt.Errorf("extract claims: no choices: %w", llm.ErrEmpty))),
				def(s500), def(s500),
				def(rec(&llm.RefusalError{Reason: "no"})),
				def(rec(fmt.Errorf("after one repair request: %w: not of the schema", llm.ErrInvalidOutput))),
				def(rec(fmt.Errorf("%w: a 200 reply streamed as server-sent events", llm.ErrNotChat))),
				def(rec(fmt.Errorf("%w: after 1m0s", llm.ErrUnreachable))),
				def(rec(fmt.Errorf("%w: $0.01", llm.ErrBudget))),
				def(rec(judges.ErrMissingVerdicts)),
				def(rec(context.DeadlineExceeded)),
				def(rec(&llm.ReplyTooLargeError{Size: 2 << 20})),
				def(rec(fmt.Errorf("decode 200 response: %w", io.ErrUnexpectedEOF))),
				def(rec(errors.New("something else"))),
				def(nil),
				{Metric: "faithfulness", Value: 0.9},
			},
			causes: map[string]int{"empty reply": 1, "status 500": 2, "refusal": 1, "reply off the schema": 1, "not a chat completion": 1,
				"server unreachable": 1, "budget reached": 1, "verdicts missing": 1, "timed out": 1, "reply over the cap": 1, "other error": 1, "no cause given": 1, "connection failed": 1},
			by: "2 status 500, 1 budget reached, 1 connection failed, 1 empty reply, 1 no cause given, 1 not a chat completion, 1 other error, 1 refusal, " +
				"1 reply off the schema, 1 reply over the cap, 1 server unreachable, 1 timed out, 1 verdicts missing",
			msg: "14 of 15 judgements (93.3%) fell back to the neutral default (2 status 500, 1 budget reached, 1 connection failed, ",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d Defaults
			for _, s := range tc.scores {
				d.Add(s)
			}
			assert.Equal(t, tc.causes, d.Causes)
			var re *DefaultRateError
			require.ErrorAs(t, d.Check(0.05), &re)
			assert.Equal(t, tc.by, re.ByCause())
			f, ok := Config{MaxDefaultRate: 0.05}.DefaultRate(d)
			require.True(t, ok)
			assert.Contains(t, f.Err.Error(), tc.msg)
		})
	}
}
