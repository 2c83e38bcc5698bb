package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// InputError is input that cannot be read: a file that is not valid JSON or
// text, or a field of the wrong type or out of range. The CLI maps it to
// exit code 2 (bad input), unlike a failure of Assay itself. Test for it
// with errors.As.
//
// Its message reads "file:line:col: field: msg", leaving out what is
// unknown:
//
//	sample.json:7:16: chunks[2].score: must be a finite number >= 0, got "high"
type InputError struct {
	// File names the input, as given by the caller.
	File string
	// Line is 1-based; 0 means unknown.
	Line int
	// Col is the 1-based column in bytes, as Go's tools count; 0 means
	// unknown.
	Col int
	// Field is the path of the offending value ("chunks[2].score"), or ""
	// for the input as a whole.
	Field string
	// Msg says what is wrong and, where it helps, what was found.
	Msg string
	// Err is the underlying error, if any (a *json.SyntaxError).
	Err error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Col))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// FlagError is an input error about a setting, named as the command line
// names it ("--gate"), with a message of its own; flag "" names none.
func FlagError(flag, format string, a ...any) *InputError {
	return &InputError{Field: flag, Msg: fmt.Sprintf(format, a...)}
}

// AsInputError returns err as an input error about flag ("" for an error
// that names its setting itself), or err as it is when it is one already
// (it then names its file, line and field); a nil err is nil.
func AsInputError(flag string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*InputError](err); ok {
		return err
	}
	return &InputError{Field: flag, Msg: err.Error(), Err: err}
}
