// Package runtest writes run folders for tests, as `assay bench` leaves
// them, and makes the results they hold.
package runtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/run"
)

// WriteFolder writes a run folder in dir as `assay bench` leaves it:
// config.json, results.jsonl and, when s is not nil, summary.json. It
// returns dir.
func WriteFolder(t testing.TB, dir string, cfg run.Config, s *run.Summary, results []run.Result) string {
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

// ResultFile is results written to a run folder and read back as
// run.ReadResults reads them.
func ResultFile(t testing.TB, results []run.Result) *run.ResultFile {
	t.Helper()
	dir := WriteFolder(t, t.TempDir(), run.Config{}, nil, results)
	f, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	return f
}

// Values are results of one metric with the values vs, ids q1, q2, ...
// in order.
func Values(metric string, vs ...float64) []run.Result {
	out := make([]run.Result, len(vs))
	for i, v := range vs {
		out[i] = run.Result{ID: fmt.Sprintf("q%d", i+1), Metric: metric, Value: v}
	}
	return out
}

// Mean is the mean of vs as a run.Num.
func Mean(vs ...float64) run.Num {
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return run.Num(s / float64(len(vs)))
}
