package judges

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

// TestCompletenessScoreReport checks that the completeness judge scores the
// parsed report as it scores the sample, offline (from the parse) and with
// a model (one call either way), and skips a blank answer.
func TestCompletenessScoreReport(t *testing.T) {
	t.Parallel()
	report := "# Heat pumps in cold climates\n\n## Summary\n\nHeat pumps keep a COP above 1.5 at -25 °C [1].\n\n## Sources\n\n1. https://www.nist.gov/a\n"
	reply := `{"aspects":[{"aspect":"performance in the cold","covered":true,"evidence":"COP above 1.5"},{"aspect":"cost","covered":false,"evidence":""}]}`
	tests := map[string]struct {
		answer  string
		model   bool
		method  string
		skipped bool
		value   float64
		calls   int
	}{
		"offline scores the parse":  {answer: report, method: MethodOffline},
		"with a model asks it":      {answer: report, model: true, method: "llm:fake:judge", value: 0.5, calls: 1},
		"a blank answer is skipped": {answer: "  \n", method: MethodOffline, skipped: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := eval.Sample{Query: "How do heat pumps perform in cold climates?", Answer: tc.answer}
			judge := func() (Completeness, *fakeModel) {
				if !tc.model {
					return Completeness{Max: 1}, nil
				}
				m := &fakeModel{replies: map[string][]string{"completeness": {reply}}}
				return Completeness{Model: m, Max: 1}, m
			}
			c1, m1 := judge()
			want, err := c1.Score(context.Background(), s)
			require.NoError(t, err)
			c2, m2 := judge()
			got, err := c2.ScoreReport(context.Background(), heuristics.ParseReport([]byte(s.Answer)), s)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, tc.method, got.Method)
			assert.Equal(t, tc.skipped, got.Skipped)
			if tc.model {
				assert.InDelta(t, tc.value, got.Value, 1e-9)
				assert.Len(t, m1.calls, tc.calls)
				assert.Len(t, m2.calls, tc.calls)
			}
		})
	}
}
