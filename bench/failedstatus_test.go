package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// TestFailedRunKeepsWhyInItsSummary: a run that failed for want of
// scores (more defaults than --max-default-rate allows, a --min floor)
// exits non-zero, and summary.json and the run store say why, so that
// assay runs list and show never call it "ok"; a run that passed keeps
// no failure, and a failed gate is said by the gate as before.
func TestFailedRunKeepsWhyInItsSummary(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id": "plain", "question": "What is water made of?", "answer": "Water is made of molten gold and silver.", "contexts": ["Water is made of hydrogen and oxygen."]}`+"\n"), 0o600))
	offSchema := llmtest.New(t, llmtest.Func(func(openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.Faults()["offschema"]
	}), llmtest.Quiet())
	tests := map[string]struct {
		spec, min string
		gates     []string
		kinds     []string
		status    string
	}{
		"passed":                          {spec: "offline", status: "ok"},
		"every judgement defaulted":       {spec: "openai:fake-judge", kinds: []string{"too many defaults"}, status: "too many defaults"},
		"a value below its --min floor":   {spec: "offline", min: "0.99", kinds: []string{"below floor"}, status: "below floor"},
		"a failed gate is the gate's":     {spec: "offline", gates: []string{"faithfulness.mean>1"}, status: "gate failed"},
		"a floor and a gate, floor first": {spec: "offline", min: "0.99", gates: []string{"faithfulness.mean>1"}, kinds: []string{"below floor"}, status: "below floor"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, store := filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "runs.db")
			j := judging.Default()
			j.LLM.Spec, j.LLM.NoCache = tc.spec, true
			env := map[string]string{"OPENAI_BASE_URL": offSchema.URL(), "OPENAI_API_KEY": "test-key"}
			out, err := bench.Execute(context.Background(), bench.Job{Data: data, Metrics: []string{"faithfulness"}, Min: tc.min, Gates: tc.gates,
				Out: dir, Store: store, Env: func(k string) string { return env[k] }, Judging: j, Quiet: true})
			require.NoError(t, err)
			require.NoError(t, out.StoreErr)
			assert.Equal(t, tc.status == "ok", out.Passed(), "%v", out.Failures)

			b, err := os.ReadFile(filepath.Join(dir, run.FileSummary))
			require.NoError(t, err)
			var s run.Summary
			require.NoError(t, json.Unmarshal(b, &s))
			var kinds []string
			for _, f := range s.Failed {
				kinds = append(kinds, f.Kind)
				assert.NotEmpty(t, f.Message)
			}
			assert.Equal(t, tc.kinds, kinds)

			l, err := runstore.Runs{Store: store}.List(context.Background())
			require.NoError(t, err)
			require.Len(t, l.Runs, 1)
			assert.Equal(t, tc.status, l.Runs[0].Status)
			v, err := runstore.Runs{Store: store}.Show(context.Background(), dir)
			require.NoError(t, err)
			assert.Equal(t, tc.status, runstore.RunStatus(v.Summary))
		})
	}
}
