package bench

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// DefaultConcurrency is how many records are scored at once when a Job
// does not say: the model server, not the CPU, is usually the bottleneck.
const DefaultConcurrency = 4

// Job is a scorer to run over a dataset.
type Job struct {
	// Scorer computes the value compared with the labels.
	Scorer eval.Scorer
	// Metric names the scorer in results; "" takes the Metric of the first
	// score.
	Metric string
	// Concurrency is how many records are scored at once; 0 or less means
	// DefaultConcurrency.
	Concurrency int
}

// AgreeOptions says what Agree compares with.
type AgreeOptions struct {
	// Label names the binary human label ("faithful", "relevant",
	// "hallucinated"); see Record.Label.
	Label string
	// Threshold, when set, is a fixed threshold (the judge's default) to
	// report besides the best one; nil reports only the best.
	Threshold *float64
}

// Row is the outcome for one labelled record.
type Row struct {
	ID    string  `json:"id"`
	Line  int     `json:"line"`
	Value float64 `json:"value"`
	// Label is the human label.
	Label bool `json:"label"`
	// Defaulted is true when the scorer fell back to its neutral default;
	// such rows are left out of the statistics.
	Defaulted bool `json:"defaulted,omitempty"`
	// Err is the scorer's error: the default's cause, a returned error, a
	// panic, or a value that is NaN or infinite (Value is then 0). Rows
	// with Err are left out of the statistics.
	Err    string `json:"err,omitempty"`
	Method string `json:"method,omitempty"`
}

// counted reports whether the row enters the statistics.
func (r Row) counted() bool { return !r.Defaulted && r.Err == "" }

// ThresholdResult is the confusion matrix at one threshold, with its
// metrics.
type ThresholdResult struct {
	Threshold float64 `json:"threshold"`
	Confusion
	BalancedAccuracy float64 `json:"balanced_accuracy"`
	Accuracy         float64 `json:"accuracy"`
	Precision        float64 `json:"precision"`
	Recall           float64 `json:"recall"`
	F1               float64 `json:"f1"`
	Kappa            float64 `json:"kappa"`
	// BalancedAccuracyCI is a 95% bootstrap interval for BalancedAccuracy
	// (BootstrapBalancedAccuracy), set for the fixed threshold only: the
	// best threshold's figure is optimistic whatever its interval.
	BalancedAccuracyCI *[2]float64 `json:"balanced_accuracy_ci95,omitempty"`
}

// bootstrapReps is how many resamples the agreement interval draws.
const bootstrapReps = 2000

func newThresholdResult(t float64, c Confusion) ThresholdResult {
	return ThresholdResult{
		Threshold: t, Confusion: c,
		BalancedAccuracy: c.BalancedAccuracy(), Accuracy: c.Accuracy(),
		Precision: c.Precision(), Recall: c.Recall(), F1: c.F1(), Kappa: c.Kappa(),
	}
}

// AgreeResult is how well a scorer agrees with one human label.
type AgreeResult struct {
	Metric string `json:"metric"`
	Label  string `json:"label"`
	// N is the number of rows in the statistics: labelled, scored, not
	// defaulted, no error. Positives of them are labelled true.
	N         int `json:"n"`
	Positives int `json:"positives"`
	// Skipped counts records without the label (absent or unreadable).
	Skipped int `json:"skipped"`
	// Defaulted and Errors count rows left out of the statistics.
	Defaulted int `json:"defaulted"`
	Errors    int `json:"errors"`
	// Rows are the labelled records in dataset order.
	Rows []Row `json:"rows"`
	// AUC is the ROC AUC over the N rows (0 when one class is missing).
	AUC float64 `json:"auc"`
	// Fixed is the result at AgreeOptions.Threshold, nil when none was set.
	Fixed *ThresholdResult `json:"fixed,omitempty"`
	// Best is the result at the threshold of best balanced accuracy on
	// these rows: an optimistic figure unless checked on other data.
	Best ThresholdResult `json:"best"`
}

// Agree scores every record that has the label opts.Label with job.Scorer,
// job.Concurrency at a time, and measures how well the values agree with
// the labels.
//
// A failing judge is data: a Defaulted score, a scorer error other than
// the context's, a panic, or a value that is NaN or infinite is kept on its
// Row, counted, and left out of the statistics. Only ctx stops the run: when it is done,
// Agree returns ctx.Err() promptly, without starting more work, after every
// goroutine it started has returned.
func Agree(ctx context.Context, records []Record, job Job, opts AgreeOptions) (AgreeResult, error) {
	return AgreeStream(ctx, All(records), job, opts)
}

