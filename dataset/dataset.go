package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/eval"
)

// MaxLine is the longest JSON Lines line Read accepts: 10 MB.
const MaxLine = 10 << 20

// Record is one row of a dataset: the sample to score and its human labels.
type Record struct {
	// ID is the record's "id"; when the record has none it is "line-N",
	// N being Line, or, for an element of a JSON array that shares its
	// line with another element (an array written on one line), "item-I",
	// I being its 0-based index in the array. IDs are unique within a
	// dataset.
	ID string `json:"id"`
	// Line is the 1-based line where the record starts.
	Line int `json:"line"`
	// Path is where the record is in its file when Line alone may not
	// say: "[I]" for the element of index I of a JSON array, "" for a
	// record of JSON Lines or CSV. Errors about the record put it before
	// the field ("[3].contexts").
	Path string `json:"path,omitempty"`
	// Sample is the record mapped to Assay's vocabulary; Sample.ID is ID.
	Sample eval.Sample `json:"sample"`
	// Human holds the record's "human" object as decoded JSON (numbers as
	// float64), nil when it has none.
	Human map[string]any `json:"human,omitempty"`
}

// Label reads the binary human label named field ("faithful", "relevant",
// "hallucinated"). It accepts true/false, the numbers 1/0 and the strings
// "true"/"false", "yes"/"no", "1"/"0" (any case, surrounding space
// ignored) and "1.0"/"0.0" (any number equal to 1 or 0, as pandas writes
// a column of labels with gaps). The second result is false when the
// label is absent, null or any other value. A field written "!name" reads label name negated, for
// labels whose true is the judge's low end ("!hallucinated" for a
// faithfulness judge).
func (r Record) Label(field string) (bool, bool) {
	if name, ok := strings.CutPrefix(field, "!"); ok {
		v, ok := r.Label(strings.TrimSpace(name))
		return !v && ok, ok
	}
	switch v := r.Human[field].(type) {
	case bool:
		return v, true
	case float64:
		if v == 1 || v == 0 {
			return v == 1, true
		}
	case int:
		if v == 1 || v == 0 {
			return v == 1, true
		}
	case string:
		switch t := strings.ToLower(strings.TrimSpace(v)); t {
		case "true", "yes", "1":
			return true, true
		case "false", "no", "0":
			return false, true
		default:
			// "1.0" and "0.0": a column of labels with gaps, which pandas
			// holds as floats, in a CSV it writes.
			if f, err := strconv.ParseFloat(t, 64); err == nil && (f == 1 || f == 0) {
				return f == 1, true
			}
		}
	}
	return false, false
}

// Field names, per role, in order of precedence. Assay's own name comes
// first, then RAGAS v1, RAGAS v2 and DeepEval.
var (
	queryNames     = []string{"query", "question", "user_input", "input"}
	answerNames    = []string{"answer", "response", "actual_output"}
	contextNames   = []string{"contexts", "retrieved_contexts", "retrieval_context"}
	referenceNames = []string{"reference", "ground_truth", "expected_output"}
)

var bom = []byte("\xEF\xBB\xBF")

// Load reads the dataset file at path; see Read.
func Load(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		cause := err
		var pe *os.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		return nil, &eval.InputError{File: path, Msg: "cannot open: " + cause.Error(), Err: err}
	}
	defer func() { _ = f.Close() }() // read only: its close loses nothing
	return Read(path, f)
}

