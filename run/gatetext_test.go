package run_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/run"
)

// TestFailedGateNeverShowsAValueThatMeetsIt: a value just under (or over)
// a gate's number, rounded to four decimals or six figures, can print as
// a number that meets the gate. The reason and GotText must show enough
// digits to read as failing; a value far from the number keeps its short
// form.
func TestFailedGateNeverShowsAValueThatMeetsIt(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr   string
		got    float64
		reason string
		got4   string // GotText('f', 4)
	}{
		"just under >=": {expr: "m.max>=0.58909", got: 0.58908999,
			reason: "m.max is 0.58908999, want >= 0.58909", got4: "0.58908999"},
		"just over <=": {expr: "m.max<=0.7", got: 0.70000001,
			reason: "m.max is 0.70000001, want <= 0.7", got4: "0.70000001"},
		"equal to > rounds to it": {expr: "m.max>0.5", got: 0.5,
			reason: "m.max is 0.5, want > 0.5", got4: "0.5000"},
		"four decimals meet it, six figures do not": {expr: "m.max>=0.58909", got: 0.589088,
			reason: "m.max is 0.589088, want >= 0.58909", got4: "0.589088"},
		"far from it": {expr: "m.max>=0.9", got: 0.123456789,
			reason: "m.max is 0.123457, want >= 0.9", got4: "0.1235"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, err := run.ParseGate(tc.expr)
			require.NoError(t, err)
			s := run.Summary{Metrics: []run.MetricStats{{Metric: "m", N: 1, Scored: 1, Max: run.Num(tc.got)}}}
			res := run.CheckGates([]run.Gate{g}, s)
			require.Len(t, res, 1)
			require.False(t, res[0].Passed)
			assert.Equal(t, tc.reason, res[0].Reason)
			assert.Equal(t, tc.got4, res[0].GotText('f', 4))
		})
	}
}
