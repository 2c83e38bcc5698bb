package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	runpkg "github.com/assaylabs/assay/run"
)

// These tests are issue 23's defects of the run, each as a user meets it.

// researchData writes the three fixture reports as a research dataset.
func researchData(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, n := range []string{"pass", "fail", "iterate"} {
		report, err := os.ReadFile("../../fixtures/reports/" + n + ".md")
		require.NoError(t, err)
		line, err := json.Marshal(map[string]string{"id": n, "query": "How does HTTP/3 differ from HTTP/2?", "report": string(report)})
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "reports.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// TestBenchRefusesBadFlagsBeforeJudging: a gate on a metric the run lacks,
// or a JUnit file in a folder that does not exist, is exit 2 before any
// work, and no run folder is left behind (defect 7).
func TestBenchRefusesBadFlagsBeforeJudging(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		flags []string
		want  string
	}{
		"a gate on an unknown metric":   {[]string{"--gate", "bogus.mean>=0.5"}, `--gate: "bogus.mean>=0.5": the run has no metric bogus (it has faithfulness)`},
		"a JUnit file with no folder":   {[]string{"--junit", "/no/such/dir/j.xml"}, "--junit: /no/such/dir/j.xml: its folder /no/such/dir cannot be used"},
		"a JUnit path that is a folder": {[]string{"--junit", os.TempDir()}, "is a folder, not a file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			args := append([]string{"bench", "--metric", "faithfulness", "--out", out}, tc.flags...)
			code, _, errOut := runEnv(t, map[string]string{"ASSAY_DATA_DIR": t.TempDir()}, append(args, "../../fixtures/rag/labelled.jsonl")...)
			assert.Equal(t, exitInput, code, errOut)
			assert.Contains(t, errOut, tc.want)
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no run folder for a refused run")
		})
	}
}

// TestBenchResearchPassIsTheCardsPass: a research report passes when its
// card passes, not at total >= 0.5: of the three fixtures (pass 10/10,
// fail 6.56/10 with grounding 1.56/5, iterate 6/10) one passes (defect 4).
func TestBenchResearchPassIsTheCardsPass(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, _, errOut := runEnv(t, map[string]string{"ASSAY_DATA_DIR": t.TempDir()},
		"bench", "--profile", "research", "--out", out, "--gate", "total.pass_rate>=1", researchData(t))
	assert.Equal(t, exitFailed, code, errOut)
	assert.Contains(t, errOut, "gate total.pass_rate>=1 failed: got 0.3333")
	var s runpkg.Summary
	raw, err := os.ReadFile(filepath.Join(out, runpkg.FileSummary))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &s))
	for _, m := range s.Metrics {
		if m.Metric == bench.MetricTotal {
			assert.InDelta(t, 1.0/3, float64(m.PassRate), 1e-9)
			assert.InDelta(t, 0.8, m.Threshold, 1e-9, "the card's pass total over its maximum")
		}
	}
}

// TestBenchBaselineLatestOnAFreshRunner: --baseline latest with no earlier
// run says so, compares with nothing and the run goes on (its JUnit file
// written); the next run compares with it on the terminal (defect 5).
func TestBenchBaselineLatestOnAFreshRunner(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ASSAY_DATA_DIR": t.TempDir()}
	tmp := t.TempDir()
	args := func(n int) []string {
		return []string{"bench", "--profile", "context", "--baseline", "latest", "--out", filepath.Join(tmp, fmt.Sprint("run", n)),
			"--junit", filepath.Join(tmp, fmt.Sprint("junit", n, ".xml")), writeContextSamples(t)}
	}
	code, _, errOut := runEnv(t, env, args(1)...)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, errOut, "--baseline latest: no earlier run of dataset")
	assert.Contains(t, errOut, "this run compares with nothing")
	assert.FileExists(t, filepath.Join(tmp, "junit1.xml"))

	code, _, errOut = runEnv(t, env, args(2)...)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, errOut, "bench: against baseline ")
	assert.Regexp(t, `context_quality\s+[0-9.]+ -> [0-9.]+ \(delta \+0\.000\), \d+ paired`, errOut)
	assert.NotContains(t, errOut, "judged otherwise")
}

