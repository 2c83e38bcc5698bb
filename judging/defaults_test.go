package judging

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
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
