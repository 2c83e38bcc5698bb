package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/judging"
)

// TestExecuteGateFailureShowsAFailingValue: answer_relevancy of this one
// sample is 0.589088, which four decimals write 0.5891: a gate max>=0.58909
// it fails must not say "got 0.5891", which reads as meeting it.
func TestExecuteGateFailureShowsAFailingValue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id": "plain", "question": "What is water made of?", "answer": "Water is hydrogen and oxygen.", "contexts": ["Water is made of hydrogen and oxygen."]}`+"\n"), 0o600))
	j := judging.Default()
	j.LLM.Spec = "offline"
	out, err := bench.Execute(context.Background(), bench.Job{
		Data: data, Metrics: []string{"answer_relevancy"}, Gates: []string{"answer_relevancy.max>=0.58909"},
		Out: filepath.Join(dir, "run"), NoStore: true, Judging: j,
	})
	require.NoError(t, err)
	require.InDelta(t, 0.589088, float64(out.Summary.Metrics[0].Max), 1e-6)
	require.Len(t, out.Failures, 1)
	assert.Equal(t, "gate answer_relevancy.max>=0.58909 failed: got 0.589088 (answer_relevancy.max is 0.589088, want >= 0.58909)",
		out.Failures[0].Err.Error())
}

// TestExecuteFloorAndPassRateAgree: the --min floor compares a value
// rounded to four decimals, as judge prints it, so 0.589088 passes a floor
// of 0.58909. The summary's passed count, which uses the floor as the
// threshold, must count it passed too, or the gate on pass_rate and the
// exit code disagree about the same sample.
func TestExecuteFloorAndPassRateAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id": "plain", "question": "What is water made of?", "answer": "Water is hydrogen and oxygen.", "contexts": ["Water is made of hydrogen and oxygen."]}`+"\n"), 0o600))
	j := judging.Default()
	j.LLM.Spec = "offline"
	out, err := bench.Execute(context.Background(), bench.Job{
		Data: data, Metrics: []string{"answer_relevancy"}, Min: "0.58909", Gates: []string{"answer_relevancy.pass_rate>=1"},
		Out: filepath.Join(dir, "run"), NoStore: true, Judging: j,
	})
	require.NoError(t, err)
	m := out.Summary.Metrics[0]
	require.InDelta(t, 0.589088, float64(m.Max), 1e-6)
	assert.Empty(t, out.Failures, "the floor passes the sample")
	assert.Equal(t, 1, m.Passed)
	assert.InDelta(t, 1.0, float64(m.PassRate), 0)
}
