package llm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/llm"
)

// filledCache makes a real cache file at dir/llm-cache.db holding n
// replies, closed, and returns its path.
func filledCache(t *testing.T, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, "llm-cache.db")
	c, err := llm.OpenCache(path, 0)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, c.Put(context.Background(), fmt.Sprint("key ", i), llm.Response{Content: strings.Repeat(fmt.Sprint(i), 500)}))
	}
	require.NoError(t, c.Close())
	return path
}

// scribble writes garbage over the file at path from byte off to the end
// (all of it when to is 0), as a failing disk or a stray write would.
func scribble(t *testing.T, path string, off, to int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	st, err := f.Stat()
	require.NoError(t, err)
	if to == 0 {
		to = st.Size()
	}
	require.Greater(t, to, off, "the file is large enough to corrupt")
	junk := make([]byte, to-off)
	for i := range junk {
		junk[i] = byte(i*131 + 7)
	}
	_, err = f.WriteAt(junk, off)
	require.NoError(t, err)
}

// asides lists the files a corrupt cache at path was set aside as.
func asides(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".corrupt-*")
	require.NoError(t, err)
	return m
}

func TestCorruptCacheIsSetAside(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := map[string]struct {
		off, to int64 // the bytes overwritten
		text    bool  // a text file in place of the cache
		atOpen  bool  // found by OpenCache, else by the first Get
	}{
		"a text file is found at open":                 {text: true, atOpen: true},
		"garbage over the header is found at open":     {off: 0, to: 100, atOpen: true},
		"garbage over the pages is found at first use": {off: 4096},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filledCache(t, t.TempDir(), 200)
			scribble(t, path, tc.off, tc.to)
			if tc.text {
				require.NoError(t, os.WriteFile(path, []byte("this is not an SQLite database, just text long enough to have a header....."), 0o600))
			}

			c, err := llm.OpenCache(path, 0)
			require.NoError(t, err)
			defer func() { assert.NoError(t, c.Close()) }()
			var ce *llm.CacheCorruptError
			if tc.atOpen {
				require.ErrorAs(t, c.SetAside(), &ce)
			} else {
				require.NoError(t, c.SetAside())
				_, ok, err := c.Get(ctx, "key 150")
				require.ErrorAs(t, err, &ce)
				assert.False(t, ok)
			}
			assert.Equal(t, path, ce.Path)
			assert.Equal(t, asides(t, path), []string{ce.Aside}, "the corrupt file is kept beside the new one")
			assert.Contains(t, ce.Error(), "llm cache "+path+" is corrupt")
			assert.Contains(t, ce.Error(), "set aside as "+path+".corrupt-")

			// The new cache works: a miss, then what is put is got.
			_, ok, err := c.Get(ctx, "key 150")
			require.NoError(t, err)
			assert.False(t, ok)
			require.NoError(t, c.Put(ctx, "key 150", llm.Response{Content: "again"}))
			r, ok, err := c.Get(ctx, "key 150")
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, "again", r.Content)
		})
	}
}

// TestACorruptCacheIsSetAsideOnce: two runs sharing a cache file that
// turns out corrupt (two processes, each its own SQLiteCache) set it
// aside once: the second to find it corrupt, by a lookup or a write,
// moves to the new cache the first started, rather than set that aside
// too, so that neither run's replies end up in a file set aside, lost
// to every later run.
func TestACorruptCacheIsSetAsideOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := map[string]struct {
		write bool // the second finds it corrupt by a write, else by a lookup
	}{
		"the second finds it by a lookup": {},
		"the second finds it by a write":  {write: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filledCache(t, t.TempDir(), 200)
			scribble(t, path, 4096, 0)
			first, err := llm.OpenCache(path, 0)
			require.NoError(t, err)
			defer func() { assert.NoError(t, first.Close()) }()
			second, err := llm.OpenCache(path, 0)
			require.NoError(t, err)
			defer func() { assert.NoError(t, second.Close()) }()

			var ce *llm.CacheCorruptError
			_, _, err = first.Get(ctx, "key 150")
			require.ErrorAs(t, err, &ce)
			require.NoError(t, first.Put(ctx, "mine", llm.Response{Content: "first's reply"}))
			if tc.write {
				require.NoError(t, second.Put(ctx, "theirs", llm.Response{Content: "second's reply"}), "the file the second found corrupt is set aside already")
			} else {
				_, ok, err := second.Get(ctx, "key 150")
				require.NoError(t, err, "the file the second found corrupt is set aside already")
				assert.False(t, ok)
				require.NoError(t, second.Put(ctx, "theirs", llm.Response{Content: "second's reply"}))
			}
			r, ok, err := second.Get(ctx, "mine")
			require.NoError(t, err)
			require.True(t, ok, "the second reads the new cache the first started")
			assert.Equal(t, "first's reply", r.Content)
			var files []string
			for _, a := range asides(t, path) {
				if !strings.HasSuffix(a, "-wal") && !strings.HasSuffix(a, "-shm") {
					files = append(files, a)
				}
			}
			assert.Len(t, files, 1, "set aside once")

			later, err := llm.OpenCache(path, 0)
			require.NoError(t, err)
			defer func() { assert.NoError(t, later.Close()) }()
			require.NoError(t, later.SetAside())
			for key, want := range map[string]string{"mine": "first's reply", "theirs": "second's reply"} {
				r, ok, err := later.Get(ctx, key)
				require.NoError(t, err)
				require.True(t, ok, "a later run finds what each run stored: %s", key)
				assert.Equal(t, want, r.Content)
			}
		})
	}
}
