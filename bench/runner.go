package bench

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

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
	res := AgreeResult{Metric: job.Metric, Label: opts.Label}
	var todo []Record
	for _, rec := range records {
		l, ok := rec.Label(opts.Label)
		if !ok {
			res.Skipped++
			continue
		}
		todo = append(todo, rec)
		res.Rows = append(res.Rows, Row{ID: rec.ID, Line: rec.Line, Label: l})
	}
	metrics := make([]string, len(todo))

	limit := job.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i, rec := range todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					res.Rows[i].Err = fmt.Sprintf("scorer panicked: %v\n%s", r, debug.Stack())
				}
			}()
			if err := gctx.Err(); err != nil {
				return err
			}
			sc, err := job.Scorer.Score(gctx, rec.Sample)
			row := &res.Rows[i]
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case err != nil:
				row.Err = err.Error()
				return nil
			}
			metrics[i] = sc.Metric
			row.Value, row.Method, row.Defaulted = sc.Value, sc.Method, sc.Defaulted
			if sc.Defaulted && sc.Err != nil {
				row.Err = sc.Err.Error()
			}
			if math.IsNaN(sc.Value) || math.IsInf(sc.Value, 0) {
				row.Value = 0 // JSON has no NaN or Inf
				if row.Err == "" {
					row.Err = "value is not finite: " + strconv.FormatFloat(sc.Value, 'g', -1, 64)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return AgreeResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return AgreeResult{}, err
	}

	var values []float64
	var labels []bool
	for i, row := range res.Rows {
		if res.Metric == "" && metrics[i] != "" {
			res.Metric = metrics[i]
		}
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
