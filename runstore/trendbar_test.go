package runstore_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// TestTrendBarOfAnyMean: the bar beside a trend's mean is 20 marks for 1
// and none for 0; a mean outside [0, 1] (a scorer of one's own, a run
// folder edited by hand) is drawn at the edge it passed, never a crash,
// and an undefined one draws nothing.
func TestTrendBarOfAnyMean(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mean float64
		bar  int // marks; -1 for no bar at all
	}{
		"a half":         {mean: 0.5, bar: 10},
		"one":            {mean: 1, bar: 20},
		"zero":           {mean: 0, bar: 0},
		"below zero":     {mean: -0.5, bar: 0},
		"far below zero": {mean: -1e300, bar: 0},
		"above one":      {mean: 5, bar: 20},
		"far above one":  {mean: 1e300, bar: 20},
		"undefined":      {mean: math.NaN(), bar: -1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := &runstore.Trend{Metric: "m", Points: []runstore.TrendPoint{{RunID: "r1", Mean: run.Num(tc.mean), N: 1, Scored: 1}}}
			for _, format := range []string{"text", "md"} {
				var b bytes.Buffer
				require.NoError(t, tr.Write(&b, format))
				lines := strings.Split(strings.TrimSpace(b.String()), "\n")
				last := lines[len(lines)-1]
				marks := strings.Count(last, "#")
				if tc.bar < 0 {
					assert.Zero(t, marks, last)
					continue
				}
				assert.Equal(t, tc.bar, marks, last)
			}
		})
	}
}
