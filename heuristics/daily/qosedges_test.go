package daily

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestQoSStepsAtTheSeedsEdges: seed 003's latency is "<5s (excellent),
// 5-10s (good), 10-20s (acceptable), >20s (poor)" and its cost "<$0.05,
// $0.05-0.10, $0.10-0.20, >$0.20": 20 s and $0.20 are acceptable, not
// poor (they were read as poor), 5 s and $0.05 are good.
func TestQoSStepsAtTheSeedsEdges(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		total, cost float64
		dim         string
		score       float64
	}{
		"4.99 s is excellent":    {total: 4.99, dim: "latency", score: 100},
		"5 s is good":            {total: 5, dim: "latency", score: 85},
		"10 s is acceptable":     {total: 10, dim: "latency", score: 70},
		"20 s is acceptable":     {total: 20, dim: "latency", score: 70},
		"20.01 s is poor":        {total: 20.01, dim: "latency", score: 40},
		"$0.0499 is excellent":   {total: 1, cost: 0.0499, dim: "cost_efficiency", score: 100},
		"$0.05 is good":          {total: 1, cost: 0.05, dim: "cost_efficiency", score: 85},
		"$0.20 is acceptable":    {total: 1, cost: 0.20, dim: "cost_efficiency", score: 70},
		"$0.2001 is poor":        {total: 1, cost: 0.2001, dim: "cost_efficiency", score: 40},
		"20 s scales acceptably": {total: 20, dim: "scalability", score: 70},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := Default().QoS(&eval.Telemetry{Total: tc.total, CostUSD: tc.cost})
			got, ok := q.DimensionScores.Get(tc.dim)
			require.True(t, ok)
			assert.Equal(t, tc.score, got)
		})
	}
}

// TestQoSStepBounds: a step is bounded by max (a value under it) or le
// (a value at or under it), not both; the last step by neither.
func TestQoSStepBounds(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		old, repl, at, want string
	}{
		"max and le":      {"{max: 10, score: 85, label: Good}", "{max: 10, le: 10, score: 85, label: Good}", "{max: 10, score: 85", "qos.latency_s[1]: give one bound, max (a value under it) or le (a value at or under it), not both"},
		"le on the last":  {"{score: 40, label: Poor}", "{le: 99, score: 40, label: Poor}", "{max: 5, score: 100", "qos.latency_s: needs steps, the last one without max or le"},
		"le out of order": {"{le: 20, score: 70, label: Acceptable}", "{le: 7, score: 70, label: Acceptable}", "{le: 20, score: 70", "qos.latency_s[2].le: must be above the bound before it (10): steps are read in order"},
		"a NaN le":        {"{le: 20, score: 70, label: Acceptable}", "{le: .nan, score: 70, label: Acceptable}", "{le: 20, score: 70", "qos.latency_s[2].le: must be a number of 0 or more, got NaN"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("my.yaml", edited(t, tc.old, tc.repl))
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("my.yaml:%d: %s", lineOf(t, tc.at), tc.want))
		})
	}
}
