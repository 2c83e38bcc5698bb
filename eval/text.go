package eval

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// CheckText reports input that is not text: a NUL byte (a binary file) or
// invalid UTF-8, naming the file and the line where it starts. UTF-16 text
// (a byte order mark FF FE or FE FF at the start, or ASCII with a NUL
// byte beside each character) is said to be UTF-16, to be saved as UTF-8.
func CheckText(name string, data []byte) error {
	c := TextCheck{Name: name}
	_, _ = c.Write(data)
	return c.Err()
}

// TextCheck is CheckText over input that arrives in pieces, so that a file
// can be checked as it is read: Write each piece in order, then call Err.
// It also says whether the input is blank. The zero value with a Name is
// ready to use.
type TextCheck struct {
	// Name names the input in errors.
	Name string

	n      int64  // bytes written
	line   int    // newlines before the current piece
	lastNL int64  // offset of the last newline, -1 for none (with seen)
	seen   bool   // lastNL is set
	carry  []byte // the start of a rune cut by the end of the last piece
	text   bool   // a rune other than space was seen
	nul    *InputError
	bad    *InputError
	head   []byte // the first headLen bytes, to tell UTF-16 by
}

// headLen is how much of the input's start is kept to tell UTF-16 by.
const headLen = 128

// Write checks p and never fails.
func (c *TextCheck) Write(p []byte) (int, error) {
	n := len(p)
	if k := min(headLen-len(c.head), n); k > 0 {
		c.head = append(c.head, p[:k]...)
	}
	if len(c.carry) > 0 {
		p = append(c.carry, p...)
		c.carry = nil
	}
	start := c.n - int64(len(p)-n) // offset of p[0]
	// Keep a rune cut by the end of p for the next piece.
	if cut := incompleteTail(p); cut > 0 {
		c.carry = append([]byte(nil), p[len(p)-cut:]...)
		p = p[:len(p)-cut]
	}
	c.scan(p, start)
	c.n += int64(n)
	return n, nil
}

// incompleteTail is the length of a rune's start at the end of p that
// more bytes could complete, 0 for none.
func incompleteTail(p []byte) int {
	for k := 1; k <= min(utf8.UTFMax-1, len(p)); k++ {
		if utf8.RuneStart(p[len(p)-k]) {
			if utf8.FullRune(p[len(p)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// scan checks whole runes p starting at offset start.
func (c *TextCheck) scan(p []byte, start int64) {
	if c.nul == nil {
		if i := bytes.IndexByte(p, 0); i >= 0 {
			c.nul = &InputError{File: c.Name, Line: c.lineAt(p, i), Msg: "binary data (NUL byte): expected UTF-8 text"}
		}
	}
	if c.bad == nil && !utf8.Valid(p) {
		for i := 0; i < len(p); {
			r, w := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && w <= 1 {
				c.bad = &InputError{File: c.Name, Line: c.lineAt(p, i), Col: c.colAt(p, start, i), Msg: "invalid UTF-8: expected UTF-8 text"}
				break
			}
			i += w
		}
	}
	if !c.text && len(bytes.TrimFunc(p, unicode.IsSpace)) > 0 {
		c.text = true
	}
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		c.line += bytes.Count(p, []byte{'\n'})
		c.lastNL, c.seen = start+int64(i), true
	}
}

// lineAt is the 1-based line of p[i].
func (c *TextCheck) lineAt(p []byte, i int) int {
	return c.line + bytes.Count(p[:i], []byte{'\n'}) + 1
}

// colAt is the 1-based byte column of p[i], p starting at offset start.
func (c *TextCheck) colAt(p []byte, start int64, i int) int {
	if nl := bytes.LastIndexByte(p[:i], '\n'); nl >= 0 {
		return i - nl
	}
	if !c.seen {
		return int(start) + i + 1
	}
	return int(start + int64(i) - c.lastNL)
}

// Err is the first NUL byte, else the first invalid UTF-8, of everything
// written, as CheckText reports it; nil for text.
func (c *TextCheck) Err() error {
	if c.nul == nil && c.bad == nil && len(c.carry) > 0 {
		// The input ends inside a rune.
		c.scan(c.carry, c.n-int64(len(c.carry)))
		c.carry = nil
	}
	if c.nul != nil || c.bad != nil {
		if enc := utf16Kind(c.head); enc != "" {
			return &InputError{File: c.Name, Line: 1, Msg: "UTF-16 text (" + enc + "): save it as UTF-8"}
		}
	}
	switch {
	case c.nul != nil:
		return c.nul
	case c.bad != nil:
		return c.bad
	}
	return nil
}

// utf16Kind says how head, the start of an input that is no UTF-8, shows
// it is UTF-16 ("little-endian, byte order mark FF FE"); "" when it does
// not. Without a mark, UTF-16 is told by its ASCII: each pair of bytes a
// character and a NUL, on the same side every time, and never two NULs.
func utf16Kind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return "little-endian, byte order mark FF FE"
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return "big-endian, byte order mark FE FF"
	}
	le, be := 0, 0
	for i := 0; i+1 < len(head); i += 2 {
		switch a, b := head[i], head[i+1]; {
		case a == 0 && b == 0:
			return ""
		case b == 0:
			le++
		case a == 0:
			be++
		}
	}
	const enough = 2 // pairs of a character and a NUL
	switch {
	case le >= enough && be == 0:
		return "little-endian, a NUL byte beside each ASCII character"
	case be >= enough && le == 0:
		return "big-endian, a NUL byte beside each ASCII character"
	}
	return ""
}

// Blank says whether everything written so far is space, or nothing.
func (c *TextCheck) Blank() bool { return !c.text && len(c.carry) == 0 }

// Len is the number of bytes written.
func (c *TextCheck) Len() int64 { return c.n }

func lineAt(data []byte, off int) int { return bytes.Count(data[:off], []byte{'\n'}) + 1 }
