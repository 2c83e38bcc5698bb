package bench

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
)

// BenchmarkScoreEachLarge streams 10,000 records through three cheap
// scorers whose scores carry 20 claims of evidence each, and reports the
// heap still live when the last record is emitted (heap-MB): the scores
// emitted earlier must be gone by then, so it stays flat as the dataset
// grows.
func BenchmarkScoreEachLarge(b *testing.B) {
	const n = 10_000
	recs := make([]dataset.Record, n)
	for i := range recs {
		recs[i] = dataset.Record{ID: strconv.Itoa(i), Sample: eval.Sample{Query: "q"}}
	}
	text := strings.Repeat("a claim of about two hundred bytes ", 6)
	sc := scorerFunc(func(context.Context, eval.Sample) (eval.Score, error) {
		claims := make([]eval.Claim, 20)
		for k := range claims {
			claims[k] = eval.Claim{Text: text[:len(text)-k], Verdict: eval.VerdictSupported}
		}
		return eval.Score{Metric: "m", Value: 1, Evidence: eval.Evidence{Claims: claims}}, nil
	})
	scorers := []eval.Scorer{sc, sc, sc}
	b.ReportAllocs()
	var live uint64
	for b.Loop() {
		err := ScoreEach(context.Background(), recs, scorers, 32, func(i int, _ []eval.Score) error {
			if i == n-1 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				live = max(live, ms.HeapAlloc)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(live)/(1<<20), "heap-MB")
}
