package dataset

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// errTSVQuote is why a cell that opens with a quote is refused: it is a
// quoted cell, and its text does not close where the cell ends.
var errTSVQuote = errors.New(`a cell that starts with a quote is a quoted cell: it must end with a quote and double the quotes it holds ("""hi"" he said"); a quote elsewhere in a cell is text`)

// tsvReader reads the rows of a TSV file as pandas and Python's csv module
// do: a cell that starts with a quote is quoted, as in CSV (it may hold
// tabs, line breaks and doubled quotes), and a quote anywhere else is
// text (He said "hi"). Like csv.Reader it skips empty lines, drops the
// carriage return of a CRLF line end, refuses a row whose width is not
// the header's, and reports each error as a *csv.ParseError.
//
// Not csv.Reader with LazyQuotes: there a cell that opens a quote and
// does not close it where the cell ends ("hi" he said) reads on through
// the next lines, tabs and line ends included, until some later quote,
// and rows vanish into one cell without a word. Here that is an error
// naming its line and column.
type tsvReader struct {
	br     *bufio.Reader
	line   int      // lines read so far
	width  int      // cells in a row: the header's; 0 before it
	starts [][2]int // line and column where each cell of the last row starts
}

// Read returns the next row, or io.EOF after the last.
func (t *tsvReader) Read() ([]string, error) {
	for {
		text, err := t.readLine()
		if err != nil {
			return nil, err
		}
		if text == "" {
			continue // an empty line, as csv.Reader skips it
		}
		row, err := t.row(text)
		if err != nil {
			return nil, err
		}
		if t.width == 0 {
			t.width = len(row)
		} else if len(row) != t.width {
			start := t.starts[0][0]
			return nil, &csv.ParseError{StartLine: start, Line: start, Column: 1, Err: csv.ErrFieldCount}
		}
		return row, nil
	}
}

// FieldPos returns the line and the 1-based byte column where cell i of
// the last row starts.
func (t *tsvReader) FieldPos(i int) (line, column int) {
	return t.starts[i][0], t.starts[i][1]
}

// readLine returns the next line without its line end; io.EOF when none
// is left.
func (t *tsvReader) readLine() (string, error) {
	s, err := t.br.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || s == "") {
		return "", err
	}
	t.line++
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r"), nil
}

// row splits text, the line just read, into cells, reading more lines
// while a quoted cell holds line breaks.
func (t *tsvReader) row(text string) ([]string, error) {
	t.starts = t.starts[:0]
	var row []string
	at := 0 // byte offset in text
	for {
		t.starts = append(t.starts, [2]int{t.line, at + 1})
		if !strings.HasPrefix(text[at:], `"`) {
			cell, rest, more := strings.Cut(text[at:], "\t")
			row = append(row, cell)
			if !more {
				return row, nil
			}
			at = len(text) - len(rest)
			continue
		}
		cell, next, err := t.quoted(&text, at+1)
		if err != nil {
			return nil, err
		}
		row = append(row, cell)
		if next == len(text) {
			return row, nil
		}
		at = next + 1 // past the tab
	}
}

// quoted reads the quoted cell whose text starts at offset from of *text,
// past its opening quote, and returns it with the offset just past its
// closing quote. A line break inside the cell reads the next line into
// *text.
func (t *tsvReader) quoted(text *string, from int) (string, int, error) {
	startLine, startCol := t.line, from
	var b strings.Builder
	at := from
	for {
		i := strings.IndexByte((*text)[at:], '"')
		if i < 0 {
			b.WriteString((*text)[at:])
			b.WriteByte('\n')
			next, err := t.readLine()
			if errors.Is(err, io.EOF) {
				return "", 0, &csv.ParseError{StartLine: startLine, Line: startLine, Column: startCol, Err: errTSVQuote}
			}
			if err != nil {
				return "", 0, err
			}
			*text, at = next, 0
			continue
		}
		b.WriteString((*text)[at : at+i])
		at += i + 1
		switch {
		case at < len(*text) && (*text)[at] == '"':
			b.WriteByte('"') // a doubled quote
			at++
		case at == len(*text) || (*text)[at] == '\t':
			return b.String(), at, nil
		default:
			return "", 0, &csv.ParseError{StartLine: startLine, Line: startLine, Column: startCol, Err: errTSVQuote}
		}
	}
}
