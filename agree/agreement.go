package agree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/mdtext"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// DefaultConcurrency is how many records are scored at once when a Judge
// does not say: the model server, not the CPU, is usually the bottleneck.
const DefaultConcurrency = 4

// Judge is a scorer to run over a dataset and compare with labels.
type Judge struct {
	// Scorer computes the value compared with the labels.
	Scorer eval.Scorer
	// Metric names the scorer in results; "" takes the Metric of the first
	// score.
	Metric string
	// Concurrency is how many records are scored at once; 0 or less means
	// DefaultConcurrency.
	Concurrency int
}

// Options says what the values are compared with.
type Options struct {
	// Label names the binary human label ("faithful", "relevant",
	// "hallucinated"); see dataset.Record.Label.
	Label string
	// Threshold, when set, is a fixed threshold (the judge's default) to
	// report besides the best one; nil reports only the best.
	Threshold *float64
	// Graded reads the label as a number (a grade: 1-5, 0-3) with
	// Grade, and measures graded agreement (GradedStats) instead of
	// binary; see LabelScan to tell which a dataset holds.
	Graded bool
	// Grades are the categories of a graded label, ascending, for the
	// weighted kappas; nil takes the union of the grades observed.
	Grades []float64
	// By, when set, is a field path (Field: meta.model,
	// human.annotator) whose value splits the rows into groups, each
	// measured apart besides the whole (a graded label's on the whole's
	// grades, the judge put on them as for the whole).
	By string
	// Estimate also keeps a row for each record without the label (its
	// judge value alone) and estimates the mean label over every record
	// from them and the labelled rows (Result.Mean).
	Estimate bool
	// Weight, with Estimate, is the field path (Field) of each labelled
	// record's weight, 1/its probability of being labelled: the
	// estimate is then weighted (Job.Weight).
	Weight string

	// whole, on a group's Options, is how the whole put a graded
	// label's judge on the grades: a group takes the same grades and
	// mapping, so that its figures are on the whole's scale.
	whole *wholeScale
}

// wholeScale is how the whole put a graded label's judge on the grades,
// for its statistics and for its estimate of the mean.
type wholeScale struct{ stats, mean scale }

// Row is the outcome for one labelled record.
type Row struct {
	ID    string  `json:"id"`
	Line  int     `json:"line"`
	Value float64 `json:"value"`
	// Label is the human label; for a graded label Grade holds it and
	// Label is false.
	Label bool     `json:"label"`
	Grade *float64 `json:"grade,omitempty"`
	// Points and Max are the score's native points (a grade 4 of 5), when
	// it has them: a graded label compares them as grades.
	Points float64 `json:"points,omitempty"`
	Max    float64 `json:"max,omitempty"`
	// Group is the record's value of Options.By, "" without one.
	Group string `json:"group,omitempty"`
	// Unlabelled marks a record without the label, kept for
	// Options.Estimate.
	Unlabelled bool `json:"unlabelled,omitempty"`
	// Weight is a labelled record's Options.Weight, 0 when it has no
	// number there.
	Weight float64 `json:"weight,omitempty"`
	// Defaulted is true when the scorer fell back to its neutral default;
	// such rows are left out of the statistics.
	Defaulted bool `json:"defaulted,omitempty"`
	// Err is the scorer's error: the default's cause, a returned error, a
	// panic, or a value that is NaN or infinite (Value is then 0). Rows
	// with Err are left out of the statistics.
	Err    string `json:"err,omitempty"`
	Method string `json:"method,omitempty"`

	// hasWeight is true when Weight was read from a number (not a
	// true or false) at Options.Weight, whatever its value.
	hasWeight bool
}

// counted reports whether the row enters the statistics.
func (r Row) counted() bool { return !r.Defaulted && r.Err == "" }

