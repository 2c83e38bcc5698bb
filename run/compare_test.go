package run_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	base7 := []float64{0.9, 0.8, 0.8, 0.7, 0.9, 0.8, 0.7}
	cur7 := []float64{0.5, 0.7, 0.4, 0.7, 0.6, 0.3, 0.6} // q4 unchanged; six fell
	degraded := func(metric string, cur, limit float64) run.QualityAlert {
		return run.QualityAlert{Type: "degradation", Severity: "warning", Message: metric + " degraded from baseline", Metric: metric, CurrentValue: cur, Threshold: limit}
	}
	critical := func(metric string, cur float64) run.QualityAlert {
		return run.QualityAlert{Type: "threshold", Severity: "critical", Message: "Average " + metric + " critically low", Metric: metric, CurrentValue: cur, Threshold: 0.4}
	}
	tests := map[string]struct {
		base        []run.Result
		baseSummary bool
		cur         []run.Result
		curMean     run.Num
		wantBase    float64 // NaN when undefined
		paired      int
		test        string
		p           float64
		fell        []run.SampleChange
		alerts      []run.QualityAlert
	}{
		"a drop of more than 15% is a degradation; six fell, the five worst listed": {
			base: runtest.Values("m", base7...), baseSummary: true, cur: runtest.Values("m", cur7...), curMean: runtest.Mean(cur7...),
			wantBase: float64(runtest.Mean(base7...)), paired: 7, test: "wilcoxon signed-rank (exact)",
			// six negative differences and a zero: W+ = 0, which one sign
			// assignment of 64 gives, so p = 2/64 (ties or not).
			p: 2.0 / 64,
			fell: []run.SampleChange{
				{ID: "q6", Baseline: 0.8, Current: 0.3}, {ID: "q1", Baseline: 0.9, Current: 0.5}, {ID: "q3", Baseline: 0.8, Current: 0.4},
				{ID: "q5", Baseline: 0.9, Current: 0.6}, {ID: "q2", Baseline: 0.8, Current: 0.7}, // q2 before q7: the same fall, by id
			},
			alerts: []run.QualityAlert{degraded("m", float64(runtest.Mean(cur7...)), float64(runtest.Mean(base7...))*0.85)},
		},
		"below 0.4 and far below the baseline: both alerts": {
			base: runtest.Values("m", 0.8, 0.8), baseSummary: true, cur: runtest.Values("m", 0.3, 0.4), curMean: 0.35,
			wantBase: 0.8, paired: 2, test: "wilcoxon signed-rank (exact)", p: 0.5,
			fell:   []run.SampleChange{{ID: "q1", Baseline: 0.8, Current: 0.3}, {ID: "q2", Baseline: 0.8, Current: 0.4}},
			alerts: []run.QualityAlert{degraded("m", 0.35, 0.8*0.85), critical("m", 0.35)},
		},
		"under the floor as the baseline was: no alert, as with no baseline": {
			base: runtest.Values("m", 0.38), baseSummary: true, cur: runtest.Values("m", 0.39), curMean: 0.39,
			wantBase: 0.38, paired: 1, test: "wilcoxon signed-rank (exact)", p: 1,
			alerts: []run.QualityAlert{},
		},
		"two identical runs under the floor raise nothing": {
			base: runtest.Values("m", 0.3, 0.2), baseSummary: true, cur: runtest.Values("m", 0.3, 0.2), curMean: 0.25,
			wantBase: 0.25, paired: 2, test: "wilcoxon signed-rank (no change)", p: math.NaN(),
			alerts: []run.QualityAlert{},
		},
		"a fall through the floor from above it: critical only": {
			base: runtest.Values("m", 0.42), baseSummary: true, cur: runtest.Values("m", 0.39), curMean: 0.39,
			wantBase: 0.42, paired: 1, test: "wilcoxon signed-rank (exact)", p: 1,
			fell:   []run.SampleChange{{ID: "q1", Baseline: 0.42, Current: 0.39}},
			alerts: []run.QualityAlert{critical("m", 0.39)},
		},
		"a fall onto the floor exactly is no fall through it": {
			base: runtest.Values("m", 0.45), baseSummary: true, cur: runtest.Values("m", 0.4), curMean: 0.4,
			wantBase: 0.45, paired: 1, test: "wilcoxon signed-rank (exact)", p: 1,
			fell:   []run.SampleChange{{ID: "q1", Baseline: 0.45, Current: 0.4}},
			alerts: []run.QualityAlert{},
		},
		"exactly 85% of the baseline raises nothing": {
			base: runtest.Values("m", 1), baseSummary: true, cur: runtest.Values("m", 0.85), curMean: 0.85,
			wantBase: 1, paired: 1, test: "wilcoxon signed-rank (exact)", p: 1,
			fell:   []run.SampleChange{{ID: "q1", Baseline: 1, Current: 0.85}},
			alerts: []run.QualityAlert{},
		},
		"no summary.json: the baseline mean from its scored results, defaults left out": {
			base: append(runtest.Values("m", 0.6, 0.8), run.Result{ID: "q3", Metric: "m", Value: 0.5, Defaulted: true}),
			cur:  runtest.Values("m", 0.7, 0.8, 0.6), curMean: 0.7,
			wantBase: 0.7, paired: 2, test: "wilcoxon signed-rank (exact)", p: 1,
			alerts: []run.QualityAlert{},
		},
		"a default in the current run is not paired": {
			base: runtest.Values("m", 0.6, 0.8), baseSummary: true,
			cur: append(runtest.Values("m", 0.6), run.Result{ID: "q2", Metric: "m", Value: 0.5, Defaulted: true}), curMean: 0.6,
			wantBase: 0.7, paired: 1, test: "wilcoxon signed-rank (no change)", p: math.NaN(),
			alerts: []run.QualityAlert{},
		},
		"a metric the baseline lacks: nothing to compare, no alert": {
			base: runtest.Values("other", 0.9), baseSummary: true, cur: runtest.Values("m", 0.1), curMean: 0.1,
			wantBase: math.NaN(), p: math.NaN(),
			alerts: []run.QualityAlert{},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var bs *run.Summary
			if tc.baseSummary {
				b := runtest.ResultFile(t, tc.base)
				var stats []run.MetricStats
				for _, m := range []string{"m", "other"} {
					var vs []float64
					for r := range b.All() {
						if r.Metric == m && r.Counted() {
							vs = append(vs, r.Value)
						}
					}
					if len(vs) > 0 {
						stats = append(stats, run.MetricStats{Metric: m, Mean: runtest.Mean(vs...)})
					}
				}
				bs = &run.Summary{RunID: "base", Metrics: stats}
			}
			dir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "base"), run.Config{RunID: "base"}, bs, tc.base)
			cur := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "cur"), run.Config{RunID: "cur"}, nil, tc.cur)
			c, alerts, err := run.Compare(dir, filepath.Join(cur, run.FileResults), run.Summary{RunID: "cur", Metrics: []run.MetricStats{{Metric: "m", Mean: tc.curMean}}}, nil)
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
	_, _, err := run.Compare(dir, filepath.Join(dir, run.FileResults), run.Summary{}, nil)
	require.Error(t, err)
	assert.Equal(t, "baseline: "+dir+" is not a run folder (no config.json): give a folder written by assay bench --out", err.Error())
}

