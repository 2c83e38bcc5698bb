package run

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/assaylabs/assay/heuristics"
)

// Alert types and severities of seed 002. The seed declares AlertAnomaly
// but never raises it.
const (
	AlertDegradation = "degradation"
	AlertAnomaly     = "anomaly"
	AlertThreshold   = "threshold"

	SeverityWarning  = "warning"
	SeverityCritical = "critical"
	// SeverityNotice marks a mean under CriticalQuality that is no fall
	// from a baseline (FloorNotices): shown, never failing the run.
	SeverityNotice = "notice"
)

// Seed 002's alert thresholds: a recent average below DegradationRatio
// times the baseline is a degradation (a drop of more than 15%), and one
// below CriticalQuality is critical.
const (
	DegradationRatio = 0.85
	CriticalQuality  = 0.4
)

// edgeNoise is how far under a limit a mean must be to be under it: more
// than the rounding of a sum of scores and of 0.85 x a baseline, far less
// than any difference a score can show.
const edgeNoise = 1e-9

// Under reports whether mean is under limit, as seed 002's rules compare
// them (a mean equal to the limit raises nothing), by more than
// floating-point noise: the mean of 0.1 and 0.7 is 0.39999999999999997
// and 0.85 x 0.8 is 0.6799999999999999, and neither is under 0.4 or
// under 0.85 x 0.8. NaN is under nothing.
func Under(mean, limit float64) bool { return mean < limit-edgeNoise }

// QualityAlert is one alert raised on recent quality scores.
type QualityAlert struct {
	Type         string  `json:"type"`
	Severity     string  `json:"severity"`
	Message      string  `json:"message"`
	Metric       string  `json:"metric"`
	CurrentValue float64 `json:"currentValue"`
	Threshold    float64 `json:"threshold"`
}

// CheckQualityAlerts is seed 002's checkQualityAlerts: it compares the mean
// of the recent overall scores with the baseline mean and returns a
// degradation warning, a critical threshold alert, both, or none, in that
// order. The result is never nil, so that it encodes as [] like the seed's.
//
// With no recent scores the mean is NaN (0/0, as in JavaScript), which no
// comparison passes: no alerts.
func CheckQualityAlerts(recent []float64, baselineAvg float64) []QualityAlert {
	sum := 0.0
	for _, v := range recent {
		sum += v
	}
	return qualityAlerts("quality_score_avg", "Quality score", sum/float64(len(recent)), baselineAvg)
}

// MeanAlerts applies seed 002's rules to one metric of a run compared with
// its baseline run: a degradation warning when the current mean is below
// DegradationRatio times the baseline mean, a critical threshold alert
// when it fell below CriticalQuality from a baseline mean at or above it,
// both, or none. The alerts name the metric and say so in their message;
// a NaN mean (nothing scored) raises none, as in the seed. The result is
// never nil.
//
// Every alert fails a run, so the critical floor is a fall through it,
// not a level: a mean under the floor whose baseline was under it too is
// no alert, as it is none in a run with no baseline (FloorNotices reports
// both the same way). A run is thus never failed by being compared with
// an identical one; --gate 'METRIC.mean>=0.4' makes the floor a level.
func MeanAlerts(metric string, current, baseline float64) []QualityAlert {
	alerts := qualityAlerts(metric, metric, current, baseline)
	if baseline >= CriticalQuality-edgeNoise { // at or above it (NaN is not)
		return alerts
	}
	return slices.DeleteFunc(alerts, func(a QualityAlert) bool { return a.Type == AlertThreshold })
}

