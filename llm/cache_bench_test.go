package llm_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// BenchmarkCacheGetConcurrent is a cached rerun's lookups: conc at a
// time (the client's --concurrency), every one a hit, over 512 replies
// of a judge's size (its reply and the object checked in it), under a
// context that can be cancelled, as a run's judgements are.
// opens/kop is how many database connections were opened a thousand
// lookups (each opens the file and sets its pragmas again, and prepares
// its statements again).
func BenchmarkCacheGetConcurrent(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const reply = `{"statements":[{"statement":"The first statement of the answer.","reason":"The context says so in its first line.","verdict":1},{"statement":"The second statement of the answer.","reason":"Nothing in the context says this.","verdict":0}]}`
	for _, conc := range []int{8, 32} {
		b.Run(fmt.Sprintf("conc=%d", conc), func(b *testing.B) {
			c, err := llm.OpenCache(filepath.Join(b.TempDir(), "cache.db"), conc)
			require.NoError(b, err)
			b.Cleanup(func() { require.NoError(b, c.Close()) })
			keys := make([]string, 512)
			for i := range keys {
				keys[i] = fmt.Sprintf("key-%03d", i)
				require.NoError(b, c.Put(ctx, keys[i], llm.Response{Content: reply, Checked: reply,
					Usage: eval.Usage{Calls: 1, TokensIn: 900, TokensOut: 40, Latency: 1234567890, CostUnknown: true}}))
			}
			before := opened(c)
			var next atomic.Int64
			b.SetParallelism(max(1, conc/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					k := keys[next.Add(1)%int64(len(keys))]
					if _, ok, err := c.Get(ctx, k); err != nil || !ok {
						b.Errorf("get %s: %v, hit %v", k, err, ok)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(1000*float64(opened(c)-before)/float64(b.N), "opens/kop")
		})
	}
}

// opened is how many connections the cache's pool has opened so far:
// those open, and those it closed.
func opened(c *llm.SQLiteCache) int64 {
	s := c.Stats()
	return int64(s.OpenConnections) + s.MaxIdleClosed + s.MaxIdleTimeClosed + s.MaxLifetimeClosed
}