// Read reads a dataset from r; name is the file name used in errors, and
// its extension picks the format:
//
//   - ".csv": CSV with a header row, its cells separated by commas, or by
//     the ";" or tab its header row alone holds (as Excel writes in much of
//     Europe, and TSV), or by the one an Excel "sep=;" first line names.
//     An empty cell is a missing value; a row of empty cells, as a
//     spreadsheet leaves below its data, is skipped as a blank line is. A
//     contexts cell holds a JSON array of strings, a Python list of
//     strings as pandas' to_csv writes one ("['A', \"don't\"]"), or any
//     other text, a single context; text that starts as a list ("[" and a
//     quote) and is not one is an error. A "human" cell holds a JSON object, and columns
//     named "human.<label>" add labels (as strings) to it. A ground_truth
//     cell holding a JSON object is Assay's GroundTruth, any other text a
//     reference; one in braces that is not JSON ("{'x': 1.5}") is an error.
//     A row that repeats the header row (two files joined) is an error.
//   - ".tsv": TSV, read as CSV whose cells are separated by tabs, whatever
//     its header row holds (a header with commas and no tab is an error:
//     a CSV file named .tsv), by the same rules of header, cells and
//     errors, except that only a cell that starts with a quote is quoted:
//     a quote anywhere else is text (He said "hi"), as pandas reads it.
//   - ".json": a JSON array of records, one record (an object, which may
//     span several lines), or JSON Lines.
//   - anything else (".jsonl"): JSON Lines, one object a line, blank lines
//     skipped, each line at most MaxLine bytes; or, when the file starts
//     with "[", a JSON array of records, as in a ".json" file (what
//     json.dump and a DeepEval export write). YAML is not read: the JSON
//     errors of a ".yaml" or ".yml" file say so.
//
// The elements of a JSON array are records, read one at a time; an error
// about one puts its 0-based index before the field:
// `data.json:1: [2].answer: want a string, got number`.
//
// A record's fields, by role (null counts as missing; two names of one role
// with different values are an error):
//
//   - query: query, question (RAGAS v1), user_input (RAGAS v2), input
//     (DeepEval); a string.
//   - answer: answer, response, actual_output; a string.
//   - contexts: contexts, retrieved_contexts, retrieval_context; an array
//     of strings, which become Sources with IDs "c1", "c2", ... and Text,
//     or a string holding a list's text, read as a CSV cell's.
//     Or Assay's own "sources", an array of eval.Source objects.
//   - reference: reference, ground_truth (when a string), expected_output.
//     A ground_truth object of numbers is Assay's GroundTruth.
//   - id (a string or a number), human (an object), metadata (an object).
//
// Other fields are ignored, except one that is a field above misspelt
// (one letter away, or in other case: "contexs", "ground_truths",
// "Question") when the record lacks that field's role: an error, as it
// would leave a metric nothing to judge. A record needs a query, an
// answer or contexts.
//
// Every error about the content is an *eval.InputError naming name, the
// line and the field: `data.jsonl:7: contexts: want an array of strings,
// got number`. Errors of r itself are returned wrapped.
//
// Read holds every record; [Records] reads the same records one at a time.
func Read(name string, r io.Reader) ([]Record, error) {
	var recs []Record
	for rec, err := range Records(name, r) {
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// Records reads a dataset from r as [Read] does, one record at a time, so
// memory holds one record (and a 64-bit hash of each ID seen, to reject
// duplicates: see idSet) however long the dataset. It yields each record with a nil error, in file order.
// The first error, the one Read would return, is yielded with a zero
// Record and ends the sequence; a dataset without records yields the
// "empty dataset" error. Breaking off early is fine.
//
// The sequence reads r as it goes: range over it once. In a ".json" array
// a record is checked as it is reached, so a bad record is reported before
// a syntax error later in the file.
func Records(name string, r io.Reader) iter.Seq2[Record, error] {
	return FormatOf(name).Records(name, r)
}

// All yields records held in memory as [Records] yields those it reads:
// each with a nil error, in order.
func All(records []Record) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for _, rec := range records {
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// Samples yields the samples of records, each with its ID, and their
// errors.
func Samples(records iter.Seq2[Record, error]) iter.Seq2[eval.Sample, error] {
	return func(yield func(eval.Sample, error) bool) {
		for rec, err := range records {
			s := rec.Sample
			if s.ID == "" {
				s.ID = rec.ID
			}
			if !yield(s, err) {
				return
			}
		}
	}
}

// Records reads a dataset written in format f from r, as the package
// function [Records] does with the format its name gives; name is the
// file named in errors only. An unknown format yields one error.
func (f Format) Records(name string, r io.Reader) iter.Seq2[Record, error] {
	return f.records(name, r, newIDSet())
}

// records is Records with the set of ids that refuses duplicates; nil
// refuses none, for a read again of records already checked (see
// Dataset.Records).
func (f Format) records(name string, r io.Reader, ids *idSet) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		d := &datasetReader{name: name, ids: ids, yield: func(rec Record) bool { return yield(rec, nil) }}
		var err error
		switch f {
		case FormatCSV:
			err = d.csvFile(r, 0)
		case FormatTSV:
			err = d.csvFile(r, '\t')
		case FormatJSON:
			err = d.jsonFile(r)
		case FormatJSONL:
			err = d.jsonLinesFile(r)
		default:
			yield(Record{}, fmt.Errorf("dataset: read %s: unknown dataset format %q: want %s, %s, %s or %s", name, string(f), FormatJSON, FormatJSONL, FormatCSV, FormatTSV))
			return
		}
		if errors.Is(err, errStopped) {
			return
		}
		var ie *eval.InputError
		if ext := strings.ToLower(filepath.Ext(name)); (ext == ".yaml" || ext == ".yml") && errors.As(err, &ie) && strings.HasPrefix(ie.Msg, "invalid JSON") {
			// JSON is YAML, so a .yaml file of JSON is read; say why others fail.
			ie.Msg += " (datasets are JSON, JSON Lines, CSV or TSV; YAML is not read)"
		}
		if err == nil && d.n == 0 {
			err = &eval.InputError{File: name, Msg: "empty dataset: no records"}
		}
		if err != nil {
			yield(Record{}, err)
		}
	}
}

// errStopped ends a read whose caller stopped asking for records.
var errStopped = errors.New("dataset: stopped")

// datasetReader hands the records of one dataset to yield.
type datasetReader struct {
	name  string
	yield func(Record) bool // false: stop reading
	n     int               // records yielded
	ids   *idSet            // the ids met, to refuse a duplicate; nil refuses none
	kind  string            // "CSV" or "TSV", as errors name the format
}

func (d *datasetReader) errAt(line, col int, field, msg string) *eval.InputError {
	return &eval.InputError{File: d.name, Line: line, Col: col, Field: field, Msg: msg}
}

// jsonLines reads JSON Lines.
func (d *datasetReader) jsonLines(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine+1)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		col0 := 0
		if bytes.HasPrefix(b, bom) { // on a later line too: files joined with cat
			b, col0 = b[len(bom):], len(bom)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if d.n == 0 && conversation.IsOTLPJSON(b) {
			return d.otlpLines(line, b, sc)
		}
		if err := d.add(line, col0, b); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return d.errAt(line+1, 0, "", fmt.Sprintf("line longer than %d MB", MaxLine>>20))
		}
		return fmt.Errorf("dataset: read %s: %w", d.name, err)
	}
	return nil
}

