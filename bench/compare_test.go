package bench_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
)

// values makes results of one metric, ids q1, q2, ... in order.
func values(metric string, vs ...float64) []bench.Result {
	out := make([]bench.Result, len(vs))
	for i, v := range vs {
		out[i] = bench.Result{ID: fmt.Sprintf("q%d", i+1), Metric: metric, Value: v}
	}
	return out
}

func meanOf(vs ...float64) bench.Num {
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return bench.Num(s / float64(len(vs)))
}

func TestCompare(t *testing.T) {
	t.Parallel()
	base7 := []float64{0.9, 0.8, 0.8, 0.7, 0.9, 0.8, 0.7}
	cur7 := []float64{0.5, 0.7, 0.4, 0.7, 0.6, 0.3, 0.6} // q4 unchanged; six fell
	degraded := func(metric string, cur, limit float64) bench.QualityAlert {
		return bench.QualityAlert{Type: "degradation", Severity: "warning", Message: metric + " degraded from baseline", Metric: metric, CurrentValue: cur, Threshold: limit}
	}
	critical := func(metric string, cur float64) bench.QualityAlert {
		return bench.QualityAlert{Type: "threshold", Severity: "critical", Message: "Average " + metric + " critically low", Metric: metric, CurrentValue: cur, Threshold: 0.4}
	}
	tests := map[string]struct {
		base        []bench.Result
		baseSummary bool
		cur         []bench.Result
		curMean     bench.Num
		wantBase    float64 // NaN when undefined
		paired      int
		test        string
		p           float64
		fell        []bench.SampleChange
		alerts      []bench.QualityAlert
	}{
		"a drop of more than 15% is a degradation; six fell, the five worst listed": {
			base: values("m", base7...), baseSummary: true, cur: values("m", cur7...), curMean: meanOf(cur7...),
			wantBase: float64(meanOf(base7...)), paired: 7, test: "wilcoxon signed-rank (exact)",
			// six negative differences and a zero: W+ = 0, which one sign
			// assignment of 64 gives, so p = 2/64 (ties or not).
			p: 2.0 / 64,
			fell: []bench.SampleChange{
				{ID: "q6", Baseline: 0.8, Current: 0.3}, {ID: "q1", Baseline: 0.9, Current: 0.5}, {ID: "q3", Baseline: 0.8, Current: 0.4},
				{ID: "q5", Baseline: 0.9, Current: 0.6}, {ID: "q2", Baseline: 0.8, Current: 0.7}, // q2 before q7: the same fall, by id
			},
			alerts: []bench.QualityAlert{degraded("m", float64(meanOf(cur7...)), float64(meanOf(base7...))*0.85)},
		},
		"below 0.4 and far below the baseline: both alerts": {
			base: values("m", 0.8, 0.8), baseSummary: true, cur: values("m", 0.3, 0.4), curMean: 0.35,
			wantBase: 0.8, paired: 2, test: "wilcoxon signed-rank (exact)", p: 0.5,
			fell:   []bench.SampleChange{{ID: "q1", Baseline: 0.8, Current: 0.3}, {ID: "q2", Baseline: 0.8, Current: 0.4}},
			alerts: []bench.QualityAlert{degraded("m", 0.35, 0.8*0.85), critical("m", 0.35)},
		},
		"low but not lower than the baseline: critical only": {
			base: values("m", 0.38), baseSummary: true, cur: values("m", 0.39), curMean: 0.39,
			wantBase: 0.38, paired: 1, test: "wilcoxon signed-rank (exact)", p: 1,
			alerts: []bench.QualityAlert{critical("m", 0.39)},
		},
		"exactly 85% of the baseline raises nothing": {
			base: values("m", 1), baseSummary: true, cur: values("m", 0.85), curMean: 0.85,
			wantBase: 1, paired: 1, test: "wilcoxon signed-rank (exact)", p: 1,
			fell:   []bench.SampleChange{{ID: "q1", Baseline: 1, Current: 0.85}},
			alerts: []bench.QualityAlert{},
		},
		"no summary.json: the baseline mean from its scored results, defaults left out": {
			base: append(values("m", 0.6, 0.8), bench.Result{ID: "q3", Metric: "m", Value: 0.5, Defaulted: true}),
			cur:  values("m", 0.7, 0.8, 0.6), curMean: 0.7,
			wantBase: 0.7, paired: 2, test: "wilcoxon signed-rank (exact)", p: 1,
			alerts: []bench.QualityAlert{},
		},
		"a default in the current run is not paired": {
			base: values("m", 0.6, 0.8), baseSummary: true,
			cur: append(values("m", 0.6), bench.Result{ID: "q2", Metric: "m", Value: 0.5, Defaulted: true}), curMean: 0.6,
			wantBase: 0.7, paired: 1, test: "wilcoxon signed-rank (no change)", p: math.NaN(),
			alerts: []bench.QualityAlert{},
		},
		"a metric the baseline lacks: nothing to compare, no alert": {
			base: values("other", 0.9), baseSummary: true, cur: values("m", 0.1), curMean: 0.1,
			wantBase: math.NaN(), p: math.NaN(),
			alerts: []bench.QualityAlert{critical("m", 0.1)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var bs *bench.Summary
			if tc.baseSummary {
				b := resultFile(t, tc.base)
				var stats []bench.MetricStats
				for _, m := range []string{"m", "other"} {
					var vs []float64
					for r := range b.All() {
						if r.Metric == m && r.Counted() {
							vs = append(vs, r.Value)
						}
					}
					if len(vs) > 0 {
						stats = append(stats, bench.MetricStats{Metric: m, Mean: meanOf(vs...)})
					}
				}
				bs = &bench.Summary{RunID: "base", Metrics: stats}
			}
			dir := writeRun(t, filepath.Join(t.TempDir(), "base"), bench.RunConfig{RunID: "base"}, bs, tc.base)
			cur := resultFile(t, tc.cur)
			c, alerts, err := bench.Compare(dir, cur, bench.Summary{RunID: "cur", Metrics: []bench.MetricStats{{Metric: "m", Mean: tc.curMean}}}, nil)
			require.NoError(t, err)
			assert.Equal(t, "base", c.BaselineRunID)
			assert.Equal(t, dir, c.BaselineDir)
			require.Len(t, c.Metrics, 1)
			mc := c.Metrics[0]
			assert.Equal(t, "m", mc.Metric)
			if math.IsNaN(tc.wantBase) {
				assert.True(t, math.IsNaN(float64(mc.BaselineMean)))
				assert.True(t, math.IsNaN(float64(mc.Delta)))
			} else {
				assert.InDelta(t, tc.wantBase, float64(mc.BaselineMean), 1e-12)
				assert.InDelta(t, float64(tc.curMean)-tc.wantBase, float64(mc.Delta), 1e-12)
			}
			assert.Equal(t, tc.paired, mc.Paired)
			assert.Equal(t, tc.test, mc.Test)
			if math.IsNaN(tc.p) {
				assert.True(t, math.IsNaN(float64(mc.P)), "p %v", mc.P)
			} else {
				assert.InDelta(t, tc.p, float64(mc.P), 1e-9)
			}
			assert.Equal(t, tc.fell, mc.Fell)
			require.Len(t, alerts, len(tc.alerts))
			for i, want := range tc.alerts {
				assert.Equal(t, want.Type, alerts[i].Type)
				assert.Equal(t, want.Severity, alerts[i].Severity)
				assert.Equal(t, want.Message, alerts[i].Message)
				assert.Equal(t, want.Metric, alerts[i].Metric)
				assert.InDelta(t, want.CurrentValue, alerts[i].CurrentValue, 1e-12)
				assert.InDelta(t, want.Threshold, alerts[i].Threshold, 1e-12)
			}
		})
	}
}

func TestCompareNotARunFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, _, err := bench.Compare(dir, resultFile(t, nil), bench.Summary{}, nil)
	require.Error(t, err)
	assert.Equal(t, "baseline: "+dir+" is not a run folder (no config.json): give a folder written by assay bench --out", err.Error())
}
