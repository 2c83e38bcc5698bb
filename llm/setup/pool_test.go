package setup

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestOpenSizesTheCacheToTheConcurrency: the response cache keeps a
// database connection for each call in flight (--concurrency), the
// lookups' number.
func TestOpenSizesTheCacheToTheConcurrency(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "ok"}))
	for _, conc := range []int{1, 8, 32} {
		cfg := DefaultConfig()
		cfg.Concurrency = conc
		env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
		_, cl, err := Open(cfg, func(k string) string { return env[k] })
		require.NoError(t, err)
		cache := cl.(closer).cache
		require.NotNil(t, cache)
		assert.Equal(t, conc, cache.Stats().MaxOpenConnections, "--concurrency %d", conc)
		require.NoError(t, cl.Close())
	}
}
