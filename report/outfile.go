package report

import (
	"os"
	"path/filepath"

	"github.com/assaylabs/assay/eval"
)

// CheckOutFile checks, before any work, that a file can be written at
// path: its folder exists and is a folder.
func CheckOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return eval.FlagError(flag, "%s: its folder %s cannot be used: %v", path, dir, err)
	case !st.IsDir():
		return eval.FlagError(flag, "%s: %s is not a folder", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return eval.FlagError(flag, "%s is a folder, not a file", path)
	}
	return nil
}
