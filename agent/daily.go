package agent

import (
	"github.com/assaylabs/assay/heuristics/daily"
)

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
