package live_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/assaylabs/assay/serve/live"
)

// BenchmarkObserve is the cost of one observation on a monitor watching
// four metrics with a window of 100: scores that cross the rule now and
// then (so events are emitted, to a sink that drops them), a default in
// ten.
func BenchmarkObserve(b *testing.B) {
	for _, parallel := range []bool{false, true} {
		b.Run("parallel="+strconv.FormatBool(parallel), func(b *testing.B) {
			clk := newClock()
			m, err := live.New(live.Config{
				Metrics: []string{"m0", "m1", "m2", "m3"}, StallAfter: time.Minute, Now: clk.Now,
				Sink: live.SinkFunc(func(context.Context, live.Event) error { return nil }),
			})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = m.Close() }()
			metrics := []string{"m0", "m1", "m2", "m3"}
			meta := map[string]string{"trace_id": "0af7651916cd43dd8448eb211c80319c"}
			at := clk.Now()
			b.ReportAllocs()
			if !parallel {
				i := 0
				for b.Loop() {
					m.Observe(metrics[i%4], float64(i%97)/96, i%10 == 0, meta, at)
					i++
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					m.Observe(metrics[i%4], float64(i%97)/96, i%10 == 0, meta, at)
					i++
				}
			})
		})
	}
}

// BenchmarkSnapshot is the cost of a Snapshot of four full windows of
// 100: with each window changed since the last one (four bootstrap
// intervals of 1,000 resamples computed), and unchanged (kept ones).
func BenchmarkSnapshot(b *testing.B) {
	for _, changed := range []bool{true, false} {
		b.Run("changed="+strconv.FormatBool(changed), func(b *testing.B) {
			clk := newClock()
			m, err := live.New(live.Config{Now: clk.Now})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = m.Close() }()
			metrics := []string{"m0", "m1", "m2", "m3"}
			for i := range 400 {
				m.Observe(metrics[i%4], float64(i%97)/96, false, nil, clk.Now())
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if changed {
					for _, name := range metrics {
						m.Observe(name, float64(i%97)/96, false, nil, clk.Now())
						i++
					}
				}
				m.Snapshot()
			}
		})
	}
}