// FloorNotices are the notices of the metrics of ms whose mean is under
// CriticalQuality without a critical alert among alerts (no baseline, or
// one under the floor too): said alike with and without --baseline, and
// never failing the run.
func FloorNotices(ms []MetricStats, alerts []QualityAlert) []QualityAlert {
	var out []QualityAlert
	for _, m := range ms {
		critical := slices.ContainsFunc(alerts, func(a QualityAlert) bool { return a.Metric == m.Metric && a.Type == AlertThreshold })
		if !Under(float64(m.Mean), CriticalQuality) || critical {
			continue
		}
		out = append(out, QualityAlert{Type: AlertThreshold, Severity: SeverityNotice, Metric: m.Metric, CurrentValue: float64(m.Mean), Threshold: CriticalQuality,
			Message: fmt.Sprintf("%s mean under seed 002's critical floor %g, and no fall from a baseline at or above it: not a failure (--gate '%s.mean>=%g' makes it one)",
				m.Metric, CriticalQuality, m.Metric, CriticalQuality)})
	}
	return out
}

// qualityAlerts is the body of seed 002's checkQualityAlerts for the
// average avg of subject ("Quality score" in the seed), reported under
// metric.
func qualityAlerts(metric, subject string, avg, baselineAvg float64) []QualityAlert {
	alerts := []QualityAlert{}
	if limit := baselineAvg * DegradationRatio; Under(avg, limit) {
		alerts = append(alerts, QualityAlert{
			Type:         AlertDegradation,
			Severity:     SeverityWarning,
			Message:      subject + " degraded from baseline",
			Metric:       metric,
			CurrentValue: avg,
			Threshold:    limit,
		})
	}
	if Under(avg, CriticalQuality) {
		alerts = append(alerts, QualityAlert{
			Type:         AlertThreshold,
			Severity:     SeverityCritical,
			Message:      "Average " + strings.ToLower(subject[:1]) + subject[1:] + " critically low",
			Metric:       metric,
			CurrentValue: avg,
			Threshold:    CriticalQuality,
		})
	}
	return alerts
}

// A/B test variants.
const (
	VariantControl   = "control"
	VariantTreatment = "treatment"
)

// MinSignificantSamples is how many results each variant needs for seed
// 002 to call an A/B test significant. It is a sample-size floor, not a
// statistical test.
const MinSignificantSamples = 100

// ABTestResult is one query served by a variant of the retrieval.
type ABTestResult struct {
	// Variant is VariantControl or VariantTreatment; other values are
	// ignored.
	Variant      string                       `json:"variant"`
	QueryID      string                       `json:"queryId"`
	QualityScore heuristics.ContextAssessment `json:"qualityScore"`
	LatencyMs    float64                      `json:"latencyMs"`
	// Timestamp is in Unix milliseconds (JavaScript's Date.now()).
	Timestamp int64 `json:"timestamp"`
}

// ABTestAnalysis compares the two variants of an A/B test.
//
// The changes are relative to the control, computed as IEEE floats exactly
// as JavaScript does: when the control's mean is 0 (no control results, or
// all zero) QualityImprovement and LatencyChange are +Inf, -Inf or NaN
// (0/0). Test them with math.IsInf and math.IsNaN before use. MarshalJSON
// writes such values as null, as JSON.stringify does.
type ABTestAnalysis struct {
	ControlSampleSize   int     `json:"controlSampleSize"`
	TreatmentSampleSize int     `json:"treatmentSampleSize"`
	ControlAvgQuality   float64 `json:"controlAvgQuality"`
	TreatmentAvgQuality float64 `json:"treatmentAvgQuality"`
	// QualityImprovement is (treatment - control) / control.
	QualityImprovement  float64 `json:"qualityImprovement"`
	ControlAvgLatency   float64 `json:"controlAvgLatency"`
	TreatmentAvgLatency float64 `json:"treatmentAvgLatency"`
	// LatencyChange is (treatment - control) / control.
	LatencyChange float64 `json:"latencyChange"`
	// IsSignificant is true when both variants have at least
	// MinSignificantSamples results.
	IsSignificant bool `json:"isSignificant"`
}

