package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

//go:embed report.tmpl
var reportTemplate string

// reportTmpl is parsed once, on the first report written rather than at
// package load, which every command would pay for.
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(reportFuncs).Parse(reportTemplate))
})

// reportFuncs format numbers the way the summary table does ("–" for an
// undefined statistic).
var reportFuncs = template.FuncMap{
	"num":  fmtNum,
	"f3":   func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) },
	"pct":  func(n run.Num) string { return fmtPct(float64(n)) },
	"rate": fmtPct,
	"p": func(n run.Num) string {
		if !n.Defined() {
			return "–"
		}
		return PText(n)
	},
	"inc": func(i int) int { return i + 1 },
	// visible shows a name's control and bidirectional formatting
	// characters as their escapes (page.vis).
	"visible": termtext.Visible,
	"usd":     fmtUSD,
	"dur":     fmtDur,
	"when":    fmtWhen,
	"short":   func(s string) string { return s[:min(len(s), 12)] },
	"join":    strings.Join,
	"add":     func(a, b int) int { return a + b },
	"count":   plural.Count,
	"signed": func(n run.Num) string {
		if v := float64(n); !math.IsNaN(v) && v > 0 {
			return "+" + fmtNum(n)
		}
		return fmtNum(n)
	},
}

// WriteHTML writes report.html: one self-contained page (its style and
// its few lines of script inline, nothing fetched) with the run's header,
// each metric's figures and the histogram of its scored values, the gates
// and alerts, the comparison with the baseline when there is one, and a
// table of the samples results holds, one row each in SampleOrder,
// sortable by metric, filtered by metric, by state (failed, defaulted,
// skipped, error, flipped against the baseline) and by a text search,
// each row opening to the sample's texts (data.Texts: question, answer,
// contexts, reference, long ones folded), its conversation when it has
// one (the turns in order, each tool call with its arguments and joined
// result, the expected calls beside them, and a mark on each turn or
// call where a metric lost points, as its evidence names it), and each
// metric's value, reason and evidence, beside its value in the baseline
// (data.Baseline). Metrics
// come in the order of cfg's, then any others the summary or the results
// name. Neutral defaults, skipped samples and errors are marked in the
// table and never drawn in a histogram. Every text that comes from the
// dataset or a model is escaped. results may be nil (no samples).
func WriteHTML(w io.Writer, cfg run.Config, s run.Summary, results *run.ResultFile, data Data) error {
	return writeHTML(w, newReportView(cfg, s, results, data, nil))
}

func writeHTML(w io.Writer, v reportView) error {
	if err := reportTmpl().Execute(w, v); err != nil {
		return fmt.Errorf("writing %s: %w", run.FileReport, err)
	}
	return nil
}

// rowsPart is some of the table's samples, for page.rows.
type rowsPart struct {
	Rows  []sampleRow
	Texts bool
	Width int
}

// drawRows draws t's samples (most of the page) in Go (page.rows), in
// as many parts at once as there are processors, each part escaped as
// the template escapes the page.
func drawRows(v *table) []template.HTML {
	parts := min(runtime.GOMAXPROCS(0), max(len(v.Rows)/16, 1))
	out := make([]template.HTML, parts)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			lo, hi := i*len(v.Rows)/parts, (i+1)*len(v.Rows)/parts
			var p page
			p.rows(rowsPart{Rows: v.Rows[lo:hi], Texts: v.texts, Width: v.Width})
			out[i] = template.HTML(p.String()) //nolint:gosec // every value escaped by page.esc, as the template escapes it
		})
	}
	wg.Wait()
	return out
}

// reportView is what the template draws.
type reportView struct {
	Cfg      run.Config
	S        run.Summary
	RunID    string
	Duration time.Duration
	Settings []keyValue
	Prompts  []keyValue
	Metrics  []metricView
	Columns  []string
	Rows     []sampleRow
	// RowsHTML are Rows drawn (drawRows).
	RowsHTML []template.HTML
	// Marked counts the results the table marks: defaulted, skipped (and
	// of them not_evaluable) and errors.
	Defaulted, Skipped, Errors, NotEvaluable int
	GatesFailed                              int
	// Failed lists why the run failed (Data.Failed, else its failed
	// gates and its alerts): the header says failed, never complete.
	Failed []string
	// Shown, when not 0, is how many samples the table holds of the run's:
	// the Lowest of each metric and Also more that flipped against the
	// baseline (bench.ReadResultsBounded); Left is how many it leaves out.
	Shown, Lowest, Also, Left int
	// Texts is true when the rows hold their samples' texts; TextsErr
	// says why they do not, when they were asked for.
	Texts    bool
	TextsErr string
	// Baseline is true when the rows hold their values in the baseline.
	Baseline bool
	// FirstMetric is the table column of the first metric, Width the
	// number of columns.
	FirstMetric, Width int
}

