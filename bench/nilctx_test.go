package bench_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/align"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/runstore"
)

// Every call of the Go API's table (docs/go-api.md) given a nil context
// returns an *eval.InputError naming it, and reads, judges and writes
// nothing, where it panicked (or, in the run store's, hung) before.
func TestNilContextIsAnInputError(t *testing.T) {
	t.Parallel()
	const data = "../fixtures/rag/labelled.jsonl"
	j := judging.Default()
	j.LLM.Spec = "offline"
	var nilCtx context.Context // what a caller forgot to set
	calls := map[string]func(t *testing.T, dir string) error{
		"bench.Execute": func(t *testing.T, dir string) error {
			_, err := bench.Execute(nilCtx, bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true, Judging: j})
			return err
		},
		"bench.Judge": func(t *testing.T, dir string) error {
			_, err := bench.Judge(nilCtx, bench.JudgeJob{Data: data, Metrics: []string{"faithfulness"}, Judging: j})
			return err
		},
		"agree.Measure": func(t *testing.T, dir string) error {
			_, err := agree.Measure(nilCtx, agree.Job{Data: data, Metrics: []string{"faithfulness"}, Label: "faithful", Judging: j})
			return err
		},
		"align.Align": func(t *testing.T, dir string) error {
			_, err := align.Align(nilCtx, align.Job{Metric: "helpful_reply", Judges: "../examples/support-judge.yaml",
				Labels: "../examples/support-labels.jsonl", Out: filepath.Join(dir, "aligned.yaml"), Judging: j})
			return err
		},
		"agent.Score": func(t *testing.T, dir string) error {
			p, err := agent.LoadProfile("research")
			require.NoError(t, err)
			_, err = agent.Score(nilCtx, p, eval.Sample{Query: "q", Answer: "# R\n\nA claim [1].\n"}, agent.Options{})
			return err
		},
		"agent.ScoreFile": func(t *testing.T, dir string) error {
			_, err := agent.ScoreFile(nilCtx, agent.ScoreJob{File: "../fixtures/reports/pass.md", Judging: j})
			return err
		},
		"agent.ScoreBytes": func(t *testing.T, dir string) error {
			_, err := agent.ScoreBytes(nilCtx, agent.ScoreJob{Judging: j}, agent.ScoreInput{Name: "r.md", Data: []byte("# R\n\nA claim.\n")})
			return err
		},
		"agent.RunResearch": func(t *testing.T, dir string) error {
			_, err := agent.RunResearch(nilCtx, agent.ResearchJob{Question: "what is a vector database", Out: filepath.Join(dir, "research"), Judging: j})
			return err
		},
		"runstore.Runs.List": func(t *testing.T, dir string) error {
			_, err := runstore.Runs{Store: filepath.Join(dir, "runs.db")}.List(nilCtx)
			return err
		},
		"runstore.Runs.Trend": func(t *testing.T, dir string) error {
			_, err := runstore.Runs{Store: filepath.Join(dir, "runs.db")}.Trend(nilCtx, "faithfulness", data)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			err := call(t, dir)
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want an *eval.InputError, got %v", err)
			assert.Equal(t, "ctx", ie.Field)
			assert.Contains(t, ie.Error(), "nil context")
			left, rerr := os.ReadDir(dir)
			require.NoError(t, rerr)
			assert.Empty(t, left, "nothing is written")
		})
	}
}
