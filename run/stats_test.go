package run

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/stats"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	ms := func(n time.Duration) eval.Usage {
		return eval.Usage{Calls: 1, Latency: n * time.Millisecond, TokensIn: 10, TokensOut: 2, CostUSD: 0.001}
	}
	results := []Result{
		{ID: "a", Metric: "m", Value: 0.2, Usage: ms(10)},
		{ID: "b", Metric: "m", Value: 0.4, Usage: ms(20)},
		{ID: "c", Metric: "m", Value: 0.6, Usage: ms(30)},
		{ID: "d", Metric: "m", Value: 0.8, Usage: ms(40)},
		{ID: "e", Metric: "m", Value: 1.0, Usage: ms(50)},
		// Counted apart, never averaged in: a 0.5 default would move
		// the mean, a 0 skip too.
		{ID: "f", Metric: "m", Value: 0.5, Defaulted: true, Error: "status 500", Usage: ms(60)},
		{ID: "g", Metric: "m", Skipped: true},
		{ID: "a", Metric: "other", Value: 0.9, Error: "partial verdicts"},
	}
	got := Summarize(results, func(string) float64 { return 0.5 })
	require.Len(t, got, 2)
	m := got[0]
	assert.Equal(t, "m", m.Metric)
	assert.Equal(t, 7, m.N)
	assert.Equal(t, 5, m.Scored)
	assert.Equal(t, 1, m.Defaulted)
	assert.InDelta(t, 1.0/7, m.DefaultedRate, 1e-12)
	assert.Equal(t, 1, m.Skipped)
	assert.Equal(t, 0, m.Errors, "a default's error is the default's, not an error apart")
	assert.InDelta(t, 0.6, float64(m.Mean), 1e-12)
	assert.InDelta(t, math.Sqrt(0.1), float64(m.Std), 1e-12, "sample standard deviation (n-1)")
	assert.InDelta(t, 0.6, float64(m.Median), 1e-12)
	assert.InDelta(t, 0.2, float64(m.Min), 1e-12)
	assert.InDelta(t, 1.0, float64(m.Max), 1e-12)
	assert.InDelta(t, 0.28, float64(m.P10), 1e-12, "rank 0.4 between 0.2 and 0.4")
	assert.InDelta(t, 0.6, float64(m.PassRate), 1e-12, "3 of 5 scored at or above 0.5")
	assert.Less(t, float64(m.CILow), 0.6)
	assert.Greater(t, float64(m.CIHigh), 0.6)
	assert.GreaterOrEqual(t, float64(m.CILow), 0.2)
	assert.LessOrEqual(t, float64(m.CIHigh), 1.0)
	lo, hi := stats.BootstrapMean([]float64{0.2, 0.4, 0.6, 0.8, 1}, BootstrapResamples, BootstrapSeed)
	assert.Equal(t, [2]Num{Num(lo), Num(hi)}, [2]Num{m.CILow, m.CIHigh}, "the one bootstrap, over the values sorted")
	assert.Equal(t, 60, m.TokensIn)
	assert.Equal(t, 12, m.TokensOut)
	assert.InDelta(t, 0.006, m.CostUSD, 1e-12)
	assert.Equal(t, 35*time.Millisecond, m.LatencyP50, "over the six results with calls")
	assert.Equal(t, 57500*time.Microsecond, m.LatencyP95)

	o := got[1]
	assert.Equal(t, 1, o.Errors)
	assert.Equal(t, 1, o.Scored)
	assert.True(t, math.IsNaN(float64(o.Std)), "one value has no sample deviation")
	assert.Equal(t, time.Duration(0), o.LatencyP50, "no call, no latency")

	again := Summarize(results, func(string) float64 { return 0.5 })
	assert.Equal(t, m.CILow, again[0].CILow, "the bootstrap has a fixed seed")
	assert.Equal(t, m.CIHigh, again[0].CIHigh)
}