// TestCompareRunWithoutResults: a run folder whose results.jsonl is gone
// (deleted by hand; bench makes it as a run starts) is bad input naming
// it, baseline or current, never compared on no sample with no alert.
func TestCompareRunWithoutResults(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		baseGone, curGone bool
	}{
		"the baseline's": {baseGone: true},
		"the current's":  {curGone: true},
		"both":           {baseGone: true, curGone: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := &run.Summary{RunID: "r", Metrics: []run.MetricStats{{Metric: "m", N: 2, Scored: 2, Mean: 0.5}}}
			baseDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "base"), run.Config{RunID: "base"}, s, runtest.Values("m", 0.4, 0.6))
			curDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "cur"), run.Config{RunID: "cur"}, s, runtest.Values("m", 0.1, 0.1))
			gone := filepath.Join(curDir, run.FileResults)
			if tc.curGone {
				require.NoError(t, os.Remove(gone))
			}
			if tc.baseGone {
				gone = filepath.Join(baseDir, run.FileResults)
				require.NoError(t, os.Remove(gone))
			}
			_, _, err := run.Compare(baseDir, filepath.Join(curDir, run.FileResults), *s, nil)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, gone, ie.File)
			assert.Contains(t, ie.Msg, "missing: the run's results are gone")
		})
	}
}

