package dashboard_test

import (
	"math"
	"time"

	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/dashboard"
)

var day0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// hostile is text a judged sample may carry; it must stay text.
const hostile = `</script><script>document.title="pwned"</script><img src=x onerror=alert(1)>`

// fixedData is a dashboard with one metric in a critical alert, one
// healthy, one whose judge stalled; samples and runs.
func fixedData() dashboard.Data {
	nan := run.Num(math.NaN())
	days := func(means ...float64) []dashboard.Day {
		out := make([]dashboard.Day, len(means))
		for i, m := range means {
			out[i] = dashboard.Day{Day: day0.AddDate(0, 0, i-len(means)+1).Format(time.DateOnly), Mean: run.Num(m), N: 40, Defaulted: 1}
		}
		return out
	}
	return dashboard.Data{
		Generated: day0,
		Rule:      "Warning when the mean of the last 100 judgements is under 0.85 × its baseline, critical under 0.40.",
		Critical:  0.4,
		Metrics: []dashboard.Metric{{
			Name: "faithfulness", Mean: 0.362, Low: 0.311, High: 0.414, Scored: 96, N: 100, Defaulted: 4, DefaultRate: 0.04,
			Baseline: 0.81, BaselineFrom: "run 20260301-0900-a1b2", Severity: "critical", LastSuccess: day0.Add(-time.Minute),
			Days: days(0.82, 0.80, 0.79, 0.61, 0.362),
		}, {
			Name: "answer_relevancy", Mean: 0.874, Low: 0.851, High: 0.896, Scored: 100, N: 100, DefaultRate: 0,
			Baseline: 0.88, BaselineFrom: "first window", LastSuccess: day0.Add(-2 * time.Second),
			Days: days(0.88, 0.87, 0.874),
		}, {
			Name: "context_precision", Mean: nan, Low: nan, High: nan, N: 12, Defaulted: 12, DefaultRate: 1,
			Baseline: nan, Stalled: true, StallReason: "the last 12 judgements defaulted", Days: []dashboard.Day{},
		}},
		Alerts: []dashboard.Alert{{
			Metric: "faithfulness", Severity: "critical",
			Message: "faithfulness degraded from baseline: 0.362 < 0.689; Average faithfulness critically low: 0.362 < 0.400",
			Mean:    0.362, Baseline: 0.81, Since: day0.Add(-90 * time.Minute),
		}},
		Lowest: []dashboard.Sample{{
			ID: "trace-7f3a", Metric: "faithfulness", Question: "When did the Treaty of Westphalia end the war?",
			Answer: "It ended the Hundred Years' War in 1453.", Value: 0, Reason: "0 of 2 claims are supported by the contexts.",
			Evidence: []string{"unsupported: It ended the Hundred Years' War", "unsupported: in 1453"}, LatencyMS: 1840, At: day0,
		}, {
			ID: "trace-hostile", Metric: "faithfulness", Question: hostile, Answer: hostile, Value: 0.25, Reason: "1 of 4", LatencyMS: 950,
		}},
		Slowest: []dashboard.Sample{{
			ID: "trace-91bc", Metric: "answer_relevancy", Question: "What is the boiling point of water at altitude?",
			Answer: "Lower than 100 °C, because the air pressure is lower.", Value: 0.9, Reason: "Answers the question.", LatencyMS: 12400,
		}},
		Runs: []dashboard.Run{{
			ID: "20260301-0900-a1b2", Started: day0.Add(-24 * time.Hour), Dataset: "fixtures/rag.jsonl",
			Metrics: []string{"faithfulness", "answer_relevancy"}, Status: "ok",
			Means: []dashboard.MetricMean{{Metric: "faithfulness", Mean: 0.81}, {Metric: "answer_relevancy", Mean: 0.88}},
		}},
	}
}