// AgreeStream is Agree over records read one at a time, from [Records]
// say: it keeps a Row per labelled record, not the records, and reads no
// further ahead of the scoring than [ScoreStream]. An error from records
// also stops the run, and is returned once the records read before it are
// scored.
func AgreeStream(ctx context.Context, records iter.Seq2[Record, error], job Job, opts AgreeOptions) (AgreeResult, error) {
	res := AgreeResult{Metric: job.Metric, Label: opts.Label}
	skipped := 0
	labelled := func(yield func(Record, error) bool) {
		for rec, err := range records {
			if _, ok := rec.Label(opts.Label); err == nil && !ok {
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
	err := ScoreStream(ctx, labelled, []eval.Scorer{tolerant{job.Scorer}}, limit, func(_ int, rec Record, scores []eval.Score) error {
		label, _ := rec.Label(opts.Label)
		res.Rows = append(res.Rows, rowOf(rec, label, scores[0]))
		if res.Metric == "" {
			res.Metric = scores[0].Metric // "" for a failure
		}
		return nil
	})
	if err != nil {
		return AgreeResult{}, err
	}
	res.Skipped = skipped

	var values []float64
	var labels []bool
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
		values = append(values, row.Value)
		labels = append(labels, row.Label)
		if row.Label {
			res.Positives++
		}
	}
	res.N = len(values)
	res.AUC = AUC(values, labels)
	res.Best = newThresholdResult(BestThreshold(values, labels))
	if opts.Threshold != nil {
		fixed := newThresholdResult(*opts.Threshold, ConfusionAt(values, labels, *opts.Threshold))
		lo, hi := BootstrapBalancedAccuracy(values, labels, *opts.Threshold, bootstrapReps)
		fixed.BalancedAccuracyCI = &[2]float64{lo, hi}
		res.Fixed = &fixed
	}
	return res, nil
}

// tolerant runs a scorer for AgreeStream, where a failing scorer is data:
// its error or panic comes back as a Score whose Err is a *failure, so
// that ScoreStream goes on. Only ctx stops the run, and once it is done no
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
func rowOf(rec Record, label bool, sc eval.Score) Row {
	row := Row{ID: rec.ID, Line: rec.Line, Label: label}
	if f, ok := errors.AsType[*failure](sc.Err); ok {
		row.Err = f.msg
		return row
	}
	row.Value, row.Method, row.Defaulted = sc.Value, sc.Method, sc.Defaulted
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
// undefined AUC (one class missing) shows as "n/a"; with no record scored
// (every one defaulted or failed) there is one row, all "n/a".
func (r AgreeResult) Markdown() string {
	auc := "n/a"
	if r.Positives > 0 && r.Positives < r.N {
		auc = f3(r.AUC)
	}
	var b strings.Builder
	if r.N == 0 {
		fmt.Fprintf(&b, "| %s | %s | 0 (0/0) | %d | %d | %d | n/a | - | n/a | n/a | n/a | - |\n",
			r.Metric, r.Label, r.Defaulted, r.Errors, r.Skipped)
		return b.String()
	}
	row := func(th string, t ThresholdResult) {
		ba := f3(t.BalancedAccuracy)
		if ci := t.BalancedAccuracyCI; ci != nil && r.Positives > 0 && r.Positives < r.N {
			ba += " [" + f3(ci[0]) + ", " + f3(ci[1]) + "]"
		}
		fmt.Fprintf(&b, "| %s | %s | %d (%d/%d) | %d | %d | %d | %s | %s | %s | %s | %s | %d/%d/%d/%d |\n",
			r.Metric, r.Label, r.N, r.Positives, r.N-r.Positives, r.Defaulted, r.Errors, r.Skipped,
			auc, th, ba, f3(t.Kappa), f3(t.F1), t.TP, t.FP, t.TN, t.FN)
	}
	if r.Fixed != nil {
		row(fmtThreshold(r.Fixed.Threshold), *r.Fixed)
	}
	row("best "+fmtThreshold(r.Best.Threshold), r.Best)
	return b.String()
}

func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// fmtThreshold prints a threshold with as few digits as tell it apart.
func fmtThreshold(t float64) string {
	return strconv.FormatFloat(t, 'g', 4, 64)
}
