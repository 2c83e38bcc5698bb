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
	"github.com/assaylabs/assay/run"
)

// TestOutputFilesNeverReplaceTheRun: --junit or --summary-md naming the
// dataset, a file of the run folder (a resumed run's results) or of the
// baseline's is refused as bad input naming the flag, before anything
// is judged, and the file is left as it was; a file of its own is
// written.
func TestOutputFilesNeverReplaceTheRun(t *testing.T) {
	t.Parallel()
	line := `{"id": "w1", "question": "At what temperature does water boil?", "answer": "Water boils at 100 degrees Celsius.", "contexts": ["Pure water boils at 100 degrees Celsius at sea level."]}` + "\n"
	tests := map[string]struct {
		junit, md func(data, out, base string) string
		flag      string // the flag refused; "" when the run goes ahead
	}{
		"--junit the dataset":                   {junit: func(data, _, _ string) string { return data }, flag: "--junit"},
		"--summary-md the dataset":              {md: func(data, _, _ string) string { return data }, flag: "--summary-md"},
		"--junit the resumed run's results":     {junit: func(_, out, _ string) string { return filepath.Join(out, run.FileResults) }, flag: "--junit"},
		"--summary-md the resumed run's config": {md: func(_, out, _ string) string { return filepath.Join(out, run.FileConfig) }, flag: "--summary-md"},
		"--junit the baseline's summary":        {junit: func(_, _, base string) string { return filepath.Join(base, run.FileSummary) }, flag: "--junit"},
		"files of their own":                    {junit: func(data, _, _ string) string { return data + ".xml" }, md: func(_, out, _ string) string { return filepath.Join(out, "summary.md") }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data, out, base := filepath.Join(dir, "data.jsonl"), filepath.Join(dir, "run"), filepath.Join(dir, "base")
			require.NoError(t, os.WriteFile(data, []byte(line), 0o644))
			job := func(out string) bench.Job {
				j := judging.Default()
				j.LLM.Spec, j.LLM.NoCache = "offline", true
				return bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: out, Store: filepath.Join(dir, "runs.db"), Judging: j, Quiet: true}
			}
			for _, d := range []string{base, out} { // a baseline, and the run to resume
				o, err := bench.Execute(context.Background(), job(d))
				require.NoError(t, err)
				require.True(t, o.Passed())
			}
			j := job(out)
			j.Resume, j.Baseline = true, base
			if tc.junit != nil {
				j.JUnit = tc.junit(data, out, base)
			}
			if tc.md != nil {
				j.SummaryMD = tc.md(data, out, base)
			}
			target := j.JUnit
			if tc.flag == "--summary-md" {
				target = j.SummaryMD
			}
			before, _ := os.ReadFile(target)
			o, err := bench.Execute(context.Background(), j)
			after, _ := os.ReadFile(target)
			if tc.flag == "" {
				require.NoError(t, err)
				assert.FileExists(t, j.JUnit)
				assert.FileExists(t, j.SummaryMD)
				assert.True(t, o.Passed())
				return
			}
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "%v", err)
			assert.Equal(t, tc.flag, ie.Field)
			assert.Contains(t, err.Error(), "writing it would replace it")
			assert.Equal(t, string(before), string(after), "left as it was")
		})
	}
}

// TestSummaryMDNeedsABaseline: --summary-md without --baseline is
// refused before anything is judged; it wrote nothing and the run
// passed, so a CI step summary went missing without a word.
func TestSummaryMDNeedsABaseline(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		baseline string
		want     string // the error; "" runs
	}{
		"no baseline": {"", "--summary-md: appends the comparison with a baseline, and none is named: give --baseline (latest, a run id or a run folder), or leave --summary-md out"},
		"latest":      {"latest", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data := filepath.Join(dir, "data.jsonl")
			require.NoError(t, os.WriteFile(data, []byte(`{"id": "w1", "question": "q?", "answer": "a.", "contexts": ["a."]}`+"\n"), 0o644))
			j := judging.Default()
			j.LLM.Spec, j.LLM.NoCache = "offline", true
			job := bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), Store: filepath.Join(dir, "runs.db"),
				Judging: j, Quiet: true, Baseline: tc.baseline, SummaryMD: filepath.Join(dir, "summary.md")}
			_, err := bench.Execute(context.Background(), job)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "%v", err)
			assert.EqualError(t, err, tc.want)
			assert.NoDirExists(t, job.Out, "nothing judged")
		})
	}
}
