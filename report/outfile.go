package report

import (
	"os"
	"path/filepath"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
)

// CheckOutFile checks, before any work, that a file can be written at
// path: its folder exists and is a folder, path is no folder, and path is
// not "-", which a user means as standard output and which would be
// written as a file of that name (./- names such a file).
func CheckOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return eval.FlagError(flag, "- (standard output) is not written here: give a file's path (./- for a file named -)")
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

// CheckNotInput refuses, as bad input about flag, an output file at path
// that is one of inputs (the same file, however either is spelled or
// linked): written, it would replace or spoil what the command reads, or
// a run's own files. A path that does not exist yet is none of them; an
// input that does not exist is passed over.
func CheckNotInput(flag, path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	out, err := os.Stat(path)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if st, err := os.Stat(in); err == nil && os.SameFile(out, st) {
			return eval.FlagError(flag, "%s is %s, which this command reads or a run keeps: writing it would replace it; write elsewhere", termtext.Visible(path), termtext.Visible(in))
		}
	}
	return nil
}
