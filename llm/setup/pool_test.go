package setup

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/llm"
)

// TestOpenSizesTheCacheToTheConcurrency: the response cache keeps a
// database connection for each call in flight (--concurrency), the
// lookups' number, but no more than the cores can use, and one for
// writing.
func TestOpenSizesTheCacheToTheConcurrency(t *testing.T) {
	t.Parallel()
	for _, conc := range []int{1, 8, 32} {
		cfg := DefaultConfig() // opening the client calls no server
		cfg.Concurrency = conc
		env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ASSAY_CACHE_DIR": t.TempDir()}
		_, cl, err := Open(cfg, func(k string) string { return env[k] })
		require.NoError(t, err)
		cache := cl.(closer).cache
		require.NotNil(t, cache)
		// One connection per call in flight, up to the cores
		// (llm.MaxCacheConns), and the writer's.
		assert.Equal(t, min(conc, llm.MaxCacheConns())+1, cache.Stats().MaxOpenConnections, "--concurrency %d", conc)
		require.NoError(t, cl.Close())
	}
}
