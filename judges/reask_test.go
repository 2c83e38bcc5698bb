package judges

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// memCache is an llm.Cache in memory.
type memCache struct {
	mu sync.Mutex
	m  map[string]llm.Response
}

func (c *memCache) Get(_ context.Context, key string) (llm.Response, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	return r, ok, nil
}

func (c *memCache) Put(_ context.Context, key string, r llm.Response) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]llm.Response{}
	}
	c.m[key] = r
	return nil
}

// TestNoVerdictAtAllIsRepairedNotCached: a reply that gives no verdict
// for any of the items asked about is an invalid reply, repaired, and
// never cached. Asked again with the same items, the same prompt would
// otherwise be answered by the cache with the same empty reply: the
// model never asked again, and the default kept by every rerun.
func TestNoVerdictAtAllIsRepairedNotCached(t *testing.T) {
	t.Parallel()
	verdicts := `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":"c1 says 1889"}]}`
	useful := `{"verdicts":[{"context":"c1","useful":true,"reason":"date"},{"context":"c2","useful":false,"reason":"height"}]}`
	tests := map[string]struct {
		replies map[string][]string
		scorer  func(m Model) eval.Scorer
		value   float64
	}{
		"faithfulness": {
			replies: map[string][]string{
				"faithfulness.claims": {`{"claims":["The Eiffel Tower was completed in 1889."]}`},
				"faithfulness.verify": {`{"verdicts":[]}`, verdicts},
			},
			scorer: func(m Model) eval.Scorer { return Faithfulness{Model: m} },
			value:  1,
		},
		"context precision": {
			replies: map[string][]string{"context.precision": {`{"verdicts":[]}`, useful}},
			scorer:  func(m Model) eval.Scorer { return ContextPrecision{Model: m} },
			value:   1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fm := &fakeModel{replies: tc.replies}
			cache := &memCache{}
			c := llm.New(llm.Config{Backend: fm, Cache: cache})
			sc, err := tc.scorer(c).Score(t.Context(), ragSample)
			require.NoError(t, err)
			assert.False(t, sc.Defaulted, "%s: %v", sc.Reason, sc.Err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			for _, r := range cache.m {
				assert.NotContains(t, r.Content, `"verdicts":[]`, "an empty verdict list is not cached")
			}
		})
	}
}
