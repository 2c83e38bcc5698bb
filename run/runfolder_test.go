package run_test

import (
	"github.com/assaylabs/assay/run"

	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeRun writes a run folder as `assay bench` leaves it: config.json,
// results.jsonl and, when s is not nil, summary.json.
func writeRun(t *testing.T, dir string, cfg run.Config, s *run.Summary, results []run.Result) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	b, err := json.MarshalIndent(cfg, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileConfig), b, 0o644))
	var lines []byte
	for _, r := range results {
		l, err := json.Marshal(r)
		require.NoError(t, err)
		lines = append(append(lines, l...), '\n')
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileResults), lines, 0o644))
	if s != nil {
		b, err := json.MarshalIndent(s, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileSummary), b, 0o644))
	}
	return dir
}

// resultFile reads results back as ReadResults does.
func resultFile(t *testing.T, results []run.Result) *run.ResultFile {
	t.Helper()
	dir := writeRun(t, t.TempDir(), run.Config{}, nil, results)
	f, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	return f
}
