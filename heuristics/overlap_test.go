package heuristics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokenOverlap(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		answer, context string
		want            float64
	}{
		"every token found":         {"The cat sat.", "the cat sat on the mat", 1},
		"half the tokens found":     {"the dog sat down", "The cat sat.", 0.5},
		"repeats count each time":   {"the the dog", "the cat", 2.0 / 3},
		"case is ignored":           {"PARIS is big", "paris IS", 2.0 / 3},
		"no stemming":               {"cats", "cat", 0},
		"empty answer scores 0":     {"", "anything", 0},
		"empty context scores 0":    {"a claim", "", 0},
		"punctuation only scores 0": {"?!", "?!", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, TokenOverlap(tc.answer, tc.context), 1e-9)
		})
	}
}
