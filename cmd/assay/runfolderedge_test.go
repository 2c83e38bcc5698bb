package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchResumeRefusesResultsOfNoPairOfTheRun: a result line of
// results.jsonl edited by hand (or brought from another run) whose sample
// is not in the dataset, or whose metric the run does not judge, is bad
// input naming the file, the line and the field (exit 2), and the folder
// is left as it was; counted, it entered the figures as a sample of its
// own (7 of 6 scored), left the run never complete and exited 0.
func TestBenchResumeRefusesResultsOfNoPairOfTheRun(t *testing.T) {
	t.Parallel()
	// Results are written in the order they finish: the line edited is
	// the first that holds from, and the error names its number.
	tests := map[string]struct {
		from, to  string
		crlf      bool
		code      int
		wantError string // after "results.jsonl:LINE: "
	}{
		"an untouched run resumes": {code: exitPass},
		"a sample the dataset lacks": {from: `"id":"r2"`, to: `"id":"zz"`, code: exitInput,
			wantError: `id: sample "zz" is not a record of the dataset`},
		"a metric the run does not judge": {from: `"metric":"faithfulness"`, to: `"metric":"faith"`, code: exitInput,
			wantError: `metric: metric "faith" is not one of the run's (faithfulness, answer_relevancy)`},
		"a sample of a CRLF line": {from: `"id":"r1"`, to: `"id":"r9"`, crlf: true, code: exitInput,
			wantError: `id: sample "r9" is not a record of the dataset`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"ASSAY_DATA_DIR": t.TempDir()}
			out := filepath.Join(t.TempDir(), "run")
			args := []string{"bench", "-q", "--metric", "faithfulness,answer_relevancy", "--out", out, "../../fixtures/rag/labelled.jsonl"}
			code, _, errOut := runEnv(t, env, args...)
			require.Equal(t, exitPass, code, errOut)
			path := filepath.Join(out, "results.jsonl")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := strings.SplitAfter(string(data), "\n")
			edit := -1
			if tc.from != "" {
				edit = slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, tc.from) })
				require.GreaterOrEqual(t, edit, 0)
				lines[edit] = strings.Replace(lines[edit], tc.from, tc.to, 1)
			}
			if tc.crlf {
				for i := range lines {
					lines[i] = strings.Replace(lines[i], "\n", "\r\n", 1)
				}
			}
			edited := strings.Join(lines, "")
			require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))

			code, _, errOut = runEnv(t, env, append(args[:len(args)-1:len(args)-1], "--resume", args[len(args)-1])...)
			assert.Equal(t, tc.code, code, errOut)
			if tc.wantError != "" {
				assert.Contains(t, errOut, fmt.Sprintf("results.jsonl:%d: %s", edit+1, tc.wantError))
				after, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, edited, string(after), "a refused resume leaves results.jsonl as it was")
			}
		})
	}
}
