package run_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/run"
)

// A folder that is not a run folder is named in the error, the working
// directory (an empty path) as ".".
func TestReadFolderNamesWhatIsNotARunFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := map[string]struct {
		dir, want string
	}{
		"a folder":         {dir: dir, want: dir + " is not a run folder (no config.json): give a folder written by assay bench --out"},
		"a missing folder": {dir: filepath.Join(dir, "nope"), want: filepath.Join(dir, "nope") + " is not a run folder (no config.json): give a folder written by assay bench --out"},
		"the working directory, as an empty path": {dir: "", want: ". is not a run folder (no config.json): give a folder written by assay bench --out"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := run.ReadFolder(tc.dir)
			assert.EqualError(t, err, tc.want)
		})
	}
}
