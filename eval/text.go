package eval

import (
	"bytes"
	"unicode/utf8"
)

// CheckText reports input that is not text: a NUL byte (a binary file) or
// invalid UTF-8, naming the file and the line where it starts.
func CheckText(name string, data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return &InputError{File: name, Line: lineAt(data, i), Msg: "binary data (NUL byte): expected UTF-8 text"}
	}
	if utf8.Valid(data) {
		return nil
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return &InputError{File: name, Line: lineAt(data, i), Col: i - bytes.LastIndexByte(data[:i], '\n'),
				Msg: "invalid UTF-8: expected UTF-8 text"}
		}
		i += n
	}
	return nil
}

func lineAt(data []byte, off int) int { return bytes.Count(data[:off], []byte{'\n'}) + 1 }
