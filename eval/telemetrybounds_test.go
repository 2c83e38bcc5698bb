package eval

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTelemetryRefusesNegativeHistoryAndCardFigures: an earlier run that
// took negative seconds, or a research card whose stages, total or cost
// are negative, is bad input naming the file, line and field, not a
// latency trend or a cost computed from it.
func TestTelemetryRefusesNegativeHistoryAndCardFigures(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in    string
		line  int
		field string
	}{
		"an earlier run below zero": {
			in:   "{\"total\": 9.5,\n\"history\": [8.75, -10.25, 9]}",
			line: 2, field: "history[1]",
		},
		"a card stage below zero": {
			in:   "{\"qos\": {\"total_ns\": 2000000000,\n\"stages_ns\": {\"fetch\": -500}}}",
			line: 2, field: "qos.stages_ns.fetch",
		},
		"a card total below zero, stages fine": {
			in:   "{\"qos\": {\"stages_ns\": {\"fetch\": 700},\n\"total_ns\": -3000000000}}",
			line: 2, field: "qos.total_ns",
		},
		"a card that earned money": {
			in:   "{\"qos\": {\"total_ns\": 2000000000,\n\"cost_usd\": -0.25}}",
			line: 2, field: "qos.cost_usd",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadTelemetry("tel.json", []byte(tc.in))
			var ie *InputError
			require.True(t, errors.As(err, &ie), "want an InputError, got %v", err)
			assert.Equal(t, tc.line, ie.Line, err.Error())
			assert.Equal(t, tc.field, ie.Field)
			assert.Contains(t, ie.Msg, ">= 0")
		})
	}
}
