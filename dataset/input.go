package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"iter"
	"os"

	"github.com/assaylabs/assay/eval"
)

// MaxSize is the largest dataset Open reads: 256 MB, so that a wrong file
// cannot exhaust memory.
const MaxSize = 256 << 20

// Stdin is the path that names standard input, and StdinName how errors
// name it.
const (
	Stdin     = "-"
	StdinName = "<stdin>"
)

// Options says how [Open] reads a dataset and what its check pass checks.
// The zero value reads a named file in the format of its name.
type Options struct {
	// Format is the dataset's format. Empty picks it from the file name
	// (FormatOf); standard input, which has no name, is then FormatJSON,
	// which tells an array, one object and JSON Lines apart by content.
	Format Format
	// Stdin is read when the path is Stdin; nil means standard input is
	// already used (by another file given as "-"), an input error.
	Stdin io.Reader
	// Scorers are checked against every record: a record that lacks what
	// one of them needs (a judges.Checker's Check fails) is an input error
	// naming the file, line and field, before any of them is run.
	Scorers []eval.Scorer
	// Name is how errors name the file, when not its path: a copy of
	// standard input ([OpenInput]) is named StdinName.
	Name string
	// Visit, when not nil, is handed each record of the check pass after
	// the scorers' checks; an error it returns ends the pass and is Open's.
	Visit func(Record) error
}

// Dataset is a dataset checked whole by a first pass, to be read again
// record by record: memory holds a record at a time, not the file, unless
// the file cannot be read twice (standard input, a pipe).
type Dataset struct {
	path   string // as given; Stdin is standard input
	name   string // how errors name it, when not path
	format Format
	// data holds standard input, or a file that is not a regular one (a
	// pipe), which cannot be read twice; nil for a regular file.
	data []byte
	n    int
	// order is a hash of each record's ID, in file order, under seed: a
	// read again checks its records are the checked ones (4 bytes a
	// record), rather than holding a set of the IDs to refuse duplicates
	// again. 32 bits suffice for a check against a file changed midway:
	// a changed ID passes it with probability 2^-32.
	seed  maphash.Seed
	order []uint32
}

// Open checks the dataset at path (Stdin is standard input) as reading it
// whole would, with the same errors in the same order, without keeping its
// records: it is non-empty UTF-8 text of at most MaxSize bytes, and every
// record is valid and has what opts.Scorers need. It counts the records. Every error about the input is an *eval.InputError
// naming the file (standard input as StdinName), the line and the field.
func Open(path string, opts Options) (*Dataset, error) {
	d := &Dataset{path: path, name: opts.Name, format: opts.Format, seed: maphash.MakeSeed()}
	if d.format == "" {
		d.format = FormatOf(path)
		if path == Stdin {
			d.format = FormatJSON
		}
	}
	visit := func(rec Record) error {
		if err := CheckNeeds(d.Name(), rec, opts.Scorers); err != nil {
			return err
		}
		if opts.Visit != nil {
			return opts.Visit(rec)
		}
		return nil
	}
	var r io.Reader
	if path == Stdin {
		if opts.Stdin == nil {
			return nil, &eval.InputError{File: StdinName, Msg: "standard input is already used"}
		}
		r = opts.Stdin
	} else {
		fh, err := eval.OpenFile(path)
		if err != nil {
			return nil, err
		}
		defer func() { _ = fh.Close() }() // read only
		st, err := fh.Stat()
		switch {
		case err == nil && st.Mode().IsRegular():
			return d, d.check(fh, visit)
		case err == nil && st.IsDir():
			return nil, &eval.InputError{File: path, Msg: "is a directory, not a file"}
		}
		r = fh
	}
	// Read once, and kept to be read again.
	var held bytes.Buffer
	if err := d.check(io.TeeReader(r, &held), visit); err != nil {
		return nil, err
	}
	d.data = held.Bytes()
	return d, nil
}

// Len is the number of records.
func (d *Dataset) Len() int { return d.n }

// Name is the file as errors name it: the path, or StdinName.
func (d *Dataset) Name() string {
	if d.name != "" {
		return d.name
	}
	if d.path == Stdin {
		return StdinName
	}
	return d.path
}

// Format is the format the dataset is read in.
func (d *Dataset) Format() Format { return d.format }

