package agree

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// JuryMetric names the jury's own row.
const JuryMetric = "jury"

// Juror is one model's agreement with the labels, and the threshold its
// verdicts are read at (binary labels; ignored for graded ones).
type Juror struct {
	Result    Result
	Threshold float64
}

// PairKappa is Cohen's kappa between two jurors' binary verdicts, each
// read at its own threshold, over the N records both judged.
type PairKappa struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	N     int     `json:"n"`
	Kappa run.Num `json:"kappa"`
}

// JuryResult is how a jury of judges agrees with itself and, as one rater,
// with the labels.
type JuryResult struct {
	// Jurors name the jurors' rows (Result.Metric), in order.
	Jurors []string `json:"jurors"`
	// Pairwise holds the kappa of every pair of jurors, for a binary label.
	Pairwise []PairKappa `json:"pairwise_kappa,omitempty"`
	// AlphaOrdinal and AlphaInterval are Krippendorff's alpha across all
	// jurors' grades, for a graded label (a juror's missing grade allowed).
	AlphaOrdinal  *run.Num `json:"alpha_ordinal,omitempty"`
	AlphaInterval *run.Num `json:"alpha_interval,omitempty"`
	// Jury is the jury's value measured against the labels: the mean of the
	// jurors' values (binary, at the mean of their thresholds), or the
	// majority of their grades, a tie taking the lower (graded).
	Jury Result `json:"jury"`
}

// Jury measures jurors, the results of several judges over the same
// records (from Stream with the same opts), against each other and
// as one rater. A juror's row enters only where it is counted (not
// defaulted, no error); a record no juror counted is defaulted on the
// jury's row when any juror defaulted it, else an error.
//
// For a graded label the jurors' values are put on the grade scale as
// Graded does for each of them (the grades of opts, else those of the
// first juror's result), and the jury row's values are grades.
//
// It returns an error when there are fewer than two jurors or their rows
// are not the same records in the same order.
func Jury(jurors []Juror, opts Options) (JuryResult, error) {
	if len(jurors) < 2 {
		return JuryResult{}, fmt.Errorf("jury: want at least two jurors, got %d", len(jurors))
	}
	first := jurors[0].Result.Rows
	var res JuryResult
	for _, j := range jurors {
		res.Jurors = append(res.Jurors, j.Result.Metric)
		rows := j.Result.Rows
		if len(rows) != len(first) {
			return JuryResult{}, fmt.Errorf("jury: juror %s has %d rows, %s has %d: judge the same records with each", j.Result.Metric, len(rows), jurors[0].Result.Metric, len(first))
		}
		for i := range rows {
			if rows[i].ID != first[i].ID {
				return JuryResult{}, fmt.Errorf("jury: juror %s's row %d is record %s, %s's is %s: judge the same records in the same order", j.Result.Metric, i+1, rows[i].ID, jurors[0].Result.Metric, first[i].ID)
			}
		}
	}
	if opts.Graded {
		res.juryGraded(jurors, opts)
	} else {
		res.juryBinary(jurors, opts)
	}
	return res, nil
}

// juryRow is the jury's row for record i, with value v; counted says
// whether any juror counted the record.
func juryRow(jurors []Juror, i int, v float64, counted bool) Row {
	row := jurors[0].Result.Rows[i]
	row.Value, row.Points, row.Max, row.Err, row.Defaulted, row.Method = v, 0, 0, "", false, JuryMetric
	if counted {
		return row
	}
	row.Value = 0
	for _, j := range jurors {
		r := j.Result.Rows[i]
		row.Defaulted = row.Defaulted || r.Defaulted
		if row.Err == "" && r.Err != "" {
			row.Err = j.Result.Metric + ": " + r.Err
		}
	}
	if row.Err == "" {
		row.Err = "no juror judged this record"
	}
	return row
}