// ThresholdResult is the confusion matrix at one threshold, with its
// metrics.
type ThresholdResult struct {
	Threshold float64 `json:"threshold"`
	stats.Confusion
	BalancedAccuracy float64 `json:"balanced_accuracy"`
	Accuracy         float64 `json:"accuracy"`
	Precision        float64 `json:"precision"`
	Recall           float64 `json:"recall"`
	F1               float64 `json:"f1"`
	// Kappa is Cohen's kappa (Confusion.Kappa), undefined (null in JSON,
	// n/a in Markdown) when the predictions and the labels are all of one
	// and the same class.
	Kappa run.Num `json:"kappa"`
	// MCC is the Matthews correlation coefficient (Confusion.MCC).
	MCC float64 `json:"mcc"`
	// BalancedAccuracyCI is a 95% bootstrap interval for BalancedAccuracy
	// (stats.BalancedAccuracyCI), set for the fixed threshold only (and
	// when a row was measured): the best threshold's figure is optimistic
	// whatever its interval.
	BalancedAccuracyCI *[2]float64 `json:"balanced_accuracy_ci95,omitempty"`
}

// bootstrapReps is how many resamples the agreement intervals draw, and
// agreementSeed the fixed seed of the balanced accuracy's.
const (
	bootstrapReps = 2000
	agreementSeed = 0x5eed
)

func newThresholdResult(t float64, c stats.Confusion) ThresholdResult {
	return ThresholdResult{
		Threshold: t, Confusion: c,
		BalancedAccuracy: c.BalancedAccuracy(), Accuracy: c.Accuracy(),
		Precision: c.Precision(), Recall: c.Recall(), F1: c.F1(), Kappa: run.Num(c.Kappa()), MCC: c.MCC(),
	}
}

// Result is how well a scorer agrees with one human label.
type Result struct {
	Metric string `json:"metric"`
	Label  string `json:"label"`
	// LabelType is "binary" or "graded" (Options.Graded).
	LabelType string `json:"label_type"`
	// By is Options.By and Group the group's value, on the result of
	// a group; the whole has By and Groups, one result per value of By in
	// ascending order (records without it are the group "(none)").
	By     string   `json:"by,omitempty"`
	Group  string   `json:"group,omitempty"`
	Groups []Result `json:"groups,omitempty"`
	// N is the number of rows in the statistics: labelled, scored, not
	// defaulted, no error. Positives of them are labelled true.
	N         int `json:"n"`
	Positives int `json:"positives"`
	// Skipped counts records without the label (absent or unreadable;
	// Measure refuses a label that is there and unreadable).
	Skipped int `json:"skipped"`
	// Defaulted and Errors count rows left out of the statistics.
	Defaulted int `json:"defaulted"`
	Errors    int `json:"errors"`
	// Rows are the labelled records in dataset order.
	Rows []Row `json:"rows"`
	// AUC is the ROC AUC over the N rows (0 when one class is missing,
	// written as null in JSON).
	AUC float64 `json:"auc"`
	// Fixed is the result at Options.Threshold, nil when none was set.
	Fixed *ThresholdResult `json:"fixed,omitempty"`
	// Best is the result at the threshold of best balanced accuracy on
	// these rows: an optimistic figure unless checked on other data.
	Best ThresholdResult `json:"best"`
	// Calibration is set for a binary label when every value counted is in
	// [0, 1], read as the chance that the label is true.
	Calibration *stats.Calibration `json:"calibration,omitempty"`
	// GradedStats are set for a graded label (spearman, kendall_tau_b,
	// pearson, kappa_linear, kappa_quadratic, alpha_ordinal,
	// alpha_interval, mae, at the top level of the JSON); the binary
	// fields above are then zero.
	*GradedStats
	// Mean is the label's mean over every record estimated from the
	// labels and the judge (Options.Estimate); nil without.
	Mean *MeanEstimate `json:"ppi,omitempty"`
}

// Records scores every record that has the label opts.Label with job.Scorer,
// job.Concurrency at a time, and measures how well the values agree with
// the labels.
//
// A failing judge is data: a Defaulted score, a scorer error other than
// the context's, a panic, or a value that is NaN or infinite is kept on its
// Row, counted, and left out of the statistics. Only ctx stops the run: when it is done,
// Records returns ctx.Err() promptly, without starting more work, after every
// goroutine it started has returned.
func Records(ctx context.Context, records []dataset.Record, job Judge, opts Options) (Result, error) {
	return Stream(ctx, dataset.All(records), job, opts)
}

