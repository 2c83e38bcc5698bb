package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/eval"
)

// jsonFile reads a ".json" file: an array of records, one record over
// several lines (a pretty-printed sample), or JSON Lines. An array is read
// element by element, so memory holds one record at a time.
func (d *datasetReader) jsonFile(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(len(bom)); err == nil && bytes.Equal(b, bom) {
		_, _ = br.Discard(len(bom))
	}
	p := &posReader{br: br, line: 1, lastNL: -1}
	// The leading space, kept to be read again as JSON Lines.
	var head []byte
	c, err := p.skipSpace(&head)
	switch {
	case errors.Is(err, io.EOF):
		return d.jsonLines(bytes.NewReader(head))
	case err != nil:
		return d.readErr(err)
	case c == '[':
		return d.jsonArray(p)
	case c != '{':
		return d.jsonLines(io.MultiReader(bytes.NewReader(head), br))
	}
	// An object: JSON Lines when its first line is a whole object or
	// nothing follows it, else one object over several lines.
	start := len(head)
	first, err := br.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) && len(head)-start+len(first) <= MaxLine {
		head = append(head, first...)
		first, err = br.ReadSlice('\n')
	}
	head = append(head, first...)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return d.readErr(err)
	}
	firstLine := bytes.TrimSuffix(head[start:], []byte{'\n'})
	if err != nil || json.Valid(firstLine) {
		// Nothing follows, the line is over MaxLine (JSON Lines says so), or
		// the line is a whole object.
		return d.jsonLines(io.MultiReader(bytes.NewReader(head), br))
	}
	// Is there more than space (any Unicode space) after the first line?
	for {
		b, err := br.Peek(utf8.UTFMax)
		if len(b) == 0 {
			if err != io.EOF {
				return d.readErr(err)
			}
			return d.jsonLines(bytes.NewReader(head))
		}
		r, size := utf8.DecodeRune(b)
		if !unicode.IsSpace(r) {
			break
		}
		head = append(head, b[:size]...)
		_, _ = br.Discard(size)
	}
	tail, err := io.ReadAll(br)
	if err != nil {
		return d.readErr(err)
	}
	data := append(head, tail...)
	var obj json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return d.syntaxErr(data, 0, 1, 1, err)
	}
	if conversation.IsOTLPJSON(data[start:]) { // one OTLP export request, pretty-printed
		return d.otlpLines(bytes.Count(data[:start], []byte{'\n'})+1, data[start:], bufio.NewScanner(bytes.NewReader(nil)))
	}
	return d.add(bytes.Count(data[:start], []byte{'\n'})+1, 0, data[start:])
}

// jsonLinesFile reads a ".jsonl" file: JSON Lines, or a JSON array (one
// line or pretty-printed over many, as json.dump and the exports of other
// tools write it) when its first character other than space is '['.
func (d *datasetReader) jsonLinesFile(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var head []byte // what was read to find the first character
	if b, err := br.Peek(len(bom)); err == nil && bytes.Equal(b, bom) {
		head = append(head, bom...)
		_, _ = br.Discard(len(bom))
	}
	p := &posReader{br: br, line: 1, lastNL: -1}
	c, err := p.skipSpace(&head)
	switch {
	case err != nil && !errors.Is(err, io.EOF):
		return d.readErr(err)
	case err == nil && c == '[':
		return d.jsonArray(p)
	}
	return d.jsonLines(io.MultiReader(bytes.NewReader(head), br))
}

