package judging

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWriterTakesTurns: a job's log may be written from many goroutines
// at once; a writer that is not safe for that (a bytes.Buffer) gets every
// line whole (go test -race fails without the lock), and a file, the
// discarder and an already locked writer are given back as they are.
func TestWriterTakesTurns(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := Writer(&buf)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = io.WriteString(w, "worker: a line of the log\n")
			}
		})
	}
	wg.Wait()
	assert.Equal(t, strings.Repeat("worker: a line of the log\n", 800), buf.String())

	tests := map[string]struct {
		in   io.Writer
		want io.Writer
	}{
		"nil":           {in: nil, want: io.Discard},
		"discard":       {in: io.Discard, want: io.Discard},
		"a file":        {in: os.Stderr, want: os.Stderr},
		"locked before": {in: w, want: w},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			assert.True(t, tt.want == Writer(tt.in), "%T given back as %T", tt.in, Writer(tt.in))
		})
	}
}
