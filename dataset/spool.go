package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/assaylabs/assay/eval"
)

// SpoolName is the copy of standard input (or a pipe) kept in a run
// folder, read by the check pass and by the run.
const SpoolName = "input.jsonl"

// Input is a dataset ready to be read twice (a check pass, then the run):
// a regular file where it is, or standard input or a pipe copied to a
// file as it was read.
type Input struct {
	// Path is the file to read; Name is how errors name it (the path as
	// given, or StdinName).
	Path, Name string
	// SHA256 is the hash of its bytes, hex.
	SHA256 string
	// Spooled says Path is a copy: read it as JSON (an array, an object
	// or JSON Lines), as standard input is.
	Spooled bool
}

// Options are the options of [Open] that read the input as given, its
// records checked against scorers.
func (in Input) Options(scorers []eval.Scorer) Options {
	o := Options{Name: in.Name, Scorers: scorers}
	if in.Spooled {
		o.Format = FormatJSON
	}
	return o
}

// OpenInput returns the dataset file to read. A regular file is read
// where it is, and hashed; standard input (file Stdin, read from stdin)
// or a pipe, which cannot be read twice, is copied into dir as SpoolName
// while it is hashed, at most MaxSize bytes, so memory holds none of
// it. A copy already in dir with other bytes is kept (a resume fed
// another input is then refused by its hash, the copy it was judged from
// intact) and the new bytes are not.
func OpenInput(file string, stdin io.Reader, dir string) (Input, error) {
	in := Input{Path: file, Name: file}
	var r io.Reader
	if file == Stdin {
		if stdin == nil {
			return Input{}, &eval.InputError{File: StdinName, Msg: "standard input is already used"}
		}
		in.Name, r = StdinName, stdin
	} else {
		fh, err := eval.OpenFile(file)
		if err != nil {
			return Input{}, err
		}
		defer func() { _ = fh.Close() }() // read only
		st, err := fh.Stat()
		if err != nil {
			return Input{}, &eval.InputError{File: file, Msg: "cannot read: " + err.Error()}
		}
		if st.IsDir() {
			return Input{}, &eval.InputError{File: file, Msg: "is a directory, not a file"}
		}
		if st.Mode().IsRegular() {
			h := sha256.New()
			if _, err := io.Copy(h, fh); err != nil {
				return Input{}, &eval.InputError{File: file, Msg: "cannot read: " + err.Error()}
			}
			in.SHA256 = hex.EncodeToString(h.Sum(nil))
			return in, nil
		}
		r = fh
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Input{}, fmt.Errorf("run folder: %w", err)
	}
	// Written beside the final name and renamed, so that a resume fed
	// another input never loses the copy the run was judged from before
	// the sha256 is compared.
	spool := filepath.Join(dir, SpoolName)
	tmp, err := os.CreateTemp(dir, SpoolName+".*")
	if err != nil {
		return Input{}, fmt.Errorf("run folder: %w", err)
	}
	h := sha256.New()
	n, cerr := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, MaxSize+1))
	if err := tmp.Close(); cerr == nil {
		cerr = err
	}
	switch {
	case cerr != nil:
		_ = os.Remove(tmp.Name()) // a partial copy
		return Input{}, &eval.InputError{File: in.Name, Msg: "cannot read: " + cerr.Error()}
	case n > MaxSize:
		_ = os.Remove(tmp.Name()) // a partial copy
		return Input{}, &eval.InputError{File: in.Name, Msg: fmt.Sprintf("larger than the %d MB limit", MaxSize>>20)}
	}
	in.Path, in.SHA256, in.Spooled = spool, hex.EncodeToString(h.Sum(nil)), true
	if old, err := FileSHA256(spool); err == nil && old != in.SHA256 {
		_ = os.Remove(tmp.Name()) // another input: the resume will refuse it
		return in, nil
	}
	if err := os.Rename(tmp.Name(), spool); err != nil {
		return Input{}, fmt.Errorf("run folder: %w", err)
	}
	return in, nil
}

// FileSHA256 is the sha256 of the file at path, hex.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
