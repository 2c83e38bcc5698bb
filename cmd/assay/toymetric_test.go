package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
)

// This file adds a metric to Assay the way a new one is added: one entry
// in a registry, here a clone of the built-in one that only this file's
// runs see. Nothing else in the repository names it, yet judge, --dry-run
// and a profile's card all take it.

const toyMetric = "toy_brevity"

// toyRegistry is the built-in metrics and the toy.
func toyRegistry(t *testing.T) *metric.Registry {
	t.Helper()
	reg := agent.Builtins().Clone()
	require.NoError(t, reg.Add(metric.Entry{
		Name: toyMetric, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
		Profiles:  []string{"report"},
		Threshold: metric.Threshold{Offline: 1, Model: 0.75},
		Build:     func(m metric.Model) eval.Scorer { return toyBrevity{m} },
	}))
	return reg
}

// toyBrevity grades how brief an answer is: offline 1 for at most 50
// words, else 0; with a model, its grade 1-5 mapped to 0-1.
type toyBrevity struct{ m judges.Model }

type toyVerdict struct {
	Grade int `json:"grade" jsonschema:"minimum=1,maximum=5"`
}

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
		Schema:   llm.SchemaFor[toyVerdict]("toy_verdict"), Tag: toyMetric,
	}, &v)
	if err != nil {
		return eval.Score{}, err
	}
	sc.Value = float64(v.Grade-1) / 4
	sc.Points, sc.Usage = sc.Value, judges.UsageOf(u)
	return sc, nil
}

func TestToyMetric(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == "toy_verdict" {
			return llmtest.Reply{Content: `{"grade":5}`}
		}
		return llmtest.JudgeReplies(req)
	}))
	reg := toyRegistry(t)
	model := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	dir := t.TempDir()
	profile := filepath.Join(dir, "toy.yaml")
	require.NoError(t, os.WriteFile(profile, []byte("name: toy\nkind: report\npass:\n  threshold: 0.5\nscorers:\n  - metric: toy_brevity\n    max: 1\n"), 0o644))

	tests := map[string]struct {
		env   map[string]string
		args  []string
		code  int
		want  []string
		calls int // the model calls the command makes
	}{
		"judge offline": {
			args: []string{"judge", "--metric", toyMetric, "--format", "text", "../../fixtures/rag/eiffel.json"},
			want: []string{"eiffel toy_brevity 1.000 (1/1) [offline (approximate)]"},
		},
		"judge with a model": {
			env: model, args: []string{"judge", "--no-cache", "--metric", toyMetric, "--format", "text", "../../fixtures/rag/eiffel.json"},
			want: []string{"eiffel toy_brevity 1.000 (1/1) [llm:openai:judge-model]"}, calls: 1,
		},
		"judge --dry-run": {
			env: model, args: []string{"judge", "--dry-run", "--metric", toyMetric, "../../fixtures/rag/eiffel.json"},
			want: []string{"toy_brevity                 1"},
		},
		"score card with the metric": {
			// The report is longer than 50 words: 0 of 1, below the pass.
			args: []string{"score", "--profile", profile, "--format", "text", "../../fixtures/reports/pass.md"},
			code: exitFailed, want: []string{"- toy_brevity 0/1"},
		},
		"score --dry-run": {
			env: model, args: []string{"score", "--dry-run", "--profile", profile, "../../fixtures/reports/pass.md"},
			want: []string{"toy_brevity                 1"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// Not parallel: the subtests count the one server's calls.
			before := srv.Calls()
			var stdout, stderr bytes.Buffer
			code := runWith(context.Background(), reg, tc.args, func(k string) string { return tc.env[k] }, strings.NewReader(""), &stdout, &stderr)
			out, errOut := stdout.String(), stderr.String()
			require.Equal(t, tc.code, code, errOut)
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
			assert.Equal(t, tc.calls, srv.Calls()-before)
		})
	}
}
