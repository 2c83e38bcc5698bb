package agree

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/internal/mdtext"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// MinLabelled is the fewest labelled records, each with a judge value, an
// estimate of the mean label takes: its interval is a normal
// approximation, which a handful of labels does not support.
const MinLabelled = 10

// MeanEstimate is the mean human label over every record the judge
// scored, estimated from the labels and the judge's values
// (stats.PPIMean, PPI++), beside the labels alone and the judge alone.
// The judge's value is on the label's scale: for a binary label it is
// the chance the label is true, for a graded one the judge is put on the
// grades as GradedStats.JudgeOnGrades says. Undefined figures (a group
// with too few labels) are null in JSON, and Note says why.
type MeanEstimate struct {
	PPIFigures
	// Defaulted counts records (labelled or not) whose judgement fell
	// back to the neutral default, and Unscored unlabelled records the
	// judge has no value for: both are left out, so the estimate is of
	// the records the judge scored.
	Defaulted int `json:"defaulted"`
	Unscored  int `json:"unscored"`
	// JudgeScale is how the judge's values were put on the label's scale:
	// "value" for a binary label, else as GradedStats.JudgeOnGrades.
	JudgeScale string `json:"judge_scale"`
	// Weight is the field the labels' weights were read from
	// (Options.Weight): the estimate is stats.PPIWeightedMean's; "" for
	// labels taken as a uniform draw (stats.PPIMean).
	Weight string `json:"weight,omitempty"`
	Note   string `json:"note,omitempty"`

	// scale is how a graded label's judge was put on the grades, which a
	// group of these records takes too; off is the record whose value
	// could not be put there, nil when every one was.
	scale scale
	off   *Row
}

// PPIFigures are a PPI++ estimate as Assay reports it (`assay agree
// --estimate`, the annotation queue of `assay serve`): the estimate and
// its 95% interval, the labels alone, the judge alone, the power-tuning
// lambda, the labels the estimate is worth, and the records in it.
type PPIFigures struct {
	Estimate        run.Num    `json:"estimate"`
	CI95            [2]run.Num `json:"ci95"`
	LabelsOnly      run.Num    `json:"labels_only"`
	LabelsOnlyCI95  [2]run.Num `json:"labels_only_ci95"`
	JudgeOnly       run.Num    `json:"judge_only"`
	Lambda          run.Num    `json:"lambda"`
	EffectiveLabels run.Num    `json:"effective_labels"`
	// Labelled and Unlabelled count the records in the estimate.
	Labelled   int `json:"labelled"`
	Unlabelled int `json:"unlabelled"`
}

// FiguresOf is p as PPIFigures.
func FiguresOf(p stats.PPI) PPIFigures {
	return PPIFigures{Estimate: run.Num(p.Estimate), CI95: nums(p.CI95), LabelsOnly: run.Num(p.LabelsOnly), LabelsOnlyCI95: nums(p.LabelsOnlyCI95),
		JudgeOnly: run.Num(p.JudgeOnly), Lambda: run.Num(p.Lambda), EffectiveLabels: run.Num(p.EffectiveLabels), Labelled: p.Labelled, Unlabelled: p.Unlabelled}
}

// estimateMean estimates the mean label of rows (labelled and not) as
// MeanEstimate says.
func estimateMean(rows []Row, opts Options) *MeanEstimate {
	e := &MeanEstimate{Weight: opts.Weight}
	var used []Row
	for _, r := range rows {
		switch {
		case r.Defaulted:
			e.Defaulted++
		case r.Err != "" && r.Unlabelled:
			e.Unscored++
		case r.Err == "":
			used = append(used, r)
		}
	}
	values := make([]float64, len(used))
	var labels []float64
	for i, r := range used {
		values[i] = r.Value
		switch {
		case r.Unlabelled:
		case opts.Graded:
			labels = append(labels, *r.Grade)
		case r.Label:
			labels = append(labels, 1)
		default:
			labels = append(labels, 0)
		}
	}
	e.JudgeScale = "value"
	if opts.Graded {
		e.scale = scaleOf(values, labels, opts.Grades)
		if opts.whole != nil {
			e.scale = opts.whole.mean
		}
		var off int
		if values, e.JudgeScale, off = e.scale.put(used, values); off >= 0 {
			r := used[off]
			e.off = &r
			e.Note = "the judge's values are not on the grades (" + e.JudgeScale + ")"
		}
	}
	var judged, weights, unlabelled []float64
	for i, r := range used {
		if values == nil {
			break // e.off
		}
		if r.Unlabelled {
			unlabelled = append(unlabelled, values[i])
		} else {
			judged = append(judged, values[i])
			weights = append(weights, r.Weight)
		}
	}
	p := stats.PPIMean(labels, judged, unlabelled)
	if opts.Weight != "" {
		p = stats.PPIWeightedMean(labels, judged, weights, unlabelled)
	}
	switch {
	case e.Note != "":
	case len(labels) < MinLabelled:
		e.Note = fmt.Sprintf("%s with a judge value; an estimate needs at least %d", plural.Count(len(labels), "labelled record"), MinLabelled)
	case len(unlabelled) == 0:
		e.Note = "no unlabelled record with a judge value: nothing for the judge to add to the labels"
	}
	if e.Note != "" {
		p = stats.PPIMean(nil, nil, nil) // every figure NaN
	}
	e.PPIFigures = FiguresOf(p)
	e.Labelled, e.Unlabelled = len(labels), len(unlabelled)
	return e
}