// Stream is Records over records read one at a time, from [dataset.Records]
// say: it keeps a Row per labelled record, not the records, and reads no
// further ahead of the scoring than [dispatch.Stream] (the in-process pool
// that hands out bench's work too). An error from records
// also stops the run, and is returned once the records read before it are
// scored.
func Stream(ctx context.Context, records iter.Seq2[dataset.Record, error], job Judge, opts Options) (Result, error) {
	var rows []Row
	skipped := 0
	labelled := func(yield func(dataset.Record, error) bool) {
		for rec, err := range records {
			if _, ok := opts.LabelOf(rec); err == nil && !ok && !opts.Estimate {
				skipped++
				continue
			}
			if !yield(rec, err) {
				return
			}
		}
	}
	limit := job.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	metric := job.Metric
	err := dispatch.Stream(ctx, labelled, []eval.Scorer{tolerant{job.Scorer}}, limit, dispatch.AheadPerSlot*limit, func(_ int, rec dataset.Record, scores []eval.Score) error {
		rows = append(rows, opts.row(rec, scores[0]))
		if metric == "" {
			metric = scores[0].Metric // "" for a failure
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	return Rows(metric, rows, skipped, opts), nil
}

// Values is Stream for values that are already known: a field
// of each record (ScoreField) or a stored run's results (StoredScores).
// value is called once per labelled record, in dataset order, and makes
// no model call; its Score's Err or Skipped leaves the row out, with the
// error on it. The first error of records is returned.
func Values(records iter.Seq2[dataset.Record, error], metric string, value func(dataset.Record) eval.Score, opts Options) (Result, error) {
	var rows []Row
	skipped := 0
	for rec, err := range records {
		if err != nil {
			return Result{}, err
		}
		if _, ok := opts.LabelOf(rec); !ok && !opts.Estimate {
			skipped++
			continue
		}
		sc := value(rec)
		if sc.Err != nil && !sc.Defaulted {
			sc.Err = &failure{sc.Err.Error()}
		}
		rows = append(rows, opts.row(rec, sc))
	}
	return Rows(metric, rows, skipped, opts), nil
}

// LabelOf reads rec's label as o says: a grade, or a binary label as 1
// or 0; ok is false when rec has no usable label.
func (o Options) LabelOf(rec dataset.Record) (float64, bool) {
	if o.Graded {
		return Grade(rec, o.Label)
	}
	v, ok := rec.Label(o.Label)
	if v {
		return 1, ok
	}
	return 0, ok
}

// row is the Row of a labelled record and its score.
func (o Options) row(rec dataset.Record, sc eval.Score) Row {
	l, ok := o.LabelOf(rec)
	row := rowOf(rec, l == 1 && !o.Graded, sc)
	row.Unlabelled = !ok
	if o.Graded && ok {
		row.Grade = &l
	}
	if o.By != "" {
		row.Group = groupOf(rec, o.By)
	}
	if o.Weight != "" && ok {
		if v, found := Field(rec, o.Weight); found {
			if _, isBool := v.(bool); !isBool {
				row.Weight, row.hasWeight = number(v)
			}
		}
	}
	return row
}

// NoGroup is the group of records without the Options.By field.
const NoGroup = "(none)"

func groupOf(rec dataset.Record, path string) string {
	v, ok := Field(rec, path)
	if !ok || v == nil {
		return NoGroup
	}
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	b, _ := json.Marshal(v) // decoded JSON always marshals
	return string(b)
}

// Rows computes the statistics of rows (in dataset order, from Records,
// Stream or Values; skipped records without the label) as opts
// says, for the whole and, with opts.By, for each group. With
// opts.Estimate, the unlabelled rows among them count as skipped for the
// agreement and enter the estimate of the mean; Result.Rows keeps the
// labelled ones.
func Rows(metric string, rows []Row, skipped int, opts Options) Result {
	res := measureAll(metric, rows, skipped, opts)
	if opts.By == "" {
		return res
	}
	res.By = opts.By
	if res.GradedStats != nil {
		opts.whole = &wholeScale{stats: res.GradedStats.scale}
		if res.Mean != nil {
			opts.whole.mean = res.Mean.scale
		}
	}
	by := map[string][]Row{}
	for _, r := range rows {
		by[r.Group] = append(by[r.Group], r)
	}
	for _, g := range slices.Sorted(maps.Keys(by)) {
		gr := measureAll(metric, by[g], 0, opts)
		gr.Group = g
		gr.Rows = nil // on the whole, once
		res.Groups = append(res.Groups, gr)
	}
	return res
}

// measureAll is measure of the labelled rows, with the mean estimated
// from all of them when opts.Estimate says.
func measureAll(metric string, rows []Row, skipped int, opts Options) Result {
	if !opts.Estimate {
		return measure(metric, rows, skipped, opts)
	}
	labelled := slices.DeleteFunc(slices.Clone(rows), func(r Row) bool { return r.Unlabelled })
	res := measure(metric, labelled, skipped+len(rows)-len(labelled), opts)
	res.Mean = estimateMean(rows, opts)
	return res
}

func measure(metric string, rows []Row, skipped int, opts Options) Result {
	res := Result{Metric: metric, Label: opts.Label, LabelType: "binary", Rows: rows, Skipped: skipped}
	var values []float64
	var labels []bool
	var counted []Row
	for _, row := range res.Rows {
		switch {
		case row.Defaulted:
			res.Defaulted++
		case row.Err != "":
			res.Errors++
		}
		if !row.counted() {
			continue
		}
		counted = append(counted, row)
		values = append(values, row.Value)
		labels = append(labels, row.Label)
		if row.Label {
			res.Positives++
		}
	}
	res.N = len(values)
	if opts.Graded {
		res.LabelType = "graded"
		res.Positives = 0
		var on *scale
		if opts.whole != nil {
			on = &opts.whole.stats
		}
		res.GradedStats = graded(counted, on, opts.Grades)
		return res
	}
	res.AUC = stats.AUC(values, labels)
	res.Best = newThresholdResult(stats.BestThreshold(values, labels))
	if opts.Threshold != nil {
		fixed := newThresholdResult(*opts.Threshold, stats.ConfusionAt(values, labels, *opts.Threshold))
		// No interval with no row: nothing was measured.
		if lo, hi := stats.BalancedAccuracyCI(values, labels, *opts.Threshold, bootstrapReps, agreementSeed); !math.IsNaN(lo) {
			fixed.BalancedAccuracyCI = &[2]float64{lo, hi}
		}
		res.Fixed = &fixed
	}
	res.Calibration = stats.Calibrate(values, labels, run.CalibrationBins)
	return res
}

// tolerant runs a scorer for Stream, where a failing scorer is data:
// its error or panic comes back as a Score whose Err is a *failure, so
// that dispatch.Stream goes on. Only ctx stops the run, and once it is done no
// scorer is started.
type tolerant struct{ eval.Scorer }

var _ eval.Scorer = tolerant{}

func (t tolerant) Score(ctx context.Context, s eval.Sample) (sc eval.Score, err error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	defer func() {
		if r := recover(); r != nil {
			sc, err = eval.Score{Err: &failure{fmt.Sprintf("scorer panicked: %v\n%s", r, debug.Stack())}}, nil
		}
	}()
	sc, err = t.Scorer.Score(ctx, s)
	if err != nil && ctx.Err() == nil {
		return eval.Score{Err: &failure{err.Error()}}, nil
	}
	return sc, err
}

// failure is a scorer's error or panic, as tolerant reports it.
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }

// rowOf is the Row of a labelled record from its score by tolerant.
func rowOf(rec dataset.Record, label bool, sc eval.Score) Row {
	row := Row{ID: rec.ID, Line: rec.Line, Label: label}
	if f, ok := errors.AsType[*failure](sc.Err); ok {
		row.Err = f.msg
		return row
	}
	row.Value, row.Method, row.Defaulted = sc.Value, sc.Method, sc.Defaulted
	row.Points, row.Max = sc.Points, sc.Max
	if sc.Defaulted && sc.Err != nil {
		row.Err = sc.Err.Error()
	}
	if sc.Skipped {
		// Nothing to judge: no value to compare with the label.
		row.Err = sc.Reason
	}
	if math.IsNaN(sc.Value) || math.IsInf(sc.Value, 0) {
		row.Value = 0 // JSON has no NaN or Inf
		if row.Err == "" {
			row.Err = "value is not finite: " + strconv.FormatFloat(sc.Value, 'g', -1, 64)
		}
	}
	return row
}

// MarkdownHeader is the header of the table whose rows Markdown renders.
const MarkdownHeader = "| metric | label | n (pos/neg) | defaulted | errors | skipped | AUC | threshold | bal. acc. [95% CI] | kappa | F1 | TP/FP/TN/FN |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|\n"

// Markdown renders the result as rows of a table with MarkdownHeader: one
// row for the fixed threshold when set, one for the best ("best t"). An
// undefined AUC (one class missing) or kappa (predictions and labels all
// of one and the same class) shows as "n/a"; with no record scored
// (every one defaulted or failed) there is one row, all "n/a".
//
// A graded result renders as a row of GradedMarkdownHeader instead.
func (r Result) Markdown() string {
	return r.markdown(r.Rows)
}

// markdown is Markdown, its thresholds printed to split the values of
// rows (those counted) as they do (thresholdText): a group's result
// keeps no rows, and is given the whole's of its group.
func (r Result) markdown(rows []Row) string {
	if r.GradedStats != nil {
		return r.gradedMarkdown()
	}
	var values []float64
	for _, row := range rows {
		if row.counted() && !row.Unlabelled {
			values = append(values, row.Value)
		}
	}
	auc := "n/a"
	if r.Positives > 0 && r.Positives < r.N {
		auc = f3(r.AUC)
	}
	var b strings.Builder
	if r.N == 0 {
		fmt.Fprintf(&b, "| %s | %s | 0 (0/0) | %d | %d | %d | n/a | - | n/a | n/a | n/a | - |\n",
			mdtext.Cell(r.Metric), mdtext.Cell(r.Label), r.Defaulted, r.Errors, r.Skipped)
		return b.String()
	}
	row := func(th string, t ThresholdResult) {
		ba := f3(t.BalancedAccuracy)
		if ci := t.BalancedAccuracyCI; ci != nil {
			ba += " [" + f3(ci[0]) + ", " + f3(ci[1]) + "]"
		}
		fmt.Fprintf(&b, "| %s | %s | %d (%d/%d) | %d | %d | %d | %s | %s | %s | %s | %s | %d/%d/%d/%d |\n",
			mdtext.Cell(r.Metric), mdtext.Cell(r.Label), r.N, r.Positives, r.N-r.Positives, r.Defaulted, r.Errors, r.Skipped,
			auc, th, ba, orNA(t.Kappa), f3(t.F1), t.TP, t.FP, t.TN, t.FN)
	}
	if r.Fixed != nil {
		row(thresholdText(r.Fixed.Threshold, values), *r.Fixed)
	}
	row("best "+thresholdText(r.Best.Threshold, values), r.Best)
	return b.String()
}

// GradedMarkdownHeader is the header of the table whose rows Markdown
// renders for a graded label: each statistic with its 95% interval.
const GradedMarkdownHeader = "| metric | label | group | n | defaulted | errors | skipped | judge on grades | spearman | kendall tau-b | pearson | kappa linear | kappa quadratic | alpha ordinal | alpha interval | MAE |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"

func (r Result) gradedMarkdown() string {
	g := r.GradedStats
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %s |", mdtext.Cell(r.Metric), mdtext.Cell(r.Label), groupCell(r.Group), r.N, r.Defaulted, r.Errors, r.Skipped, g.JudgeOnGrades)
	for _, e := range g.estimates() {
		fmt.Fprintf(&b, " %s |", e.est.cell())
	}
	b.WriteString("\n")
	return b.String()
}

type namedEstimate struct {
	name string
	est  Estimate
}

func (g *GradedStats) estimates() []namedEstimate {
	return []namedEstimate{
		{"spearman", g.Spearman}, {"kendall_tau_b", g.KendallTauB}, {"pearson", g.Pearson},
		{"kappa_linear", g.KappaLinear}, {"kappa_quadratic", g.KappaQuadratic},
		{"alpha_ordinal", g.AlphaOrdinal}, {"alpha_interval", g.AlphaInterval}, {"mae", g.MAE},
	}
}

// Dropped names the statistics some of whose bootstrap resamples were
// undefined, with how many ("spearman 12, pearson 12"); "" when none.
func (g *GradedStats) Dropped() string {
	var parts []string
	for _, e := range g.estimates() {
		if e.est.Dropped > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", e.name, e.est.Dropped))
		}
	}
	return strings.Join(parts, ", ")
}

func (e Estimate) cell() string {
	if !defined(e.Value) {
		return "n/a"
	}
	s := f3(float64(e.Value))
	if defined(e.CI95[0]) && defined(e.CI95[1]) {
		s += " [" + f3(float64(e.CI95[0])) + ", " + f3(float64(e.CI95[1])) + "]"
	}
	return s
}

// CalibrationMarkdownHeader is the header of the table whose rows
// CalibrationMarkdown renders.
const CalibrationMarkdownHeader = "| metric | label | group | MCC | Brier | ECE | reliability: mean value / share true (n) per bin of 0.1 |\n" +
	"|---|---|---|---|---|---|---|\n"

// CalibrationMarkdown renders a binary result's MCC (at the fixed
// threshold, else the best) and calibration as a row of
// CalibrationMarkdownHeader, the bins as "0.93/1.00 (4)", "-" when
// empty; "" for a graded result.
func (r Result) CalibrationMarkdown() string {
	if r.GradedStats != nil {
		return ""
	}
	t := r.Best
	if r.Fixed != nil {
		t = *r.Fixed
	}
	brier, ece, bins := "n/a", "n/a", "values outside [0, 1]: no calibration"
	if c := r.Calibration; c != nil {
		brier, ece = f3(c.Brier), f3(c.ECE)
		cells := make([]string, len(c.Reliability))
		for i, bin := range c.Reliability {
			cells[i] = "-"
			if bin.N > 0 {
				cells[i] = fmt.Sprintf("%.2f/%.2f (%d)", bin.MeanPredicted, bin.FractionPositive, bin.N)
			}
		}
		bins = strings.Join(cells, " ")
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", mdtext.Cell(r.Metric), mdtext.Cell(r.Label), groupCell(r.Group), f3(t.MCC), brier, ece, bins)
}

// groupCell is a group's name as a table's cell shows it: "all" for
// the whole, else the name escaped (mdtext.Cell), as it comes from the
// records.
func groupCell(g string) string {
	if g == "" {
		return "all"
	}
	return mdtext.Cell(g)
}

func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// defined reports whether a statistic is a number: not NaN or infinite.
func defined(n run.Num) bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }

// orNA writes a statistic to three places, "n/a" when undefined, as the
// agreement table says of its other undefined figures.
func orNA(n run.Num) string {
	if !defined(n) {
		return "n/a"
	}
	return f3(float64(n))
}

// f3n writes a statistic to three places, "-" when undefined.
func f3n(n run.Num) string {
	if !defined(n) {
		return "-"
	}
	return f3(float64(n))
}

// thresholdText prints threshold t of values with the fewest significant
// digits, four at least, that split values as t does: read back (as
// --threshold) it calls the same values true. A best threshold between
// 0.12341 and 0.12342 is 0.123415, not 0.1234, which calls 0.12341 true
// too; one between 0.2 and 0.4 is 0.3, not 0.30000000000000004.
func thresholdText(t float64, values []float64) string {
	below, atOrAbove := math.Inf(-1), math.Inf(1)
	for _, v := range values {
		if v < t {
			below = max(below, v)
		} else {
			atOrAbove = min(atOrAbove, v)
		}
	}
	for p := 4; p <= 17; p++ {
		s := strconv.FormatFloat(t, 'g', p, 64)
		if x, err := strconv.ParseFloat(s, 64); err == nil && x > below && x <= atOrAbove {
			return s
		}
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

// MarshalJSON implements json.Marshaler: a graded row (its label is
// Grade) and a row without the label leave out "label", whose false would
// read as a label.
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row // without this method
	if r.Grade == nil && !r.Unlabelled {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Label *bool `json:"label,omitempty"`
	}{plain: plain(r)})
}

// MarshalJSON implements json.Marshaler: a graded result leaves out the
// binary fields (auc, positives, best), which have no meaning there. A
// binary result whose labels are all of one class (or none) writes its
// undefined AUC as null, as the Markdown table says n/a, not as 0.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result // without this method
	if r.GradedStats == nil {
		if r.Positives > 0 && r.Positives < r.N {
			return json.Marshal(plain(r))
		}
		return json.Marshal(struct {
			plain
			AUC *float64 `json:"auc"`
		}{plain: plain(r)})
	}
	return json.Marshal(struct {
		plain
		AUC       *float64         `json:"auc,omitempty"`
		Positives *int             `json:"positives,omitempty"`
		Best      *ThresholdResult `json:"best,omitempty"`
	}{plain: plain(r)})
}
