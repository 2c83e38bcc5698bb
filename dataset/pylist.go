package dataset

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A list column's text may be a Python list of strings: pandas' to_csv
// writes a list cell with str(), "['A', \"don't\"]", and a JSON export of
// such a frame holds the same text as a string. No Go library reads
// Python's string literals as repr writes them: go.starlark.net's parser,
// the nearest, refuses the \x escapes above 0x7f that repr writes for a
// no-break space ('\xa0'). So the few rules are here.

// looksLikeList reports whether text, a list column's value, starts as a
// list of strings does: "[" then, after space, a quote, a string prefix
// and a quote, or "]". Other text starting with "[" ("[citation needed]
// ...") is a single context.
func looksLikeList(text string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "[")
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	if rest == "" {
		return false
	}
	switch rest[0] {
	case '\'', '"', ']':
		return true
	case 'u', 'U', 'b', 'B', 'r', 'R':
		return len(rest) > 1 && (rest[1] == '\'' || rest[1] == '"')
	}
	return false
}

// listText reads text, a list column's value written as text: a JSON
// array or a Python list of strings. The message says why it is neither.
func listText(text string) ([]string, string) {
	if t := strings.TrimSpace(text); json.Valid([]byte(t)) {
		var items []string
		if json.Unmarshal([]byte(t), &items) == nil {
			return items, ""
		}
	}
	items, err := pyList(text)
	if err != nil {
		return nil, "starts as a list but is not a list of strings (JSON, or Python's as pandas writes it): " + err.Error()
	}
	return items, ""
}

// pyList reads text, a Python list display of string literals: single or
// double quotes, an optional u prefix, the escapes of Python's strings
// (\\ \' \" \n \t \r \a \b \f \v, octal, \xNN, \uNNNN, \UNNNNNNNN, a
// backslash before a line break), a trailing comma, any space between.
// The error says what is wrong and at which character (1-based) of text.
func pyList(text string) ([]string, error) {
	p := &pyParser{s: text}
	p.space()
	if !p.eat('[') {
		return nil, p.errf("want [ to open the list")
	}
	items := []string{}
	for {
		p.space()
		if p.eat(']') {
			break
		}
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		items = append(items, s)
		p.space()
		if p.eat(']') {
			break
		}
		if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"') {
			return nil, p.errf("two strings without a comma between them (the text of a NumPy array? write the column as lists: df[col].map(list))")
		}
		if !p.eat(',') {
			return nil, p.errf("want , or ] after item %d", len(items))
		}
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.errf("text after the list's ]")
	}
	return items, nil
}

// pyParser walks a Python list display.
type pyParser struct {
	s string
	i int // the next byte
}

// errf is an error at the next character.
func (p *pyParser) errf(format string, args ...any) error {
	at := utf8.RuneCountInString(p.s[:min(p.i, len(p.s))]) + 1
	if p.i >= len(p.s) {
		return fmt.Errorf("at its end: "+format, args...)
	}
	return fmt.Errorf("at character %d: "+format, append([]any{at}, args...)...)
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n\f\v", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads one string literal.
func (p *pyParser) str() (string, error) {
	if p.i >= len(p.s) {
		return "", p.errf("want a string or ]")
	}
	switch p.s[p.i] {
	case 'u', 'U':
		p.i++ // Python 2's unicode prefix, the same text
	case 'b', 'B':
		return "", p.errf("a bytes literal, not text")
	case 'r', 'R':
		return "", p.errf("a raw string, which repr does not write")
	}
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		what := "nothing"
		if p.i < len(p.s) {
			what = strconv.Quote(p.word())
		}
		return "", p.errf("want a quoted string, got %s", what)
	}
	quote := p.s[p.i]
	if strings.HasPrefix(p.s[p.i:], strings.Repeat(string(quote), 3)) {
		return "", p.errf("a triple-quoted string, which repr does not write")
	}
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errf("the string is not closed: want %c", quote)
		}
		c := p.s[p.i]
		switch {
		case c == quote:
			p.i++
			return b.String(), nil
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		if err := p.escape(&b); err != nil {
			return "", err
		}
	}
}

// word is the text from the next character to the next delimiter, for an
// error.
func (p *pyParser) word() string {
	end := p.i + 1
	for end < len(p.s) && strings.IndexByte(" \t\r\n,[]'\"", p.s[end]) < 0 {
		end++
	}
	return p.s[p.i:min(end, p.i+20)]
}

var pyEscapes = map[byte]byte{'\\': '\\', '\'': '\'', '"': '"', 'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}

// escape reads the escape sequence at p.i, a backslash, into b.
func (p *pyParser) escape(b *strings.Builder) error {
	start := p.i
	p.i++ // the backslash
	if p.i >= len(p.s) {
		return p.errf("the string is not closed")
	}
	c := p.s[p.i]
	if e, ok := pyEscapes[c]; ok {
		b.WriteByte(e)
		p.i++
		return nil
	}
	switch c {
	case '\n':
		p.i++ // a continued line
		return nil
	case '\r':
		p.i++
		p.eat('\n')
		return nil
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		digits := p.s[p.i+1 : min(p.i+1+n, len(p.s))]
		v, err := strconv.ParseUint(digits, 16, 32)
		if len(digits) < n || err != nil {
			p.i = start
			return p.errf(`\%c wants %d hex digits`, c, n)
		}
		p.i += 1 + n
		return p.rune(b, rune(v), start)
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v, k := 0, 0
		for ; k < 3 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
			v = v*8 + int(p.s[p.i]-'0')
			p.i++
		}
		return p.rune(b, rune(v), start)
	case 'N':
		p.i = start
		return p.errf(`a named escape \N{...}, which this reader does not know: write the character itself`)
	}
	// Python keeps an unknown escape as it is, backslash and all.
	b.WriteByte('\\')
	return nil
}

// rune writes the code point v of the escape at start, pairing a UTF-16
// surrogate escape with the low one that follows it.
func (p *pyParser) rune(b *strings.Builder, v rune, start int) error {
	if utf16.IsSurrogate(v) {
		if v < 0xDC00 && strings.HasPrefix(p.s[p.i:], `\u`) && len(p.s) >= p.i+6 {
			if lo, err := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 32); err == nil {
				if r := utf16.DecodeRune(v, rune(lo)); r != utf8.RuneError {
					b.WriteRune(r)
					p.i += 6
					return nil
				}
			}
		}
		p.i = start
		return p.errf("a lone surrogate \\u%04x, not text", v)
	}
	if v > utf8.MaxRune {
		p.i = start
		return p.errf("code point %#x out of range", v)
	}
	b.WriteRune(v)
	return nil
}
