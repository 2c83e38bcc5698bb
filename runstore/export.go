package runstore

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/atomicfile"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
)

// The formats of `assay runs export`.
const (
	ExportCSV     = "csv"
	ExportJSONL   = "jsonl"
	ExportParquet = "parquet"
)

// exportFormats are the formats Runs.Export writes.
var exportFormats = []string{ExportCSV, ExportJSONL, ExportParquet}

// ContextSeparator joins a sample's contexts in a CSV cell; JSON Lines
// and Parquet keep them a list.
const ContextSeparator = "\n\n"

// Exported is what Runs.Export wrote.
type Exported struct {
	// Run is the run's id; Rows how many rows were written, one per
	// (sample, metric).
	Run  string
	Rows int
	// Columns are the columns, the metadata ones included.
	Columns []string
	// Note, when not empty, says why the samples' fields are missing or
	// may not be those judged (the dataset moved or changed), its control
	// characters and bidi overrides escaped (termtext.Visible): it names
	// the dataset as the run's config.json does, which is data.
	Note string
}

// exportResult is what a row keeps of a result.
type exportResult struct {
	metric, method, reason, err string
	value, points, max          float64
	pass                        *bool
	defaulted, skipped          bool
	usage                       eval.Usage
}

// Export writes run ref (a run folder, or a run id or the beginning of
// one) as a table in format (exportFormats), one row per (sample,
// metric) in the dataset's order, each metric in the run's order: the
// sample's id, question, answer, contexts (a list in JSON Lines and
// Parquet, joined by ContextSeparator in CSV), reference and metadata
// (flattened to one column per key, "metadata.key.sub"), then the
// metric, value, points, max, pass (the card's verdict, else the value
// against the run's threshold; null for a default or a skip),
// defaulted, skipped, error, reason, model (how it was judged),
// latency_ms and cost_usd (null when unknown). The shape a pandas or
// DuckDB user loads directly.
//
// The samples' fields are read again from the run's dataset (or the
// copy of standard input its folder keeps), record by record; results are held without their evidence. A dataset that no
// longer reads leaves the fields empty and Exported.Note says why.
func (r Runs) Export(ctx context.Context, ref, format string, w io.Writer) (*Exported, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	if err := report.CheckOutputFormat(format, exportFormats...); err != nil {
		return nil, err
	}
	v, err := r.load(ctx, ref, true)
	if err != nil {
		return nil, err
	}
	return export(v, format, w)
}

