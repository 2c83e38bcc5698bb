package bench_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
)

// A baseline named in a job that gives no way to find the run store (no
// Store, and no Env or one without $ASSAY_DATA_DIR and $HOME) is a
// setting to fix: an *eval.InputError (exit 2), as `assay runs` says the
// same of it, with nothing judged; it was an error of the run (exit 3).
func TestBaselineWithoutAStoreIsAnInputError(t *testing.T) {
	t.Parallel()
	empty := func(string) string { return "" }
	tests := map[string]struct {
		env  func(string) string
		want string
	}{
		"no Env":                {nil, "the job names no Store and has no Env"},
		"an Env without a home": {empty, "(or set ASSAY_DATA_DIR to a folder for it)"},
	}
	for name, tc := range tests {
		for _, baseline := range []string{"latest", "20260101T000000Z-abcd"} {
			t.Run(name+" "+baseline, func(t *testing.T) {
				t.Parallel()
				j := judging.Default()
				j.LLM.Spec = "offline"
				dir := t.TempDir()
				_, err := bench.Execute(context.Background(), bench.Job{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"},
					Baseline: baseline, Out: filepath.Join(dir, "run"), Env: tc.env, Judging: j, Quiet: true})
				var ie *eval.InputError
				require.True(t, errors.As(err, &ie), "want an *eval.InputError, got %v", err)
				assert.Contains(t, ie.Error(), tc.want)
				left, rerr := os.ReadDir(dir)
				require.NoError(t, rerr)
				assert.Empty(t, left, "nothing is judged")
			})
		}
	}
}