// TestCompareFlipsAndPairs: the samples that flipped each way with
// McNemar's exact test on them, the paired mean difference and its
// interval, and the samples that moved most, both runs read line by line
// (a pair written twice counts its last line).
func TestCompareFlipsAndPairs(t *testing.T) {
	t.Parallel()
	base := runtest.Values("m", 0.9, 0.8, 0.6, 0.7, 0.3, 0.2, 0.6, 0.5)
	// q1 first defaulted, then judged: its last line counts.
	base = append([]run.Result{{ID: "q1", Metric: "m", Value: 0.5, Defaulted: true}}, base...)
	cur := runtest.Values("m", 0.4, 0.3, 0.2, 0.7, 0.6, 0.2, 0.55, 0.1)
	baseDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "base"), run.Config{RunID: "base"}, nil, base)
	curDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "cur"), run.Config{RunID: "cur"}, nil, cur)
	c, _, err := run.Compare(baseDir, filepath.Join(curDir, run.FileResults),
		run.Summary{Metrics: []run.MetricStats{{Metric: "m", Mean: runtest.Mean(0.4, 0.3, 0.2, 0.7, 0.6, 0.2, 0.55, 0.1), Threshold: 0.5}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, [3]int{8, 0, 0}, [3]int{c.Shared, c.OnlyBaseline, c.OnlyCurrent})
	mc := c.Metrics[0]
	assert.Equal(t, 8, mc.Paired)
	// Under 0.5: q1, q2, q3 and q8 now fail, q5 now passes. McNemar on
	// 4 and 1: 2*P(X <= 1) for X ~ Binomial(5, 1/2) = 2*6/32, mid-p
	// 12/32 - 5/32.
	assert.Equal(t, [2]int{4, 1}, [2]int{mc.NowFailing, mc.NowPassing})
	assert.Equal(t, "mcnemar exact", mc.FlipTest)
	assert.InDelta(t, 12.0/32, float64(mc.FlipP), 1e-9)
	assert.InDelta(t, 7.0/32, float64(mc.FlipMidP), 1e-9)
	ids := func(cs []run.SampleChange) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID+":"+c.Flip)
		}
		return out
	}
	assert.Equal(t, []string{"q1:fails", "q2:fails", "q3:fails", "q8:fails", "q5:passes"}, ids(mc.Flipped))
	assert.Equal(t, []string{"q1:", "q2:", "q3:", "q8:", "q5:", "q7:"}, ids(mc.Moved), "the largest moves either way, none of the unchanged")
	assert.Equal(t, run.SampleChange{ID: "q1", Baseline: 0.9, Current: 0.4}, mc.Moved[0])
	// Differences -0.5, -0.5, -0.4, 0, 0.3, 0, -0.05, -0.4: mean -1.55/8.
	assert.InDelta(t, -1.55/8, float64(mc.MeanDiff), 1e-9)
	want := stats.PairedMeanDiff([]float64{0.9, 0.8, 0.6, 0.7, 0.3, 0.2, 0.6, 0.5}, []float64{0.4, 0.3, 0.2, 0.7, 0.6, 0.2, 0.55, 0.1},
		run.BootstrapResamples, run.BootstrapSeed)
	assert.Equal(t, [2]float64{want.Lo, want.Hi}, [2]float64{float64(mc.DiffLow), float64(mc.DiffHigh)})
	assert.Less(t, float64(mc.DiffLow), float64(mc.MeanDiff))
	assert.Greater(t, float64(mc.DiffHigh), float64(mc.MeanDiff))
}

