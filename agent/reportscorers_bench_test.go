package agent

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/assaylabs/assay/eval"
)

// BenchmarkReportScorers scores research cards in parallel, each goroutine
// on reports of its own (as a bench run or several research runs do), with
// one scorer at a time per card so that parallelism comes only from the
// cards. A package-level lock around the report parse would keep -cpu 2 at
// the speed of -cpu 1; without one, two CPUs score nearly twice the cards.
func BenchmarkReportScorers(b *testing.B) {
	p, err := LoadProfile("research")
	if err != nil {
		b.Fatal(err)
	}
	// Sixteen reports that differ in their first line, so that no cache
	// keyed by the text can serve one card's parse to another.
	reports := make([]string, 16)
	for i := range reports {
		reports[i] = fmt.Sprintf("# Benchmark report %d\n\n", i) + longReport(2000, 30)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s := eval.Sample{Query: "throughput of the system", Answer: reports[next.Add(1)%int64(len(reports))]}
			if _, err := Score(context.Background(), p, s, Options{Concurrency: 1}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
