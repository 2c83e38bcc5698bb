package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

func openCache(t *testing.T) *llm.SQLiteCache {
	t.Helper()
	c, err := llm.OpenCache(filepath.Join(t.TempDir(), "nested", "dir", "cache.db"), 0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func TestSQLiteCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reply := llm.Response{
		Content: `{"verdict":"pass"}`,
		Usage:   eval.Usage{Calls: 1, TokensIn: 120, TokensOut: 7, Latency: 3 * time.Second, CostUSD: 0.0012},
		Cached:  true, // not stored
	}

	t.Run("a miss is not an error", func(t *testing.T) {
		t.Parallel()
		c := openCache(t)
		_, ok, err := c.Get(ctx, "absent")
		require.NoError(t, err)
		require.False(t, ok)
	})

	t.Run("get returns what put stored", func(t *testing.T) {
		t.Parallel()
		c := openCache(t)
		require.NoError(t, c.Put(ctx, "k", reply))
		got, ok, err := c.Get(ctx, "k")
		require.NoError(t, err)
		require.True(t, ok)
		want := reply
		want.Cached = false
		require.Equal(t, want, got)
	})

	t.Run("put replaces an earlier reply", func(t *testing.T) {
		t.Parallel()
		c := openCache(t)
		require.NoError(t, c.Put(ctx, "k", llm.Response{Content: "old"}))
		require.NoError(t, c.Put(ctx, "k", llm.Response{Content: "new"}))
		got, ok, err := c.Get(ctx, "k")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "new", got.Content)
	})

	t.Run("replies survive reopening", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "cache.db")
		c, err := llm.OpenCache(path, 0)
		require.NoError(t, err)
		require.NoError(t, c.Put(ctx, "k", reply))
		require.NoError(t, c.Close())

		c, err = llm.OpenCache(path, 0)
		require.NoError(t, err)
		defer func() { require.NoError(t, c.Close()) }()
		got, ok, err := c.Get(ctx, "k")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, reply.Content, got.Content)
		require.Equal(t, reply.Usage, got.Usage)
	})

	t.Run("a cancelled context stops get", func(t *testing.T) {
		t.Parallel()
		c := openCache(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, _, err := c.Get(cctx, "k")
		require.ErrorIs(t, err, context.Canceled)
	})
}

func TestSQLiteCacheConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openCache(t)
	const workers, keys = 50, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range keys {
				key := fmt.Sprintf("k%d", i)
				// Every worker writes the same keys: upserts race on purpose.
				if err := c.Put(ctx, key, llm.Response{Content: fmt.Sprintf("w%d", w)}); err != nil {
					errs <- err
					return
				}
				r, ok, err := c.Get(ctx, key)
				if err != nil {
					errs <- err
					return
				}
				if !ok || r.Content == "" {
					errs <- fmt.Errorf("key %s: lost its reply", key)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestOpenCacheErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocked := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))

	tests := map[string]struct {
		path string
	}{
		"a directory that cannot be made names it": {path: filepath.Join(blocked, "sub", "cache.db")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := llm.OpenCache(tc.path, 0)
			require.Error(t, err)
			require.Nil(t, c)
			require.Contains(t, err.Error(), tc.path)
		})
	}
}

// TestOpenCacheAtAnyName: a cache path holding '?' (where the SQLite
// driver's parameters begin) is the file's name, not a cut.
func TestOpenCacheAtAnyName(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "what?.db")
	c, err := llm.OpenCache(path, 0)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	_, err = os.Stat(path)
	require.NoError(t, err)
}

func TestDefaultCachePath(t *testing.T) {
	// Not parallel: it sets an environment variable.
	t.Setenv("ASSAY_CACHE_DIR", "/tmp/assay-test-cache")
	p, err := llm.DefaultCachePath()
	require.NoError(t, err)
	require.Equal(t, filepath.Join("/tmp/assay-test-cache", "llm-cache.db"), p)

	t.Setenv("ASSAY_CACHE_DIR", "")
	p, err = llm.DefaultCachePath()
	require.NoError(t, err)
	base, err := os.UserCacheDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(base, "assay", "llm-cache.db"), p)
}

