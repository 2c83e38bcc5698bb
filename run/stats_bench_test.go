package run

import (
	"fmt"
	"testing"
)

// BenchmarkMetricStats is the summary's statistics of a run of 200
// samples x 3 metrics (the bootstrap interval of each mean among them):
// what bench computes after its last call.
func BenchmarkMetricStats(b *testing.B) {
	var s Stats
	for i := range 200 {
		for j, m := range []string{"faithfulness", "context_precision", "source_relevance"} {
			s.Add(Result{ID: fmt.Sprintf("s%d", i), Metric: m, Value: float64((i*7+j*3)%11) / 10, Points: 1, Max: 1})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if ms := s.Metrics(); len(ms) != 3 {
			b.Fatal(len(ms))
		}
	}
}