func TestStatsNothingScored(t *testing.T) {
	t.Parallel()
	var s Stats
	s.Add(Result{ID: "a", Metric: "m", Value: 0.5, Defaulted: true})
	got := s.Metrics("m", "never")
	require.Len(t, got, 2)
	for _, m := range got {
		for name, v := range map[string]Num{"mean": m.Mean, "median": m.Median, "p10": m.P10, "ci low": m.CILow, "pass rate": m.PassRate} {
			assert.True(t, math.IsNaN(float64(v)), "%s %s", m.Metric, name)
		}
	}
	assert.Equal(t, 1, got[0].N)
	assert.Equal(t, 1.0, got[0].DefaultedRate)
	assert.Equal(t, "never", got[1].Metric)
	assert.Equal(t, 0, got[1].N)

	var b strings.Builder
	require.NoError(t, FormatMetricStats(&b, got))
	assert.Contains(t, b.String(), "m       0/1     -     -    -       -    -    -    -     -       1 (100%)")
}

// TestMeanIsTheSameInAnyOrder: results arrive in the order their calls
// finish, which concurrency varies; the same values must give the same
// mean and deviation to the last bit, whatever the order.
func TestMeanIsTheSameInAnyOrder(t *testing.T) {
	t.Parallel()
	tests := map[string][]float64{
		"tenths":      {0.1, 0.2, 0.3, 0.7, 0.9, 0.4},
		"thirds":      {1.0 / 3, 2.0 / 3, 0.1, 1e-9, 0.999999},
		"wide ranges": {1e-12, 0.5, 0.25, 0.125, 0.3, 0.6, 0.7},
	}
	for name, values := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			summarize := func(vs []float64) MetricStats {
				rs := make([]Result, len(vs))
				for i, v := range vs {
					rs[i] = Result{ID: string(rune('a' + i)), Metric: "m", Value: v}
				}
				return Summarize(rs, func(string) float64 { return 0.5 })[0]
			}
			want := summarize(values)
			reversed := make([]float64, len(values))
			for i, v := range values {
				reversed[len(values)-1-i] = v
			}
			rotated := append(append([]float64{}, values[2:]...), values[:2]...)
			for _, order := range [][]float64{reversed, rotated} {
				got := summarize(order)
				assert.Equal(t, math.Float64bits(float64(want.Mean)), math.Float64bits(float64(got.Mean)), "mean of %v", order)
				assert.Equal(t, math.Float64bits(float64(want.Std)), math.Float64bits(float64(got.Std)), "deviation of %v", order)
			}
		})
	}
}

// TestStatsNotEvaluable: a conversation that could not be judged is
// skipped, never a value, and the table gives it a column of its own,
// there only when some were.
func TestStatsNotEvaluable(t *testing.T) {
	t.Parallel()
	var s Stats
	s.Add(Result{ID: "a", Metric: "task_completion", Value: 0.75})
	s.Add(Result{ID: "b", Metric: "task_completion", Skipped: true, Error: "not_evaluable", Reason: "not_evaluable: no content"})
	s.Add(Result{ID: "c", Metric: "task_completion", Skipped: true, Error: "the sample has no conversation (no messages)"})
	got := s.Metrics()
	require.Len(t, got, 1)
	assert.Equal(t, [4]int{3, 1, 2, 1}, [4]int{got[0].N, got[0].Scored, got[0].Skipped, got[0].NotEvaluable})
	assert.InDelta(t, 0.75, float64(got[0].Mean), 0)
	var b strings.Builder
	require.NoError(t, FormatMetricStats(&b, got))
	lines := strings.Split(b.String(), "\n")
	assert.Regexp(t, `defaulted\s+skipped\s+not_evaluable\s+errors`, lines[0])
	assert.Regexp(t, `^task_completion\s+1/3\s+0\.750 .*\s0\s+2\s+1\s+0\s+0/0`, lines[1])

	b.Reset()
	require.NoError(t, FormatMetricStats(&b, Summarize([]Result{{ID: "a", Metric: "m", Value: 1}}, nil)))
	assert.NotContains(t, b.String(), "not_evaluable", "no column when none was")
}