// add decodes one JSON object starting on line and keeps it.
func (d *datasetReader) add(line, col0 int, b []byte) error {
	rec, err := d.decode(line, col0, b)
	if err != nil {
		return err
	}
	return d.keep(line, rec, "")
}

// decode decodes one JSON object starting on line: in one pass when it
// is valid (fieldsFast), else by encoding/json and duplicateKey, which
// say what is wrong and where.
func (d *datasetReader) decode(line, col0 int, b []byte) (Record, error) {
	fields, ok := fieldsFast(b)
	if !ok {
		var err error
		if fields, err = d.fields(line, col0, b); err != nil {
			return Record{}, err
		}
	}
	rec, ierr := decodeRecord(fields)
	if ierr != nil {
		ierr.File, ierr.Line = d.name, line
		return Record{}, ierr
	}
	return rec, nil
}

// fields decodes one JSON object starting on line into its fields with
// encoding/json, and refuses a member named twice in any of its objects.
func (d *datasetReader) fields(line, col0 int, b []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			col := int(se.Offset)
			if strings.HasPrefix(se.Error(), "unexpected end") {
				col = len(b) + 1
			}
			e := d.errAt(line, col0+max(col, 1), "", "invalid JSON: "+se.Error()+pythonHint(b, se.Offset-1))
			e.Err = err
			return nil, e
		case errors.As(err, &te):
			return nil, d.errAt(line, 0, "", "want a JSON object, got "+kindName(te.Value))
		}
		e := d.errAt(line, 0, "", "invalid JSON: "+err.Error())
		e.Err = err
		return nil, e
	}
	if fields == nil {
		return nil, d.errAt(line, 0, "", "want a JSON object, got null")
	}
	if path, first, second, dup := duplicateKey(b); dup {
		return nil, d.errAt(line, col0+int(second)+1, path, fmt.Sprintf("given twice in one object (first at column %d): a record names each field once", col0+int(first)+1))
	}
	return fields, nil
}

