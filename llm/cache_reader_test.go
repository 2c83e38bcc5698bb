package llm

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCacheReadersSeeWrites: lookups keep their read transaction while
// lookups keep coming, yet find every reply this cache stored, find what
// another process stored once lookups pause or after maxReaderLookups,
// and hold no snapshot of the file once none is in flight (a full
// checkpoint then succeeds).
func TestCacheReadersSeeWrites(t *testing.T) {
	t.Parallel()
	type step struct {
		busy   bool   // another lookup stays in flight all along
		writer string // "self" or "other": who stores the reply
		after  int    // lookups of another key between the store and the lookup
		found  bool
	}
	tests := map[string]step{
		"stored here, lookups paused":                   {writer: "self", found: true},
		"stored here, lookups under way":                {busy: true, writer: "self", found: true},
		"stored elsewhere, lookups paused":              {writer: "other", found: true},
		"stored elsewhere, lookups under way":           {busy: true, writer: "other", found: false},
		"stored elsewhere, a transaction's lookups on":  {busy: true, writer: "other", after: maxReaderLookups, found: true},
		"stored elsewhere, fewer lookups than a reader": {busy: true, writer: "other", after: maxReaderLookups / 2, found: false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "cache.db")
			c, err := OpenCache(path, 1)
			require.NoError(t, err)
			defer func() { require.NoError(t, c.Close()) }()
			other, err := OpenCache(path, 1)
			require.NoError(t, err)
			defer func() { require.NoError(t, other.Close()) }()
			require.NoError(t, c.Put(ctx, "seen", Response{Content: "s"}))
			if tt.busy {
				c.rmu.Lock()
				c.inflight++ // as a lookup waiting for its place
				c.rmu.Unlock()
			}
			_, ok, err := c.Get(ctx, "seen") // begins the reader's transaction
			require.NoError(t, err)
			require.True(t, ok)
			w := map[string]*SQLiteCache{"self": c, "other": other}[tt.writer]
			require.NoError(t, w.Put(ctx, "new", Response{Content: "n"}))
			for range tt.after {
				_, _, err := c.Get(ctx, "seen")
				require.NoError(t, err)
			}
			r, ok, err := c.Get(ctx, "new")
			require.NoError(t, err)
			assert.Equal(t, tt.found, ok)
			if ok {
				assert.Equal(t, "n", r.Content)
			}
			if tt.busy {
				c.rmu.Lock()
				c.inflight--
				c.rmu.Unlock()
				// The first lookup to end with none other in flight ends
				// the transactions.
				_, _, err := c.Get(ctx, "seen")
				require.NoError(t, err)
				_, ok, err := c.Get(ctx, "new")
				require.NoError(t, err)
				assert.True(t, ok, "found once lookups pause")
			}
			// No lookup in flight: no reader holds a snapshot, so a
			// checkpoint can take the whole WAL back into the file.
			var busy, logged, done int
			require.NoError(t, other.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &done))
			assert.Zero(t, busy, "a reader holds the WAL")
		})
	}
}

// TestCacheReaderAfterCancel: a lookup whose context ends gives its
// place back, and the next lookups still find their replies.
func TestCacheReaderAfterCancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := OpenCache(filepath.Join(t.TempDir(), "cache.db"), 2)
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }()
	for i := range 3 {
		require.NoError(t, c.Put(ctx, fmt.Sprint(i), Response{Content: fmt.Sprint(i)}))
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = c.Get(done, "0")
	require.ErrorIs(t, err, context.Canceled)
	for i := range 3 {
		r, ok, err := c.Get(ctx, fmt.Sprint(i))
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, fmt.Sprint(i), r.Content)
	}
	assert.Zero(t, c.inflight)
	assert.Len(t, c.slots, 0)
}
