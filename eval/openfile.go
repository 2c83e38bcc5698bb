package eval

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// OpenFile opens a named input file. An error is an *InputError naming
// the file, with the system's reason alone: "data.jsonl: cannot read: no
// such file or directory". An empty path names no file and says so, and
// "-", when no file has that name, is said not to be standard input.
func OpenFile(path string) (*os.File, error) {
	if path == "" {
		return nil, &InputError{Msg: "no file named (the path is empty)"}
	}
	fh, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if path == "-" && errors.Is(err, fs.ErrNotExist) {
			// "-" meant standard input, which this input is not read from.
			return nil, &InputError{File: path, Msg: "standard input is not read here: give a file's path (./- for a file named -)"}
		}
		return nil, &InputError{File: path, Msg: "cannot read: " + err.Error()}
	}
	return fh, nil
}

// ReadFile reads a named input file of what (as errors name it: "a
// judges file") whole, when it holds at most limit bytes; it reads no
// further than one byte past limit, so a wrong or hostile file cannot
// exhaust memory. An error is an *InputError naming the file: it cannot
// be read (OpenFile), is a directory, or is larger than limit.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	fh, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = fh.Close() }() // read only
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return nil, &InputError{File: path, Msg: "is a directory, not " + what}
	}
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot read: " + err.Error(), Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &InputError{File: path, Msg: fmt.Sprintf("larger than the %d MB limit of %s", limit>>20, what)}
	}
	return data, nil
}
