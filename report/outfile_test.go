package report_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/report"
)

// TestCheckOutFile: an output file that cannot be written is refused
// before any work, naming the flag; "-" is not taken for a file named so.
func TestCheckOutFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	tests := map[string]struct {
		path, want string
	}{
		"none given":                   {"", ""},
		"a new file":                   {filepath.Join(dir, "out.xml"), ""},
		"a file that is there":         {file, ""},
		"a file named - by its folder": {"./-", ""},
		"standard output":              {"-", "--junit: - (standard output) is not written here: give a file's path (./- for a file named -)"},
		"a folder":                     {dir, "--junit: " + dir + " is a folder, not a file"},
		"in a folder not there":        {filepath.Join(dir, "none", "out.xml"), "--junit: " + filepath.Join(dir, "none", "out.xml") + ": its folder " + filepath.Join(dir, "none") + " cannot be used: stat " + filepath.Join(dir, "none") + ": no such file or directory"},
		"in a file":                    {filepath.Join(file, "out.xml"), "--junit: " + filepath.Join(file, "out.xml") + ": " + file + " is not a folder"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := report.CheckOutFile("--junit", tc.path)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "%T %v", err, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
