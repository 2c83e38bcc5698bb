package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/assaylabs/assay/conversation"
)

// otlpLines reads a file of OTLP JSON export lines (what an
// OpenTelemetry collector's file exporter writes, one
// ExportTraceServiceRequest a line), whose first line, first, is on line
// line: its spans are assembled into conversations (package
// conversation), one record each, in the order they started; a record's
// Line is that of its first span, and its ID the conversation's.
func (d *datasetReader) otlpLines(line int, first []byte, sc *bufio.Scanner) error {
	var spans []conversation.Span
	firstLine := map[string]int{} // trace ID -> the line of its first span
	add := func(line int, b []byte) error {
		req, err := conversation.DecodeJSON(b)
		if err != nil {
			return d.errAt(line, 0, "", "OTLP export line: "+err.Error())
		}
		for _, s := range conversation.Spans(req) {
			if _, ok := firstLine[s.TraceID]; !ok {
				firstLine[s.TraceID] = line
			}
			spans = append(spans, s)
		}
		return nil
	}
	if err := add(line, first); err != nil {
		return err
	}
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if strings.TrimSpace(string(b)) == "" {
			continue
		}
		if err := add(line, b); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return d.errAt(line+1, 0, "", fmt.Sprintf("line longer than %d MB", MaxLine>>20))
		}
		return fmt.Errorf("dataset: read %s: %w", d.name, err)
	}
	convs := conversation.Assemble(spans)
	if len(convs) == 0 && len(spans) > 0 {
		return d.errAt(0, 0, "", fmt.Sprintf("%d spans, none of a model call or a tool (no gen_ai.* or OpenInference attributes): no conversation to judge", len(spans)))
	}
	for _, c := range convs {
		at := firstLine[c.Traces[0]]
		for _, t := range c.Traces {
			at = min(at, firstLine[t])
		}
		rec := Record{ID: c.ID, Sample: c.Sample()}
		if err := d.keep(at, rec, ""); err != nil {
			return err
		}
	}
	return nil
}
