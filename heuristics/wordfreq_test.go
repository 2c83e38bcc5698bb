package heuristics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRarity(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		word string
		want float64
	}{
		"most common word":          {"the", 0.07},
		"common word":               {"file", 0.336},
		"less common word":          {"country", 0.88},
		"plural found by its stem":  {"countries", 0.88},
		"word not in the list":      {"epineurium", 1},
		"number is not in the list": {"1987", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, rarity(tc.word), 0.005)
		})
	}
}

func TestWordRanks(t *testing.T) {
	t.Parallel()
	ranks, n := wordRanks()
	assert.Equal(t, 20000, n)
	assert.Equal(t, 1, ranks["the"])
	assert.Less(t, ranks["file"], ranks["country"])
}