// AnalyzeABTest is seed 002's analyzeABTest: the size, mean overall quality
// and mean latency of each variant, and the treatment's relative changes.
// The mean of no values is 0, as in the seed.
func AnalyzeABTest(results []ABTestResult) ABTestAnalysis {
	var control, treatment abMeans
	for _, r := range results {
		switch r.Variant {
		case VariantControl:
			control.add(r)
		case VariantTreatment:
			treatment.add(r)
		}
	}
	return abAnalysis(control, treatment)
}

// abAnalysis is AnalyzeABTest of the two variants' sums.
func abAnalysis(control, treatment abMeans) ABTestAnalysis {
	cq, tq := control.quality(), treatment.quality()
	cl, tl := control.latency(), treatment.latency()
	return ABTestAnalysis{
		ControlSampleSize:   control.n,
		TreatmentSampleSize: treatment.n,
		ControlAvgQuality:   cq,
		TreatmentAvgQuality: tq,
		QualityImprovement:  (tq - cq) / cq,
		ControlAvgLatency:   cl,
		TreatmentAvgLatency: tl,
		LatencyChange:       (tl - cl) / cl,
		IsSignificant:       control.n >= MinSignificantSamples && treatment.n >= MinSignificantSamples,
	}
}

// abMeans sums one variant's results in order, as the seed's reduce does.
type abMeans struct {
	n                      int
	qualitySum, latencySum float64
}

func (m *abMeans) add(r ABTestResult) {
	m.n++
	m.qualitySum += r.QualityScore.Overall
	m.latencySum += r.LatencyMs
}

func (m abMeans) quality() float64 { return m.mean(m.qualitySum) }
func (m abMeans) latency() float64 { return m.mean(m.latencySum) }

func (m abMeans) mean(sum float64) float64 {
	if m.n == 0 {
		return 0
	}
	return sum / float64(m.n)
}

// MarshalJSON implements json.Marshaler, writing non-finite numbers as null.
func (a ABTestAnalysis) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ControlSampleSize   int      `json:"controlSampleSize"`
		TreatmentSampleSize int      `json:"treatmentSampleSize"`
		ControlAvgQuality   *float64 `json:"controlAvgQuality"`
		TreatmentAvgQuality *float64 `json:"treatmentAvgQuality"`
		QualityImprovement  *float64 `json:"qualityImprovement"`
		ControlAvgLatency   *float64 `json:"controlAvgLatency"`
		TreatmentAvgLatency *float64 `json:"treatmentAvgLatency"`
		LatencyChange       *float64 `json:"latencyChange"`
		IsSignificant       bool     `json:"isSignificant"`
	}{
		a.ControlSampleSize, a.TreatmentSampleSize,
		abFiniteOrNil(a.ControlAvgQuality), abFiniteOrNil(a.TreatmentAvgQuality), abFiniteOrNil(a.QualityImprovement),
		abFiniteOrNil(a.ControlAvgLatency), abFiniteOrNil(a.TreatmentAvgLatency), abFiniteOrNil(a.LatencyChange),
		a.IsSignificant,
	})
}

// abFiniteOrNil returns &x, or nil when x is NaN or infinite.
func abFiniteOrNil(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// AnalyzeRuns is seed 002's A/B analysis (AnalyzeABTest) of one metric
// over two runs: the control run's scored results of metric against the
// treatment run's, each result's value as its overall quality and its
// judge latency as its latency. Defaults and skipped results are left
// out, as everywhere a mean is taken.
func AnalyzeRuns(control, treatment *ResultFile, metric string) ABTestAnalysis {
	var ab []ABTestResult
	for variant, f := range map[string]*ResultFile{VariantControl: control, VariantTreatment: treatment} {
		if f == nil {
			continue
		}
		for r := range f.All() {
			if r.Metric != metric || !r.Counted() {
				continue
			}
			ab = append(ab, ABTestResult{Variant: variant, QueryID: r.ID,
				QualityScore: heuristics.ContextAssessment{Overall: r.Value},
				LatencyMs:    float64(r.Usage.Latency) / float64(time.Millisecond)})
		}
	}
	return AnalyzeABTest(ab)
}
