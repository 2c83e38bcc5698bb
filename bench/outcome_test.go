package bench_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/run"
)

// TestOutcomeWriteBaselineShared checks that the terminal says, as
// summary.json and the Markdown summary do, when the baseline and the
// run have samples the other lacks: without it a baseline of another
// dataset reads "- -> -" with no reason given.
func TestOutcomeWriteBaselineShared(t *testing.T) {
	t.Parallel()
	nan := run.Num(math.NaN())
	tests := map[string]struct {
		shared, onlyA, onlyB int
		want, notWant        string
	}{
		"another dataset": {
			shared: 0, onlyA: 7, onlyB: 6,
			want: "  compared on the 0 samples both runs have; A has 7 that B lacks, B has 6 that A lacks\n",
		},
		"a baseline stopped early": {
			shared: 4, onlyA: 0, onlyB: 2,
			want: "  compared on the 4 samples both runs have; A has 0 that B lacks, B has 2 that A lacks\n",
		},
		"the same samples": {
			shared: 6, notWant: "compared on",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := &bench.Outcome{Config: run.Config{RunID: "run-b"}, Summary: run.Summary{
				RunID: "run-b",
				Baseline: &run.Comparison{BaselineRunID: "run-a", Shared: tc.shared, OnlyBaseline: tc.onlyA, OnlyCurrent: tc.onlyB,
					Metrics: []run.MetricComparison{{Metric: "faithfulness", BaselineMean: nan, CurrentMean: nan, Delta: nan, P: nan}}},
			}}
			var out, log bytes.Buffer
			require.NoError(t, o.Write(&out, &log))
			if tc.want != "" {
				assert.Contains(t, log.String(), "bench: against baseline run-a:\n"+tc.want)
			}
			if tc.notWant != "" {
				assert.NotContains(t, log.String(), tc.notWant)
			}
		})
	}
}

