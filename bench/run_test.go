package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func testConfig() RunConfig {
	return RunConfig{RunID: "20261124T221500Z-3f9a", Started: time.Date(2026, 11, 24, 22, 15, 0, 0, time.UTC),
		Dataset: "data.jsonl", DatasetSHA256: "abc", Metrics: []string{"m1", "m2"}, Model: "offline (approximate)",
		Prompts: map[string]string{"faithfulness.claims": "2"}, Settings: map[string]string{"--strict": "false"}}
}

// countingScorer scores every sample 0.25 under its metric and counts the
// samples it judged.
type countingScorer struct {
	metric string
	mu     *sync.Mutex
	seen   map[Key]int
}

func (c countingScorer) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	c.mu.Lock()
	c.seen[Key{s.ID, c.metric}]++
	c.mu.Unlock()
	return eval.Score{Metric: c.metric, Value: 0.25}, nil
}

func records(ids ...string) []Record {
	out := make([]Record, len(ids))
	for i, id := range ids {
		out[i] = Record{ID: id, Line: i + 1, Sample: eval.Sample{ID: id}}
	}
	return out
}

func TestRunResumeJudgesOnlyWhatIsMissing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	cfg := testConfig()
	run, err := CreateRun(dir, cfg)
	require.NoError(t, err)
	// An earlier attempt judged a:m1, a:m2 and b:m1, and was killed while
	// writing b:m2.
	for _, r := range []Result{{ID: "a", Metric: "m1", Value: 1}, {ID: "a", Metric: "m2", Value: 1}, {ID: "b", Metric: "m1", Value: 0.5, Defaulted: true}} {
		require.NoError(t, run.Append(r))
	}
	require.NoError(t, run.Close())
	f, err := os.OpenFile(filepath.Join(dir, FileResults), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"id":"b","metric":"m2","val`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, err = CreateRun(dir, cfg)
	require.ErrorIs(t, err, ErrRunExists)

	now := cfg
	now.RunID, now.Command = "another", []string{"assay", "bench", "--resume"}
	run, err = ResumeRun(dir, now)
	require.NoError(t, err)
	assert.Equal(t, cfg.RunID, run.Config().RunID, "a resume keeps the run's id")
	assert.Equal(t, 3, run.Resumed())
	require.ErrorContains(t, run.Append(Result{ID: "a", Metric: "m1"}), "written already", "a pair is written once")
	var mu sync.Mutex
	seen := map[Key]int{}
	units := []Unit{ScorerUnit("m1", countingScorer{"m1", &mu, seen}), ScorerUnit("m2", countingScorer{"m2", &mu, seen})}
	var started []string
	err = run.Evaluate(context.Background(), All(records("a", "b", "c")), units, 2, func(rec Record, _ int) {
		started = append(started, rec.ID)
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "c"}, started, "a record judged whole is not started")
	assert.Equal(t, map[Key]int{{"b", "m2"}: 1, {"c", "m1"}: 1, {"c", "m2"}: 1}, seen, "only the missing pairs are judged")
	s := run.Summary(3, time.Now(), nil)
	require.NoError(t, run.Close())
	assert.True(t, s.Complete)
	assert.Equal(t, 3, s.Metrics[0].N)
	assert.Equal(t, 1, s.Metrics[0].Defaulted)
	assert.Equal(t, 1, run.Defaults().Defaulted)

	rf, err := ReadResults(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	assert.False(t, rf.Torn, "the torn line was cut off before appending")
	data, err := os.ReadFile(rf.Path)
	require.NoError(t, err)
	assert.Equal(t, 6, bytes.Count(data, []byte("\n")), "six pairs, six lines, none twice")
	assert.Len(t, rf.Results, 6)
}

func TestResumeRefusesAnotherRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		change func(*RunConfig)
		want   string
	}{
		"another dataset":  {func(c *RunConfig) { c.DatasetSHA256 = "def" }, `dataset sha256 was "abc", now "def"`},
		"other metrics":    {func(c *RunConfig) { c.Metrics = []string{"m1"} }, `metrics was "m1,m2", now "m1"`},
		"another model":    {func(c *RunConfig) { c.Model = "llm:openai:gpt-4o" }, `model was "offline (approximate)", now "llm:openai:gpt-4o"`},
		"another profile":  {func(c *RunConfig) { c.Profile = "context" }, `profile was (none), now "context"`},
		"another setting":  {func(c *RunConfig) { c.Settings = map[string]string{"--strict": "true"} }, `--strict was "false", now "true"`},
		"a prompt changed": {func(c *RunConfig) { c.Prompts = map[string]string{"faithfulness.claims": "3"} }, `prompt faithfulness.claims was "2", now "3"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			run, err := CreateRun(dir, testConfig())
			require.NoError(t, err)
			require.NoError(t, run.Close())
			cfg := testConfig()
			tc.change(&cfg)
			_, err = ResumeRun(dir, cfg)
			var me *ConfigMismatchError
			require.True(t, errors.As(err, &me), "got %v", err)
			require.Len(t, me.Diffs, 1)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "start a new run in another --out")
		})
	}
	_, err := ResumeRun(t.TempDir(), testConfig())
	require.ErrorIs(t, err, ErrNoRun)
}

func TestEvaluateStopsOnAUnitError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run, err := CreateRun(dir, testConfig())
	require.NoError(t, err)
	defer func() { _ = run.Close() }() // the run ends in an error; nothing to keep
	boom := Unit{Metrics: []string{"m1"}, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		if s.ID == "b" {
			return nil, fmt.Errorf("broken sample")
		}
		return []eval.Score{{Metric: "m1", Value: 1}}, nil
	}}
	err = run.Evaluate(context.Background(), All(records("a", "b")), []Unit{boom}, 1, nil)
	require.ErrorContains(t, err, "record b (line 2): broken sample")
	rf, err := ReadResults(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	assert.True(t, rf.Has(Key{"a", "m1"}))
	assert.False(t, rf.Has(Key{"b", "m1"}))
}

func TestNewRunIDSortsByTime(t *testing.T) {
	t.Parallel()
	a := NewRunID(time.Date(2026, 11, 24, 22, 15, 0, 0, time.UTC))
	b := NewRunID(time.Date(2026, 11, 24, 22, 15, 1, 0, time.FixedZone("x", 3600)))
	assert.Regexp(t, `^20261124T221500Z-[0-9a-f]{4}$`, a)
	assert.Regexp(t, `^20261124T211501Z-[0-9a-f]{4}$`, b, "UTC")
}