// keep assigns the record's line and default ID (id, or "line-N" when id
// is "") and checks the ID is new.
func (d *datasetReader) keep(line int, rec Record, id string) error {
	rec.Line = line
	if rec.ID == "" {
		rec.ID = cmp.Or(id, "line-"+strconv.Itoa(line))
	}
	if d.ids != nil {
		if first, dup := d.ids.add(rec.ID, line); dup {
			return d.errAt(line, 0, "id", fmt.Sprintf("duplicate id %q (first on line %d)", rec.ID, first))
		}
	}
	rec.Sample.ID = rec.ID
	d.n++
	if !d.yield(rec) {
		return errStopped
	}
	return nil
}

// csvFile reads CSV with a header row, its cells separated by sep, or,
// when sep is 0, by the separator csvSeparator finds.
func (d *datasetReader) csvFile(r io.Reader, sep rune) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(len(bom)); err == nil && bytes.Equal(b, bom) {
		_, _ = br.Discard(len(bom))
	}
	d.kind = "CSV"
	if sep == '\t' {
		d.kind = "TSV"
		if first := firstLine(br); !strings.Contains(first, "\t") && strings.Contains(first, ",") {
			return d.errAt(1, 0, "", "the header row holds commas and no tab: a .tsv file's cells are separated by tabs (is it CSV? name it .csv)")
		}
	}
	if sep == 0 {
		sep = csvSeparator(br)
	}
	var cr rowReader = &tsvReader{br: br}
	if d.kind == "CSV" {
		c := csv.NewReader(br)
		c.Comma = sep
		c.FieldsPerRecord = 0 // every row as wide as the header
		cr = c
	}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil // no records
	}
	if err != nil {
		return d.csvErr(err)
	}
	header = slices.Clone(header)
	column := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		if _, dup := column[h]; dup && h != "" {
			return d.errAt(1, 0, h, "duplicate column")
		}
		column[h] = i
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return d.csvErr(err)
		}
		if blankRow(row) {
			continue // a blank line, as a spreadsheet writes one: ",,,"
		}
		if err := d.csvRow(cr, row, header, column); err != nil {
			return err
		}
	}
}

// rowReader reads the rows of a CSV or TSV file: a *csv.Reader or a
// *tsvReader.
type rowReader interface {
	Read() ([]string, error)
	FieldPos(field int) (line, column int)
}

// csvRow reads row, the CSV row cr has just read, under header, the
// names of the columns, whose indexes column gives, and keeps its record.
func (d *datasetReader) csvRow(cr rowReader, row, header []string, column map[string]int) error {
	line, _ := cr.FieldPos(0)
	if sameHeader(row, header) {
		return d.errAt(line, 0, "", "the header row again ("+d.kind+" files joined with their headers?): remove the line")
	}
	fields := map[string]json.RawMessage{}
	var labels map[string]any
	for i, h := range header {
		cell := row[i]
		if strings.TrimSpace(cell) == "" {
			continue // a missing value
		}
		if label, ok := strings.CutPrefix(h, "human."); ok && label != "" {
			if labels == nil {
				labels = map[string]any{}
			}
			labels[label] = cell
			continue
		}
		raw, msg := csvCell(h, cell)
		if msg != "" {
			l, c := cr.FieldPos(i)
			return d.errAt(l, c, h, msg)
		}
		fields[h] = raw
	}
	rec, ierr := decodeRecord(fields)
	if ierr != nil {
		ierr.File, ierr.Line = d.name, line
		root, _, _ := strings.Cut(ierr.Field, "[")
		root, _, _ = strings.Cut(root, ".")
		if i, ok := column[root]; ok && ierr.Field != "" {
			ierr.Line, ierr.Col = cr.FieldPos(i)
		}
		return ierr
	}
	if labels != nil {
		if rec.Human == nil {
			rec.Human = map[string]any{}
		}
		for k, v := range labels {
			rec.Human[k] = v
		}
	}
	return d.keep(line, rec, "")
}

