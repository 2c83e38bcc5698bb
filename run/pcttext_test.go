package run

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormatMetricStatsNeverRoundsAFailToAllPassed: 249 of 250 passed is
// not "100%" (a gate pass_rate>=1 fails on it), nor 1 of 250 "0%"; the
// share gets the decimals it takes to tell it from all or none, and a
// round share keeps its short form.
func TestFormatMetricStatsNeverRoundsAFailToAllPassed(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		passed, n int
		want      string
	}{
		"all but one of 250":  {passed: 249, n: 250, want: "99.6% (>= 0.5)"},
		"all but one of 3000": {passed: 2999, n: 3000, want: "99.97% (>= 0.5)"},
		"one of 250":          {passed: 1, n: 250, want: "0.4% (>= 0.5)"},
		"all":                 {passed: 250, n: 250, want: "100% (>= 0.5)"},
		"none":                {passed: 0, n: 250, want: "0% (>= 0.5)"},
		"two of three":        {passed: 2, n: 3, want: "67% (>= 0.5)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			results := make([]Result, tc.n)
			for i := range results {
				results[i] = Result{ID: fmt.Sprint(i), Metric: "m", Value: 0.1}
				if i < tc.passed {
					results[i].Value = 0.9
				}
			}
			var b strings.Builder
			require.NoError(t, FormatMetricStats(&b, Summarize(results, nil)))
			lines := strings.Split(b.String(), "\n")
			require.GreaterOrEqual(t, len(lines), 2)
			assert.Contains(t, lines[1], "  "+tc.want+"  ")
		})
	}
}
