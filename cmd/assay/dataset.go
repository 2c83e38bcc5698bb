package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// dataset is a dataset file checked whole by a first pass, to be read
// again record by record: memory holds a record at a time, not the file.
type dataset struct {
	file string // as given; "-" is standard input
	// data holds standard input, or a file that is not a regular one (a
	// pipe), which cannot be read twice; nil for a regular file.
	data []byte
	n    int // records
}

// openDataset checks a dataset file ("-" is standard input) as reading it
// whole (readInput, then its records) would, with the same errors, without
// keeping its records: it is non-empty UTF-8 text of at most maxDataset
// bytes and every record is valid. It counts the records, and hands each
// to visit when it is not nil.
func openDataset(file string, stdin io.Reader, visit func(bench.Record) error) (*dataset, error) {
	if visit == nil {
		visit = func(bench.Record) error { return nil }
	}
	d := &dataset{file: file}
	if file != "-" {
		fh, err := openFile(file)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		st, err := fh.Stat()
		if err == nil && st.Mode().IsRegular() {
			return d, d.check(fh, visit)
		}
		// A directory, a pipe: readInput says what is wrong, or holds it.
	}
	data, err := readInput(file, stdin, maxDataset)
	if err != nil {
		return nil, err
	}
	d.data = data
	for rec, err := range d.records() {
		if err != nil {
			return nil, err
		}
		d.n++
		if err := visit(rec); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// check reads the file r once, checking its text as it parses the
// records, which it counts and hands to visit. The errors come in
// readInput's order: the read, the size, an empty file, bytes that are not
// text, then the records.
func (d *dataset) check(r io.Reader, visit func(bench.Record) error) error {
	name := displayName(d.file)
	er := &errReader{r: io.LimitReader(r, maxDataset+1)}
	text := &eval.TextCheck{Name: name}
	in := io.TeeReader(er, text)
	var perr error
	for rec, err := range bench.Records(d.file, in) {
		if err != nil {
			perr = err
			break
		}
		d.n++
		if perr = visit(rec); perr != nil {
			break
		}
	}
	_, _ = io.Copy(io.Discard, in) // the rest, for the checks of the whole
	switch {
	case er.err != nil:
		return &eval.InputError{File: name, Msg: "cannot read: " + er.err.Error()}
	case text.Len() > maxDataset:
		return &eval.InputError{File: name, Msg: fmt.Sprintf("larger than the %d MB limit", maxDataset>>20)}
	case text.Blank():
		return &eval.InputError{File: name, Msg: "empty input: nothing to score"}
	}
	if err := text.Err(); err != nil {
		return err
	}
	return perr
}

// records reads the dataset again, record by record.
func (d *dataset) records() iter.Seq2[bench.Record, error] {
	if d.data != nil {
		return recordsFrom(d.file, bytes.NewReader(d.data))
	}
	return func(yield func(bench.Record, error) bool) {
		fh, err := os.Open(d.file)
		if err != nil {
			yield(bench.Record{}, &eval.InputError{File: d.file, Msg: "cannot read: " + err.Error()})
			return
		}
		defer fh.Close()
		for rec, err := range recordsFrom(d.file, io.LimitReader(fh, maxDataset+1)) {
			if !yield(rec, err) {
				return
			}
		}
	}
}

// runErr is the exit for an error of a run over d's records, other than
// an interruption: refused credentials (llm.ErrAuth) are exit 3; an
// *eval.InputError names where (the file changed since the first pass);
// any other error is named after d.
func (d *dataset) runErr(err error) error {
	if errors.Is(err, llm.ErrAuth) {
		// A bad key is the model server's refusal, not the input's fault.
		return &exitError{code: exitInfra, err: err}
	}
	if errors.As(err, new(*eval.InputError)) {
		return inputErr(err)
	}
	return inputErr(fmt.Errorf("%s: %w", displayName(d.file), err))
}

// recordsFrom reads the records of file ("-" is standard input) from r.
// Standard input has no extension to pick the format: it is read as
// ".json", which takes an object, an array or JSON Lines, and named in
// errors as the user knows it.
func recordsFrom(file string, r io.Reader) iter.Seq2[bench.Record, error] {
	if file != "-" {
		return bench.Records(file, r)
	}
	return func(yield func(bench.Record, error) bool) {
		for rec, err := range bench.Records("stdin.json", r) {
			var ie *eval.InputError
			if errors.As(err, &ie) {
				ie.File = displayName(file)
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}

// errReader keeps the first error of r other than io.EOF.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
