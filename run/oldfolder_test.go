package run_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/run"
)

// oldFolder is a run folder written by `assay bench` before the run
// folder left package bench (fixtures/rag/labelled.jsonl judged offline
// for faithfulness and context_precision): its files must read, resume
// and compare as they did.
const oldFolder = "testdata/run-2026-12"

// copyOld copies the old run folder into a temporary one, its
// results.jsonl cut to its first keep lines and, when torn, half of the
// next: an attempt killed while it wrote.
func copyOld(t *testing.T, keep int, torn, summary bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "old")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	cfg, err := os.ReadFile(filepath.Join(oldFolder, run.FileConfig))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileConfig), cfg, 0o644))
	if summary {
		s, err := os.ReadFile(filepath.Join(oldFolder, run.FileSummary))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileSummary), s, 0o644))
	}
	all, err := os.ReadFile(filepath.Join(oldFolder, run.FileResults))
	require.NoError(t, err)
	var out []byte
	for i, n := 0, 0; i < len(all); i++ {
		if n == keep {
			if torn {
				next := all[i:]
				next = next[:bytes.IndexByte(next, '\n')]
				out = append(out, next[:len(next)/2]...)
			}
			break
		}
		out = append(out, all[i])
		if all[i] == '\n' {
			n++
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileResults), out, 0o644))
	return dir
}

// TestOldRunFolderResumes: an unfinished old run resumes with its own
// configuration: its whole results are kept and summarised, its torn
// last line is dropped and its pair judged again, and what it lacks is
// what a resume judges.
func TestOldRunFolderResumes(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		keep int
		torn bool
	}{
		"cut between lines": {keep: 7},
		"a torn last line":  {keep: 7, torn: true},
		"nothing judged":    {keep: 0, torn: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := copyOld(t, tc.keep, tc.torn, false)
			b, err := os.ReadFile(filepath.Join(dir, run.FileConfig))
			require.NoError(t, err)
			var cfg run.Config
			require.NoError(t, json.Unmarshal(b, &cfg))
			require.Equal(t, "20261205T235535Z-4afc", cfg.RunID)
			require.Equal(t, []string{"faithfulness", "context_precision"}, cfg.Metrics)

			r, err := run.Resume(dir, cfg)
			require.NoError(t, err)
			defer func() { require.NoError(t, r.Close()) }()
			assert.Equal(t, tc.keep, r.Resumed())
			kept, again := r.Kept()
			assert.Equal(t, tc.keep, kept)
			assert.Zero(t, again)
			assert.Equal(t, cfg.RunID, r.Config().RunID, "a resumed run keeps its id")
			lines := oldResults(t)
			perMetric := map[string]int{}
			for i, res := range lines {
				assert.Equal(t, i < tc.keep, r.Done(res.Key()), "line %d: %s", i+1, res.Key())
				if i < tc.keep {
					perMetric[res.Metric]++
				}
			}
			s := r.Summary(6, cfg.Started, nil)
			require.Len(t, s.Metrics, 2)
			for _, m := range s.Metrics {
				assert.Equal(t, perMetric[m.Metric], m.N, m.Metric)
			}
		})
	}
}

// TestOldRunFolderReads: a finished old run reads whole as a baseline
// reads it (its configuration, summary and results) and compares with
// itself as unchanged.
func TestOldRunFolderReads(t *testing.T) {
	t.Parallel()
	dir := copyOld(t, 12, false, true)
	f, err := run.ReadFolder(dir)
	require.NoError(t, err)
	require.NotNil(t, f.Summary)
	assert.Equal(t, "20261205T235535Z-4afc", f.Summary.RunID)
	assert.Equal(t, 6, f.Summary.Samples)
	require.Len(t, f.Summary.Metrics, 2)
	assert.InDelta(t, 0.5, float64(f.Summary.Metrics[0].Mean), 1e-12)
	assert.InDelta(t, 1.0, float64(f.Summary.Metrics[1].Mean), 1e-12)
	assert.Len(t, f.Results.Results, 12)

	c, alerts, err := run.Compare(dir, filepath.Join(dir, run.FileResults), *f.Summary, &f.Config)
	require.NoError(t, err)
	assert.Empty(t, alerts)
	require.Len(t, c.Metrics, 2)
	for _, m := range c.Metrics {
		assert.Equal(t, 6, m.Paired, m.Metric)
		assert.InDelta(t, 0, float64(m.Delta), 1e-12, m.Metric)
		assert.Empty(t, m.Flipped, m.Metric)
	}
	assert.Empty(t, c.Judged, "judged alike")
}

// oldResults are the old folder's results, line by line.
func oldResults(t *testing.T) []run.Result {
	t.Helper()
	f, err := run.ReadResults(filepath.Join(oldFolder, run.FileResults))
	require.NoError(t, err)
	require.Len(t, f.Results, 12)
	return f.Results
}
