package dataset

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// labelled are records with the binary label "faithful" (a, b, c, d; d
// as the number 1), one with a grade (g) and one without (u).
func labelled() []Record {
	return []Record{
		{ID: "a", Human: map[string]any{"faithful": true}},
		{ID: "b", Human: map[string]any{"faithful": false}},
		{ID: "c", Human: map[string]any{"faithful": "no"}},
		{ID: "d", Human: map[string]any{"faithful": 1.0}},
		{ID: "g", Human: map[string]any{"faithful": 4.0}},
		{ID: "u"},
	}
}

func TestReadLabels(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name string
		want map[string]bool
	}{
		"binary labels only":        {name: "faithful", want: map[string]bool{"a": true, "b": false, "c": false, "d": true}},
		"a negated label":           {name: "!faithful", want: map[string]bool{"a": false, "b": true, "c": true, "d": false}},
		"a label no record carries": {name: "relevant", want: map[string]bool{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := ReadLabels(All(labelled()), tc.name)
			require.NoError(t, err)
			assert.Equal(t, tc.name, l.Name)
			assert.Equal(t, len(tc.want), l.Len())
			for _, rec := range labelled() {
				got, ok := l.Of(rec.ID)
				want, has := tc.want[rec.ID]
				assert.Equal(t, has, ok, rec.ID)
				assert.Equal(t, want, got, rec.ID)
			}
		})
	}
}

func TestReadLabelsStopsAtAnError(t *testing.T) {
	t.Parallel()
	bad := &os.PathError{Op: "read", Path: "data.jsonl", Err: os.ErrClosed}
	records := func(yield func(Record, error) bool) {
		if yield(Record{ID: "a", Human: map[string]any{"faithful": true}}, nil) {
			yield(Record{}, bad)
		}
	}
	_, err := ReadLabels(records, "faithful")
	require.ErrorIs(t, err, os.ErrClosed)
}
