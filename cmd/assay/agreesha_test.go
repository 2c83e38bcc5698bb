package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	runpkg "github.com/assaylabs/assay/run"
)

// TestAgreeRunDirDatasetSHA: a stored run is joined only with the dataset
// whose bytes it judged (config.json's dataset_sha256); another one, given
// with --dataset or found at the run's path after it changed, is refused
// with exit 2 naming both hashes.
func TestAgreeRunDirDatasetSHA(t *testing.T) {
	t.Parallel()
	orig, err := os.ReadFile("../../fixtures/rag/graded.jsonl")
	require.NoError(t, err)
	// edited is the dataset with one label flipped, as a relabelling
	// would leave it: the same ids, other labels.
	edited := strings.Replace(string(orig), `"relevant": true`, `"relevant": false`, 1)
	require.NotEqual(t, string(orig), edited)
	hash := func(b string) string { s := sha256.Sum256([]byte(b)); return hex.EncodeToString(s[:]) }
	write := func(t *testing.T, data string) string {
		path := filepath.Join(t.TempDir(), "graded.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
		return path
	}
	// run judged the original bytes at path, which may change after.
	run := func(t *testing.T, path string) string {
		dir := filepath.Join(t.TempDir(), "run")
		r, err := runpkg.Create(dir, runpkg.Config{RunID: "run-1", Dataset: path, DatasetSHA256: hash(string(orig)),
			Metrics: []string{"source_relevance"}, Model: "offline"})
		require.NoError(t, err)
		for _, id := range []string{"g01", "g02", "g03", "g04"} {
			require.NoError(t, r.Append(runpkg.Result{ID: id, Metric: "source_relevance", Value: 0.75, Points: 4, Max: 5}))
		}
		require.NoError(t, r.Close())
		return dir
	}
	tests := map[string]struct {
		// at is the dataset at the run's path when agree reads it;
		// dataset, when set, is given with --dataset.
		at, dataset string
		code        int
		want        string
	}{
		"the dataset judged":             {at: string(orig), code: exitPass},
		"the dataset judged, moved":      {at: edited, dataset: string(orig), code: exitPass},
		"the run's path, changed since":  {at: edited, code: exitInput, want: "but %s has sha256 " + hash(edited)},
		"another dataset with --dataset": {at: string(orig), dataset: edited, code: exitInput, want: "but %s has sha256 " + hash(edited)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			at := write(t, tc.at)
			dir := run(t, at)
			args := []string{"agree", "--label", "relevant", "--max-default-rate", "1"}
			other := at
			if tc.dataset != "" {
				other = write(t, tc.dataset)
				args = append(args, "--dataset", other)
			}
			code, out, errOut := runCLI(t, "", append(args, dir)...)
			require.Equal(t, tc.code, code, errOut)
			if tc.code == exitPass {
				assert.Contains(t, out, "| source_relevance | relevant | 4 (")
				return
			}
			assert.Empty(t, out)
			assert.Contains(t, errOut, "the run in "+dir+" judged a dataset with sha256 "+hash(string(orig))+" (its config.json)")
			assert.Contains(t, errOut, strings.Replace(tc.want, "%s", other, 1))
			assert.Contains(t, errOut, "give that dataset with --dataset FILE, or judge this one with assay bench")
		})
	}
}
