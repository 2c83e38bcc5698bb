package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	runpkg "github.com/assaylabs/assay/run"
)

// This file adds a metric to Assay the way a new one is added: one entry
// in a metric registry, here a clone of the built-in one that only this
// file's runs are given (runWith). Nothing else in the repository names
// it, yet judge, bench (results, summary, report, gates), agree, every dry
// run and a profile's card in every format take it; and the CLI of the
// built-in metrics, which every other test runs, does not know it.

const toyMetric = "toy_brevity"

// toyStandInTokens is the length of the toy's stand-in reply, which a dry
// run counts.
const toyStandInTokens = 7

// toyRegistry is the built-in metrics and the toy.
func toyRegistry(t *testing.T) *metric.Registry {
	t.Helper()
	reg := agent.Builtins().Clone()
	require.NoError(t, reg.Add(metric.Entry{
		Name: toyMetric, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
		Profiles:  []string{agent.KindReport},
		Threshold: metric.Threshold{Offline: 1, Model: 0.75},
		Label:     "Brevity (toy)",
		Build:     func(m metric.Model) eval.Scorer { return toyBrevity{m} },
		DryRun: func(req llm.Request, _ func(string) int) (string, int, bool) {
			if req.Schema == nil || req.Schema.Name != toySchema.Name {
				return "", 0, false
			}
			return `{"grade":4}`, toyStandInTokens, true
		},
	}))
	return reg
}

// toyBrevity grades how brief an answer is: offline 1 for at most 50
// words, else 0; with a model, its grade 1-5 mapped to 0-1.
type toyBrevity struct{ m judges.Model }

type toyVerdict struct {
	Grade int `json:"grade" schema:"minimum=1,maximum=5"`
}

var toySchema = llm.SchemaFor[toyVerdict]("toy_verdict")

func (b toyBrevity) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	sc := eval.Score{Metric: toyMetric, Max: 1, Method: judges.Method(b.m)}
	if judges.Offline(b.m) {
		if len(strings.Fields(s.Answer)) <= 50 {
			sc.Value = 1
		}
		sc.Points = sc.Value
		return sc, nil
	}
	var v toyVerdict
	u, err := llm.ChatJSON(ctx, b.m, llm.Request{
		Messages: []llm.Message{{Role: llm.System, Content: "Grade the brevity of the answer from 1 to 5."}, {Role: llm.User, Content: s.Answer}},
		Schema:   toySchema, Tag: toyMetric,
	}, &v)
	if err != nil {
		return eval.Score{}, err
	}
	sc.Value = float64(v.Grade-1) / 4
	sc.Points, sc.Usage = sc.Value, u.Recorded()
	return sc, nil
}

// toyPlanRow reads the toy's row of a dry run's table: calls, tokens out.
func toyPlanRow(t *testing.T, table string) (calls, tokensOut int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + toyMetric + `\s+(\d+)\s+\d+\s+(\d+)\s+\S+$`).FindStringSubmatch(table)
	require.NotNil(t, m, "no toy row in:\n%s", table)
	calls, _ = strconv.Atoi(m[1])
	tokensOut, _ = strconv.Atoi(m[2])
	return calls, tokensOut
}

// toyResults reads a run's results.jsonl: the toy's method by record.
func toyResults(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, runpkg.FileResults))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ ID, Metric, Method string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		require.Equal(t, toyMetric, r.Metric)
		out[r.ID] = r.Method
	}
	require.NoError(t, sc.Err())
	return out
}

