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
		// about, 1000, people of which 1000 and people: a grouped number
		// is the number, not "1" found anywhere and "000" nowhere.
		"a number grouped one side": {"About 1,000 people.", "There were 1000 people.", 2.0 / 3},
		"a number grouped both":     {"1,250,000 km", "It is 1,250,000 km long.", 1},
		"a different number":        {"1,000 people", "1 person and 000 cats", 0},
		"French digit groups":       {"Elle compte 2\u202f100\u202f000 habitants.", "2100000 habitants", 0.5},
		"a percent typed two ways":  {"50\u202f% des voix", "50% des voix", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, TokenOverlap(tc.answer, tc.context), 1e-9)
		})
	}
}