// jsonArray reads the elements of a JSON array whose '[' is next in p.
// Each element is checked as it is read, with its errors placed where a
// check of the whole document would place them and its index put before
// the field ("[3].answer"). An element without an id is named "line-N"
// after the line it starts on, or "item-I" after its index when another
// element starts on that line too (an array on one line), so that the
// names are unique and those of a pretty-printed array are what they
// were; an element is handed on when the next one's line is known.
func (d *datasetReader) jsonArray(p *posReader) error {
	_, _ = p.readByte() // [, already peeked
	c, err := p.skipSpace(nil)
	if err != nil {
		return d.endErr(p, err)
	}
	if c == ']' {
		_, _ = p.readByte()
		return d.trailing(p)
	}
	var held *arrayItem
	// release hands on the held element, the next one starting on next.
	release := func(next int) error {
		if held == nil {
			return nil
		}
		it := held
		held = nil
		id := ""
		if it.shared || it.line == next {
			id = "item-" + strconv.Itoa(it.index)
		}
		return atItem(d.keep(it.line, it.rec, id), it.index)
	}
	prevLine := 0
	for i := 0; ; i++ {
		line, col := p.line, p.col()
		if err := release(line); err != nil {
			return err
		}
		raw, err := p.value()
		if err != nil && !errors.Is(err, io.EOF) {
			return d.readErr(err)
		}
		if !json.Valid(raw) || errors.Is(err, io.EOF) {
			// Checked as a later element of an array, with the character
			// after it, so the error says what a check of the whole
			// document says ("after array element", "in literal true").
			check := append([]byte("[0,"), raw...)
			if err == nil {
				if next, perr := p.br.Peek(1); perr == nil {
					check = append(check, next[0])
				}
			}
			var v json.RawMessage
			uerr := json.Unmarshal(check, &v)
			var se *json.SyntaxError
			if errors.As(uerr, &se) && !strings.HasPrefix(se.Error(), "unexpected end") {
				return d.syntaxErr(check, 3, line, col, uerr)
			}
			return d.endErr(p, io.EOF)
		}
		rec, err := d.decode(line, 0, raw)
		if err != nil {
			return atItem(err, i)
		}
		rec.Path = "[" + strconv.Itoa(i) + "]"
		held = &arrayItem{rec: rec, line: line, index: i, shared: line == prevLine}
		prevLine = line
		c, err := p.skipSpace(nil)
		if err != nil {
			return cmp.Or(release(0), d.endErr(p, err))
		}
		switch c {
		case ']':
			_, _ = p.readByte()
			if err := release(0); err != nil {
				return err
			}
			return d.trailing(p)
		case ',':
			_, _ = p.readByte()
			if _, err := p.skipSpace(nil); err != nil {
				return cmp.Or(release(0), d.endErr(p, err))
			}
		default:
			return cmp.Or(release(0), error(d.errAt(p.line, p.col(), "", "invalid JSON: invalid character "+quoteChar(c)+" after array element")))
		}
	}
}

// arrayItem is an element of a JSON array read and not yet handed on.
type arrayItem struct {
	rec         Record
	line, index int
	shared      bool // the element before it starts on its line
}

// atItem puts the index of an array's element before the field of err, an
// error about that element.
func atItem(err error, index int) error {
	ie, ok := errors.AsType[*eval.InputError](err)
	if !ok {
		return err
	}
	ie.Field = fieldAt("["+strconv.Itoa(index)+"]", ie.Field)
	return err
}

// fieldAt is the path of field in the record at path (a Record's Path).
func fieldAt(path, field string) string {
	switch {
	case path == "" || field == "":
		return path + field
	case strings.HasPrefix(field, "["):
		return path + field
	}
	return path + "." + field
}

// trailing checks that nothing but space follows the array.
func (d *datasetReader) trailing(p *posReader) error {
	c, err := p.skipSpace(nil)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return d.readErr(err)
	}
	return d.errAt(p.line, p.col(), "", "invalid JSON: invalid character "+quoteChar(c)+" after top-level value")
}

// endErr is the error for err where a value was due: a document cut short
// at io.EOF, else a failed read.
func (d *datasetReader) endErr(p *posReader, err error) error {
	if !errors.Is(err, io.EOF) {
		return d.readErr(err)
	}
	return d.errAt(p.line, p.col(), "", "invalid JSON: unexpected end of JSON input")
}

func (d *datasetReader) readErr(err error) error {
	return fmt.Errorf("dataset: read %s: %w", d.name, err)
}

// syntaxErr places err, an error decoding data, in the file: data[pre:]
// starts on line, at column col.
func (d *datasetReader) syntaxErr(data []byte, pre, line, col int, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &eval.InputError{File: d.name, Msg: "invalid JSON: " + err.Error(), Err: err}
	}
	at := int(se.Offset) - 1
	if strings.HasPrefix(se.Error(), "unexpected end") {
		at = len(data)
	}
	hint := pythonHint(data, int64(at))
	data = data[pre:]
	at = min(max(at-pre, 0), len(data))
	before := data[:at]
	if nl := bytes.LastIndexByte(before, '\n'); nl >= 0 {
		line += bytes.Count(before, []byte{'\n'})
		col = at - nl
	} else {
		col += at
	}
	e := d.errAt(line, col, "", "invalid JSON: "+se.Error()+hint)
	e.Err = err
	return e
}