type keyValue struct{ Key, Value string }

// metricView is one metric's figures, its histogram and, in a labelled
// run, its reliability diagram.
type metricView struct {
	run.MetricStats
	Hist histogram
	// Rel is nil without a calibration.
	Rel *reliability
}

// Histogram geometry, in SVG user units.
const (
	histBins   = 10
	histWidth  = 420
	histHeight = 120
	histTop    = 14 // room for the count above the tallest bar
	histBase   = histTop + histHeight
)

// histogram is the distribution of a metric's scored values over ten bins
// of [0, 1], the last closed.
type histogram struct {
	Bars []histBar
	// Peak is the largest bin count.
	Peak  int
	Total int
	// Width, Mid and Height place the axis and its labels.
	Width, Mid, Height, Base float64
}

// histBar is one bin drawn as a rectangle.
type histBar struct {
	Lo, Hi float64
	Count  int
	X, Y   float64
	W, H   float64
	// CX and LabelY are where the count is written, above the bar.
	CX, LabelY float64
}

// newHistogram bins values into ten bins of [0, 1].
func newHistogram(values []float64) histogram {
	var counts run.Bins
	for _, v := range values {
		counts.Add(v)
	}
	return histogramOf(counts)
}

// histogramOf draws the counted bins.
func histogramOf(counts run.Bins) histogram {
	total := 0
	for _, c := range counts {
		total += c
	}
	h := histogram{Total: total, Width: histWidth, Mid: histWidth / 2, Height: histBase + 16, Base: histBase}
	for _, c := range counts {
		h.Peak = max(h.Peak, c)
	}
	const slot = float64(histWidth) / histBins
	for i, c := range counts {
		b := histBar{Lo: float64(i) / histBins, Hi: float64(i+1) / histBins, Count: c, X: float64(i)*slot + 1, W: slot - 2}
		if h.Peak > 0 {
			b.H = math.Round(float64(c)/float64(h.Peak)*histHeight*10) / 10
		}
		b.Y = histBase - b.H
		b.CX, b.LabelY = b.X+b.W/2, b.Y-3
		h.Bars = append(h.Bars, b)
	}
	return h
}

// Reliability diagram geometry, in SVG user units: a square plot of
// predicted (x) against observed (y) fraction, and under it a strip of
// the bins' sizes.
const (
	relLeft  = 34 // room for the y axis labels
	relTop   = 8
	relSide  = 200
	relGap   = 22 // the x axis labels
	relStrip = 36 // the tallest bin-size bar
	relRight = 10
)

// reliability is a metric's calibration drawn as a reliability diagram:
// each non-empty bin's mean value against the share of true labels in
// it, the diagonal of perfect calibration, and each bin's size.
type reliability struct {
	Brier, ECE float64
	// Total is how many labelled values the bins hold.
	Total int
	Bins  []relBin
	// Points is the curve through the non-empty bins, as SVG points.
	Points string
	// The plot's corners (value 0 at X0 and Y0, 1 at X1 and Y1), its
	// side and the diagram's size.
	X0, Y0, X1, Y1 float64
	Side           float64
	Width, Height  float64
	// Mid is the plot's middle, where 0.5 is labelled on each axis;
	// StripBase is the strip's base line.
	MidX, MidY, StripBase float64
}

// relBin is one bin: its point (when not empty) and its size bar.
type relBin struct {
	stats.Bin
	CX, CY float64
	X, W   float64
	Y, H   float64
}

