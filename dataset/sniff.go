package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"regexp"
)

// Sniffed is what [Sniff] found a text to be.
type Sniffed struct {
	// Format is the dataset's format: FormatJSONL for JSON Lines (one
	// object on one line counts), FormatJSON for a JSON array or one
	// object over several lines, FormatCSV for CSV (separated by commas
	// or semicolons), FormatTSV for CSV separated by tabs; "" when the text is no
	// dataset.
	Format Format
	// Profile is the profile whose samples the records are
	// (ProfileContext, ProfileResearch, ProfileDaily), "" for RAG samples
	// (Read's records).
	Profile string
	// Array is true for a JSON array, false for one JSON object.
	Array bool
}

// Sniff tells whether data, text given where one Markdown report was
// expected, is a dataset, from its start: a JSON array whose first
// element is a record, JSON Lines (or one object) whose first line is one,
// or CSV whose header and first row make a record. A record is a RAG
// sample with Read's field names, or a sample of a profile: {report}
// (research; with truth, daily) or, on JSON Lines only, {query, chunks}
// (context: one such object alone is a retrieval sample, which
// `assay score` takes). Markdown, even one that starts with a link, is no
// dataset.
func Sniff(data []byte) Sniffed {
	t := bytes.TrimSpace(bytes.TrimPrefix(data, bom))
	if len(t) == 0 {
		return Sniffed{}
	}
	switch t[0] {
	case '[':
		dec := json.NewDecoder(bytes.NewReader(t))
		var first map[string]json.RawMessage
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') || !dec.More() || dec.Decode(&first) != nil {
			return Sniffed{}
		}
		if p, ok := sampleKind(first); ok {
			return Sniffed{Format: FormatJSON, Profile: p, Array: true}
		}
	case '{':
		line, rest, more := bytes.Cut(t, []byte{'\n'})
		more = more && len(bytes.TrimSpace(rest)) > 0
		var first map[string]json.RawMessage
		switch {
		case json.Unmarshal(line, &first) == nil && first != nil:
			p, ok := sampleKind(first)
			if ok && (more || p != ProfileContext) {
				return Sniffed{Format: FormatJSONL, Profile: p}
			}
		case json.Unmarshal(t, &first) == nil && first != nil:
			if p, ok := sampleKind(first); ok && p != ProfileContext {
				return Sniffed{Format: FormatJSON, Profile: p}
			}
		}
	default:
		return sniffCSV(t)
	}
	return Sniffed{}
}

// sniffCSV is Sniff's answer for t, text that starts as no JSON does:
// CSV or TSV whose header and first row make a record, or no dataset.
func sniffCSV(t []byte) Sniffed {
	br := bufio.NewReader(bytes.NewReader(t))
	cr := csv.NewReader(br)
	cr.Comma = csvSeparator(br)
	header, err := cr.Read()
	if err != nil || len(header) < 2 {
		return Sniffed{}
	}
	for _, h := range header {
		if !columnName.MatchString(h) {
			return Sniffed{}
		}
	}
	format := FormatCSV
	if cr.Comma == '\t' {
		format = FormatTSV
	}
	for _, err := range Records("sniffed.csv", bytes.NewReader(t)) {
		if err == nil {
			return Sniffed{Format: format}
		}
		break
	}
	return Sniffed{}
}

// columnName is a CSV header's name of a column, as datasets name them.
var columnName = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_.]*\s*$`)

// sampleKind is the profile whose sample an object is ("" for a RAG
// sample), false when it is neither.
func sampleKind(fields map[string]json.RawMessage) (string, bool) {
	_, query := fields["query"]
	_, chunks := fields["chunks"]
	_, report := fields["report"]
	_, truth := fields["truth"]
	switch {
	case query && chunks:
		return ProfileContext, true
	case report && truth:
		return ProfileDaily, true
	case report:
		return ProfileResearch, true
	}
	if _, otlp := fields["resourceSpans"]; otlp {
		return "", true // OTLP export lines: conversations
	}
	// A record with a field misspelt is one: reading it says which.
	_, err := decodeRecord(fields)
	return "", err == nil || misspelt(fields) != nil
}
