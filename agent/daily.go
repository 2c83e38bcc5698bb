package agent

import (
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/judges"
)

// init registers the daily profile's metrics (seed 003's five scorers and
// the overall quality) and their dimension scores, so that judges.Lookup,
// judges.InProfile(KindDaily) and bench know them. Their scorers read the
// report from the sample's Answer and the truth and telemetry from its
// metadata (daily.MetaTruth, daily.MetaTelemetry).
func init() {
	for _, name := range daily.Metrics() {
		judges.Register(judges.Metric{
			Name: name, Kind: judges.KindHeuristic, Profiles: []string{KindDaily}, Needs: judges.NeedsAnswer,
			Threshold: judges.Threshold{Offline: dailyThreshold(name), Model: dailyThreshold(name)},
			Build:     func(judges.Model) eval.Scorer { return daily.Scorer{Metric: name} },
		})
	}
	dims := daily.Dimensions()
	for _, name := range daily.Metrics() {
		for _, d := range dims[name] {
			judges.Register(judges.Metric{Name: d, Kind: judges.KindValue, Of: name, Profiles: []string{KindDaily}})
		}
	}
}

// dailyThreshold is a daily metric's pass threshold as a value in [0,1]:
// the built-in profile's gate for the four content scores, 0.7 (the seed's
// "acceptable") for QoS and the overall quality.
func dailyThreshold(metric string) float64 {
	g := daily.DefaultGate()
	switch metric {
	case daily.MetricFaithfulness:
		return g.Faithfulness / 100
	case daily.MetricCompleteness:
		return g.Completeness / 100
	case daily.MetricReasoning:
		return g.Reasoning / 100
	case daily.MetricCompliance:
		return g.Compliance / 100
	}
	return 0.7
}