// csvSeparator is the separator of the CSV file br is at the start of:
// the one Excel's "sep=;" first line names (the line is then consumed,
// leaving it empty, so that lines keep their numbers), else ';' or a tab
// when the header line holds no comma and only that one of them (Excel in
// much of Europe, and TSV), else ','.
func csvSeparator(br *bufio.Reader) rune {
	first := firstLine(br)
	if sep, ok := strings.CutPrefix(first, "sep="); ok && len(sep) == 1 && strings.Contains(",;\t|", sep) {
		_, _ = br.Discard(len(first))
		return rune(sep[0])
	}
	semi, tab := strings.Contains(first, ";"), strings.Contains(first, "\t")
	switch {
	case strings.Contains(first, ","):
	case semi && !tab:
		return ';'
	case tab && !semi:
		return '\t'
	}
	return ','
}

// firstLine is the first line of what br holds, without its line end,
// read without consuming it (at most br's size).
func firstLine(br *bufio.Reader) string {
	b, _ := br.Peek(br.Size()) // what there is: less at the end of the input
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(bytes.TrimSuffix(b, []byte{'\r'}))
}

// blankRow reports whether every cell of row is empty or space.
func blankRow(row []string) bool {
	for _, cell := range row {
		if strings.TrimSpace(cell) != "" {
			return false
		}
	}
	return true
}

// sameHeader reports whether row repeats header, the trimmed names of
// the columns, as a file joined to another with its header row does: the
// same names, each cell trimmed and the first without a byte order mark.
// A row of empty cells is not one.
func sameHeader(row, header []string) bool {
	named := false
	for i, h := range header {
		cell := row[i]
		if i == 0 {
			cell = strings.TrimPrefix(cell, string(bom))
		}
		if strings.TrimSpace(cell) != h {
			return false
		}
		named = named || h != ""
	}
	return named
}

func (d *datasetReader) csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &eval.InputError{File: d.name, Line: pe.Line, Col: pe.Column, Msg: "invalid " + d.kind + ": " + pe.Err.Error(), Err: err}
	}
	return fmt.Errorf("dataset: read %s: %w", d.name, err)
}

// csvCell turns a CSV cell into the JSON value of the field, or returns
// why it cannot.
func csvCell(field, cell string) (json.RawMessage, string) {
	trimmed := strings.TrimSpace(cell)
	switch {
	case slices.Contains(contextNames, field):
		if strings.HasPrefix(trimmed, "[") && json.Valid([]byte(trimmed)) {
			return json.RawMessage(trimmed), "" // its elements are checked as a JSON record's
		}
		if looksLikeList(trimmed) {
			items, msg := listText(trimmed)
			if msg != "" {
				return nil, msg
			}
			return jsonString(items), ""
		}
		return jsonString([]string{cell}), ""
	case field == "human" || field == "metadata":
		if !strings.HasPrefix(trimmed, "{") || !json.Valid([]byte(trimmed)) {
			return nil, "want a JSON object, got text that is not one"
		}
		return json.RawMessage(trimmed), ""
	case field == "sources" || field == "messages" || field == "expected_tool_calls":
		if !strings.HasPrefix(trimmed, "[") || !json.Valid([]byte(trimmed)) {
			return nil, "want a JSON array, got text that is not one"
		}
		return json.RawMessage(trimmed), ""
	case field == "ground_truth":
		if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
			return json.RawMessage(trimmed), ""
		}
		if strings.HasPrefix(trimmed, "{") && strings.HasSuffix(trimmed, "}") {
			// Not a reference text: an object pandas wrote with str(), or
			// numbers written with thousands separators.
			return nil, "starts as an object but is not JSON (a Python dict?): write an object of numbers as JSON, or a reference without the braces"
		}
	}
	return jsonString(cell), ""
}