// check reads r once, checking its text as it parses the records, which
// it counts and hands to visit. The errors come in the order a whole read
// finds them: the read, the size, an empty file, bytes that are not text,
// then the records.
func (d *Dataset) check(r io.Reader, visit func(Record) error) error {
	name := d.Name()
	er := &errReader{r: io.LimitReader(r, MaxSize+1)}
	text := &eval.TextCheck{Name: name}
	in := io.TeeReader(er, text)
	var perr error
	for rec, err := range d.format.Records(name, in) {
		if err != nil {
			perr = err
			break
		}
		d.n++
		d.order = append(d.order, idHash32(d.seed, rec.ID))
		if perr = visit(rec); perr != nil {
			break
		}
	}
	_, _ = io.Copy(io.Discard, in) // the rest, for the checks of the whole
	switch {
	case er.err != nil:
		return &eval.InputError{File: name, Msg: "cannot read: " + er.err.Error()}
	case text.Len() > MaxSize:
		return &eval.InputError{File: name, Msg: fmt.Sprintf("larger than the %d MB limit", MaxSize>>20)}
	case text.Blank():
		return &eval.InputError{File: name, Msg: "empty input: nothing to score"}
	}
	if err := text.Err(); err != nil {
		return err
	}
	return perr
}

// Records reads the dataset again, record by record, in file order. A
// file changed since the check pass yields the error it now has, and a
// record whose ID is not the one the check pass met at its place (an ID
// added, dropped, moved or renamed since) is an error naming its line:
// so the records read again are the checked ones, with unique IDs,
// without a set of the IDs held for the whole run.
func (d *Dataset) Records() iter.Seq2[Record, error] {
	if d.data != nil {
		// The held bytes are the checked ones.
		return d.format.records(d.Name(), bytes.NewReader(d.data), nil)
	}
	return func(yield func(Record, error) bool) {
		fh, err := os.Open(d.path)
		if err != nil {
			yield(Record{}, &eval.InputError{File: d.Name(), Msg: "cannot read: " + err.Error()})
			return
		}
		defer func() { _ = fh.Close() }() // read only
		i := 0
		for rec, err := range d.format.records(d.Name(), io.LimitReader(fh, MaxSize+1), nil) {
			if err == nil && (i >= len(d.order) || idHash32(d.seed, rec.ID) != d.order[i]) {
				err = &eval.InputError{File: d.Name(), Line: rec.Line, Field: fieldAt(rec.Path, "id"), Msg: fmt.Sprintf(
					"id %q is not the record checked at its place: the file changed since it was checked; run again on a file that stays put", rec.ID)}
				rec = Record{}
			}
			i++
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// Err names the dataset in err, an error of a run over its records: an
// *eval.InputError already says where (the file changed since the check
// pass) and is returned as it is; any other error is prefixed with Name.
func (d *Dataset) Err(err error) error {
	if err == nil || errors.As(err, new(*eval.InputError)) {
		return err
	}
	return fmt.Errorf("%s: %w", d.Name(), err)
}

// checker is a scorer that says, without any call, whether a sample has
// what it needs (judges.Checker): Check's error wraps eval.ErrNoReference
// or eval.ErrNoContexts when the sample lacks one of them.
type checker interface {
	Check(s eval.Sample) error
}

// CheckNeeds returns an *eval.InputError naming file, the record's line
// and the field when rec lacks what one of scorers needs (a
// judges.Checker whose Check fails), or nil. A Check error that is an
// *eval.InputError names its field itself.
func CheckNeeds(file string, rec Record, scorers []eval.Scorer) error {
	for _, sc := range scorers {
		c, ok := sc.(checker)
		if !ok {
			continue
		}
		if err := c.Check(rec.Sample); err != nil {
			if ie, ok := errors.AsType[*eval.InputError](err); ok && ie.File == "" {
				// A scorer that names the field itself (an assertion's
				// metadata argument): the error, with where.
				e := *ie
				e.File, e.Line, e.Field = file, rec.Line, fieldAt(rec.Path, e.Field)
				return &e
			}
			field := ""
			switch {
			case errors.Is(err, eval.ErrNoReference):
				field = "reference"
			case errors.Is(err, eval.ErrNoContexts):
				field = "contexts"
			}
			return &eval.InputError{File: file, Line: rec.Line, Field: fieldAt(rec.Path, field), Msg: err.Error(), Err: err}
		}
	}
	return nil
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

// idHash32 is the low 32 bits of id's hash under seed.
func idHash32(seed maphash.Seed, id string) uint32 {
	return uint32(maphash.String(seed, id))
}