// TestResumeRefusesItselfAsBaseline: a resumed run given its own folder
// or its own id as --baseline would compare its results with
// themselves, a delta of 0 that can raise no alert. It is refused as
// bad input before any judging, naming the flag; another run stays a
// baseline.
func TestResumeRefusesItselfAsBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id": "w1", "question": "At what temperature does water boil?", "answer": "Water boils at 100 degrees Celsius.", "contexts": ["Pure water boils at 100 degrees Celsius at sea level."]}
`), 0o644))
	store := filepath.Join(dir, "runs.db")
	job := func(out, baseline string, resume bool) bench.Job {
		j := judging.Default()
		j.LLM.Spec, j.LLM.NoCache = "offline", true
		return bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, out), Baseline: baseline,
			Resume: resume, Store: store, Judging: j}
	}
	first, err := bench.Execute(context.Background(), job("run1", "", false))
	require.NoError(t, err)
	_, err = bench.Execute(context.Background(), job("run2", "", false))
	require.NoError(t, err)
	tests := map[string]struct {
		baseline string
		refused  bool
	}{
		"its own folder":        {baseline: filepath.Join(dir, "run1"), refused: true},
		"its own folder, again": {baseline: filepath.Join(dir, "run1") + string(filepath.Separator) + ".", refused: true},
		"its own run id":        {baseline: first.Config.RunID, refused: true},
		"another run's folder":  {baseline: filepath.Join(dir, "run2")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// Not parallel: each resumes run1, whose folder is locked while
			// a resume writes it.
			o, err := bench.Execute(context.Background(), job("run1", tc.baseline, true))
			if !tc.refused {
				require.NoError(t, err)
				require.NotNil(t, o.Summary.Baseline)
				return
			}
			require.Error(t, err)
			ie, ok := errors.AsType[*eval.InputError](err)
			require.True(t, ok, "bad input (exit 2), got %T: %v", err, err)
			assert.Equal(t, "--baseline", ie.Field)
			assert.Contains(t, err.Error(), "is this run itself")
		})
	}
}

// TestOutcomeWriteBaselineMetricNotInBaseline: a metric the baseline
// never judged printed "- -> 0.579 (delta -), 0 paired, p -" with no
// reason; now its line says the baseline has no results for it.
func TestOutcomeWriteBaselineMetricNotInBaseline(t *testing.T) {
	t.Parallel()
	nan := run.Num(math.NaN())
	tests := map[string]struct {
		missing bool
		want    string
	}{
		"never judged":  {missing: true, want: "  answer_relevancy         - -> 0.579: the baseline has no results for answer_relevancy: nothing to compare\n"},
		"judged before": {missing: false, want: "  answer_relevancy         - -> 0.579 (delta -), 0 paired, p -\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := &bench.Outcome{Config: run.Config{RunID: "run-b"}, Summary: run.Summary{
				RunID: "run-b",
				Baseline: &run.Comparison{BaselineRunID: "run-a", Shared: 6,
					Metrics: []run.MetricComparison{{Metric: "answer_relevancy", BaselineMean: nan, CurrentMean: 0.579, Delta: nan, P: nan, NotInBaseline: tc.missing}}},
			}}
			var out, log bytes.Buffer
			require.NoError(t, o.Write(&out, &log))
			assert.Contains(t, log.String(), "bench: against baseline run-a:\n"+tc.want)
		})
	}
}

// TestOutcomeWriteBaselineEscapesItsConfig: the baseline's id and the
// prompt versions it was judged with come from its folder's config.json; their
// control characters (an escape sequence that would clear the terminal)
// were printed raw, and are now written as Go escapes.
func TestOutcomeWriteBaselineEscapesItsConfig(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		comparison run.Comparison
		want       string
	}{
		"its id": {
			comparison: run.Comparison{BaselineRunID: "run-a\x1b[2J"},
			want:       `bench: against baseline run-a\x1b[2J:`,
		},
		"its prompt version": {
			comparison: run.Comparison{BaselineRunID: "run-a", Judged: []string{"prompt faithfulness version 1\x1b]0;x\a, now 2"}},
			want:       `judged otherwise: prompt faithfulness version 1\x1b]0;x\a, now 2`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := tc.comparison
			o := &bench.Outcome{Config: run.Config{RunID: "run-b"}, Summary: run.Summary{RunID: "run-b", Baseline: &c}}
			var out, log bytes.Buffer
			require.NoError(t, o.Write(&out, &log))
			assert.Contains(t, log.String(), tc.want)
			assert.NotContains(t, log.String(), "\x1b")
		})
	}
}

// TestOutcomeSaysTheResumedRunsUsage: after a resume the judge's line
// counts this attempt's calls while the table and summary.json count the
// run's results, earlier attempts included; the terminal says the run's
// figure too, and only for a resumed run.
func TestOutcomeSaysTheResumedRunsUsage(t *testing.T) {
	t.Parallel()
	runUsage := eval.Usage{Calls: 120, TokensIn: 34080, TokensOut: 3320, CostUSD: 0.007104}
	tests := map[string]struct {
		kept, redo int
		want       string
	}{
		"resumed":                {kept: 21, want: "bench: the run in all, its earlier attempts with this one: calls 120, tokens 34080 in / 3320 out, cost $0.0071 (the line above is this attempt's)\n"},
		"resumed, only defaults": {redo: 2, want: "calls 120, tokens 34080 in / 3320 out"},
		"a run of one attempt":   {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := &bench.Outcome{Config: run.Config{RunID: "r"}, Kept: tc.kept, Redo: tc.redo,
				Summary: run.Summary{RunID: "r", Usage: runUsage},
				Report:  judging.Report{Judge: "llm:openai:m", Usage: eval.Usage{Calls: 99, TokensIn: 28248, TokensOut: 2771, CostUSD: 0.0059}}}
			var out, log bytes.Buffer
			require.NoError(t, o.Write(&out, &log))
			assert.Contains(t, log.String(), "judge: llm:openai:m; calls 99 (")
			if tc.want == "" {
				assert.NotContains(t, log.String(), "the run in all")
				return
			}
			assert.Contains(t, log.String(), tc.want)
		})
	}
}
