package daily

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultGateIsTheProfilesGate: the gate read alone, for the metric
// registry when the program starts, is the gate of the profile parsed
// whole.
func TestDefaultGateIsTheProfilesGate(t *testing.T) {
	t.Parallel()
	assert.Equal(t, Weights{Faithfulness: 80, Completeness: 75, Reasoning: 75, Compliance: 70}, DefaultGate())
	assert.Equal(t, Default().Gate, DefaultGate())
}

// TestGateOfReadsTheGateAlone: the gate's entry is found in either YAML
// form, wherever it is among the top-level keys, and a file without one
// is an error, not a gate of zeros.
func TestGateOfReadsTheGateAlone(t *testing.T) {
	t.Parallel()
	want := Weights{Faithfulness: 80, Completeness: 75, Reasoning: 75, Compliance: 70}
	tests := map[string]struct {
		yaml string
		err  string
	}{
		"flow, then more keys": {yaml: "name: x\ngate: {faithfulness: 80, completeness: 75, reasoning: 75, compliance: 70}\nqos:\n  latency_s: []\n"},
		"block, last": {
			yaml: "name: x\ngate_note: 1\n# the gate\ngate:\n  faithfulness: 80\n  completeness: 75\n\n  # content\n  reasoning: 75\n  compliance: 70\n",
		},
		"block, then a key": {yaml: "gate:\n  faithfulness: 80\n  completeness: 75\n  reasoning: 75\n  compliance: 70\nqos: {}\n"},
		"none":              {yaml: "name: x\ngate_note: 1\n", err: "no gate"},
		"not a gate":        {yaml: "gate: [80]\n", err: "gate: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into daily.Weights"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, err := gateOf([]byte(tc.yaml))
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, g)
		})
	}
}

// TestTheGateCostsLittleOfAParse: what the registry reads of the daily
// profile when the program starts (the gate) allocates a small part of
// what parsing the whole profile does, which waits for its first use.
func TestTheGateCostsLittleOfAParse(t *testing.T) {
	gate := testing.AllocsPerRun(20, func() {
		if _, err := gateOf(defaultYAML); err != nil {
			t.Fatal(err)
		}
	})
	parse := testing.AllocsPerRun(5, func() {
		if _, err := ParseProfile("daily.yaml", defaultYAML); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("gate %.0f allocations, the whole profile %.0f", gate, parse)
	assert.Less(t, gate, parse/50)
}

// BenchmarkDefaultProfile measures what reading the built-in profile
// costs: its gate alone (the registry, at start-up) and the whole of it
// (Default, at its first use).
func BenchmarkDefaultProfile(b *testing.B) {
	b.Run("gate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = gateOf(defaultYAML)
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = ParseProfile("daily.yaml", defaultYAML)
		}
	})
}
