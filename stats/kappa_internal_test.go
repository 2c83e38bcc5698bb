package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKappaFromTable checks the core against Cohen's (1968) own
// illustration, whose weights are not one of the Weight constants: Table 1
// (200 cases, proportions .44 .07 .09 / .05 .20 .05 / .01 .03 .06) with
// disagreement weights 1 (personality disorder vs neurosis), 3 (vs
// psychosis) and 6 (neurosis vs psychosis). Cohen reports weighted kappa
// .35 and unweighted .49; by hand sum(v*po) = .90, sum(v*pe) = 1.38, so
// 1 - .90/1.38 = 8/23, and (.70 - .41)/(1 - .41) = 29/59.
func TestKappaFromTable(t *testing.T) {
	t.Parallel()
	table := [][]float64{{88, 14, 18}, {10, 40, 10}, {2, 6, 12}}
	tests := map[string]struct {
		weights   [][]float64
		want      float64
		published float64
	}{
		"cohen's weights":  {[][]float64{{0, 1, 3}, {1, 0, 6}, {3, 6, 0}}, 8.0 / 23, 0.35},
		"unweighted kappa": {[][]float64{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}, 29.0 / 59, 0.49},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := kappaFromTable(table, tc.weights)
			assert.InDelta(t, tc.want, got, 1e-9)
			assert.InDelta(t, tc.published, got, 0.005, "the published two decimals")
		})
	}
}