// TestBenchBaselineNotFound: --baseline naming no run folder and no
// stored run printed "--baseline: --baseline nosuch: ...: see assay runs
// list: no run ... : see assay runs list"; now it names the flag and
// the advice once, exit 2.
func TestBenchBaselineNotFound(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	tests := map[string]struct {
		ref, want string
	}{
		"a name":                {ref: "nosuch", want: "assay: --baseline nosuch: not a run folder (no config.json in it) nor a run id in the run store " + filepath.Join(data, "runs.db") + ": see assay runs list\n"},
		"a name with an escape": {ref: "no\x1b[2Jsuch", want: `assay: --baseline no\x1b[2Jsuch: not a run folder`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runEnv(t, map[string]string{"ASSAY_DATA_DIR": data}, "bench", "-q", "--llm", "offline", "--metric", "faithfulness",
				"--baseline", tc.ref, "--out", filepath.Join(t.TempDir(), "run"), "../../fixtures/rag/labelled.jsonl")
			assert.Equal(t, exitInput, code, errOut)
			assert.Contains(t, errOut, tc.want)
			assert.Equal(t, 1, strings.Count(errOut, "--baseline"), errOut)
			assert.Equal(t, 1, strings.Count(errOut, "see assay runs list"), errOut)
		})
	}
}

// TestJudgedOtherwise: a baseline judged by another model or prompt
// version is said to be so.
func TestJudgedOtherwise(t *testing.T) {
	t.Parallel()
	base := runpkg.Config{Model: "llm:openai:a", Prompts: map[string]string{"faithfulness": "v1", "relevancy": "v1"}}
	tests := map[string]struct {
		now  runpkg.Config
		want []string
	}{
		"alike":          {runpkg.Config{Model: "llm:openai:a", Prompts: map[string]string{"faithfulness": "v1"}}, nil},
		"another model":  {runpkg.Config{Model: "llm:openai:b", Prompts: map[string]string{"faithfulness": "v1"}}, []string{`model "llm:openai:a", now "llm:openai:b"`}},
		"another prompt": {runpkg.Config{Model: "llm:openai:a", Prompts: map[string]string{"faithfulness": "v2", "new": "v1"}}, []string{"prompt faithfulness version v1, now v2"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, runpkg.JudgedOtherwise(base, tc.now))
		})
	}
}

// TestBenchJUnitFailsWhatFailsTheRun: values under their metric's
// threshold with no --min floor exit 0, and so the JUnit file has no
// failure; with a floor they exit 1 and are the failures (defect 8).
func TestBenchJUnitFailsWhatFailsTheRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		flags    []string
		code     int
		failures int
	}{
		"no floor":          {nil, exitPass, 0},
		"a floor they miss": {[]string{"--min", "0.99"}, exitFailed, -1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			junit := filepath.Join(tmp, "j.xml")
			args := append([]string{"bench", "--metric", "faithfulness", "--out", filepath.Join(tmp, "run"), "--junit", junit}, tc.flags...)
			code, out, errOut := runEnv(t, map[string]string{"ASSAY_DATA_DIR": t.TempDir()}, append(args, "../../fixtures/rag/labelled.jsonl")...)
			require.Equal(t, tc.code, code, errOut)
			require.Regexp(t, `faithfulness\s+\d+/\d+\s+[0-9.]+.*\d+% \(>= `, out)
			raw, err := os.ReadFile(junit)
			require.NoError(t, err)
			var doc struct {
				Failures int `xml:"failures,attr"`
			}
			require.NoError(t, xml.Unmarshal(raw, &doc))
			if tc.failures >= 0 {
				assert.Equal(t, tc.failures, doc.Failures)
			} else {
				assert.Positive(t, doc.Failures, "the samples under the floor")
			}
		})
	}
}

// TestBenchRecordsWhichMetricsUsedTheModel: a profile whose metrics never
// call a model records none, whatever --llm says; its report.html is
// written 0644 like the run's other files (defects 11, 12).
func TestBenchRecordsWhichMetricsUsedTheModel(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	env := map[string]string{"ASSAY_DATA_DIR": t.TempDir(), "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
	code, _, errOut := runEnv(t, env, "bench", "--profile", "context", "--llm", "openai:some-model", "--no-cache", "--out", out, writeContextSamples(t))
	require.Equal(t, exitPass, code, errOut)
	var cfg runpkg.Config
	raw, err := os.ReadFile(filepath.Join(out, runpkg.FileConfig))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &cfg))
	assert.Equal(t, bench.NoModel, cfg.Model)
	assert.Empty(t, cfg.ModelMetrics)
	for _, f := range []string{runpkg.FileReport, runpkg.FileSummary, runpkg.FileConfig} {
		st, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), st.Mode().Perm(), f)
	}
}

// TestScoreUnknownProfileNamesEveryProfile: the list of profiles an
// unknown one is refused with includes daily (defect 12).
func TestScoreUnknownProfileNamesEveryProfile(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCLI(t, "", "score", "--profile", "nosuch", "../../fixtures/reports/pass.md")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errOut, "built-in profiles are context, daily, research")
}
