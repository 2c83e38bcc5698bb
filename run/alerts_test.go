package run

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

func TestCheckQualityAlerts(t *testing.T) {
	t.Parallel()
	degraded := func(avg, limit float64) QualityAlert {
		return QualityAlert{Type: AlertDegradation, Severity: SeverityWarning, Message: "Quality score degraded from baseline",
			Metric: "quality_score_avg", CurrentValue: avg, Threshold: limit}
	}
	critical := func(avg float64) QualityAlert {
		return QualityAlert{Type: AlertThreshold, Severity: SeverityCritical, Message: "Average quality score critically low",
			Metric: "quality_score_avg", CurrentValue: avg, Threshold: 0.4}
	}
	tests := map[string]struct {
		recent   []float64
		baseline float64
		want     []QualityAlert
	}{
		// 0/0 is NaN, and NaN < x is false.
		"no recent scores raise nothing": {nil, 0.9, []QualityAlert{}},
		// avg 0.85, limit 1*0.85 = 0.85: not below.
		"exactly 85% of the baseline is no degradation": {[]float64{0.85}, 1, []QualityAlert{}},
		// avg 0.849 < 0.85.
		"under 85% of the baseline is a degradation": {
			[]float64{0.849}, 1, []QualityAlert{degraded(0.849, 0.85)},
		},
		// avg 0.8499999999999999 is 0.85 but for the last bit: not under.
		"85% of the baseline but for rounding is no degradation": {[]float64{math.Nextafter(0.85, 0)}, 1, []QualityAlert{}},
		// avg 0.68, limit 0.8*0.85: not below.
		"a mean on the limit is no degradation": {[]float64{0.68}, 0.8, []QualityAlert{}},
		// (0.6 + 0.76) / 2 is 0.6799999999999999 in floating point, and
		// (0.76 + 0.6) / 2 is 0.68: the order of the scores decides nothing.
		"a mean on the limit but for rounding is no degradation": {[]float64{0.6, 0.76}, 0.8, []QualityAlert{}},
		// avg 0.4 is not below 0.4; limit 0.4*0.85 = 0.34.
		"exactly 0.4 is not critical": {[]float64{0.4}, 0.4, []QualityAlert{}},
		// avg (0.1 + 0.7) / 2 is 0.39999999999999997: 0.4 but for rounding.
		"0.4 but for rounding is not critical": {[]float64{0.1, 0.7}, 0.4, []QualityAlert{}},
		// avg 0.39 < 0.4; limit 0.4*0.85 = 0.34 is not passed.
		"below 0.4 is critical": {[]float64{0.39}, 0.4, []QualityAlert{critical(0.39)}},
		// avg (0.3 + 0.4)/2 = 0.35 < 0.9*0.85 = 0.765 and < 0.4: both, in
		// the seed's order.
		"both alerts, degradation first": {
			[]float64{0.3, 0.4}, 0.9, []QualityAlert{degraded(0.35, 0.765), critical(0.35)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := CheckQualityAlerts(tc.recent, tc.baseline)
			require.NotNil(t, got)
			require.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				g := got[i]
				assert.Equal(t, w.Type, g.Type)
				assert.Equal(t, w.Severity, g.Severity)
				assert.Equal(t, w.Message, g.Message)
				assert.Equal(t, w.Metric, g.Metric)
				assert.InDelta(t, w.CurrentValue, g.CurrentValue, 1e-9)
				assert.InDelta(t, w.Threshold, g.Threshold, 1e-9)
			}
		})
	}

	t.Run("no alerts encode as an empty array", func(t *testing.T) {
		t.Parallel()
		b, err := json.Marshal(CheckQualityAlerts(nil, 1))
		require.NoError(t, err)
		assert.Equal(t, "[]", string(b))
	})
}

func abResults(variant string, n int, overall, latency float64) []ABTestResult {
	out := make([]ABTestResult, n)
	for i := range out {
		out[i] = ABTestResult{Variant: variant, QueryID: "q", QualityScore: heuristics.ContextAssessment{Overall: overall}, LatencyMs: latency}
	}
	return out
}