func nums(v [2]float64) [2]run.Num { return [2]run.Num{run.Num(v[0]), run.Num(v[1])} }

// checkEstimate checks that res can be estimated from, with an input
// error naming what is missing: a labelled record the judge did not
// score, a binary label's judge value outside [0, 1], too few labelled
// records or no unlabelled one. file names the dataset.
func checkEstimate(file string, res Result) error {
	for _, r := range res.Rows { // the labelled ones
		if r.Err != "" && !r.Defaulted {
			msg, _, _ := strings.Cut(r.Err, "\n")
			return inputErr("%s:%d: record %s is labelled (human.%s) but has no judge value: %s; --estimate needs one on every labelled record", file, r.Line, r.ID, res.Label, msg)
		}
	}
	if err := checkWeights(file, res); err != nil {
		return err
	}
	if res.LabelType == "binary" {
		if err := checkChances(file, res); err != nil {
			return err
		}
	}
	e := res.Mean
	if r := e.off; r != nil {
		why := strings.TrimPrefix(e.JudgeScale, "none: ")
		return inputErr("%s:%d: record %s: %s: %s: --estimate with a graded label puts the judge on the grades of human.%s (%s), every value a grade itself or every one from 0 to 1, mapped onto them (give --grades with every grade the judge takes)",
			file, r.Line, r.ID, res.Metric, why, res.Label, gradeList(e.scale.set))
	}
	switch {
	case e.Labelled < MinLabelled:
		return inputErr("%s: %s: --estimate needs at least %d labelled records with a judge value, got %d: label more records (human.%s)", file, res.Metric, MinLabelled, e.Labelled, res.Label)
	case e.Unlabelled == 0:
		return inputErr("%s: %s: --estimate needs records without the label human.%s, scored by the judge: every record it scored is labelled, so the labels alone are the estimate", file, res.Metric, res.Label)
	}
	return nil
}

// checkWeights checks that, with Options.Weight, every labelled record
// the judge scored has a weight of 1 or more.
func checkWeights(file string, res Result) error {
	e := res.Mean
	if e == nil || e.Weight == "" {
		return nil
	}
	const want = "--weight reads there 1/the probability the record had of being labelled, a number of 1 or more, on every labelled record"
	for _, r := range res.Rows {
		switch {
		case !r.counted():
		case !r.hasWeight:
			return inputErr("%s:%d: record %s is labelled but has no weight at %s: %s", file, r.Line, r.ID, e.Weight, want)
		case !(r.Weight >= 1):
			return inputErr("%s:%d: record %s is labelled but its weight at %s is %s, below 1: %s",
				file, r.Line, r.ID, e.Weight, strconv.FormatFloat(r.Weight, 'g', -1, 64), want)
		}
	}
	return nil
}

// checkChances checks that a binary label's judge values are chances.
func checkChances(file string, res Result) error {
	for _, r := range res.Rows {
		if r.Err == "" && (r.Value < 0 || r.Value > 1) {
			return inputErr("%s:%d: record %s: %s is %s: --estimate with a binary label reads the judge's value as the chance the label is true, from 0 to 1 (give a graded label, --label-type graded, for values on another scale)",
				file, r.Line, r.ID, res.Metric, strconv.FormatFloat(r.Value, 'g', -1, 64))
		}
	}
	return nil
}

// EstimateMarkdownHeader is the header of the table whose rows
// EstimateMarkdown renders.
const EstimateMarkdownHeader = "| metric | label | group | labelled | unlabelled | PPI++ estimate [95% CI] | labels only [95% CI] | judge only | lambda | effective labels |\n" +
	"|---|---|---|---|---|---|---|---|---|---|\n"

// EstimateMarkdown renders the result's estimate of the mean label as a
// row of EstimateMarkdownHeader, with its groups' after it; "" without
// an estimate.
func (r Result) EstimateMarkdown() string {
	var b strings.Builder
	for _, x := range append([]Result{r}, r.Groups...) {
		e := x.Mean
		if e == nil {
			continue
		}
		group := groupCell(x.Group)
		ci := func(v run.Num, ci [2]run.Num) string {
			return Estimate{Value: v, CI95: ci}.cell()
		}
		if e.Note != "" {
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | n/a (%s) | n/a | n/a | n/a | n/a |\n", mdtext.Cell(r.Metric), mdtext.Cell(r.Label), group, e.Labelled, e.Unlabelled, e.Note)
			continue
		}
		est := ci(e.Estimate, e.CI95)
		if e.Weight != "" {
			est += " (weighted by " + mdtext.Cell(e.Weight) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", mdtext.Cell(r.Metric), mdtext.Cell(r.Label), group, e.Labelled, e.Unlabelled,
			est, ci(e.LabelsOnly, e.LabelsOnlyCI95), f3n(e.JudgeOnly), f3n(e.Lambda), f1n(e.EffectiveLabels))
	}
	return b.String()
}

// f1n writes a count-like figure to one place, "-" when undefined.
func f1n(n run.Num) string {
	if !defined(n) {
		return "-"
	}
	return strconv.FormatFloat(math.Round(float64(n)*10)/10, 'f', 1, 64)
}