// export is Export of the run v.
func export(v *RunView, format string, w io.Writer) (*Exported, error) {
	results, byID, err := readExportResults(v.Dir)
	if err != nil {
		return nil, eval.AsInputError("", err)
	}
	x := &exporter{run: v, results: results, byID: byID, metricOrder: map[string]int{}, threshold: map[string]float64{}}
	for i, m := range v.Config.Metrics {
		x.metricOrder[m] = i
	}
	for _, m := range v.Summary.Metrics {
		x.threshold[m.Metric] = m.Threshold
	}
	out := &Exported{Run: v.ID}
	records, note := x.openDataset()
	out.Note = termtext.Visible(note)
	meta, names, err := metadataColumns(records)
	if err != nil {
		return nil, err
	}
	rw, cols, err := newRowWriter(format, w, meta)
	if err != nil {
		return nil, err
	}
	out.Columns = cols
	n, err := x.write(records, names, rw)
	out.Rows = n
	if cerr := rw.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ExportFile is Export to the file at path, written whole or not at
// all, or to stdout when path is empty or "-".
func (r Runs) ExportFile(ctx context.Context, ref, format, path string, stdout io.Writer) (*Exported, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	if path == "" || path == "-" {
		return r.Export(ctx, ref, format, stdout)
	}
	if err := report.CheckOutputFormat(format, exportFormats...); err != nil {
		return nil, err
	}
	if err := report.CheckOutFile("-o", path); err != nil {
		return nil, err
	}
	v, err := r.load(ctx, ref, true)
	if err != nil {
		return nil, err
	}
	if err := report.CheckNotInput("-o", path, append(run.Files(v.Dir), v.Config.Dataset)...); err != nil {
		return nil, err
	}
	var out *Exported
	err = atomicfile.Write(path, 0o644, func(w io.Writer) error {
		var err error
		out, err = export(v, format, w)
		return err
	})
	return out, err
}

// readExportResults reads the results of the run in dir, the last line
// of each pair, without their evidence, and indexes them by sample.
func readExportResults(dir string) ([]exportResult, map[string][]int32, error) {
	var results []exportResult
	byID := map[string][]int32{}
	err := run.EachResult(filepath.Join(dir, run.FileResults), func(r run.Result) {
		byID[r.ID] = append(byID[r.ID], int32(len(results)))
		results = append(results, exportResult{metric: r.Metric, method: r.Method, reason: r.Reason, err: r.Error,
			value: r.Value, points: r.Points, max: r.Max, pass: r.Pass, defaulted: r.Defaulted, skipped: r.Skipped, usage: r.Usage})
	})
	return results, byID, err
}

type exporter struct {
	run         *RunView
	results     []exportResult
	byID        map[string][]int32
	metricOrder map[string]int
	threshold   map[string]float64
}

// openDataset opens the run's dataset to read its records again, or
// says why it cannot (nil records). The copy of standard input (or of a
// pipe) the run folder keeps, dataset.SpoolName, is read when its hash is
// the run's: it holds the very bytes judged.
func (x *exporter) openDataset() (iter.Seq2[dataset.Record, error], string) {
	cfg := x.run.Config
	path, name := cfg.Dataset, cfg.Dataset
	var format dataset.Format
	if spool := filepath.Join(x.run.Dir, dataset.SpoolName); cfg.DatasetSHA256 != "" {
		if sha, err := dataset.FileSHA256(spool); err == nil && sha == cfg.DatasetSHA256 {
			path, name, format = spool, spool, dataset.FormatJSON
		}
	}
	if format == "" && (cfg.Dataset == "" || cfg.Dataset == dataset.Stdin) {
		return nil, fmt.Sprintf("the run read its dataset from standard input and its folder keeps no copy of it (%s): the samples' fields are left empty", dataset.SpoolName)
	}
	var recs iter.Seq2[dataset.Record, error]
	if cfg.Profile != "" {
		d, err := dataset.OpenProfileData(path, name, cfg.Profile, nil)
		if err != nil {
			return nil, fmt.Sprintf("the run's dataset %s does not read (%v): the samples' fields are left empty", name, err)
		}
		recs = d.Records()
	} else {
		d, err := dataset.Open(path, dataset.Options{Name: name, Format: format})
		if err != nil {
			return nil, fmt.Sprintf("the run's dataset %s does not read (%v): the samples' fields are left empty", name, err)
		}
		recs = d.Records()
	}
	if format != "" {
		return recs, ""
	}
	if sha, err := dataset.FileSHA256(path); err == nil && cfg.DatasetSHA256 != "" && sha != cfg.DatasetSHA256 {
		return recs, fmt.Sprintf("the run's dataset %s changed since the run (sha256 %s, then %s): the samples' fields may not be those judged", name, short(sha), short(cfg.DatasetSHA256))
	}
	return recs, ""
}

func short(sha string) string { return sha[:min(len(sha), 12)] }

// write writes a row per result: the dataset's samples in order, then
// the results of samples the dataset lacks, in SampleOrder.
func (x *exporter) write(records iter.Seq2[dataset.Record, error], names metaNames, rw rowWriter) (int, error) {
	n := 0
	done := map[string]bool{}
	emit := func(id string, s *eval.Sample) error {
		idx := slices.Clone(x.byID[id])
		slices.SortFunc(idx, func(a, b int32) int {
			ma, mb := x.results[a].metric, x.results[b].metric
			oa, oka := x.metricOrder[ma]
			ob, okb := x.metricOrder[mb]
			return cmp.Or(cmp.Compare(boolInt(!oka), boolInt(!okb)), cmp.Compare(oa, ob), strings.Compare(ma, mb))
		})
		row := exportRow{id: id, contexts: []string{}}
		if s != nil {
			row.sample = true
			row.question, row.answer, row.reference = s.Query, s.Answer, s.Reference
			row.contexts = contextsOf(*s)
			row.meta = names.flat(s.Metadata)
		}
		for _, i := range idx {
			row.result = x.results[i]
			row.pass = x.passOf(row.result)
			if err := rw.write(row); err != nil {
				return err
			}
			n++
		}
		return nil
	}
	if records != nil {
		for rec, err := range records {
			if err != nil {
				return n, err
			}
			if _, ok := x.byID[rec.ID]; !ok || done[rec.ID] {
				continue
			}
			done[rec.ID] = true
			if err := emit(rec.ID, &rec.Sample); err != nil {
				return n, err
			}
		}
	}
	rest := slices.DeleteFunc(slices.Collect(maps.Keys(x.byID)), func(id string) bool { return done[id] })
	slices.SortFunc(rest, run.SampleOrder)
	for _, id := range rest {
		if err := emit(id, nil); err != nil {
			return n, err
		}
	}
	return n, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// passOf is whether a result passes: its card's verdict, else its value
// against the run's threshold; nil for a default or a skip.
func (x *exporter) passOf(r exportResult) *bool {
	if r.defaulted || r.skipped {
		return nil
	}
	p := run.Passes(r.pass, r.value, x.threshold[r.metric])
	return &p
}

// contextsOf is a sample's contexts: its sources' texts, else its
// assembled context.
func contextsOf(s eval.Sample) []string {
	out := []string{}
	for _, src := range s.Sources {
		out = append(out, src.Text)
	}
	if len(out) == 0 && s.Context != nil && s.Context.Text != "" {
		out = append(out, s.Context.Text)
	}
	return out
}

// The kinds of a metadata column: every value a number, every value a
// boolean, or text (anything else, lists and mixtures as JSON).
const (
	kindNumber = iota
	kindBool
	kindText
)

// metaColumn is a flattened metadata key ("metadata.a.b") and its kind.
type metaColumn struct {
	name string
	kind int
}

// metaNames names the metadata columns: each leaf of the metadata
// (a value other than a non-empty object) by its path, its keys joined
// by dots ("metadata.key.sub"). Two paths that would share a name (a key
// "a.b" beside an object "a" holding "b") are named with the dots and
// backslashes of their keys escaped ("metadata.a\.b", "metadata.a.b"), so
// that no column stands for two values. The zero value escapes nothing.
type metaNames struct {
	// escaped are the leaves, by their escaped path, named by it.
	escaped map[string]bool
}

// walkMetadata hands fn each leaf of m that is not null: its plain name,
// its escaped name (metaNames) and its value, keys in sorted order.
func walkMetadata(m map[string]any, fn func(plain, escaped string, v any)) {
	var walk func(plain, escaped string, m map[string]any)
	walk = func(plain, escaped string, m map[string]any) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			p, e := plain+"."+k, escaped+"."+metaKeyEscaper.Replace(k)
			switch v := m[k].(type) {
			case nil:
			case map[string]any:
				if len(v) > 0 {
					walk(p, e, v)
					continue
				}
				fn(p, e, v)
			default:
				fn(p, e, v)
			}
		}
	}
	walk("metadata", "metadata", m)
}

