package llm_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/llm"
)

// TestAnEditedEntryIsNotServed: an entry of the cache file edited by
// hand, or written by something else, that holds no reply (JSON null, an
// empty object, no content) or counts that cannot be (negative tokens)
// is a cache error naming the file, never served: the model is asked
// again and its reply stored in its place. A real reply beside it is
// served.
func TestAnEditedEntryIsNotServed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := map[string]struct {
		stored  string
		want    string // the content served; "" when the entry is refused
		problem string // what the error says
	}{
		"JSON null":             {stored: `null`, problem: "no reply"},
		"an empty object":       {stored: `{}`, problem: "no reply"},
		"empty content":         {stored: `{"content":"","usage":{"calls":1,"tokens_in":9}}`, problem: "no reply"},
		"negative tokens in":    {stored: `{"content":"ok","usage":{"tokens_in":-40,"tokens_out":2}}`, problem: "negative token count"},
		"negative tokens out":   {stored: `{"content":"ok","usage":{"tokens_in":40,"tokens_out":-2}}`, problem: "negative token count"},
		"negative cached token": {stored: `{"content":"ok","usage":{"cached_tokens_in":-1}}`, problem: "negative token count"},
		"truncated JSON":        {stored: `{"content":"o`, problem: "decode reply"},
		"a real reply":          {stored: `{"content":"ok","usage":{"calls":1,"tokens_in":40,"tokens_out":2}}`, want: "ok"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := cacheHolding(t, tc.stored)
			got, ok, err := c.Get(ctx, "k")
			if tc.want != "" {
				require.NoError(t, err)
				require.True(t, ok)
				assert.Equal(t, tc.want, got.Content)
				return
			}
			require.Error(t, err)
			assert.False(t, ok)
			assert.Contains(t, err.Error(), "llm cache "+c.Path())
			assert.Contains(t, err.Error(), tc.problem)
		})
	}
}

// cacheHolding is a cache whose file holds stored, written as it is under
// the key "k", as a hand or another program would write it.
func cacheHolding(t *testing.T, stored string) *llm.SQLiteCache {
	t.Helper()
	path := filepath.Join(t.TempDir(), "llm-cache.db")
	c, err := llm.OpenCache(path, 0)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.ExecContext(context.Background(), `INSERT INTO replies (key, reply, created_at) VALUES ('k', ?, '2026-01-01T00:00:00Z')`, stored)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	c, err = llm.OpenCache(path, 0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}
