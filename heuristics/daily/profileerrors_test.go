package daily

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edited is the built-in profile with the first occurrence of old
// replaced by repl.
func edited(t *testing.T, old, repl string) []byte {
	t.Helper()
	require.Contains(t, string(defaultYAML), old)
	return []byte(strings.Replace(string(defaultYAML), old, repl, 1))
}

// lineOf is the 1-based line of the first occurrence of s in the built-in
// profile.
func lineOf(t *testing.T, s string) int {
	t.Helper()
	i := strings.Index(string(defaultYAML), s)
	require.GreaterOrEqual(t, i, 0)
	return strings.Count(string(defaultYAML)[:i], "\n") + 1
}

// TestParseProfileNamesTheFieldOfAWrongType: a value of the wrong type
// in a daily profile is named by its file, line and field, in words,
// as a report profile's is; it was "line 164: cannot unmarshal !!str
// `five` into float64".
func TestParseProfileNamesTheFieldOfAWrongType(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		old, repl, at, want string
	}{
		"a word for a number": {"percentile_tolerance: 5", "percentile_tolerance: five", "percentile_tolerance", `percentile_tolerance: must be a number, got "five"`},
		"a word for a count":  {"max_lines: 15", "max_lines: many", "max_lines", `length.max_lines: must be a whole number, got "many"`},
		"a word in the gate":  {"gate: {faithfulness: 80", "gate: {faithfulness: high", "gate: {", `gate.faithfulness: must be a number, got "high"`},
		"a word in qos":       {"reliability_error_score: 30", "reliability_error_score: low", "reliability_error_score", `qos.reliability_error_score: must be a number, got "low"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("my.yaml", edited(t, tc.old, tc.repl))
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("my.yaml:%d: %s", lineOf(t, tc.at), tc.want))
		})
	}
}