func TestAnalyzeABTest(t *testing.T) {
	t.Parallel()
	t.Run("means and relative changes", func(t *testing.T) {
		t.Parallel()
		// control quality (0.5 + 0.7)/2 = 0.6, latency (100 + 200)/2 = 150;
		// treatment 0.9 and 120. improvement (0.9 - 0.6)/0.6 = 0.5;
		// latency change (120 - 150)/150 = -0.2. The "shadow" result is
		// neither variant and is ignored.
		in := []ABTestResult{
			{Variant: VariantControl, QualityScore: heuristics.ContextAssessment{Overall: 0.5}, LatencyMs: 100},
			{Variant: VariantTreatment, QualityScore: heuristics.ContextAssessment{Overall: 0.9}, LatencyMs: 120},
			{Variant: "shadow", QualityScore: heuristics.ContextAssessment{Overall: 0.1}, LatencyMs: 1},
			{Variant: VariantControl, QualityScore: heuristics.ContextAssessment{Overall: 0.7}, LatencyMs: 200},
		}
		got := AnalyzeABTest(in)
		assert.Equal(t, 2, got.ControlSampleSize)
		assert.Equal(t, 1, got.TreatmentSampleSize)
		assert.InDelta(t, 0.6, got.ControlAvgQuality, 1e-9)
		assert.InDelta(t, 0.9, got.TreatmentAvgQuality, 1e-9)
		assert.InDelta(t, 0.5, got.QualityImprovement, 1e-9)
		assert.InDelta(t, 150, got.ControlAvgLatency, 1e-9)
		assert.InDelta(t, 120, got.TreatmentAvgLatency, 1e-9)
		assert.InDelta(t, -0.2, got.LatencyChange, 1e-9)
		assert.False(t, got.IsSignificant)
	})

	significance := map[string]struct {
		control, treatment int
		want               bool
	}{
		"100 and 100 is significant":    {100, 100, true},
		"99 controls is not":            {99, 100, false},
		"99 treatments is not":          {100, 99, false},
		"more than 100 each is as well": {250, 101, true},
	}
	for name, tc := range significance {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := append(abResults(VariantControl, tc.control, 0.5, 10), abResults(VariantTreatment, tc.treatment, 0.5, 10)...)
			got := AnalyzeABTest(in)
			assert.Equal(t, tc.want, got.IsSignificant)
			assert.Equal(t, tc.control, got.ControlSampleSize)
			assert.Equal(t, tc.treatment, got.TreatmentSampleSize)
		})
	}

	t.Run("no control gives infinite change, as in JavaScript", func(t *testing.T) {
		t.Parallel()
		// control mean 0: (0.5 - 0)/0 = +Inf, (50 - 0)/0 = +Inf.
		got := AnalyzeABTest(abResults(VariantTreatment, 3, 0.5, 50))
		assert.Zero(t, got.ControlAvgQuality)
		assert.True(t, math.IsInf(got.QualityImprovement, 1))
		assert.True(t, math.IsInf(got.LatencyChange, 1))
		b, err := json.Marshal(got)
		require.NoError(t, err)
		assert.JSONEq(t, `{"controlSampleSize":0,"treatmentSampleSize":3,"controlAvgQuality":0,"treatmentAvgQuality":0.5,
			"qualityImprovement":null,"controlAvgLatency":0,"treatmentAvgLatency":50,"latencyChange":null,"isSignificant":false}`, string(b))
	})

	t.Run("no results at all give NaN changes", func(t *testing.T) {
		t.Parallel()
		// 0/0 on both.
		got := AnalyzeABTest(nil)
		assert.True(t, math.IsNaN(got.QualityImprovement))
		assert.True(t, math.IsNaN(got.LatencyChange))
	})

	t.Run("a falling treatment gives minus infinity over a zero control", func(t *testing.T) {
		t.Parallel()
		in := append(abResults(VariantControl, 1, 0, 0), abResults(VariantTreatment, 1, -0.5, 0)...)
		got := AnalyzeABTest(in)
		assert.True(t, math.IsInf(got.QualityImprovement, -1))
		assert.True(t, math.IsNaN(got.LatencyChange))
	})
}

func TestAnalyzeRuns(t *testing.T) {
	t.Parallel()
	control := &ResultFile{Results: []Result{
		{ID: "q1", Metric: "m", Value: 0.6, Usage: eval.Usage{Latency: 200 * time.Millisecond}},
		{ID: "q2", Metric: "m", Value: 0.8, Usage: eval.Usage{Latency: 400 * time.Millisecond}},
		{ID: "q3", Metric: "m", Value: 0.5, Defaulted: true, Usage: eval.Usage{Latency: 9 * time.Second}},
		{ID: "q1", Metric: "other", Value: 0.1},
	}}
	treatment := &ResultFile{Results: []Result{
		{ID: "q1", Metric: "m", Value: 0.9, Usage: eval.Usage{Latency: 150 * time.Millisecond}},
		{ID: "q2", Metric: "m", Skipped: true},
	}}
	tests := map[string]struct {
		control, treatment *ResultFile
		want               ABTestAnalysis
	}{
		"defaults and skips left out, latency in ms": {control, treatment, ABTestAnalysis{
			ControlSampleSize: 2, TreatmentSampleSize: 1, ControlAvgQuality: 0.7, TreatmentAvgQuality: 0.9,
			QualityImprovement: (0.9 - 0.7) / 0.7, ControlAvgLatency: 300, TreatmentAvgLatency: 150, LatencyChange: -0.5,
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := AnalyzeRuns(tc.control, tc.treatment, "m")
			assert.Equal(t, tc.want.ControlSampleSize, got.ControlSampleSize)
			assert.Equal(t, tc.want.TreatmentSampleSize, got.TreatmentSampleSize)
			assert.InDelta(t, tc.want.ControlAvgQuality, got.ControlAvgQuality, 1e-12)
			assert.InDelta(t, tc.want.TreatmentAvgQuality, got.TreatmentAvgQuality, 1e-12)
			assert.InDelta(t, tc.want.QualityImprovement, got.QualityImprovement, 1e-12)
			assert.InDelta(t, tc.want.ControlAvgLatency, got.ControlAvgLatency, 1e-9)
			assert.InDelta(t, tc.want.TreatmentAvgLatency, got.TreatmentAvgLatency, 1e-9)
			assert.InDelta(t, tc.want.LatencyChange, got.LatencyChange, 1e-12)
			assert.False(t, got.IsSignificant)
		})
	}
}
