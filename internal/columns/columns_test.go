package columns

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writes counts the writes it is given.
type writes struct {
	bytes.Buffer
	n   int
	err error
}

func (w *writes) Write(p []byte) (int, error) {
	w.n++
	if w.err != nil {
		return 0, w.err
	}
	return w.Buffer.Write(p)
}

// TestColumnsAlignAsATabwriterInOneWrite: the table is the one a
// tabwriter writes, cell for cell, reaching its destination in one write
// where the tabwriter made one a cell and a gap; a table larger than the
// buffer takes a few; a destination's error is Flush's.
func TestColumnsAlignAsATabwriterInOneWrite(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		rows      int
		maxWrites int
	}{
		"a run's summary": {rows: 3, maxWrites: 1},
		"a long listing":  {rows: 2000, maxWrites: 40},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lines := []string{"metric\tscored\tmean\tci95"}
			for i := range tc.rows {
				lines = append(lines, fmt.Sprintf("metric_%d\t%d/200\t0.%03d\t[0.1, 0.%d]", i, i%200, i, i))
			}
			var want, got writes
			tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
			cw := New(&got)
			for _, l := range lines {
				fmt.Fprintln(tw, l)
				fmt.Fprintln(cw, l)
			}
			require.NoError(t, tw.Flush())
			require.NoError(t, cw.Flush())
			assert.Equal(t, want.String(), got.String())
			assert.Greater(t, want.n, 4*len(lines), "a tabwriter writes each cell")
			assert.LessOrEqual(t, got.n, tc.maxWrites)
			assert.True(t, strings.HasPrefix(got.String(), "metric  "), got.String()[:20])
		})
	}
	t.Run("a destination's error", func(t *testing.T) {
		t.Parallel()
		full := &writes{err: errors.New("no space left on device")}
		cw := New(full)
		fmt.Fprintln(cw, "a\tb")
		assert.EqualError(t, cw.Flush(), "no space left on device")
	})
}
