package eval

import (
	"errors"
	"os"
)

// OpenFile opens a named input file. An error is an *InputError naming
// the file, with the system's reason alone: "data.jsonl: cannot read: no
// such file or directory".
func OpenFile(path string) (*os.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{File: path, Msg: "cannot read: " + err.Error()}
	}
	return fh, nil
}
