package daily

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
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

// TestProfileWeightsAndGateAreInRange: a daily profile's overall weights
// are each from 0 to 1 (NaN summed to a NaN that passed the sum's test,
// and its card could not be written as JSON) and its gate is from 0 to
// 100 (a gate of .inf reviewed every report, of -5 published every one).
func TestProfileWeightsAndGateAreInRange(t *testing.T) {
	t.Parallel()
	lines := strings.Split(string(defaultYAML), "\n")
	lineOf := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		t.Fatalf("no line %q in the default profile", prefix)
		return 0
	}
	with := func(prefix, line string) []byte {
		out := slices.Clone(lines)
		out[lineOf(prefix)-1] = line
		return []byte(strings.Join(out, "\n"))
	}
	overall, gate := lineOf("overall:"), lineOf("gate:")
	tests := map[string]struct {
		yaml       []byte
		field, msg string
		line       int
	}{
		"a NaN weight":          {with("overall:", "overall: {faithfulness: .nan, completeness: 0.2, reasoning: 0.2, compliance: 0.1}"), "overall.faithfulness", "must be a number from 0 to 1, got NaN", overall},
		"a negative weight":     {with("overall:", "overall: {faithfulness: 0.5, completeness: -0.2, reasoning: 0.6, compliance: 0.1}"), "overall.completeness", "must be a number from 0 to 1, got -0.2", overall},
		"an infinite gate":      {with("gate:", "gate: {faithfulness: 80, completeness: .inf, reasoning: 75, compliance: 70}"), "gate.completeness", "must be a score from 0 to 100, got +Inf", gate},
		"a gate below 0":        {with("gate:", "gate: {faithfulness: -5, completeness: 75, reasoning: 75, compliance: 70}"), "gate.faithfulness", "must be a score from 0 to 100, got -5", gate},
		"a NaN gate":            {with("gate:", "gate: {faithfulness: 80, completeness: 75, reasoning: 75, compliance: .nan}"), "gate.compliance", "must be a score from 0 to 100, got NaN", gate},
		"weights not adding up": {with("overall:", "overall: {faithfulness: 0.5, completeness: 0.2}"), "overall", "the four weights must add up to 1, got 0.7", overall},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("mine.yaml", tc.yaml)
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want an InputError, got %v", err)
			assert.Equal(t, tc.field, ie.Field)
			assert.Equal(t, tc.line, ie.Line)
			assert.Contains(t, ie.Msg, tc.msg)
		})
	}
}
