package dataset

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIDSet adds ids line by line and checks which are refused as
// duplicates, with the line of their first occurrence.
func TestIDSet(t *testing.T) {
	t.Parallel()
	type want struct {
		first int
		dup   bool
	}
	tests := map[string]struct {
		ids  []string
		want []want
	}{
		"distinct ids":                 {ids: []string{"a", "b", "c"}, want: []want{{}, {}, {}}},
		"a repeat names its first":     {ids: []string{"a", "b", "a"}, want: []want{{}, {}, {1, true}}},
		"a third copy names the first": {ids: []string{"x", "x", "x"}, want: []want{{}, {1, true}, {1, true}}},
		"case and space matter":        {ids: []string{"a", "A", "a "}, want: []want{{}, {}, {}}},
		"empty id is an id":            {ids: []string{"", "a", ""}, want: []want{{}, {}, {1, true}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newIDSet()
			for i, id := range tc.ids {
				first, dup := s.add(id, i+1)
				assert.Equal(t, tc.want[i], want{first, dup}, "id %q on line %d", id, i+1)
			}
		})
	}
}

// TestIDSetManyLongIDs adds 100k distinct ids of 200 bytes: none is taken
// for a duplicate, each is refused the second time, and the set keeps one
// entry an id, not their text.
func TestIDSetManyLongIDs(t *testing.T) {
	t.Parallel()
	const n = 100_000
	pad := strings.Repeat("x", 200)
	s := newIDSet()
	for i := range n {
		_, dup := s.add(pad+strconv.Itoa(i), i+1)
		require.False(t, dup, "id %d", i)
	}
	assert.Len(t, s.lines, n)
	first, dup := s.add(pad+"77", n+1)
	assert.True(t, dup)
	assert.Equal(t, 78, first)
}