// metaKeyEscaper escapes a metadata key in a column's name.
var metaKeyEscaper = strings.NewReplacer(`\`, `\\`, ".", `\.`)

// name is the column of the leaf named plain, escaped as escaped.
func (n metaNames) name(plain, escaped string) string {
	if n.escaped[escaped] {
		return escaped
	}
	return plain
}

// flat flattens metadata to its columns (metaNames); values other than
// objects are kept as they are.
func (n metaNames) flat(m map[string]any) map[string]any {
	out := map[string]any{}
	walkMetadata(m, func(plain, escaped string, v any) { out[n.name(plain, escaped)] = v })
	return out
}

// newMetaNames names the leaves, each given by its escaped name with its
// plain one: plainly, but for those whose name another leaf would share,
// which are escaped, until no two share one.
func newMetaNames(leaves map[string]string) metaNames {
	n := metaNames{escaped: map[string]bool{}}
	for {
		by := map[string][]string{}
		for escaped, plain := range leaves {
			name := n.name(plain, escaped)
			by[name] = append(by[name], escaped)
		}
		changed := false
		for _, shared := range by {
			for _, escaped := range shared {
				if len(shared) > 1 && !n.escaped[escaped] {
					n.escaped[escaped], changed = true, true
				}
			}
		}
		if !changed {
			return n
		}
	}
}

// metadataColumns reads the records once for the metadata keys they
// carry, sorted, each with its kind, and how they are named.
func metadataColumns(records iter.Seq2[dataset.Record, error]) ([]metaColumn, metaNames, error) {
	kinds, leaves := map[string]int{}, map[string]string{}
	if records != nil {
		for rec, err := range records {
			if err != nil {
				return nil, metaNames{}, err
			}
			walkMetadata(rec.Sample.Metadata, func(plain, escaped string, v any) {
				leaves[escaped] = plain
				kind := kindText
				switch v.(type) {
				case float64, int, int64, json.Number:
					kind = kindNumber
				case bool:
					kind = kindBool
				}
				if was, ok := kinds[escaped]; ok && was != kind {
					kind = kindText
				}
				kinds[escaped] = kind
			})
		}
	}
	names := newMetaNames(leaves)
	cols := make([]metaColumn, 0, len(kinds))
	for escaped, kind := range kinds {
		cols = append(cols, metaColumn{names.name(leaves[escaped], escaped), kind})
	}
	slices.SortFunc(cols, func(a, b metaColumn) int { return strings.Compare(a.name, b.name) })
	return cols, names, nil
}

// exportRow is one row: a sample's fields and one of its results.
type exportRow struct {
	id                          string
	sample                      bool // the dataset has the sample
	question, answer, reference string
	contexts                    []string
	meta                        map[string]any
	result                      exportResult
	pass                        *bool
}

// fixed columns, in order, around the metadata ones.
var (
	exportHead = []string{"id", "question", "answer", "contexts", "reference"}
	exportTail = []string{"metric", "value", "points", "max", "pass", "defaulted", "skipped", "error", "reason", "model", "latency_ms", "cost_usd"}
)

// value is the row's value, nil for a skip (its value means nothing).
func (r exportRow) value() *float64 {
	if r.result.skipped {
		return nil
	}
	return &r.result.value
}

// latency is the result's latency in milliseconds.
func (r exportRow) latency() float64 {
	return float64(r.result.usage.Latency) / float64(time.Millisecond)
}

// cost is the result's cost in US dollars, nil when unknown.
func (r exportRow) cost() *float64 {
	if r.result.usage.CostUnknown {
		return nil
	}
	return &r.result.usage.CostUSD
}

// text is a sample field, nil when the dataset lacks the sample.
func (r exportRow) text(s string) *string {
	if !r.sample {
		return nil
	}
	return &s
}

// metaText is a metadata value as text: a string as it is, anything
// else as JSON.
func metaText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// rowWriter writes rows in one format.
type rowWriter interface {
	write(exportRow) error
	close() error
}

// newRowWriter is the writer of format over w, and its columns.
func newRowWriter(format string, w io.Writer, meta []metaColumn) (rowWriter, []string, error) {
	cols := slices.Clone(exportHead)
	for _, m := range meta {
		cols = append(cols, m.name)
	}
	cols = append(cols, exportTail...)
	switch format {
	case ExportCSV:
		cw := csv.NewWriter(w)
		return &csvRows{w: cw, meta: meta}, cols, cw.Write(cols)
	case ExportJSONL:
		return &jsonlRows{w: bufio.NewWriter(w), meta: meta}, cols, nil
	}
	return newParquetRows(w, meta, cols), cols, nil
}

// csvRows writes CSV: a header, then a row per result; empty cells for
// what is null.
type csvRows struct {
	w    *csv.Writer
	meta []metaColumn
}

func (c *csvRows) write(r exportRow) error {
	num := func(f *float64) string {
		if f == nil || math.IsNaN(*f) {
			return ""
		}
		return strconv.FormatFloat(*f, 'g', -1, 64)
	}
	rec := []string{r.id, r.question, r.answer, strings.Join(r.contexts, ContextSeparator), r.reference}
	for _, m := range c.meta {
		v, ok := r.meta[m.name]
		switch {
		case !ok:
			rec = append(rec, "")
		case m.kind == kindText:
			rec = append(rec, metaText(v))
		default:
			rec = append(rec, fmt.Sprint(v))
		}
	}
	pass := ""
	if r.pass != nil {
		pass = strconv.FormatBool(*r.pass)
	}
	res := r.result
	lat := r.latency()
	rec = append(rec, res.metric, num(r.value()), num(&res.points), num(&res.max), pass, strconv.FormatBool(res.defaulted),
		strconv.FormatBool(res.skipped), res.err, res.reason, res.method, num(&lat), num(r.cost()))
	return c.w.Write(rec)
}

func (c *csvRows) close() error {
	c.w.Flush()
	return c.w.Error()
}

// jsonlRows writes JSON Lines: an object a row, its keys the columns in
// order, null for what is missing.
type jsonlRows struct {
	w    *bufio.Writer
	meta []metaColumn
	buf  []byte
}

func (j *jsonlRows) write(r exportRow) error {
	b := append(j.buf[:0], '{')
	field := func(name string, v any) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(name)
		val, err := json.Marshal(v)
		if err != nil {
			val = []byte("null")
		}
		b = append(append(append(b, k...), ':'), val...)
	}
	field("id", r.id)
	field("question", r.text(r.question))
	field("answer", r.text(r.answer))
	field("contexts", r.contexts)
	field("reference", r.text(r.reference))
	for _, m := range j.meta {
		field(m.name, r.meta[m.name])
	}
	res := r.result
	field("metric", res.metric)
	field("value", r.value())
	field("points", res.points)
	field("max", res.max)
	field("pass", r.pass)
	field("defaulted", res.defaulted)
	field("skipped", res.skipped)
	field("error", res.err)
	field("reason", res.reason)
	field("model", res.method)
	field("latency_ms", r.latency())
	field("cost_usd", r.cost())
	b = append(b, '}', '\n')
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *jsonlRows) close() error { return j.w.Flush() }

// ParquetRowGroup is how many rows a row group of an exported Parquet
// file holds: the writer holds one row group in memory at a time.
const ParquetRowGroup = 10_000

// parquetRows writes Parquet (parquet-go), its columns in the order of
// the other formats, Snappy-compressed (what
// pandas and DuckDB write by default): contexts a list of strings,
// metadata columns typed by their kind, optional columns null where a
// value is missing.
type parquetRows struct {
	w    *parquet.GenericWriter[any]
	meta []metaColumn
	row  [1]any
}

func newParquetRows(w io.Writer, meta []metaColumn, cols []string) *parquetRows {
	optString := func() parquet.Node { return parquet.Optional(parquet.String()) }
	optDouble := func() parquet.Node { return parquet.Optional(parquet.Leaf(parquet.DoubleType)) }
	g := parquet.Group{
		"id": parquet.String(), "question": optString(), "answer": optString(), "contexts": parquet.List(parquet.String()), "reference": optString(),
		"metric": parquet.String(), "value": optDouble(), "points": parquet.Leaf(parquet.DoubleType), "max": parquet.Leaf(parquet.DoubleType),
		"pass": parquet.Optional(parquet.Leaf(parquet.BooleanType)), "defaulted": parquet.Leaf(parquet.BooleanType), "skipped": parquet.Leaf(parquet.BooleanType),
		"error": parquet.String(), "reason": parquet.String(), "model": parquet.String(), "latency_ms": parquet.Leaf(parquet.DoubleType), "cost_usd": optDouble(),
	}
	for _, m := range meta {
		switch m.kind {
		case kindNumber:
			g[m.name] = optDouble()
		case kindBool:
			g[m.name] = parquet.Optional(parquet.Leaf(parquet.BooleanType))
		default:
			g[m.name] = optString()
		}
	}
	return &parquetRows{w: parquet.NewGenericWriter[any](w, parquet.NewSchema("result", orderedGroup{Group: g, order: cols}),
		parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(ParquetRowGroup)), meta: meta}
}

// orderedGroup is a Parquet group whose columns go in order, where
// parquet.Group, a map, sorts them by name: the file's columns are then
// in the order of the CSV and JSON Lines exports.
type orderedGroup struct {
	parquet.Group
	order []string // every name of Group, once
}

// Fields are the group's fields in order; each is a field of a group of
// one, so that it reads its value from a row as Group's own fields do.
func (g orderedGroup) Fields() []parquet.Field {
	fields := make([]parquet.Field, len(g.order))
	for i, name := range g.order {
		fields[i] = parquet.Group{name: g.Group[name]}.Fields()[0]
	}
	return fields
}

func (p *parquetRows) write(r exportRow) error {
	res := r.result
	m := map[string]any{
		"id": r.id, "question": r.text(r.question), "answer": r.text(r.answer), "contexts": r.contexts, "reference": r.text(r.reference),
		"metric": res.metric, "value": r.value(), "points": res.points, "max": res.max, "pass": r.pass, "defaulted": res.defaulted,
		"skipped": res.skipped, "error": res.err, "reason": res.reason, "model": res.method, "latency_ms": r.latency(), "cost_usd": r.cost(),
	}
	for _, c := range p.meta {
		v, ok := r.meta[c.name]
		switch {
		case !ok:
			m[c.name] = nil
		case c.kind == kindNumber:
			f := toFloat(v)
			m[c.name] = &f
		case c.kind == kindBool:
			b, _ := v.(bool)
			m[c.name] = &b
		default:
			s := metaText(v)
			m[c.name] = &s
		}
	}
	p.row[0] = m
	_, err := p.w.Write(p.row[:])
	return err
}

func (p *parquetRows) close() error { return p.w.Close() }

// toFloat is a number of decoded JSON as a float64.
func toFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case json.Number:
		f, _ := n.Float64()
		return f
	}
	return math.NaN()
}
