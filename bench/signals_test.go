package bench

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/run"
)

// TestOutcomeBudgetLeads: a run the budget stopped says so first, with
// what it did and how to go on, and prints no table; a run it did not
// stop prints its table.
func TestOutcomeBudgetLeads(t *testing.T) {
	t.Parallel()
	ms := []run.MetricStats{{Metric: "faithfulness", N: 20, Scored: 4, Defaulted: 16, Mean: 0.5}}
	tests := map[string]struct {
		failures judging.Failures
		table    bool
	}{
		"stopped by the budget": {judging.Failures{
			{Kind: judging.FailDefaults, Err: errors.New("16 of 20 judgements (80%) fell back to the neutral default")},
			{Kind: judging.FailBudget, Err: errors.New("budget reached: 16 call(s) not made")}}, false},
		"not stopped": {nil, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := &Outcome{Dir: "runs/b1", Config: run.Config{RunID: "b1"}, Summary: run.Summary{Metrics: ms}, Failures: tc.failures, MaxCost: 0.002,
				Report: judging.Report{Judge: "llm:openai:m", Usage: eval.Usage{Calls: 4, CostUSD: 0.0019}}}
			var out, log bytes.Buffer
			require.NoError(t, o.Write(&out, &log))
			if tc.table {
				assert.Contains(t, out.String(), "faithfulness  4/20")
				assert.NotContains(t, log.String(), "--max-cost")
				return
			}
			assert.Empty(t, out.String(), "no table")
			lines := strings.Split(log.String(), "\n")
			assert.Equal(t, "bench: stopped by --max-cost $0.002: spent $0.0019 on 4 call(s), then made no more; 4 of 20 judgement(s) scored, 16 fell back to the neutral default (no summary table: its figures would be mostly defaults)", lines[0])
			assert.Equal(t, "bench: go on with --resume --out runs/b1 and a larger --max-cost: only the 16 default(s) are judged again", lines[1])
			assert.Contains(t, lines[2], "judge: llm:openai:m; calls 4")
			assert.Equal(t, "bench: run b1 in runs/b1", lines[3])
		})
	}
}
