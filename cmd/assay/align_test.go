package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

const (
	supportLabels = "../../examples/support-labels.jsonl"
	supportJudge  = "../../examples/support-judge.yaml"
)

// supportTruth maps each answer of the example labels to the grade a
// right judge gives it.
func supportTruth(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(supportLabels)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Answer string          `json:"answer"`
			Human  map[string]bool `json:"human"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out[r.Answer] = map[bool]string{true: "pass", false: "fail"}[r.Human["helpful_reply"]]
	}
	require.NoError(t, sc.Err())
	return out
}

// TestAlignExitCodes: a gain the held-out interval supports is written
// (exit 0); a wording that changes nothing writes nothing (exit 1); bad
// input is exit 2 naming what; a judge that keeps failing is exit 3.
func TestAlignExitCodes(t *testing.T) {
	t.Parallel()
	truth := supportTruth(t)
	grade := func(g llmtest.GradeRequest) string {
		for answer, want := range truth {
			if strings.Contains(g.Sample, answer) {
				return want
			}
		}
		return "pass"
	}
	tests := map[string]struct {
		rule  func(llmtest.GradeRequest) string
		args  []string
		code  int
		wrote bool
		want  string
	}{
		"a criterion the fake grades right by": {
			rule: func(g llmtest.GradeRequest) string {
				if strings.Contains(g.System, "concrete step") {
					return grade(g)
				}
				return "pass"
			},
			code: 0, wrote: true, want: "gain supported",
		},
		"no wording changes the grades": {
			rule: grade, code: 1, want: "no gain supported",
		},
		"a holdout of the whole": {
			rule: grade, args: []string{"--holdout", "1"}, code: 2, want: "--holdout",
		},
		"a holdout of none, not the default": {
			rule: grade, args: []string{"--holdout", "0"}, code: 2, want: "--holdout: want a share between 0 and 1 (0.3 holds out 30% of the labels), got 0",
		},
		"no candidates, not the default": {
			rule: grade, args: []string{"--candidates", "0"}, code: 2, want: "--candidates: want at least 1, got 0",
		},
		"a negative count of examples": {
			rule: grade, args: []string{"--examples", "-1"}, code: 2, want: "--examples: want 0 or more (0: no few-shot examples), got -1",
		},
		"no examples plans fewer calls than the default": {
			rule: grade, args: []string{"--dry-run", "--examples", "0"}, code: 0, want: "dry run: at most 172 judge calls, none made",
		},
		"a label no record has": {
			rule: grade, args: []string{"--label", "nope"}, code: 2, want: "0 records carry the label",
		},
		"a dry run makes no call": {
			rule: grade, args: []string{"--dry-run"}, code: 0, want: "dry run: at most 230 judge calls, none made",
		},
		"a judge that never answers on the scale": {
			rule: func(llmtest.GradeRequest) string { return "7" }, code: 3, want: "run failed",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.Graded(tc.rule, "The reply is short.", "The reply gives a concrete step the customer can take.")))
			dir := t.TempDir()
			env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": dir}
			out := filepath.Join(dir, "aligned.yaml")
			args := append([]string{"align", "--llm", "openai:fake-judge", "--metric", "helpful_reply", "--judges", supportJudge, "--labels", supportLabels, "--out", out}, tc.args...)
			code, stdout, stderr := runEnv(t, env, args...)
			assert.Equal(t, tc.code, code, "stdout %s\nstderr %s", stdout, stderr)
			assert.Contains(t, stdout+stderr, tc.want)
			if slices.Contains(tc.args, "--dry-run") {
				assert.Zero(t, srv.Calls())
			}
			if tc.wrote {
				assert.FileExists(t, out)
				code, _, stderr := runEnv(t, env, "judge", "--llm", "openai:fake-judge", "--judges", out, "--metric", "helpful_reply", "--no-cache", "../../examples/support.jsonl")
				assert.NotEqual(t, 2, code, "the aligned judges file loads: %s", stderr)
			} else {
				assert.NoFileExists(t, out)
			}
		})
	}
}

// TestAlignLabelsFromStandardInput: --labels - reads standard input.
func TestAlignLabelsFromStandardInput(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(supportLabels)
	require.NoError(t, err)
	code, stdout, stderr := runCLI(t, string(data), "align", "--dry-run", "--metric", "helpful_reply", "--judges", supportJudge, "--labels", "-")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "## align helpful_reply: <stdin>, label human.helpful_reply (binary)")
	assert.Contains(t, stdout, "split: 28 train, 12 held out")
}
