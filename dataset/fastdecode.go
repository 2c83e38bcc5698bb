package dataset

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// fieldsFast reads a record, a JSON object, into its fields in one pass
// over its tokens: jsontext checks the syntax, the UTF-8 and that no
// object at any depth names a member twice as it reads. It reports false
// at anything else, whatever it is, and the record is then read again by
// encoding/json and duplicateKey, which word the error with its place.
// On input both accept, the fields are those json.Unmarshal gives: each
// value's raw bytes, under its name unescaped (FuzzFastFields).
func fieldsFast(b []byte) (map[string]json.RawMessage, bool) {
	// The values are slices of one copy of the record (b is the reader's
	// buffer, reused for the next line); a bytes.Buffer is read in place.
	own := bytes.Clone(b)
	dec := jsontext.NewDecoder(bytes.NewBuffer(own))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	fields := map[string]json.RawMessage{}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		name := tok.String() // valid until the next read
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		fields[name] = own[end-len(raw) : end : end]
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '}' {
		return nil, false
	}
	if _, err := dec.ReadToken(); err != io.EOF { //nolint:errorlint // io.EOF is returned as it is
		return nil, false // something after the object
	}
	return fields, true
}

// unquote is the string raw, a valid JSON string, holds, as json.Unmarshal
// reads it: a string without escapes in valid UTF-8 is its bytes, read
// without reflection; any other goes to json.Unmarshal.
func unquote(raw json.RawMessage) (string, error) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		in := raw[1 : n-1]
		if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return string(in), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// stringsFast reads raw, a valid JSON array, when each of its elements
// is a string: their texts, as json.Unmarshal reads them. It reports
// false for any other array, whose caller decodes it and words why.
func stringsFast(raw json.RawMessage) ([]string, bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '[' {
		return nil, false
	}
	out := []string{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return out, skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) && raw[i] == '"' {
		end := stringEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		s, err := unquote(raw[i : end+1])
		if err != nil {
			return nil, false
		}
		out = append(out, s)
		i = skipSpace(raw, end+1)
		switch {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == ']':
			return out, skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
	return nil, false
}

// skipSpace is the index of the first byte of b at or after i that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index of the quote that closes the JSON string
// opening at b[i], -1 when none does.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}
