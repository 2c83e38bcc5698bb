// Package columns writes text in aligned columns: a text/tabwriter
// (cells separated by tabs, two spaces between columns) whose output
// reaches its destination in a few large writes when flushed, not in a
// write for each cell and each gap, as a tabwriter writes. To a
// terminal or a pipe, each of those is a system call: a run's summary
// table was 146 of them.
package columns

import (
	"bufio"
	"io"
	"text/tabwriter"
)

// Writer is a tabwriter.Writer buffered on the way to its destination.
// Flush it when the table is whole.
type Writer struct {
	*tabwriter.Writer
	out *bufio.Writer
}

// New is a Writer of aligned columns to w.
func New(w io.Writer) *Writer {
	out := bufio.NewWriter(w)
	return &Writer{Writer: tabwriter.NewWriter(out, 0, 0, 2, ' ', 0), out: out}
}

// Flush aligns the lines written so far and writes them to the
// destination.
func (w *Writer) Flush() error {
	if err := w.Writer.Flush(); err != nil {
		return err
	}
	return w.out.Flush()
}