// pythonHint says, for a syntax error at data[at], what Python wrote
// there that JSON does not have, as a note to add to the error: a NaN or
// Infinity (json.dumps writes them), a None, True or False, or a single
// quote (the text of a dict, str() of it). It is "" for anything else.
func pythonHint(data []byte, at int64) string {
	if at < 0 || at >= int64(len(data)) {
		return ""
	}
	rest := data[at:]
	for _, w := range []string{"NaN", "Infinity"} {
		if bytes.HasPrefix(rest, []byte(w)) {
			return " (" + w + " is not JSON, though Python's json.dumps writes it: write null for a missing value)"
		}
	}
	for w, js := range map[string]string{"None": "null", "True": "true", "False": "false"} {
		if bytes.HasPrefix(rest, []byte(w)) {
			return " (" + w + " is Python's, not JSON: write " + js + ", as json.dumps does)"
		}
	}
	if rest[0] == '\'' {
		return " (Python's text of a dict, not JSON: write each record with json.dumps)"
	}
	return ""
}

// quoteChar quotes a character as encoding/json's errors do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// posReader reads bytes and knows the line and column it is at.
type posReader struct {
	br     *bufio.Reader
	off    int // bytes read
	line   int // 1-based line of the next byte
	lastNL int // offset of the last newline read, -1 for none
}

// col is the 1-based column of the next byte.
func (p *posReader) col() int { return p.off - p.lastNL }

func (p *posReader) readByte() (byte, error) {
	c, err := p.br.ReadByte()
	if err != nil {
		return 0, err
	}
	if c == '\n' {
		p.line++
		p.lastNL = p.off
	}
	p.off++
	return c, nil
}

// skipSpace reads JSON space, appending it to keep when keep is not nil,
// and returns the next byte without reading it.
func (p *posReader) skipSpace(keep *[]byte) (byte, error) {
	for {
		b, err := p.br.Peek(1)
		if err != nil {
			return 0, err
		}
		c := b[0]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, nil
		}
		_, _ = p.readByte()
		if keep != nil {
			*keep = append(*keep, c)
		}
	}
}

// value reads the bytes of one JSON value, checking only its brackets and
// strings: an object or array up to its matching close (or the first
// close that does not match), a string, or a bare word up to the next
// delimiter. It returns io.EOF with what it read when the input ends
// first.
func (p *posReader) value() ([]byte, error) {
	var raw []byte
	var s valueScan
	for {
		if s.inBareWord(raw) {
			// A bare word ends before a delimiter.
			b, err := p.br.Peek(1)
			if err != nil {
				return raw, err
			}
			if strings.IndexByte(" \t\r\n,]}[{\":", b[0]) >= 0 {
				return raw, nil
			}
		}
		c, err := p.readByte()
		if err != nil {
			return raw, err
		}
		raw = append(raw, c)
		if s.step(c, len(raw) == 1) {
			return raw, nil
		}
	}
}

// valueScan is where posReader.value is in a JSON value: the closing
// brackets it waits for, and whether it is in a string, after a
// backslash.
type valueScan struct {
	closers           []byte
	inString, escaped bool
}

// inBareWord reports whether raw, read so far, is a bare word (a number,
// true, false or null) that has begun.
func (s *valueScan) inBareWord(raw []byte) bool {
	return len(s.closers) == 0 && !s.inString && len(raw) > 0 && raw[0] != '{' && raw[0] != '[' && raw[0] != '"'
}

// step takes byte c, the value's first when first, and reports whether
// it ends the value: the close of its string or outermost bracket, a
// close that does not match, or a comma or colon where a value should
// start.
func (s *valueScan) step(c byte, first bool) bool {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
			return len(s.closers) == 0
		}
		return false
	}
	switch {
	case c == '"':
		s.inString = true
	case c == '{':
		s.closers = append(s.closers, '}')
	case c == '[':
		s.closers = append(s.closers, ']')
	case c == '}' || c == ']':
		if len(s.closers) == 0 || s.closers[len(s.closers)-1] != c {
			return true // unbalanced: the caller's check says where
		}
		s.closers = s.closers[:len(s.closers)-1]
		return len(s.closers) == 0
	case first && (c == ',' || c == ':'):
		return true // not a value: the check says so
	}
	return false
}
