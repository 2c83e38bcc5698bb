package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// The output formats, one set for every command that prints: each takes
// the ones that fit what it prints (outputFormats).
const (
	OutputText  = "text"
	OutputMD    = "md"
	OutputJSON  = "json"
	OutputYAML  = "yaml"
	OutputJSONL = "jsonl"
)

// outputFormats backs OutputFormats, which hands out copies.
var outputFormats = []string{OutputText, OutputMD, OutputJSON, OutputYAML, OutputJSONL}

// OutputFormats returns every output format's name.
func OutputFormats() []string { return slices.Clone(outputFormats) }

// CheckOutputFormat accepts got when it is one of allowed (names of
// outputFormats), else it is an input error naming --format and what the
// command takes.
func CheckOutputFormat(got string, allowed ...string) error {
	if slices.Contains(allowed, got) {
		return nil
	}
	list := strings.Join(allowed[:len(allowed)-1], ", ") + " or " + allowed[len(allowed)-1]
	return &eval.InputError{Field: "--format", Msg: fmt.Sprintf("must be %s, got %q", list, got)}
}

// ResultWriter writes results one by one in a format (yaml, json or
// text) whose whole is the same as encoding the list at once, and which
// stays well-formed when close is called after a partial run. jsonl is one
// JSON object a line, the format for files: each flush hands the lines it
// holds to the writer in one Write, so a run killed at any point (even
// kill -9, which skips close) leaves only whole lines, each readable alone.
type ResultWriter struct {
	w      *bufio.Writer
	format string
	n      int
	buf    bytes.Buffer
}

// NewResultWriter writes results to w in format (an Output).
func NewResultWriter(w io.Writer, format string) *ResultWriter {
	return &ResultWriter{w: bufio.NewWriter(w), format: format}
}

// Write writes one result.
func (rw *ResultWriter) Write(r run.Result) error {
	defer func() { rw.n++ }()
	switch rw.format {
	case "jsonl":
		// Held in buf until flush, which writes whole lines only.
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
		_, err := rw.buf.Write(encode.Escaped(line.Bytes()))
		return err
	case "json":
		// One element of an array indented by two spaces, as
		// json.MarshalIndent of the whole list writes it.
		rw.buf.Reset()
		enc := json.NewEncoder(&rw.buf)
		enc.SetIndent("  ", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
		sep := ",\n  "
		if rw.n == 0 {
			sep = "[\n  "
		}
		_, _ = rw.w.WriteString(sep) // a bufio.Writer keeps its first error for Write and Flush
		_, err := rw.w.Write(encode.Escaped(bytes.TrimSuffix(rw.buf.Bytes(), []byte("\n"))))
		return err
	case "text":
		flag := ""
		if r.Defaulted {
			flag = " DEFAULTED"
		}
		if r.Skipped {
			flag = " SKIPPED"
		}
		// The ID, the reason and the evidence come from the record or a
		// model: their control and bidirectional characters are written
		// escaped, so they show instead of acting on the terminal.
		id, metric, method := textID(r.ID), termtext.Visible(r.Metric), termtext.Visible(r.Method)
		reason := reasonText(r.Reason)
		if r.NotEvaluable() {
			// No figure at all: it is not a score.
			fmt.Fprintf(rw.w, "%s %s %s [%s]\n  %s\n", id, metric, eval.NotEvaluable, method, reason)
		} else {
			fmt.Fprintf(rw.w, "%s %s %s (%g/%g)%s [%s]\n  %s\n", id, metric, valueText(r.Value), r.Points, r.Max, flag, method, reason)
		}
		for _, c := range r.Evidence.Claims {
			src := ""
			if c.SourceID != "" {
				src = " <- " + termtext.Visible(c.SourceID)
			}
			if ck := c.Check; ck != nil {
				// Who checked the claim, and how sure it was.
				where := fmt.Sprintf("chunk %d of %d", ck.Chunk, ck.Chunks)
				if ck.Chunk == 0 {
					where = "none of " + plural.Count(ck.Chunks, "chunk")
				}
				src += termtext.Visible(fmt.Sprintf(" (%s: p %.3f from %s, %s)", ck.Checker, ck.Probability, ck.From, where))
			}
			fmt.Fprintf(rw.w, "  - [%s] %s%s\n", termtext.Visible(c.Verdict), termtext.Visible(c.Text), src)
		}
		for _, s := range r.Evidence.Sources {
			fmt.Fprintf(rw.w, "  - %s: %g %s\n", termtext.Visible(s.URL), s.Rating, termtext.Visible(s.Basis))
		}
		for _, g := range r.Evidence.Gaps {
			fmt.Fprintf(rw.w, "  - gap: %s\n", termtext.Visible(g))
		}
		return nil
	default:
		// A one-item sequence per result: the items of one sequence.
		return encode.YAML(rw.w, []run.Result{r})
	}
}

// textID is a result's id at the start of its text line: quoted, as Go
// quotes, when it is empty, begins or ends with a space or begins with a
// quote, so a blank id is seen and cannot pass for the indented reason
// under a result, nor "a " for "a"; else with its control and
// bidirectional characters escaped.
func textID(id string) string {
	first, _ := utf8.DecodeRuneInString(id)
	last, _ := utf8.DecodeLastRuneInString(id)
	if id == "" || unicode.IsSpace(first) || unicode.IsSpace(last) || first == '"' {
		return strconv.Quote(id)
	}
	return termtext.Visible(id)
}

// reasonText is a result's reason under its text line: the lines after
// the first indented two more than it, so that a reason of several lines
// (a model's) cannot show a line that passes for another result (which
// begins its line) or for the evidence listed under this one (indented
// two, "- "); control and bidirectional characters are escaped.
func reasonText(reason string) string {
	return strings.ReplaceAll(termtext.Message(strings.TrimRight(reason, "\n")), "\n", "\n    ")
}

// valueText is a result's value for the text line: to three decimals,
// or four when the fourth is not zero, so it is the value the JSON holds
// and --min compares (run.Round keeps four), never a rounding of it
// (0.6667 shown as 0.667 would seem to pass a floor of 0.667 it fails).
func valueText(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 4, 64), "0") // one zero at most
}

// Flush writes out what is buffered, so finished records show at once.
func (rw *ResultWriter) Flush() error {
	if rw.format == "jsonl" && rw.buf.Len() > 0 {
		// The bufio.Writer is empty here, so it passes the lines on in
		// one Write (directly when they are larger than its buffer).
		_, err := rw.w.Write(rw.buf.Bytes())
		rw.buf.Reset()
		if err != nil {
			return err
		}
	}
	return rw.w.Flush()
}

// Close ends the list and flushes. With nothing written, complete says
// whether to write an empty list (the run finished) or nothing (it failed).
func (rw *ResultWriter) Close(complete bool) error {
	switch {
	case rw.format == "jsonl":
		// No records is no lines: an empty file is an empty JSON Lines
		// file. Lines not yet flushed are written whole.
		return rw.Flush()
	case rw.n == 0 && complete && rw.format != "text":
		_, _ = rw.w.WriteString("[]\n") // its error comes back from Flush
	case rw.format == "json" && rw.n > 0:
		_, _ = rw.w.WriteString("\n]\n") // its error comes back from Flush
	}
	return rw.w.Flush()
}
