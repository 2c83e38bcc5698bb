package report

import (
	"html/template"
	"io"
	"slices"

	"github.com/assaylabs/assay/run"
)

// table is report.html's table of samples: its metric columns, its rows
// and their markup (most of the page), and what its results count.
type table struct {
	Columns  []string
	Rows     []sampleRow
	RowsHTML []template.HTML
	// values are the scored values by metric, for the histograms of a
	// run read whole (no Bounds).
	values                                   map[string][]float64
	Defaulted, Skipped, Errors, NotEvaluable int
	FirstMetric, Width                       int
	// texts is true when the rows hold their samples' texts.
	texts bool
}

// newTable draws the table of results for a run of cfg whose summary
// has metrics (in cfg's order), with data's texts and baseline values:
// columns are cfg's metrics in the order they were asked for, then any
// others the summary or the results name; rows are in SampleOrder.
func newTable(cfg run.Config, metrics []run.MetricStats, results *run.ResultFile, data Data) *table {
	t := &table{}
	thresholds := map[string]float64{}
	addColumn := func(m string) {
		if !slices.Contains(t.Columns, m) {
			t.Columns = append(t.Columns, m)
		}
	}
	for _, m := range cfg.Metrics {
		addColumn(m)
	}
	for _, m := range metrics {
		addColumn(m.Metric)
		thresholds[m.Metric] = m.Threshold
	}

	// Rows, in SampleOrder: a parallel run writes results.jsonl in the
	// order its judgements finished, which is not fixed.
	t.values = map[string][]float64{}
	if results != nil {
		t.values = t.addResults(results, addColumn)
	}
	slices.SortFunc(t.Rows, func(a, b sampleRow) int { return run.SampleOrder(a.ID, b.ID) })
	for i := range t.Rows {
		row := &t.Rows[i]
		if tx, ok := data.Texts[row.ID]; ok {
			row.Text = &tx
			row.Question = preview(tx.Question.Text, questionChars)
			if tx.Conversation != nil && row.Question == "" {
				row.Question = preview(tx.Conversation.firstUser(), questionChars)
			}
		}
		for j := range row.Results {
			rv := &row.Results[j]
			if b, ok := data.Baseline[rv.Key()]; ok {
				rv.Base = &b
				rv.Flip = flipOf(b, rv.Result, thresholds)
			}
		}
		for _, m := range t.Columns {
			row.Cells = append(row.Cells, cellOf(m, row.Results, thresholds))
		}
		// Evidence in column order.
		slices.SortStableFunc(row.Results, func(a, b resultView) int {
			return slices.Index(t.Columns, a.Metric) - slices.Index(t.Columns, b.Metric)
		})
		if row.Text != nil && row.Text.Conversation != nil {
			row.Conv = newConvView(row.Text.Conversation, row.Results)
		}
	}

	t.FirstMetric, t.texts = 1, data.Texts != nil
	if t.texts {
		t.FirstMetric = 2 // after the question
	}
	t.Width = t.FirstMetric + len(t.Columns)
	t.RowsHTML = drawRows(t)
	return t
}

// addResults adds a row per sample of results, in the order the file
// has them, each with its results; counts the defaulted, skipped and
// failed ones; hands each metric to addColumn; and returns the scored
// values by metric.
func (t *table) addResults(results *run.ResultFile, addColumn func(string)) map[string][]float64 {
	// A row a sample, of a result a column, most often.
	rows := len(results.Results) / max(1, len(t.Columns))
	byID := make(map[string]int, rows)
	t.Rows = slices.Grow(t.Rows, rows)
	values := map[string][]float64{}
	for r := range results.All() {
		addColumn(r.Metric)
		i, ok := byID[r.ID]
		if !ok {
			i = len(t.Rows)
			byID[r.ID] = i
			t.Rows = append(t.Rows, sampleRow{ID: r.ID, Results: make([]resultView, 0, len(t.Columns))})
		}
		t.Rows[i].Results = append(t.Rows[i].Results, resultView{Result: r})
		switch {
		case r.Defaulted:
			t.Defaulted++
			t.Rows[i].Marked = true
		case r.Skipped:
			t.Skipped++
			if r.NotEvaluable() {
				t.NotEvaluable++
			}
			t.Rows[i].Marked = true
		case r.Error != "":
			t.Errors++
			t.Rows[i].Marked = true
		default:
			values[r.Metric] = append(values[r.Metric], r.Value)
		}
	}
	return values
}

// SampleTable is report.html's table of samples drawn ahead of the page
// (DrawSampleTable). Its rows are most of the page's work and need of the run's
// summary only its metrics and their thresholds, which a run knows
// before it has computed its statistics: bench draws the table while it
// makes its summary, then writes the page with SampleTable.WriteHTML.
type SampleTable struct {
	cfg     run.Config
	metrics []run.MetricStats // Metric and Threshold only
	results *run.ResultFile
	data    Data
	table   table
}

// DrawSampleTable draws the table of report.html for a run of cfg whose
// summary will have metrics, each with its threshold, from results and
// data's texts and baseline values (see WriteHTML).
func DrawSampleTable(cfg run.Config, metrics []string, threshold func(string) float64, results *run.ResultFile, data Data) *SampleTable {
	ms := make([]run.MetricStats, len(metrics))
	for i, m := range metrics {
		ms[i] = run.MetricStats{Metric: m, Threshold: threshold(m)}
	}
	return &SampleTable{cfg: cfg, metrics: ms, results: results, data: data, table: *newTable(cfg, ms, results, data)}
}

// WriteHTML is WriteHTML(w, cfg, s, results, data) with the table's
// results, and its texts and baseline values in place of data's: the
// table drawn ahead is the page's when s's metrics (in cfg's order) and
// their thresholds, and cfg's metrics, are those it was drawn for;
// otherwise it is drawn again, so the page is the same either way.
func (t *SampleTable) WriteHTML(w io.Writer, cfg run.Config, s run.Summary, data Data) error {
	data.Texts, data.Baseline = t.data.Texts, t.data.Baseline
	return writeHTML(w, newReportView(cfg, s, t.results, data, t))
}

// drawnFor reports whether t was drawn for a run of cfg whose summary
// has metrics (in cfg's order); false for a nil t.
func (t *SampleTable) drawnFor(cfg run.Config, metrics []run.MetricStats) bool {
	if t == nil || !slices.Equal(t.cfg.Metrics, cfg.Metrics) {
		return false
	}
	return slices.EqualFunc(t.metrics, metrics, func(a, b run.MetricStats) bool {
		return a.Metric == b.Metric && a.Threshold == b.Threshold
	})
}