// TestCompareOnSharedSamples: runs with samples the other lacks are
// compared on the samples both have, their means included, and the
// comparison says how many each has alone.
func TestCompareOnSharedSamples(t *testing.T) {
	t.Parallel()
	base := append(runtest.Values("m", 0.8, 0.6, 0.4, 0.2), run.Result{ID: "q9", Metric: "m", Value: 1})
	cur := append(runtest.Values("m", 0.8, 0.7, 0.4, 0.3), run.Result{ID: "q10", Metric: "m"}, run.Result{ID: "q11", Metric: "other", Value: 1})
	bs := &run.Summary{RunID: "base", Metrics: []run.MetricStats{{Metric: "m", Mean: runtest.Mean(0.8, 0.6, 0.4, 0.2, 1)}}}
	baseDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "base"), run.Config{RunID: "base"}, bs, base)
	curDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "cur"), run.Config{RunID: "cur"}, nil, cur)
	c, alerts, err := run.Compare(baseDir, filepath.Join(curDir, run.FileResults),
		run.Summary{Metrics: []run.MetricStats{{Metric: "m", Mean: runtest.Mean(0.8, 0.7, 0.4, 0.3, 0)}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, [3]int{4, 1, 2}, [3]int{c.Shared, c.OnlyBaseline, c.OnlyCurrent})
	mc := c.Metrics[0]
	assert.Equal(t, 4, mc.Paired)
	assert.InDelta(t, 0.5, float64(mc.BaselineMean), 1e-12, "q9 left out")
	assert.InDelta(t, 0.55, float64(mc.CurrentMean), 1e-12, "q10 left out")
	assert.InDelta(t, 0.05, float64(mc.Delta), 1e-12)
	assert.InDelta(t, 0.05, float64(mc.MeanDiff), 1e-12)
	assert.Empty(t, alerts, "the whole runs' means (0.6 and 0.44) would have raised a degradation")
}

// TestCompareMetricNotInBaseline: a metric the baseline never judged
// used to compare as "- -> 0.55, 0 paired" with no reason; now its
// comparison says the baseline has no results for it, whether the
// baseline has a summary or only its results, and a metric the baseline
// judged, even with nothing scored, does not say so.
func TestCompareMetricNotInBaseline(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		baseSummary *run.Summary
		base        []run.Result
		want        map[string]bool
	}{
		"a baseline with a summary": {
			baseSummary: &run.Summary{RunID: "base", Metrics: []run.MetricStats{{Metric: "m", Mean: 0.5}}},
			base:        runtest.Values("m", 0.4, 0.6),
			want:        map[string]bool{"m": false, "new": true},
		},
		"a baseline with results only": {
			base: runtest.Values("m", 0.4, 0.6),
			want: map[string]bool{"m": false, "new": true},
		},
		"a baseline that judged it and scored nothing": {
			base: append(runtest.Values("m", 0.4, 0.6), run.Result{ID: "q1", Metric: "new", Error: "down"}),
			want: map[string]bool{"m": false, "new": false},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			baseDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "base"), run.Config{RunID: "base"}, tc.baseSummary, tc.base)
			curDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "cur"), run.Config{RunID: "cur"}, nil,
				append(runtest.Values("m", 0.4, 0.6), runtest.Values("new", 0.5, 0.6)...))
			c, _, err := run.Compare(baseDir, filepath.Join(curDir, run.FileResults),
				run.Summary{Metrics: []run.MetricStats{{Metric: "m", Mean: 0.5}, {Metric: "new", Mean: 0.55}}}, nil)
			require.NoError(t, err)
			got := map[string]bool{}
			for _, mc := range c.Metrics {
				got[mc.Metric] = mc.NotInBaseline
				note := run.NotInBaselineNote(mc)
				if mc.NotInBaseline {
					assert.Equal(t, "the baseline has no results for "+mc.Metric+": nothing to compare", note)
					assert.Equal(t, 0, mc.Paired)
				} else {
					assert.Empty(t, note)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestCompareMetricOnlyInBaseline: a metric the baseline judged and the
// run compared with it did not (by the baseline's config or summary) is
// named, in the baseline's order, never dropped from the comparison
// unseen; metrics both judged are not.
func TestCompareMetricOnlyInBaseline(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		baseMetrics []string
		baseSummary *run.Summary
		want        []string
		note        string
	}{
		"the same metrics": {
			baseMetrics: []string{"m"}, baseSummary: &run.Summary{RunID: "base", Metrics: []run.MetricStats{{Metric: "m", Mean: 0.5}}},
		},
		"the baseline judged two more": {
			baseMetrics: []string{"gone", "m", "also"}, baseSummary: &run.Summary{RunID: "base", Metrics: []run.MetricStats{{Metric: "gone"}, {Metric: "m", Mean: 0.5}, {Metric: "also"}}},
			want: []string{"gone", "also"}, note: "the baseline judged gone, also, which this run did not: not compared",
		},
		"one in the baseline's config alone (a run cut short)": {
			baseMetrics: []string{"m", "later"}, want: []string{"later"}, note: "the baseline judged later, which this run did not: not compared",
		},
		"one in the baseline's summary alone (a config edited by hand)": {
			baseMetrics: []string{"m"}, baseSummary: &run.Summary{RunID: "base", Metrics: []run.MetricStats{{Metric: "m", Mean: 0.5}, {Metric: "x"}}},
			want: []string{"x"}, note: "the baseline judged x, which this run did not: not compared",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			baseDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "base"), run.Config{RunID: "base", Metrics: tc.baseMetrics}, tc.baseSummary, runtest.Values("m", 0.4, 0.6))
			curDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "cur"), run.Config{RunID: "cur", Metrics: []string{"m"}}, nil, runtest.Values("m", 0.4, 0.6))
			c, _, err := run.Compare(baseDir, filepath.Join(curDir, run.FileResults), run.Summary{Metrics: []run.MetricStats{{Metric: "m", Mean: 0.5}}}, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.BaselineOnlyMetrics)
			assert.Equal(t, tc.note, run.BaselineOnlyNote(c))
		})
	}
}

