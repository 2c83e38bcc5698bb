package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResumeKeepsAWholeLastLineWithoutItsNewline: a run's write ends
// each line with its newline, so a last line without one is torn and cut
// off, its pair judged again; but results.jsonl saved by hand without a
// final newline ends in a whole result, which is kept (not cut off, lost
// and paid for again) and ended with its newline before the next line.
func TestResumeKeepsAWholeLastLineWithoutItsNewline(t *testing.T) {
	t.Parallel()
	line := func(id, end string) string {
		b, err := json.Marshal(Result{ID: id, Metric: "m1", Value: 0.5})
		require.NoError(t, err)
		return string(b) + end
	}
	tests := map[string]struct {
		file     string
		s2Done   bool
		repeated int
		results  []string // the ids of results.jsonl after a resume appends s3
		bad      string
	}{
		"a whole last line":                     {file: line("s1", "\n") + line("s2", ""), s2Done: true, results: []string{"s1", "s2", "s3"}},
		"a whole CRLF file's last":              {file: line("s1", "\r\n") + line("s2", ""), s2Done: true, results: []string{"s1", "s2", "s3"}},
		"a torn last line":                      {file: line("s1", "\n") + `{"id":"s2","metric":"m1","va`, results: []string{"s1", "s3"}},
		"a last line cut after its brace's key": {file: line("s1", "\n") + `{"id":"s2","metric":"m1","evidence":{}`, results: []string{"s1", "s3"}},
		"a repeat of a final result": {file: line("s1", "\n") + line("s2", "\n") + line("s1", ""), s2Done: true, repeated: 1,
			results: []string{"s1", "s2", "s3"}, bad: line("s1", "\n")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			cfg := testConfig()
			cfg.Metrics = []string{"m1"}
			r, err := Create(dir, cfg)
			require.NoError(t, err)
			require.NoError(t, r.Close())
			results := filepath.Join(dir, FileResults)
			require.NoError(t, os.WriteFile(results, []byte(tc.file), 0o644))

			r, err = Resume(dir, cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.s2Done, r.Done(Key{"s2", "m1"}))
			assert.True(t, r.Done(Key{"s1", "m1"}))
			assert.Equal(t, tc.repeated, r.Repeated())
			require.NoError(t, r.Append(Result{ID: "s3", Metric: "m1", Value: 1}))
			require.NoError(t, r.Close())

			var ids []string
			require.NoError(t, EachResult(results, func(res Result) { ids = append(ids, res.ID) }))
			assert.Equal(t, tc.results, ids)
			data, err := os.ReadFile(results)
			require.NoError(t, err)
			assert.Equal(t, len(tc.results), strings.Count(string(data), "\n"), "every line whole, each on its own")
			bad, err := os.ReadFile(filepath.Join(dir, FileBad))
			if tc.bad == "" {
				assert.True(t, os.IsNotExist(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.bad, string(bad))
		})
	}
}