// newReliability draws c; nil for a nil c.
func newReliability(c *stats.Calibration) *reliability {
	if c == nil {
		return nil
	}
	x := func(v float64) float64 { return round1(relLeft + v*relSide) }
	y := func(v float64) float64 { return round1(relTop + (1-v)*relSide) }
	r := &reliability{Brier: c.Brier, ECE: c.ECE, X0: x(0), Y0: y(0), X1: x(1), Y1: y(1), Side: relSide,
		Width: relLeft + relSide + relRight, Height: relTop + relSide + relGap + relStrip + 2,
		MidX: x(0.5), MidY: y(0.5), StripBase: relTop + relSide + relGap + relStrip}
	peak := 0
	for _, b := range c.Reliability {
		peak = max(peak, b.N)
		r.Total += b.N
	}
	var pts []string
	for _, b := range c.Reliability {
		rb := relBin{Bin: b, X: x(b.Lo) + 1, W: round1((b.Hi-b.Lo)*relSide - 2)}
		if peak > 0 {
			rb.H = round1(float64(b.N) / float64(peak) * relStrip)
		}
		rb.Y = r.StripBase - rb.H
		if b.N > 0 {
			rb.CX, rb.CY = x(b.MeanPredicted), y(b.FractionPositive)
			pts = append(pts, strconv.FormatFloat(rb.CX, 'f', -1, 64)+","+strconv.FormatFloat(rb.CY, 'f', -1, 64))
		}
		r.Bins = append(r.Bins, rb)
	}
	r.Points = strings.Join(pts, " ")
	return r
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// sampleRow is one sample: a cell per metric column, its texts and its
// results for the evidence.
type sampleRow struct {
	ID    string
	Cells []sampleCell
	// Text is the sample's texts, nil when not read; Question is the
	// start of its question, for the table.
	Text     *SampleText
	Question string
	// Conv is the sample's conversation with where each metric lost
	// points marked on it, nil when it has none.
	Conv    *convView
	Results []resultView
	// Marked is true when any of its results is defaulted, skipped or an
	// error.
	Marked bool
}

// resultView is one result of a sample with its value in the baseline.
type resultView struct {
	run.Result
	// Base is the baseline's result, nil when it has none.
	Base *run.Result
	// Flip is FlipFails or FlipPasses when the sample flipped.
	Flip string
}

// sampleCell is one metric's value of a sample.
type sampleCell struct {
	Metric string
	// State is "scored", "below" (failed: under the metric's threshold,
	// or failed by its card), "defaulted", "skipped", "not_evaluable" (a
	// conversation that could not be judged), "error" or "missing" (not
	// judged yet).
	State string
	Value float64
	// Sort is the value the table sorts by: the value when scored, else
	// empty (sorted last).
	Sort string
	// Base is the baseline's value as the cell shows it ("" without
	// one); Flip is FlipFails or FlipPasses when the sample flipped.
	Base, Flip string
}

// questionChars is how much of a question the table shows.
const questionChars = 90

// newReportView is what the template draws of the run: its table of
// samples is pre, drawn ahead, when pre was drawn for s's metrics and
// thresholds, else drawn now.
func newReportView(cfg run.Config, s run.Summary, results *run.ResultFile, data Data, pre *SampleTable) reportView {
	v := reportView{Cfg: cfg, S: s, RunID: cmpOr(s.RunID, cfg.RunID), Texts: data.Texts != nil, TextsErr: data.TextsErr, Baseline: data.Baseline != nil}
	v.setHeader(cfg, s, data)

	s.Metrics = run.InConfigOrder(s.Metrics, cfg.Metrics)
	v.S.Metrics = s.Metrics
	var t *table
	if pre.drawnFor(cfg, s.Metrics) {
		t = &pre.table
	} else {
		t = newTable(cfg, s.Metrics, results, data)
	}
	v.Columns, v.Rows, v.RowsHTML = t.Columns, t.Rows, t.RowsHTML
	v.Defaulted, v.Skipped, v.Errors, v.NotEvaluable = t.Defaulted, t.Skipped, t.Errors, t.NotEvaluable
	v.FirstMetric, v.Width = t.FirstMetric, t.Width

	b := results.Bounds()
	if b != nil {
		// The table holds the samples worth reading; the distributions
		// and the counts are the whole run's.
		v.Defaulted, v.Skipped, v.Errors, v.NotEvaluable = b.Defaulted, b.Skipped, b.Errors, b.NotEvaluable
		if b.Shown < s.Samples {
			v.Shown, v.Lowest, v.Also, v.Left = b.Shown, b.Lowest, b.Also, s.Samples-b.Shown
		}
	}
	for _, m := range s.Metrics {
		h := newHistogram(t.values[m.Metric])
		if b != nil {
			h = histogramOf(b.Bins[m.Metric])
		}
		v.Metrics = append(v.Metrics, metricView{MetricStats: m, Hist: h, Rel: newReliability(m.Calibration)})
	}
	return v
}

// setHeader fills what the report's head shows of the run: when it ran
// and for how long, its settings and prompts, and what failed (gates and
// alerts, unless data names the failures).
func (v *reportView) setHeader(cfg run.Config, s run.Summary, data Data) {
	started := s.Started
	if started.IsZero() {
		started = cfg.Started
	}
	if !started.IsZero() && !s.Finished.IsZero() {
		v.Duration = s.Finished.Sub(started)
	}
	v.S.Started = started
	for _, k := range slices.Sorted(maps.Keys(cfg.Settings)) {
		v.Settings = append(v.Settings, keyValue{k, cfg.Settings[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Prompts)) {
		v.Prompts = append(v.Prompts, keyValue{k, cfg.Prompts[k]})
	}
	for _, g := range s.Gates {
		if !g.Passed {
			v.GatesFailed++
			v.Failed = append(v.Failed, "gate "+g.Gate+" failed")
		}
	}
	for _, a := range s.Alerts {
		v.Failed = append(v.Failed, a.Severity+" "+a.Type+" alert: "+a.Message)
	}
	if len(data.Failed) > 0 {
		v.Failed = data.Failed
	}
}

// cellOf is metric's cell among a sample's results.
func cellOf(metric string, rs []resultView, thresholds map[string]float64) sampleCell {
	c := sampleCell{Metric: metric, State: "missing"}
	for _, r := range rs {
		if r.Metric != metric {
			continue
		}
		c.Value = r.Value
		c.State = stateOf(r.Result, thresholds)
		if c.State == "scored" || c.State == "below" {
			c.Sort = strconv.FormatFloat(r.Value, 'f', -1, 64)
		}
		if r.Base != nil {
			c.Base = stateOf(*r.Base, thresholds)
			if c.Base == "scored" || c.Base == "below" {
				c.Base = f3(r.Base.Value)
			}
			c.Flip = r.Flip
		}
	}
	return c
}

// stateOf is how the table marks r: "scored", "below" (failed),
// "defaulted", "not_evaluable", "skipped" or "error".
func stateOf(r run.Result, thresholds map[string]float64) string {
	switch {
	case r.Defaulted:
		return "defaulted"
	case r.NotEvaluable():
		return eval.NotEvaluable
	case r.Skipped:
		return "skipped"
	case r.Error != "":
		return "error"
	}
	t, ok := thresholds[r.Metric]
	if (ok || r.Pass != nil) && !run.Passes(r.Pass, r.Value, t) {
		return "below"
	}
	return "scored"
}

// flipOf says how a sample's result flipped from base to cur, as Compare
// counts it: FlipFails, FlipPasses or "" (no flip, or one of them not
// counted).
func flipOf(base, cur run.Result, thresholds map[string]float64) string {
	if !base.Counted() || !cur.Counted() {
		return ""
	}
	t := thresholds[cur.Metric]
	was, now := run.Passes(base.Pass, base.Value, t), run.Passes(cur.Pass, cur.Value, t)
	switch {
	case was && !now:
		return run.FlipFails
	case !was && now:
		return run.FlipPasses
	}
	return ""
}

// clip is an item of an evidence list (a gap, an issue) cut to
// MaxItem, saying how much it left out.
func clip(s string) string {
	t := cutText(s, MaxItem)
	if t.Cut == 0 {
		return t.Text
	}
	return t.Text + "… (" + strconv.Itoa(t.Cut) + " more characters)"
}

// preview is the start of s, at most n characters on one line, with "…"
// when it goes on.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if n == 0 {
			i = j
			break
		}
		n--
	}
	return strings.TrimSpace(s[:i]) + "…"
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fmtNum writes a statistic to three places, "–" when undefined.
func fmtNum(n run.Num) string {
	v := float64(n)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// f3 writes a number to three places.
func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// fmtPct writes a rate in [0, 1] as a percentage, "–" when undefined.
func fmtPct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v*100, 'f', 1, 64) + "%"
}

func fmtUSD(v float64) string {
	if v == 0 {
		return "$0"
	}
	return "$" + strconv.FormatFloat(v, 'f', 4, 64)
}

// fmtDur rounds a duration for reading: milliseconds under a second,
// tenths of a second above.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

func fmtWhen(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
