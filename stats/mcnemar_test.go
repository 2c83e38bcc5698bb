package stats_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/stats"
)

func TestMcNemar(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		lost, gained int
		p, midP      float64 // NaN when undefined
	}{
		// Fagerland, Lydersen and Laake, "The McNemar test for binary
		// matched-pairs data: mid-p and asymptotic are better than exact
		// conditional", BMC Medical Research Methodology 13:91 (2013),
		// Table 1: airway hyper-responsiveness before and after stem cell
		// transplantation in 21 children (Bentur et al. 2009), n12 = 1,
		// n21 = 7. They report the exact conditional p 0.070 and the
		// mid-p 0.039: 2*(1+8)/256 and 18/256 - 8/256.
		"Fagerland et al. 2013, Table 1":      {lost: 1, gained: 7, p: 18.0 / 256, midP: 10.0 / 256},
		"the same flips the other way":        {lost: 7, gained: 1, p: 18.0 / 256, midP: 10.0 / 256},
		"all five flips one way":              {lost: 0, gained: 5, p: 2.0 / 32, midP: 1.0 / 32},
		"one flip: nothing to conclude":       {lost: 1, gained: 0, p: 1, midP: 0.5},
		"two of twelve: (1+12+66)/4096 twice": {lost: 2, gained: 10, p: 158.0 / 4096, midP: 92.0 / 4096},
		// Equal counts: p is 1 and mid-p 1 - C(6,3)/2^6/2 (Fagerland
		// et al.'s supplement, "if n12 = n21").
		"as many each way": {lost: 3, gained: 3, p: 1, midP: 1 - 20.0/128},
		"nothing flipped":  {lost: 0, gained: 0, p: math.NaN(), midP: math.NaN()},
		"a negative count": {lost: -1, gained: 3, p: math.NaN(), midP: math.NaN()},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := stats.McNemar(tc.lost, tc.gained)
			assert.Equal(t, tc.lost, r.Lost)
			assert.Equal(t, tc.gained, r.Gained)
			if math.IsNaN(tc.p) {
				assert.True(t, math.IsNaN(r.P), "p %v", r.P)
				assert.True(t, math.IsNaN(r.MidP), "mid-p %v", r.MidP)
				return
			}
			assert.InDelta(t, tc.p, r.P, 1e-9)
			assert.InDelta(t, tc.midP, r.MidP, 1e-9)
		})
	}
}

// exactBinomialHalfCDF is P(X <= k), X ~ Binomial(n, 1/2), in exact
// rational arithmetic: sum of C(n, i) for i <= k, over 2^n.
func exactBinomialHalfCDF(n, k int64) (cdf, pmf float64) {
	sum := new(big.Int)
	c := new(big.Int)
	for i := int64(0); i <= k; i++ {
		c.Binomial(n, i)
		sum.Add(sum, c)
	}
	den := new(big.Int).Lsh(big.NewInt(1), uint(n))
	cdf, _ = new(big.Rat).SetFrac(sum, den).Float64()
	pmf, _ = new(big.Rat).SetFrac(c, den).Float64()
	return cdf, pmf
}

// TestMcNemarManyFlips: with thousands of flips the recurrence from the
// log-gamma term agrees with exact rational arithmetic to 1e-9 relative.
func TestMcNemarManyFlips(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ lost, gained int }{
		"2,000 flips, 950 lost":   {lost: 950, gained: 1050},
		"2,000 flips, 999 lost":   {lost: 999, gained: 1001},
		"5,000 flips, 2,400 lost": {lost: 2600, gained: 2400},
		"300 flips, 10 gained":    {lost: 290, gained: 10},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n, k := int64(tc.lost+tc.gained), int64(min(tc.lost, tc.gained))
			cdf, pmf := exactBinomialHalfCDF(n, k)
			r := stats.McNemar(tc.lost, tc.gained)
			require.Greater(t, cdf, 0.0)
			assert.InEpsilon(t, math.Min(1, 2*cdf), r.P, 1e-9)
			assert.InEpsilon(t, math.Min(1, 2*cdf-pmf), r.MidP, 1e-9)
		})
	}
}
