//go:build unix

package web_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/web"
)

// A named pipe in a corpus folder on disk is skipped, not read: its read
// would wait for a writer for ever.
func TestLocalSkipsANamedPipeOnDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.md"), doc("https://example.org/ok", "OK", "heat pumps").Data, 0o600))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.md")))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := web.OpenLocal(ctx, dir, nil, filepath.Join(t.TempDir(), "corpus.db"))
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	require.Equal(t, []string{"pipe.md: not a regular file (a named pipe)", "zero.md: not a regular file (a device)"}, l.Stats().Skipped)
	require.Equal(t, 1, l.Stats().Indexed)
}
