package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

func TestWilson(t *testing.T) {
	t.Parallel()
	// Reference values from the closed form (Wilson 1927), at z = 1.96.
	tests := map[string]struct {
		k, n   int
		lo, hi float64
	}{
		"none of five":  {0, 5, 0, 0.4345},
		"all of five":   {5, 5, 0.5655, 1},
		"three of five": {3, 5, 0.2307, 0.8824},
		"half of ten":   {5, 10, 0.2366, 0.7634},
		"one of three":  {1, 3, 0.0615, 0.7923},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lo, hi := stats.Wilson(tc.k, tc.n, stats.Z95)
			assert.InDelta(t, tc.lo, lo, 1e-4)
			assert.InDelta(t, tc.hi, hi, 1e-4)
		})
	}
	lo, hi := stats.Wilson(0, 0, stats.Z95)
	assert.True(t, math.IsNaN(lo) && math.IsNaN(hi))
}