// TestCompareFellOrder: the samples that fell most, as report.html lists
// them, are ordered as the flips and the moves are: equal falls (equal
// but for floating-point noise too) in SampleOrder, so q2 comes before
// q10 and the page names the same samples as the terminal.
func TestCompareFellOrder(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		base, cur []float64
		want      []string
	}{
		"twelve equal falls list q1 to q5, not q1, q10, q11, q12, q2": {
			base: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
			cur:  []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			want: []string{"q1", "q2", "q3", "q4", "q5"},
		},
		"falls equal but for rounding tie, the larger fall first": {
			// 0.8-0.5 and 0.7-0.4 differ in the last bit; q3 fell more.
			base: []float64{0.7, 0.8, 0.9, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.7},
			cur:  []float64{0.4, 0.5, 0.1, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.4},
			want: []string{"q3", "q1", "q2", "q10"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			baseDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "base"), run.Config{RunID: "base"}, nil, runtest.Values("m", tc.base...))
			curDir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "cur"), run.Config{RunID: "cur"}, nil, runtest.Values("m", tc.cur...))
			c, _, err := run.Compare(baseDir, filepath.Join(curDir, run.FileResults),
				run.Summary{Metrics: []run.MetricStats{{Metric: "m", Mean: runtest.Mean(tc.cur...), Threshold: 0.5}}}, nil)
			require.NoError(t, err)
			var got []string
			for _, f := range c.Metrics[0].Fell {
				got = append(got, f.ID)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
