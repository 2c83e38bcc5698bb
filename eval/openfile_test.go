package eval_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func TestOpenFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	present := filepath.Join(dir, "a.md")
	require.NoError(t, os.WriteFile(present, []byte("text"), 0o600))
	tests := map[string]struct {
		path string
		want string // the error; "" opens
	}{
		"a file":         {path: present},
		"a missing file": {path: filepath.Join(dir, "nope.md"), want: filepath.Join(dir, "nope.md") + ": cannot read: no such file or directory"},
		"a missing dir":  {path: filepath.Join(dir, "no", "a.md"), want: filepath.Join(dir, "no", "a.md") + ": cannot read: no such file or directory"},
		"no path":        {path: "", want: "no file named (the path is empty)"},
		"standard input": {path: "-", want: "-: standard input is not read here: give a file's path (./- for a file named -)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fh, err := eval.OpenFile(tc.path)
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.path, fh.Name())
				require.NoError(t, fh.Close())
				return
			}
			assert.Nil(t, fh)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.path, ie.File)
			assert.EqualError(t, err, tc.want)
		})
	}
}