// TestOpenCacheConcurrentlyOnANewFile: processes that open a new cache
// file at the same moment all get it. The busy timeout must be set before
// the switch to the WAL journal, which takes a lock.
func TestOpenCacheConcurrentlyOnANewFile(t *testing.T) {
	t.Parallel()
	for range 10 {
		path := filepath.Join(t.TempDir(), "cache.db")
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 16 {
			wg.Go(func() {
				c, err := llm.OpenCache(path, 0)
				if err == nil {
					err = c.Put(context.Background(), "k", llm.Response{Content: "v"})
					err = errors.Join(err, c.Close())
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
}

// TestOpenCacheSizesThePool: the cache keeps a connection for each
// lookup that may run at once and one for writing, open and idle alike,
// so a burst of concurrent lookups and writes opens no connection beyond
// them; with the pool's default (two idle), a cached rerun at
// --concurrency 32 opened the file again and again.
func TestOpenCacheSizesThePool(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ conns, want int }{
		"the client's default": {conns: 0, want: min(llm.DefaultCacheConns, llm.MaxCacheConns())},
		"one call at a time":   {conns: 1, want: 1},
		// Lookups are CPU work: beyond the cores, more connections only
		// open the file more often.
		"32 calls at a time": {conns: 32, want: llm.MaxCacheConns()},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c, err := llm.OpenCache(filepath.Join(t.TempDir(), "cache.db"), tc.conns)
			require.NoError(t, err)
			defer func() { require.NoError(t, c.Close()) }()
			require.Equal(t, tc.want+1, c.Stats().MaxOpenConnections, "lookups, and a writer")
			require.NoError(t, c.Put(ctx, "k", llm.Response{Content: "v"}))
			var wg sync.WaitGroup
			for i := range 4 * tc.want {
				wg.Go(func() {
					for j := range 20 {
						_, ok, err := c.Get(ctx, "k")
						if err != nil || !ok {
							t.Errorf("get: %v, hit %v", err, ok)
							return
						}
						if j%5 == 0 {
							assert.NoError(t, c.Put(ctx, fmt.Sprintf("k%d-%d", i, j), llm.Response{Content: "w"}))
						}
					}
				})
			}
			wg.Wait()
			st := c.Stats()
			require.LessOrEqual(t, st.OpenConnections, tc.want+1)
			require.Zero(t, st.MaxIdleClosed, "no connection closed for want of an idle place")
		})
	}
}

// TestAnOldCachedReplyDecodes reads entries as earlier versions wrote
// them (every field; zero counts written out, as when llm had its own
// usage type) through the cache, which decodes
// them with encoding/json/v2: each is the Response encoding/json (v1),
// which wrote them, reads, usage to the nanosecond.
func TestAnOldCachedReplyDecodes(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		stored string
		want   eval.Usage
	}{
		"a call with a retry": {
			stored: `{"content":"{\"grade\":4}","usage":{"calls":1,"tokens_in":512,"tokens_out":9,"estimated":true,"retries":1,"latency_ns":840000000,"cost_usd":0.0002,"fingerprints":"fp_9","seeds":"3"},"checked":"{\"grade\":4}"}`,
			want:   eval.Usage{Calls: 1, TokensIn: 512, TokensOut: 9, Estimated: true, Retries: 1, Latency: 840 * time.Millisecond, CostUSD: 0.0002, Fingerprints: "fp_9", Seeds: "3"},
		},
		"zeros written out": {
			stored: `{"content":"{}","usage":{"calls":0,"tokens_in":0,"tokens_out":0,"cache_hits":1,"cached_tokens_in":40,"cached_tokens_out":2,"latency_ns":0,"cost_usd":0}}`,
			want:   eval.Usage{CacheHits: 1, CachedTokensIn: 40, CachedTokensOut: 2},
		},
		"every field of a reply": {
			stored: `{"content":"{\"verdict\":\"yes \\u00e9\\n\"}","usage":{"calls":1,"tokens_in":7,"tokens_out":3,"latency_ns":1234567891,"cost_unknown":true,"hedges":1,"batch_calls":1},"checked":"{\"verdict\":\"yes\"}","truncated":true,"logprobs":[{"token":"yes","logprob":-0.25,"top":[{"token":"yes","logprob":-0.25},{"token":"no","logprob":-1.5e-7}]}],"system_fingerprint":"fp_1","seed":42}`,
			want:   eval.Usage{Calls: 1, TokensIn: 7, TokensOut: 3, Latency: 1234567891, CostUnknown: true, Hedges: 1, BatchCalls: 1},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var v1 llm.Response
			require.NoError(t, json.Unmarshal([]byte(tt.stored), &v1))
			require.Equal(t, tt.want, v1.Usage)
			c := cacheHolding(t, tt.stored)
			got, ok, err := c.Get(context.Background(), "k")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, v1, got)
		})
	}
}

// TestCacheLookupStartsNoGoroutine holds a lookup to its cost: with a
// context that can be cancelled, the driver watched each statement from a
// goroutine of its own, and database/sql each query from another: three
// goroutines for a lookup that begins its transaction, which a cached
// rerun of 800 calls paid more for than for the lookups. Not parallel:
// the count is the process's.
func TestCacheLookupStartsNoGoroutine(t *testing.T) {
	c := openCache(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Put(ctx, "stored", llm.Response{Content: "{}"}))
	for _, tc := range []struct {
		name, key string
		found     bool
	}{
		{"hit", "stored", true},
		{"miss", "absent", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := c.Get(ctx, tc.key) // the reader's connection opened
			require.NoError(t, err)
			const lookups = 100
			before := goroutinesCreated()
			for range lookups {
				_, found, err := c.Get(ctx, tc.key)
				require.NoError(t, err)
				require.Equal(t, tc.found, found)
			}
			// Each of these lookups begins a read transaction (none is
			// left in flight between them) and ends it.
			assert.Zero(t, goroutinesCreated()-before)
		})
	}
}

// goroutinesCreated is how many goroutines the process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