func jsonString(v any) json.RawMessage {
	b, _ := json.Marshal(v) // strings and string slices always marshal
	return b
}

// decodeRecord maps the fields of one record. An error is an InputError
// with Field and Msg set; the caller adds where.
func decodeRecord(fields map[string]json.RawMessage) (Record, *eval.InputError) {
	var rec Record
	var s eval.Sample
	query, hasQuery, err := pickString(fields, queryNames)
	if err != nil {
		return rec, err
	}
	answer, hasAnswer, err := pickString(fields, answerNames)
	if err != nil {
		return rec, err
	}
	s.Query, s.Answer = query, answer

	// ground_truth is a reference answer (RAGAS) when a string, Assay's
	// GroundTruth when an object.
	refNames := referenceNames
	if raw, ok := fields["ground_truth"]; ok && kind(raw) == "object" {
		refNames = slices.DeleteFunc(slices.Clone(refNames), func(n string) bool { return n == "ground_truth" })
		if s.GroundTruth, err = numbers("ground_truth", raw); err != nil {
			return rec, err
		}
	}
	if s.Reference, _, err = pickString(fields, refNames); err != nil {
		return rec, err
	}

	contexts, ctxName, err := pickContexts(fields)
	if err != nil {
		return rec, err
	}
	for i, c := range contexts {
		s.Sources = append(s.Sources, eval.Source{ID: "c" + strconv.Itoa(i+1), Text: c})
	}
	hasContexts := ctxName != ""
	if raw, ok := fields["sources"]; ok && kind(raw) != "null" {
		if hasContexts {
			return rec, &eval.InputError{Field: "sources", Msg: "conflicts with " + ctxName}
		}
		hasContexts = true
		if kind(raw) != "array" {
			return rec, &eval.InputError{Field: "sources", Msg: "want an array of sources, got " + kind(raw)}
		}
		if err := json.Unmarshal(raw, &s.Sources); err != nil {
			return rec, &eval.InputError{Field: "sources", Msg: "want an array of sources: " + strings.TrimPrefix(err.Error(), "json: "), Err: err}
		}
	}
	hasConversation, err := readConversation(fields, &s)
	if err != nil {
		return rec, err
	}
	if err := judgeable(fields, hasQuery || hasAnswer || hasContexts || hasConversation); err != nil {
		return rec, err
	}

	if raw, ok := fields["id"]; ok {
		switch kind(raw) {
		case "string":
			rec.ID, _ = unquote(raw)
		case "number":
			rec.ID = string(bytes.TrimSpace(raw))
		case "null":
		default:
			return rec, &eval.InputError{Field: "id", Msg: "want a string or a number, got " + kind(raw)}
		}
	}
	if rec.Human, err = object(fields, "human"); err != nil {
		return rec, err
	}
	if s.Metadata, err = object(fields, "metadata"); err != nil {
		return rec, err
	}
	rec.Sample = s
	return rec, nil
}

// judgeable returns the error of a record that has nothing to judge
// (has is false) or a field misspelt (misspelt), nil for one that is fine.
func judgeable(fields map[string]json.RawMessage, has bool) *eval.InputError {
	if err := misspelt(fields); err != nil {
		return err
	}
	if !has {
		return &eval.InputError{Msg: "record has no question, answer, contexts or messages"}
	}
	return nil
}

// pickString returns the string of the first field of names present and
// not null. Another of them with a different value is an error.
func pickString(fields map[string]json.RawMessage, names []string) (string, bool, *eval.InputError) {
	var val, first string
	for _, n := range names {
		raw, ok := fields[n]
		if !ok || kind(raw) == "null" {
			continue
		}
		if kind(raw) != "string" {
			return "", false, &eval.InputError{Field: n, Msg: "want a string, got " + kind(raw)}
		}
		s, err := unquote(raw)
		if err != nil {
			return "", false, &eval.InputError{Field: n, Msg: "invalid string: " + err.Error(), Err: err}
		}
		switch {
		case first == "":
			val, first = s, n
		case s != val:
			return "", false, &eval.InputError{Field: n, Msg: "conflicts with " + first}
		}
	}
	return val, first != "", nil
}