func (res *JuryResult) juryBinary(jurors []Juror, opts Options) {
	n := len(jurors[0].Result.Rows)
	for a := range jurors {
		for b := a + 1; b < len(jurors); b++ {
			var va, vb []float64
			for i := range n {
				ra, rb := jurors[a].Result.Rows[i], jurors[b].Result.Rows[i]
				if !ra.counted() || !rb.counted() {
					continue
				}
				va = append(va, verdict(ra.Value, jurors[a].Threshold))
				vb = append(vb, verdict(rb.Value, jurors[b].Threshold))
			}
			res.Pairwise = append(res.Pairwise, PairKappa{
				A: jurors[a].Result.Metric, B: jurors[b].Result.Metric, N: len(va),
				Kappa: run.Num(stats.WeightedKappa(va, vb, []float64{0, 1}, stats.Unweighted)),
			})
		}
	}
	th := 0.0
	for _, j := range jurors {
		th += j.Threshold
	}
	th /= float64(len(jurors))
	rows := make([]Row, n)
	for i := range n {
		sum, k := 0.0, 0
		for _, j := range jurors {
			if r := j.Result.Rows[i]; r.counted() {
				sum += r.Value
				k++
			}
		}
		rows[i] = juryRow(jurors, i, sum/float64(max(k, 1)), k > 0)
	}
	o := opts
	o.Threshold = &th
	res.Jury = Rows(JuryMetric, rows, jurors[0].Result.Skipped, o)
}

func verdict(v, threshold float64) float64 {
	if v >= threshold {
		return 1
	}
	return 0
}

func (res *JuryResult) juryGraded(jurors []Juror, opts Options) {
	set := opts.Grades
	if set == nil && jurors[0].Result.GradedStats != nil {
		set = jurors[0].Result.Grades
	}
	n := len(jurors[0].Result.Rows)
	// grades[j][i] is juror j's grade of record i, NaN where not counted.
	grades := make([][]float64, len(jurors))
	for j, jr := range jurors {
		grades[j] = make([]float64, n)
		var counted []Row
		var at []int
		for i, r := range jr.Result.Rows {
			grades[j][i] = math.NaN()
			if r.counted() {
				counted = append(counted, r)
				at = append(at, i)
			}
		}
		values, labels := make([]float64, len(counted)), make([]float64, len(counted))
		for k, r := range counted {
			values[k], labels[k] = r.Value, *r.Grade
		}
		onScale, s, _ := onGrades(counted, values, labels, set)
		if set == nil {
			set = s
		}
		for k, i := range at {
			if onScale != nil { // nil: a value no grade and off [0, 1], none of its grades counts
				grades[j][i] = onScale[k]
			}
		}
	}
	units := make([][]float64, n)
	rows := make([]Row, n)
	for i := range n {
		units[i] = make([]float64, len(jurors))
		var given []float64
		for j := range jurors {
			units[i][j] = grades[j][i]
			if !math.IsNaN(grades[j][i]) {
				given = append(given, grades[j][i])
			}
		}
		rows[i] = juryRow(jurors, i, majority(given), len(given) > 0)
	}
	ord := run.Num(stats.KrippendorffAlpha(units, stats.Ordinal))
	itv := run.Num(stats.KrippendorffAlpha(units, stats.Interval))
	res.AlphaOrdinal, res.AlphaInterval = &ord, &itv
	o := opts
	o.Grades = set
	res.Jury = Rows(JuryMetric, rows, jurors[0].Result.Skipped, o)
}

// majority is the grade given most often in gs, the lowest of those tied;
// 0 for none.
func majority(gs []float64) float64 {
	if len(gs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(gs))
	best, bestN := s[0], 0
	for i := 0; i < len(s); {
		k := i
		for k < len(s) && s[k] == s[i] {
			k++
		}
		if k-i > bestN { // strictly more: a tie keeps the lower grade
			best, bestN = s[i], k-i
		}
		i = k
	}
	return best
}

// Markdown is the jurors' agreement with each other: a table of pairwise
// kappas for a binary label, the alphas for a graded one. The jury's own
// row is Jury.Markdown, beside the jurors' rows.
func (res JuryResult) Markdown() string {
	var b strings.Builder
	if res.AlphaOrdinal != nil {
		fmt.Fprintf(&b, "Agreement between the %d jurors (Krippendorff's alpha of their grades): ordinal %s, interval %s\n",
			len(res.Jurors), f3n(*res.AlphaOrdinal), f3n(*res.AlphaInterval))
		return b.String()
	}
	b.WriteString("Agreement between the jurors (Cohen's kappa of their verdicts, each at its threshold)\n\n")
	b.WriteString("| juror | juror | n | kappa |\n|---|---|---:|---:|\n")
	for _, p := range res.Pairwise {
		fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", p.A, p.B, p.N, f3n(p.Kappa))
	}
	return b.String()
}
