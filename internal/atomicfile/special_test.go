//go:build unix

package atomicfile_test

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/atomicfile"
)

// TestWriteIntoPipe: a named pipe given as the file to write (as
// /dev/stdout or /dev/null would be) receives the content and stays a
// pipe; it was replaced by a plain file, so the reader got nothing and,
// run as root, --junit /dev/null put a plain file in /dev/null's place.
func TestWriteIntoPipe(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		write func(path string) error
		want  string
	}{
		"streamed": {func(p string) error {
			return atomicfile.Write(p, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "<testsuites/>\n"); return err })
		}, "<testsuites/>\n"},
		"whole, without sync": {func(p string) error {
			return atomicfile.WriteView(p, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "# run\n"); return err })
		}, "# run\n"},
		"bytes": {func(p string) error { return atomicfile.WriteFile(p, []byte("a,b\n"), 0o644) }, "a,b\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out.fifo")
			require.NoError(t, syscall.Mkfifo(path, 0o600))
			// A reader that opens without waiting for a writer, so that
			// the writer's open does not block and a write that never
			// comes reads as an empty pipe, not a hang.
			r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			require.NoError(t, err)
			t.Cleanup(func() { _ = r.Close() })
			require.NoError(t, tc.write(path))
			buf := make([]byte, 256)
			n, _ := r.Read(buf)
			assert.Equal(t, tc.want, string(buf[:n]))
			st, err := os.Lstat(path)
			require.NoError(t, err)
			assert.Equal(t, os.ModeNamedPipe, st.Mode().Type(), "the pipe stays a pipe")
		})
	}
}