// pickContexts is pickString for the contexts, arrays of strings. The
// name is the field used, "" when none is present.
func pickContexts(fields map[string]json.RawMessage) ([]string, string, *eval.InputError) {
	var val []string
	var first string
	for _, n := range contextNames {
		raw, ok := fields[n]
		if !ok || kind(raw) == "null" {
			continue
		}
		if kind(raw) == "string" {
			// The text of a list (a JSON export of a frame read from CSV).
			if text, err := unquote(raw); err == nil && looksLikeList(text) {
				items, msg := listText(text)
				if msg != "" {
					return nil, "", &eval.InputError{Field: n, Msg: msg}
				}
				raw = jsonString(items)
			}
		}
		if kind(raw) != "array" {
			return nil, "", &eval.InputError{Field: n, Msg: "want an array of strings, got " + kind(raw)}
		}
		texts, ierr := contextTexts(n, raw)
		if ierr != nil {
			return nil, "", ierr
		}
		switch {
		case first == "":
			val, first = texts, n
		case !slices.Equal(texts, val):
			return nil, "", &eval.InputError{Field: n, Msg: "conflicts with " + first}
		}
	}
	return val, first, nil
}

// contextTexts are the texts of raw, field n's array of strings: read in
// one pass when every element is a string (stringsFast), else element by
// element, to say which is not.
func contextTexts(n string, raw json.RawMessage) ([]string, *eval.InputError) {
	if texts, ok := stringsFast(raw); ok {
		return texts, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, &eval.InputError{Field: n, Msg: "invalid array: " + err.Error(), Err: err}
	}
	texts := make([]string, 0, len(elems))
	for i, e := range elems {
		var t string
		if kind(e) != "string" || json.Unmarshal(e, &t) != nil {
			return nil, &eval.InputError{Field: fmt.Sprintf("%s[%d]", n, i), Msg: "want a string, got " + kind(e)}
		}
		texts = append(texts, t)
	}
	return texts, nil
}

// object decodes an optional object field; null is nil.
func object(fields map[string]json.RawMessage, name string) (map[string]any, *eval.InputError) {
	raw, ok := fields[name]
	if !ok || kind(raw) == "null" {
		return nil, nil
	}
	if kind(raw) != "object" {
		return nil, &eval.InputError{Field: name, Msg: "want an object, got " + kind(raw)}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		if ute, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && strings.HasPrefix(ute.Value, "number") {
			// The only value of an object that decodes into no Go value.
			return nil, &eval.InputError{Field: name, Msg: ute.Value + " is beyond the range of a 64-bit float (about ±1.8e308)", Err: err}
		}
		return nil, &eval.InputError{Field: name, Msg: "invalid object: " + strings.TrimPrefix(err.Error(), "json: "), Err: err}
	}
	return m, nil
}

// numbers decodes an object of numbers.
func numbers(name string, raw json.RawMessage) (map[string]float64, *eval.InputError) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &eval.InputError{Field: name, Msg: "want an object of numbers, got " + kind(raw)}
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		var f float64
		if kind(v) != "number" {
			return nil, &eval.InputError{Field: name + "." + k, Msg: "want a number, got " + kind(v)}
		}
		if err := json.Unmarshal(v, &f); err != nil {
			return nil, &eval.InputError{Field: name + "." + k, Msg: "number out of range: " + string(v)}
		}
		out[k] = f
	}
	return out, nil
}

// kind names the JSON type of a valid value.
func kind(raw json.RawMessage) string {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// kindName maps json.UnmarshalTypeError's Value to kind's names.
func kindName(v string) string {
	if v == "bool" {
		return "boolean"
	}
	return v
}

// DecodeRecord reads one record, a JSON object with the fields [Read]
// takes, from data; name is what errors call it (the field path of a
// request, "samples[2]"). Its Line is 1 and, without an "id", its ID is
// "line-1". Errors are *eval.InputError as Read's.
func DecodeRecord(name string, data []byte) (Record, error) {
	var rec Record
	d := &datasetReader{name: name, yield: func(r Record) bool { rec = r; return true }}
	if err := d.add(1, 0, data); err != nil {
		return Record{}, err
	}
	return rec, nil
}