func TestToyMetric(t *testing.T) {
	t.Parallel()
	reg := toyRegistry(t)
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == toySchema.Name {
			return llmtest.Reply{Content: `{"grade":5}`}
		}
		return llmtest.JudgeReplies(req)
	}))
	tmp := t.TempDir()
	offline := map[string]string{"ASSAY_DATA_DIR": filepath.Join(tmp, "data")}
	model := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(),
		"ASSAY_DATA_DIR": filepath.Join(tmp, "data"), "ASSAY_CACHE_DIR": filepath.Join(tmp, "cache")}
	profile := filepath.Join(tmp, "toy.yaml")
	require.NoError(t, os.WriteFile(profile, []byte("name: toy\nkind: report\npass:\n  threshold: 0.5\nscorers:\n  - metric: toy_brevity\n    max: 1\n"), 0o644))
	rag, labelled, report := "../../fixtures/rag/eiffel.json", "../../fixtures/rag/labelled.jsonl", "../../fixtures/reports/pass.md"
	runDir := func(name string) string { return filepath.Join(tmp, name) }

	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		code  int
		want  []string
		calls int // the model calls the command makes
		// check reads what the command left: its output and its files.
		check func(t *testing.T, stdout, stderr string)
	}{
		{name: "judge offline", env: offline,
			args: []string{"judge", "--metric", toyMetric, "--format", "text", rag},
			want: []string{"eiffel toy_brevity 1.000 (1/1) [offline (approximate)]"}},
		{name: "judge with a model", env: model,
			args: []string{"judge", "--no-cache", "--metric", toyMetric + ",faithfulness", "--format", "text", rag},
			want: []string{"eiffel toy_brevity 1.000 (1/1) [llm:openai:judge-model]", "eiffel faithfulness"}, calls: 3},
		{name: "judge --min at the toy's floor", env: offline,
			args: []string{"judge", "--metric", toyMetric, "--min", "toy_brevity=1", "--format", "text", rag},
			want: []string{"eiffel toy_brevity 1.000"}},
		{name: "judge --dry-run: the toy's stand-in, not a schema's least", env: model,
			args: []string{"judge", "--dry-run", "--metric", toyMetric, labelled},
			check: func(t *testing.T, stdout, _ string) {
				calls, out := toyPlanRow(t, stdout)
				assert.Equal(t, 6, calls, "one a record")
				assert.Equal(t, 6*toyStandInTokens, out)
			}},
		{name: "bench offline: results, summary, report and a gate that holds", env: offline,
			args: []string{"bench", "-q", "--metric", toyMetric, "--out", runDir("offline"), "--gate", "toy_brevity.mean>=0.9", labelled},
			want: []string{toyMetric},
			check: func(t *testing.T, _, _ string) {
				assert.Len(t, toyResults(t, runDir("offline")), 6)
				var s runpkg.Summary
				b, err := os.ReadFile(filepath.Join(runDir("offline"), runpkg.FileSummary))
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &s))
				require.Len(t, s.Metrics, 1)
				assert.Equal(t, toyMetric, s.Metrics[0].Metric)
				assert.InDelta(t, 1.0, float64(s.Metrics[0].Threshold), 0, "the toy's offline threshold")
				assert.InDelta(t, 1.0, float64(s.Metrics[0].PassRate), 0)
				require.Len(t, s.Gates, 1)
				assert.True(t, s.Gates[0].Passed)
				html, err := os.ReadFile(filepath.Join(runDir("offline"), runpkg.FileReport))
				require.NoError(t, err)
				assert.Contains(t, string(html), toyMetric)
			}},
		{name: "bench with a model: the toy's model threshold", env: model,
			args: []string{"bench", "-q", "--no-cache", "--metric", toyMetric, "--out", runDir("model"), labelled}, calls: 6,
			check: func(t *testing.T, _, _ string) {
				for id, method := range toyResults(t, runDir("model")) {
					assert.Equal(t, "llm:openai:judge-model", method, id)
				}
				var s runpkg.Summary
				b, err := os.ReadFile(filepath.Join(runDir("model"), runpkg.FileSummary))
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &s))
				require.Len(t, s.Metrics, 1)
				assert.InDelta(t, 0.75, float64(s.Metrics[0].Threshold), 0, "the toy's threshold with a model")
			}},
		{name: "bench: a gate on the toy that fails", env: offline,
			args: []string{"bench", "-q", "--metric", toyMetric, "--out", runDir("gated"), "--gate", "toy_brevity.mean<0.5", labelled},
			code: exitFailed,
			check: func(t *testing.T, _, stderr string) {
				assert.Contains(t, stderr, "gate toy_brevity.mean<0.5 failed")
			}},
		{name: "bench --dry-run", env: model,
			args: []string{"bench", "--dry-run", "--metric", toyMetric, labelled},
			check: func(t *testing.T, stdout, _ string) {
				calls, out := toyPlanRow(t, stdout)
				assert.Equal(t, 6, calls)
				assert.Equal(t, 6*toyStandInTokens, out)
			}},
		{name: "agree with human labels", env: offline,
			args: []string{"agree", "--metric", toyMetric, "--label", "faithful", labelled},
			want: []string{"| toy_brevity | faithful | 6 (3/3) | 0 | 0 | 0 |"}},
		{name: "agree --dry-run", env: model,
			args: []string{"agree", "--dry-run", "--metric", toyMetric, "--label", "faithful", labelled},
			check: func(t *testing.T, stdout, _ string) {
				calls, _ := toyPlanRow(t, stdout)
				assert.Equal(t, 6, calls)
			}},
		{name: "score card in text", env: offline,
			// The report is longer than 50 words: 0 of 1, below the pass.
			args: []string{"score", "--profile", profile, "--format", "text", report},
			code: exitFailed, want: []string{"- toy_brevity 0/1"}},
		{name: "score card in YAML", env: offline,
			args: []string{"score", "--profile", profile, "--format", "yaml", report},
			code: exitFailed, want: []string{"  clarity: 0/0\n  toy_brevity: 0/1\n  total: 0/1\n"}},
		{name: "score card in JSON", env: offline,
			args: []string{"score", "--profile", profile, "--format", "json", report},
			code: exitFailed,
			check: func(t *testing.T, stdout, _ string) {
				var v struct {
					QualityScore map[string]float64 `json:"quality_score"`
				}
				require.NoError(t, json.Unmarshal([]byte(stdout), &v))
				assert.Contains(t, v.QualityScore, toyMetric)
				assert.Regexp(t, `"clarity": 0,\s+"toy_brevity": 0,\s+"total": 0`, stdout, "after the dimensions, before the total")
			}},
		{name: "score card in Markdown: the entry's label", env: offline,
			args: []string{"score", "--profile", profile, "--format", "md", report},
			code: exitFailed, want: []string{"| Brevity (toy) | 0/1 |\n| **Total** | 0/1 |"}},
		{name: "score with a model", env: model,
			args: []string{"score", "--no-cache", "--profile", profile, "--format", "text", report},
			want: []string{"PASS 1/1", "- toy_brevity 1/1"}, calls: 1},
		{name: "score --dry-run", env: model,
			args: []string{"score", "--dry-run", "--profile", profile, report},
			check: func(t *testing.T, stdout, _ string) {
				calls, out := toyPlanRow(t, stdout)
				assert.Equal(t, 1, calls)
				assert.Equal(t, toyStandInTokens, out)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Not parallel: the subtests count the one server's calls.
			before := srv.Calls()
			var stdout, stderr bytes.Buffer
			code := runWith(context.Background(), reg, tc.args, func(k string) string { return tc.env[k] }, strings.NewReader(""), &stdout, &stderr)
			require.Equal(t, tc.code, code, stderr.String())
			for _, w := range tc.want {
				assert.Contains(t, stdout.String(), w)
			}
			if tc.check != nil {
				tc.check(t, stdout.String(), stderr.String())
			}
			assert.Equal(t, tc.calls, srv.Calls()-before, "model calls")
		})
	}
}

