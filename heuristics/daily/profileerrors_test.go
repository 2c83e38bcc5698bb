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

// TestParseProfileChecksTheQoSNumbers: every number of qos is a score,
// a penalty, a limit or a ratio in its range. A NaN was taken and made
// the card fail to print (exit 3, "json: unsupported value: NaN"); a
// step score of 250 or a penalty of -500 was held to 0-100 without a
// word, and steps out of order left one unused.
func TestParseProfileChecksTheQoSNumbers(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		old, repl, at, want string
	}{
		"a NaN step score":     {"{max: 5, score: 100, label: Excellent}", "{max: 5, score: .nan, label: Excellent}", "{max: 5, score: 100", "qos.latency_s[0].score: must be a score from 0 to 100, got NaN"},
		"a step score of 250":  {"{max: 0.10, score: 85, label: Good}", "{max: 0.10, score: 250, label: Good}", "{max: 0.10, score: 85", "qos.cost_usd[1].score: must be a score from 0 to 100, got 250"},
		"a NaN step max":       {"{max: 10, score: 85, label: Good}", "{max: .nan, score: 85, label: Good}", "{max: 10, score: 85", "qos.latency_s[1].max: must be a number of 0 or more, got NaN"},
		"steps out of order":   {"{max: 10, score: 85, label: Good}", "{max: 4, score: 85, label: Good}", "{max: 10, score: 85", "qos.latency_s[1].max: must be above the bound before it (5): steps are read in order"},
		"a NaN error score":    {"reliability_error_score: 30", "reliability_error_score: .nan", "reliability_error_score", "qos.reliability_error_score: must be a score from 0 to 100, got NaN"},
		"a negative penalty":   {"very_high_latency_penalty: 20", "very_high_latency_penalty: -500", "very_high_latency_penalty", "qos.very_high_latency_penalty: must be a score from 0 to 100, got -500"},
		"a NaN latency limit":  {"very_high_latency_s: 60", "very_high_latency_s: .nan", "very_high_latency_s", "qos.very_high_latency_s: must be a number of 0 or more, got NaN"},
		"a NaN trend ratio":    {"degrading_ratio: 1.2", "degrading_ratio: .nan", "trend: {degrading", "qos.trend.degrading_ratio: must be a number of 0 or more, got NaN"},
		"an infinite penalty":  {"some_penalty: 5", "some_penalty: .inf", "db_queries:", "qos.db_queries.some_penalty: must be a score from 0 to 100, got +Inf"},
		"a negative llm limit": {"llm_calls: {max: 2", "llm_calls: {max: -2", "llm_calls:", "qos.llm_calls.max: must be 0 (off) or more, got -2"},
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

// TestParseProfileRefusesAFractionForAWholeNumber: a whole-number
// setting written with a fraction was truncated without a word
// (max_lines 15.5 read as 15); it is refused, naming the line and field.
func TestParseProfileRefusesAFractionForAWholeNumber(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		old, repl, at, want string
	}{
		"max_lines 15.5":        {"max_lines: 15", "max_lines: 15.5", "max_lines", "length.max_lines: must be a whole number, got 15.5"},
		"a sentence limit 40.5": {"max_sentence_words: {th: 90, en: 40}", "max_sentence_words: {th: 90, en: 40.5}", "max_sentence_words: {th", "length.max_sentence_words.en: must be a whole number, got 40.5"},
		"llm_calls max 2.5":     {"llm_calls: {max: 2,", "llm_calls: {max: 2.5,", "llm_calls: {max", "qos.llm_calls.max: must be a whole number, got 2.5"},
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
