package heuristics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// bruteNearDuplicates compares every pair: the reference for nearDuplicates.
func bruteNearDuplicates(sets [][]string, t float64) [][2]int {
	var out [][2]int
	m := make([]map[string]bool, len(sets))
	for i, s := range sets {
		if s == nil {
			continue
		}
		m[i] = map[string]bool{}
		for _, w := range s {
			m[i][w] = true
		}
	}
	for i := range m {
		for j := i + 1; j < len(m); j++ {
			if m[i] == nil || m[j] == nil {
				continue
			}
			inter := 0
			for w := range m[i] {
				if m[j][w] {
					inter++
				}
			}
			if u := len(m[i]) + len(m[j]) - inter; u > 0 && float64(inter)/float64(u) >= t {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

func TestNearDuplicates(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	random := func(n int) []string {
		var s []string
		for range n {
			s = append(s, vocab[r.IntN(len(vocab))])
		}
		return s
	}
	var mixed [][]string
	for i := range 200 {
		s := random(8 + r.IntN(20))
		if i%7 == 0 && i > 0 {
			s = append(mixed[i-1][:len(mixed[i-1]):len(mixed[i-1])], vocab[r.IntN(len(vocab))])
		}
		if i%11 == 0 {
			s = nil // too short to compare
		}
		mixed = append(mixed, s)
	}
	tests := map[string]struct {
		sets [][]string
		t    float64
	}{
		"identical":          {[][]string{strings.Fields("a b c d e f g h"), strings.Fields("h g f e d c b a")}, 0.8},
		"one word differs":   {[][]string{strings.Fields("a b c d e f g h i j"), strings.Fields("a b c d e f g h i k")}, 0.8},
		"disjoint":           {[][]string{strings.Fields("a b c d e f g h"), strings.Fields("i j k l m n o p")}, 0.8},
		"random at 0.8":      {mixed, 0.8},
		"random at 0.5":      {mixed, 0.5},
		"random at 0.2":      {mixed, 0.2},
		"random at 0":        {mixed, 0},
		"random at 1":        {mixed, 1},
		"nothing to compare": {nil, 0.8},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sets := make([][]string, len(tc.sets)) // nearDuplicates sorts them in place
			for i, s := range tc.sets {
				sets[i] = slices.Clone(s)
			}
			got, _ := nearDuplicates(sets, tc.t)
			assert.Equal(t, bruteNearDuplicates(tc.sets, tc.t), got)
		})
	}
}

// TestNearDuplicatesScales checks that distinct paragraphs are not all
// compared with each other: a 5 MB report has thousands of paragraphs.
func TestNearDuplicatesScales(t *testing.T) {
	t.Parallel()
	const n = 3000
	sets := make([][]string, n)
	for i := range sets {
		for j := range 40 {
			sets[i] = append(sets[i], fmt.Sprintf("p%dw%d", i, j%30), "the", "heat", "pump")
		}
	}
	pairs, compared := nearDuplicates(sets, DefaultNearDuplicate)
	assert.Empty(t, pairs)
	assert.Less(t, compared, n, "pairs compared word by word")
}