// TestToyMetricStaysInItsRegistry: the toy is known to the registry this
// file built and to nothing else: the CLI every other test runs refuses
// it, and the built-in registry cannot be added to.
func TestToyMetricStaysInItsRegistry(t *testing.T) {
	t.Parallel()
	reg := toyRegistry(t)
	assert.Contains(t, reg.Metrics(), toyMetric)
	assert.NotContains(t, agent.Builtins().Metrics(), toyMetric)
	require.ErrorIs(t, agent.Builtins().Add(metric.Entry{Name: toyMetric, Kind: metric.KindHeuristic, Build: func(metric.Model) eval.Scorer { return toyBrevity{} }}), metric.ErrSealed)

	code, _, stderr := runCLI(t, "", "judge", "--metric", toyMetric, "../../fixtures/rag/eiffel.json")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, `unknown metric "toy_brevity"`)
	dir := t.TempDir()
	profile := filepath.Join(dir, "toy.yaml")
	require.NoError(t, os.WriteFile(profile, []byte("name: toy\nkind: report\npass:\n  threshold: 0.5\nscorers:\n  - metric: toy_brevity\n    max: 1\n"), 0o644))
	code, _, stderr = runCLI(t, "", "score", "--profile", profile, "../../fixtures/reports/pass.md")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, `unknown metric "toy_brevity" for kind report`)
}
