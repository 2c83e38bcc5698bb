package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/internal/llmtest"
	runpkg "github.com/assaylabs/assay/run"
)

const (
	exampleJudges  = "../../examples/judges.yaml"
	exampleSupport = "../../examples/support.jsonl"
	exampleMetrics = "polite_and_cites,helpfulness,matches_reference"
)

// schemaCounts counts srv's chat requests by the name of their schema.
func schemaCounts(srv *llmtest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range srv.Requests() {
		if rf := r.ResponseFormat; rf != nil && rf.JSONSchema != nil {
			out[rf.JSONSchema.Name]++
		}
	}
	return out
}

// TestExampleJudgesEndToEnd runs examples/judges.yaml (a pass/fail
// critic, a 1-5 rubric with its own steps, a 0-10 score whose steps the
// model writes) against the fake model server through judge, bench and
// agree, as the README shows it.
func TestExampleJudgesEndToEnd(t *testing.T) {
	t.Parallel()
	env := func(srv *llmtest.Server) map[string]string {
		return map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_DATA_DIR": t.TempDir()}
	}

	t.Run("judge", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		code, out, errOut := runEnv(t, env(srv), "judge", "--judges", exampleJudges, "--metric", exampleMetrics, "--no-cache", "-q", "--format", "jsonl", exampleSupport)
		require.Equal(t, 0, code, errOut)
		var got []runpkg.Result
		for line := range strings.Lines(out) {
			var r runpkg.Result
			require.NoError(t, json.Unmarshal([]byte(line), &r), line)
			got = append(got, r)
		}
		require.Len(t, got, 12, "4 records x 3 judges")
		want := map[string]struct{ value, points, max float64 }{
			"polite_and_cites": {1, 1, 1}, "helpfulness": {0.75, 4, 5}, "matches_reference": {0.8, 8, 10},
		}
		for _, r := range got {
			w := want[r.Metric]
			assert.InDelta(t, w.value, r.Value, 1e-9, "%s %s", r.ID, r.Metric)
			assert.InDelta(t, w.points, r.Points, 1e-9, "%s %s", r.ID, r.Metric)
			assert.InDelta(t, w.max, r.Max, 1e-9, "%s %s", r.ID, r.Metric)
			assert.Equal(t, "llm:openai:gpt-4o-mini (sampled grade, no log-probabilities)", r.Method)
		}
		assert.Equal(t, map[string]int{"defined_steps": 2, "defined_grade": 12}, schemaCounts(srv),
			"the steps of polite_and_cites and matches_reference written once each; helpfulness has its own")
		assert.Contains(t, errOut, "helpfulness        4/4     0.750  0.750  4/4 (>= 0.75, grade 4 of 1-5)", "the grade the judges file wrote beside the value")
	})

	t.Run("bench: config, gates, JUnit, report, a changed criterion against its baseline", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		e := env(srv)
		dir := t.TempDir()
		first, junit := filepath.Join(dir, "first"), filepath.Join(dir, "junit.xml")
		code, _, errOut := runEnv(t, e, "bench", "--judges", exampleJudges, "--metric", exampleMetrics, "--no-cache", "-q",
			"--out", first, "--gate", "helpfulness.mean>=0.7", "--gate", "matches_reference.pass_rate>=1", "--junit", junit, exampleSupport)
		require.Equal(t, 0, code, errOut)
		cfg := readConfig(t, first)
		assert.Equal(t, []string{"polite_and_cites", "helpfulness", "matches_reference"}, cfg.Metrics)
		assert.Equal(t, []string{"polite_and_cites", "helpfulness", "matches_reference"}, cfg.ModelMetrics)
		for _, name := range []string{"polite_and_cites", "helpfulness", "matches_reference"} {
			assert.Len(t, cfg.Prompts["judge "+name], 12, "the definition's version is recorded: %v", cfg.Prompts)
		}
		assert.Equal(t, "1", cfg.Prompts["defined.grade"])
		assert.Equal(t, "0.75", cfg.Settings["threshold helpfulness"], "threshold 4 of 1-5")
		assert.Equal(t, "0.7", cfg.Settings["threshold matches_reference"], "threshold 7 of 0-10")
		x, err := os.ReadFile(junit)
		require.NoError(t, err)
		assert.Contains(t, string(x), "matches_reference")
		html, err := os.ReadFile(filepath.Join(first, runpkg.FileReport))
		require.NoError(t, err)
		assert.Contains(t, string(html), "polite_and_cites")

		// The same judges but one criterion changed: another version,
		// which the comparison names, and a resume refuses.
		changed := filepath.Join(dir, "judges.yaml")
		src, err := os.ReadFile(exampleJudges)
		require.NoError(t, err)
		edited := strings.Replace(string(src), "solves the customer's problem", "solves the customer's problem at once", 1)
		require.NotEqual(t, string(src), edited)
		require.NoError(t, os.WriteFile(changed, []byte(edited), 0o600))
		second := filepath.Join(dir, "second")
		code, out, errOut := runEnv(t, e, "bench", "--judges", changed, "--metric", exampleMetrics, "--no-cache", "-q", "--out", second, "--baseline", first, exampleSupport)
		require.Equal(t, 0, code, errOut)
		now := readConfig(t, second)
		assert.NotEqual(t, cfg.Prompts["judge helpfulness"], now.Prompts["judge helpfulness"])
		assert.Equal(t, cfg.Prompts["judge matches_reference"], now.Prompts["judge matches_reference"])
		assert.Contains(t, out+errOut, "judged otherwise: prompt judge helpfulness version "+cfg.Prompts["judge helpfulness"]+", now "+now.Prompts["judge helpfulness"])
		code, _, errOut = runEnv(t, e, "bench", "--judges", changed, "--metric", exampleMetrics, "--no-cache", "-q", "--out", first, "--resume", exampleSupport)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, "prompt judge helpfulness was")
	})

	t.Run("agree, a jury", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		code, out, errOut := runEnv(t, env(srv), "agree", "--judges", exampleJudges, "--metric", "polite_and_cites", "--label", "good",
			"--llm", "openai:judge-a,openai:judge-b", "--no-cache", "-q", "--format", "json", exampleSupport)
		require.Equal(t, 0, code, errOut)
		var got struct {
			Results []agree.Result   `json:"results"`
			Jury    agree.JuryResult `json:"jury"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		require.Len(t, got.Results, 2)
		for _, r := range got.Results {
			require.Len(t, r.Rows, 4)
			require.NotNil(t, r.Fixed)
			assert.InDelta(t, 0.5, r.Fixed.Threshold, 1e-12, "a pass/fail judge passes at one half")
			c := r.Fixed.Confusion
			assert.Equal(t, [4]int{2, 2, 0, 0}, [4]int{c.TP, c.FP, c.TN, c.FN}, "the fake passes every answer")
		}
		assert.Equal(t, []string{"polite_and_cites (openai:judge-a)", "polite_and_cites (openai:judge-b)"}, got.Jury.Jurors)
	})

	t.Run("agree, graded", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		code, out, errOut := runEnv(t, env(srv), "agree", "--judges", exampleJudges, "--metric", "helpfulness", "--label", "grade", "--no-cache", "-q", "--format", "json", exampleSupport)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, `"metric": "helpfulness"`)
	})

	t.Run("judge --samples 3", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		code, _, errOut := runEnv(t, env(srv), "judge", "--judges", exampleJudges, "--metric", "matches_reference", "--samples", "3", "--no-cache", "-q", "--format", "json", exampleSupport)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, map[string]int{"defined_steps": 1, "defined_grade": 12}, schemaCounts(srv), "3 asks a record, the steps once")
	})

	t.Run("dry run", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		code, out, errOut := runEnv(t, env(srv), "judge", "--judges", exampleJudges, "--metric", exampleMetrics, "--dry-run", exampleSupport)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, 0, srv.Calls(), "a dry run calls nothing")
		assert.Contains(t, out, "matches_reference")
		assert.Regexp(t, `polite_and_cites +5 `, out, "4 grades and the steps once")
		assert.Regexp(t, `helpfulness +4 `, out, "4 grades, its own steps")
		assert.Regexp(t, `total +14 `, out)
	})
}

// readConfig reads a run folder's config.json.
func readConfig(t *testing.T, dir string) runpkg.Config {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, runpkg.FileConfig))
	require.NoError(t, err)
	var cfg runpkg.Config
	require.NoError(t, json.Unmarshal(b, &cfg))
	return cfg
}

// TestDefinedJudgeOfflineIsExit2: without a model a judge defined in a
// judges file cannot judge: every command exits 2 before any work, naming
// the judge and --llm, and prints no score.
func TestDefinedJudgeOfflineIsExit2(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"judge":     {"judge", "--judges", exampleJudges, "--metric", "faithfulness,helpfulness", exampleSupport},
		"judge dry": {"judge", "--judges", exampleJudges, "--metric", "helpfulness", "--dry-run", exampleSupport},
		"bench":     {"bench", "--judges", exampleJudges, "--metric", "helpfulness", "--out", "RUN", exampleSupport},
		"agree":     {"agree", "--judges", exampleJudges, "--metric", "polite_and_cites", "--label", "good", exampleSupport},
		"llm given": {"judge", "--judges", exampleJudges, "--metric", "helpfulness", "--llm", "offline", exampleSupport},
		"agree llm": {"agree", "--judges", exampleJudges, "--metric", "polite_and_cites", "--label", "good", "--llm", "offline", exampleSupport},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for i, a := range args {
				if a == "RUN" {
					args[i] = filepath.Join(dir, "run")
				}
			}
			code, out, errOut := runEnv(t, map[string]string{"ASSAY_DATA_DIR": dir}, args...)
			assert.Equal(t, 2, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "--llm: ")
			assert.Regexp(t, `(helpfulness|polite_and_cites) is a judge defined in a judges file`, errOut)
			_, err := os.Stat(filepath.Join(dir, "run"))
			assert.True(t, os.IsNotExist(err), "no run folder")
		})
	}
}

// TestBadJudgesFileIsExit2: a bad judges file, or a dataset without a
// field a judge reads, is exit 2 before any call, naming the file, the
// line and the key.
func TestBadJudgesFileIsExit2(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL()}
	tests := map[string]struct {
		file, metric string
		want         string
	}{
		"unknown key": {"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 1-5\n    colour: red\n", "tone",
			"judges.yaml:5: judges[0].colour: unknown field"},
		"a field the dataset lacks": {"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 1-5\n    fields:\n      - answer\n      - metadata.region\n", "tone",
			"support.jsonl:1: judge tone reads metadata.region (JUDGES:7: judges[0].fields[1]), which this record lacks"},
		"a name of a built-in metric": {"judges:\n  - name: faithfulness\n    criterion: True.\n    scale: 1-5\n", "faithfulness",
			`judges.yaml:2: judges[0].name: "faithfulness" is the name of a built-in metric`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "judges.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o600))
			for _, cmd := range [][]string{
				{"judge", "--judges", path, "--metric", tc.metric, "--no-cache", exampleSupport},
				{"bench", "--judges", path, "--metric", tc.metric, "--no-cache", "--out", filepath.Join(t.TempDir(), "run"), exampleSupport},
				{"agree", "--judges", path, "--metric", tc.metric, "--label", "good", "--no-cache", exampleSupport},
			} {
				code, _, errOut := runEnv(t, env, cmd...)
				assert.Equal(t, 2, code, "%s: %s", cmd[0], errOut)
				want := strings.ReplaceAll(tc.want, "JUDGES", path)
				if !strings.HasPrefix(want, "support.jsonl") {
					want = filepath.Dir(path) + "/" + want
				}
				assert.Contains(t, errOut, want, cmd[0])
			}
		})
	}
	assert.Zero(t, srv.Calls(), "no call")
}
