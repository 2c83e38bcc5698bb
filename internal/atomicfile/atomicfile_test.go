package atomicfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/atomicfile"
)

// TestWriteMode checks the file gets the mode asked for, not the 0600 of
// a temporary file (report.html was written 0600 beside 0644 files), new
// or replacing a file of another mode.
func TestWriteMode(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	tests := map[string]struct {
		old  fs.FileMode // 0: no file before
		perm fs.FileMode
	}{
		"a new file, 0644":               {perm: 0o644},
		"a new file, 0600":               {perm: 0o600},
		"replacing a 0600 file, 0644":    {old: 0o600, perm: 0o644},
		"replacing a 0644 file, 0640":    {old: 0o644, perm: 0o640},
		"wider than a usual umask, 0666": {perm: 0o666},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "report.html")
			if tc.old != 0 {
				require.NoError(t, os.WriteFile(path, []byte("old"), tc.old))
				require.NoError(t, os.Chmod(path, tc.old))
			}
			require.NoError(t, atomicfile.WriteFile(path, []byte("<html>"), tc.perm))
			st, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tc.perm, st.Mode().Perm())
		})
	}
}

// TestWriteReplaces checks the content written, streamed and whole, and
// that nothing but the file is left in the folder.
func TestWriteReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.json")
	require.NoError(t, os.WriteFile(path, []byte("an older and longer content"), 0o644))
	big := strings.Repeat("x", 1<<20) // past bufio's buffer
	require.NoError(t, atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, big)
		return err
	}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, big, string(got))

	require.NoError(t, atomicfile.WriteFile(path, []byte("{}\n"), 0o644))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(got))
	assert.Equal(t, []string{"summary.json"}, names(t, dir))

	require.NoError(t, atomicfile.WriteView(path, 0o640, func(w io.Writer) error {
		_, err := io.WriteString(w, "<html>")
		return err
	}))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "<html>", string(got), "a view replaces the file whole too")
	assert.Equal(t, []string{"summary.json"}, names(t, dir))

	for name, write := range map[string]func(string, any) error{"WriteJSON": atomicfile.WriteJSON, "WriteJSONView": atomicfile.WriteJSONView} {
		require.NoError(t, write(path, map[string]any{"run_id": name, "n": 2}), name)
		got, err = os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "{\n  \"n\": 2,\n  \"run_id\": \""+name+"\"\n}\n", string(got), name)
		assert.Equal(t, []string{"summary.json"}, names(t, dir))
	}
}

// TestWriteFails checks that a failure leaves the old file as it was, no
// temporary file behind, and an *fs.PathError naming the target.
func TestWriteFails(t *testing.T) {
	t.Parallel()
	errTemplate := errors.New("template: no such field")
	tests := map[string]struct {
		dir   bool // the target is a folder, so the rename fails
		write func(io.Writer) error
		op    string
		is    error
	}{
		"write returns an error": {
			write: func(w io.Writer) error {
				_, _ = io.WriteString(w, "half")
				return errTemplate
			},
			op: "write", is: errTemplate,
		},
		"the target is a folder": {dir: true, write: func(io.Writer) error { return nil }, op: "rename"},
	}
	writers := map[string]func(string, fs.FileMode, func(io.Writer) error) error{"Write": atomicfile.Write, "WriteView": atomicfile.WriteView}
	for name, tc := range tests {
		for wname, write := range writers {
			t.Run(wname+"/"+name, func(t *testing.T) {
				t.Parallel()
				writeFails(t, write, tc.dir, tc.write, tc.op, tc.is)
			})
		}
	}
}

// writeFails checks one failing write, with write, of a report.html
// that held "old" (a folder with isDir): fn is what writes its content,
// op and is the error expected.
func writeFails(t *testing.T, write func(string, fs.FileMode, func(io.Writer) error) error, isDir bool, fn func(io.Writer) error, op string, is error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if isDir {
		require.NoError(t, os.Mkdir(path, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(path, "keep"), nil, 0o644))
	} else {
		require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	}
	err := write(path, 0o644, fn)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, op, pe.Op)
	assert.Equal(t, path, pe.Path)
	if is != nil {
		require.ErrorIs(t, err, is)
	}
	if !isDir {
		got, rerr := os.ReadFile(path)
		require.NoError(t, rerr)
		assert.Equal(t, "old", string(got), "the old file is left as it was")
	}
	assert.Equal(t, []string{"report.html"}, names(t, dir), "no temporary file is left")
}

// TestWriteNoFolder checks a folder that does not exist is an error
// naming the file asked for, not the temporary one.
func TestWriteNoFolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "j.xml")
	err := atomicfile.WriteFile(path, []byte("<x/>"), 0o644)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.True(t, strings.HasPrefix(err.Error(), "create "+path+": "), err.Error())
}

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
