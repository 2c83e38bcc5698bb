package encode

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// Indented appends JSON indented as JSON writes it (two spaces a level,
// "key": value, empty objects and arrays as {} and []), member by
// member, without reflection: for a hot path whose value has a fixed
// shape. The caller writes a valid document: Open, then Key and a value
// (or Elem and a value) for each member, then Close; End adds the final
// newline. The zero value starts an empty document.
type Indented struct {
	// B is the document so far.
	B     []byte
	depth int
	// some has bit d set once the container at depth d has a member.
	some uint64
}

// Open starts an object ('{') or an array ('[').
func (w *Indented) Open(c byte) {
	w.B = append(w.B, c)
	w.depth++
	w.some &^= 1 << (w.depth & 63)
}

// Close ends the innermost object ('}') or array (']').
func (w *Indented) Close(c byte) {
	if w.some&(1<<(w.depth&63)) != 0 {
		w.newline(w.depth - 1)
	}
	w.depth--
	w.B = append(w.B, c)
}

// Key starts an object's member: its name; its value comes next.
func (w *Indented) Key(name string) {
	w.Elem()
	w.B = AppendString(w.B, name, false)
	w.B = append(w.B, ':', ' ')
}

// Elem starts an array's element: its value comes next.
func (w *Indented) Elem() {
	bit := uint64(1) << (w.depth & 63)
	if w.some&bit != 0 {
		w.B = append(w.B, ',')
	}
	w.some |= bit
	w.newline(w.depth)
}

// End ends the document with the newline JSON writes after it.
func (w *Indented) End() { w.B = append(w.B, '\n') }

func (w *Indented) newline(depth int) {
	w.B = append(w.B, '\n')
	for range depth {
		w.B = append(w.B, ' ', ' ')
	}
}

// AppendString appends s as a JSON string, as encoding/json writes it
// (escapeHTML: as json.Marshal does, with <, > and & as \u003c, \u003e and
// \u0026; else as JSON does). Printable ASCII with nothing to escape is
// copied as it is; anything else is left to encoding/json.
func AppendString(b []byte, s string, escapeHTML bool) []byte {
	for i := range len(s) {
		c := s[i]
		if c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' || (escapeHTML && (c == '<' || c == '>' || c == '&')) {
			return appendStringJSON(b, s, escapeHTML)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendStringJSON appends s as encoding/json writes it.
func appendStringJSON(b []byte, s string, escapeHTML bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21
// on (e-7, not e-07). f must be finite: JSON has no NaN or infinity (see
// Finite).
func AppendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-07 to e-7, as JSON writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Finite reports whether every f is a number JSON can write (not NaN,
// not infinite).
func Finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}
