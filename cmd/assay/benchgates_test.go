package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	runpkg "github.com/assaylabs/assay/run"
)

// TestBenchGatesBaselineAndStore runs seed 003's daily profile over the
// fixture reports twice, as a CI job would: the first run is recorded in
// the run store, the second compares with it (--baseline latest), checks
// its gates, writes JUnit XML and report.html, and exits 1 on the gate
// that fails; `assay runs` then lists and trends both runs.
func TestBenchGatesBaselineAndStore(t *testing.T) {
	t.Parallel()
	data, tmp := "../../fixtures/daily/reports.jsonl", t.TempDir()
	env := map[string]string{"ASSAY_DATA_DIR": filepath.Join(tmp, "data"), "ASSAY_CACHE_DIR": filepath.Join(tmp, "cache")}
	first, second := filepath.Join(tmp, "run1"), filepath.Join(tmp, "run2")

	code, stdout, stderr := runEnv(t, env, "bench", "-q", "--profile", "daily", "--out", first,
		"--gate", "faithfulness_score.mean>=0.8", "--gate", "overall_quality.min>=0.9", data)
	require.Equal(t, exitPass, code, stderr)
	assert.Contains(t, stdout, "faithfulness_score")
	assert.FileExists(t, filepath.Join(first, runpkg.FileReport))

	junit, summaryMD := filepath.Join(tmp, "junit.xml"), filepath.Join(tmp, "step-summary.md")
	require.NoError(t, os.WriteFile(summaryMD, []byte("earlier step\n"), 0o644))
	code, _, stderr = runEnv(t, env, "bench", "-q", "--profile", "daily", "--out", second, "--baseline", "latest",
		"--gate", "faithfulness_score.min>=0.99", "--junit", junit, "--summary-md", summaryMD, data)
	assert.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, "gate faithfulness_score.min>=0.99 failed: got 0.9330")
	md, err := os.ReadFile(summaryMD)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(md), "earlier step\n### Assay: `"), "appended:\n%s", md)
	assert.Contains(t, string(md), "No quality alert.")
	assert.Contains(t, string(md), "| faithfulness\\_score | 0.9730 | 0.9730 | +0.0000 (+0.0000, +0.0000) | - | 0 | 0 | - |")

	var s runpkg.Summary
	b, err := os.ReadFile(filepath.Join(second, runpkg.FileSummary))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.NotNil(t, s.Baseline, "compared with the first run")
	assert.Equal(t, filepath.Base(first), filepath.Base(s.Baseline.BaselineDir))
	require.Len(t, s.Gates, 1)
	assert.False(t, s.Gates[0].Passed)
	assert.Empty(t, s.Alerts, "the same reports: no degradation")

	var suites struct {
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	b, err = os.ReadFile(junit)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(b, &suites))
	assert.Equal(t, 1, suites.Failures)
	assert.Equal(t, "gates", suites.Suites[0].Name)

	code, stdout, stderr = runEnv(t, env, "runs", "list")
	require.Equal(t, exitPass, code, stderr)
	assert.Equal(t, 3, len(strings.Split(strings.TrimSpace(stdout), "\n")), "a header and two runs:\n"+stdout)
	assert.Contains(t, stdout, "gate failed")

	code, stdout, stderr = runEnv(t, env, "runs", "trend", "faithfulness_score", "--dataset", data)
	require.Equal(t, exitPass, code, stderr)
	assert.Contains(t, stdout, "0.9730")
}

// TestBenchDailyBadRecord: a daily record without its truth is exit 2
// naming the file, line and field, before anything is judged.
func TestBenchDailyBadRecord(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	data := filepath.Join(tmp, "bad.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id":"a","report":"# R"}`+"\n"), 0o644))
	env := map[string]string{"ASSAY_DATA_DIR": filepath.Join(tmp, "data")}
	code, _, stderr := runEnv(t, env, "bench", "-q", "--profile", "daily", "--out", filepath.Join(tmp, "run"), data)
	assert.Equal(t, exitInput, code, stderr)
	assert.Contains(t, stderr, "bad.jsonl:1: truth: missing")
}
