package align

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/report"
)

// Defaults of a Job's zero fields.
const (
	DefaultHoldout    = 0.3
	DefaultCandidates = 8
	DefaultExamples   = 4
	// MinLabels is the fewest labelled records Align works with: fewer
	// leave a held-out part too small for any interval to exclude 0.
	MinLabels = 10
)

// Job is one alignment: the judge, the labels and the settings. Align
// runs it; the command line and a Go program build a Job alike.
type Job struct {
	// Metric is the judge to align: one the judges file defines.
	Metric string
	// Judges is the judges file that defines Metric (the --judges
	// format); a built-in judge has no definition to reword.
	Judges string
	// Labels is the labels file: a dataset whose records carry the human
	// label (`assay agree`'s format).
	Labels string
	// Stdin is read when Labels is "-" (dataset.Stdin); nil means
	// standard input is already used, an input error.
	Stdin io.Reader
	// Label is the human label's name (human.NAME); "" is Metric.
	Label string
	// Registry holds the built-in metrics, whose names a judges file
	// cannot take; nil is agent.Builtins.
	Registry *metric.Registry
	// Out is where the aligned judges file goes when a gain is supported.
	Out string
	// Seed seeds the split, the examples drawn and the bootstrap.
	Seed uint64
	// Holdout is the share of labelled records held out, in (0, 1); nil
	// is DefaultHoldout. A share given is taken as it is: 0 is an error,
	// not the default.
	Holdout *float64
	// Candidates is how many judges the search scores on the training
	// part at most, 1 or more (the one as it was included; thresholds
	// are free); nil is DefaultCandidates.
	Candidates *int
	// Examples is the most few-shot examples a candidate shows, 0 or
	// more (0: none); nil is DefaultExamples.
	Examples *int
	// Judging is the model client and the rules for its failures.
	Judging judging.Config
	// Env reads the environment (os.Getenv); nil reads nothing. Log gets
	// the client's notices (standard error); nil discards them.
	Env func(string) string
	Log io.Writer

	// holdout, candidates and examples are Holdout, Candidates and
	// Examples with their defaults, as check sets them.
	holdout              float64
	candidates, examples int
}

// row is one labelled record: its sample and its label (1 or 0 for a
// binary one, else the grade).
type row struct {
	rec   dataset.Record
	label float64
	// view is what the judge reads of the sample (its fields' texts):
	// rows that show the judge the same are split together. "" is a
	// view of its own.
	view string
}

// labels are the labelled records of a labels file.
type labels struct {
	file   string
	rows   []row
	graded bool
}

// check fills the defaults of job and checks what needs no file.
func (job *Job) check() error {
	if job.Registry == nil {
		job.Registry = agent.Builtins()
	}
	if job.Label == "" {
		job.Label = job.Metric
	}
	job.holdout = valueOr(job.Holdout, DefaultHoldout)
	job.candidates = valueOr(job.Candidates, DefaultCandidates)
	job.examples = valueOr(job.Examples, DefaultExamples)
	switch {
	case job.Metric == "":
		return eval.FlagError("--metric", "missing: name the judge to align")
	case job.Labels == "":
		return eval.FlagError("--labels", "missing: give the labels file (records with human.%s)", job.Label)
	case !(job.holdout > 0 && job.holdout < 1):
		return eval.FlagError("--holdout", "want a share between 0 and 1 (0.3 holds out 30%% of the labels), got %v", job.holdout)
	case job.candidates < 1:
		return eval.FlagError("--candidates", "want at least 1, got %d", job.candidates)
	case job.examples < 0:
		return eval.FlagError("--examples", "want 0 or more (0: no few-shot examples), got %d", job.examples)
	case !job.Judging.DryRun && job.Out == "":
		return eval.FlagError("--out", "missing: say where the aligned judges file goes")
	}
	if err := job.checkOut(); err != nil {
		return err
	}
	return job.Judging.Check()
}

// checkOut checks, before any call, that --out can be written
// (report.CheckOutFile: its folder is there, it is no folder and not
// "-") and that it is none of the files the run reads: the aligned judge
// written over the judges file would replace every other judge (or the
// profile) it holds, over the labels the labels. A link at --out is
// replaced, not followed (atomicfile.Write): only what is there itself
// counts.
func (job *Job) checkOut() error {
	if err := report.CheckOutFile("--out", job.Out); err != nil {
		return err
	}
	out, err := os.Lstat(job.Out)
	if job.Out == "" || err != nil {
		return nil // nothing there yet to lose
	}
	for _, in := range []struct{ flag, path string }{{"--judges", job.Judges}, {"--labels", job.Labels}, {"--prices", job.Judging.LLM.PricesFile}} {
		if in.path == "" || in.path == dataset.Stdin {
			continue
		}
		if fi, err := os.Stat(in.path); err == nil && os.SameFile(out, fi) {
			return eval.FlagError("--out", "%s is the file %s reads: the aligned judge written there would replace what it holds; write it to another file", job.Out, in.flag)
		}
	}
	return nil
}

// valueOr is *p, or def when p is nil.
func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// definition reads the judge to align from the judges file.
func (job Job) definition() (*judges.Definition, error) {
	if job.Judges == "" {
		if _, ok := job.Registry.Lookup(job.Metric); ok {
			return nil, eval.FlagError("--metric "+job.Metric, "a built-in judge has no definition to reword: define the judge in a judges file (examples/judges.yaml) and give it with --judges")
		}
		return nil, eval.FlagError("--judges", "missing: give the judges file that defines %s", job.Metric)
	}
	defs, err := agent.JudgeDefinitions(job.Registry, job.Judges)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range defs {
		if d.Name == job.Metric {
			return d, nil
		}
		names = append(names, d.Name)
	}
	return nil, eval.FlagError("--metric", "%s defines no judge %s (it defines %v)", job.Judges, job.Metric, names)
}

// read reads the labelled records of the labels file, each checked
// against def (a record without a field def reads is an input error
// naming its line); a graded label must be on def's scale.
func (job Job) read(def *judges.Definition) (*labels, error) {
	scan := agree.LabelScan{Label: job.Label}
	var recs []dataset.Record
	check := judges.Defined{Def: def}
	data, err := dataset.Open(job.Labels, dataset.Options{Stdin: job.Stdin, Scorers: []eval.Scorer{check}, Visit: func(r dataset.Record) error {
		scan.Add(r)
		recs = append(recs, r)
		return nil
	}})
	if err != nil {
		return nil, eval.AsInputError("", err)
	}
	out := &labels{file: data.Name(), graded: scan.Graded()}
	sc := def.Scale
	if err := readable(out.file, "human."+strings.TrimPrefix(job.Label, "!"), &scan, out.graded, sc); err != nil {
		return nil, err
	}
	opts := agree.Options{Label: job.Label, Graded: out.graded}
	for _, r := range recs {
		l, ok := opts.LabelOf(r)
		if !ok {
			continue
		}
		if out.graded && (l < float64(sc.Lo) || l > float64(sc.Hi) || sc.PassFail) {
			return nil, &eval.InputError{File: out.file, Line: r.Line, Field: "human." + job.Label,
				Msg: fmt.Sprintf("grade %v is off the judge's scale %s: a graded label is graded on the judge's scale", l, sc)}
		}
		out.rows = append(out.rows, row{rec: r, label: l, view: viewOf(def, r.Sample)})
	}
	if len(out.rows) < MinLabels {
		return nil, &eval.InputError{File: out.file, Field: "human." + job.Label,
			Msg: fmt.Sprintf("%s the label, want at least %d: align measures on a held-out part of them", carry(len(out.rows)), MinLabels)}
	}
	if units, _ := units(out.rows); len(units) < 2 {
		return nil, &eval.InputError{File: out.file, Field: "human." + job.Label,
			Msg: fmt.Sprintf("the %d labelled records all show the judge the same %s: align needs two samples at least, one to train on and one to measure on", len(out.rows), strings.Join(def.Fields, ", "))}
	}
	if cls := classes(out.rows); len(cls) == 1 {
		kind := strconv.FormatFloat(cls[0][0].label, 'g', -1, 64)
		if !out.graded {
			kind = strconv.FormatBool(cls[0][0].label == 1)
		}
		return nil, &eval.InputError{File: out.file, Field: "human." + strings.TrimPrefix(job.Label, "!"),
			Msg: fmt.Sprintf("every label is %s (%d records): align needs labels of two kinds at least, else a judge that always says %s agrees with all of them", kind, len(out.rows), kind)}
	}
	return out, nil
}

// readable checks that every label scan counted reads as one of its
// kind, as agree checks it: a label that is there but does not read is
// an input error naming its line (field names it), never a record left
// out in silence. Graded labels for a pass/fail judge name the line of
// the first grade that is neither 1 nor 0.
func readable(file, field string, scan *agree.LabelScan, graded bool, sc judges.Scale) error {
	if graded && sc.PassFail {
		line, grade := 0, 0.0
		for _, g := range scan.Grades() {
			if l := scan.FirstLine(g); g != 0 && g != 1 && (line == 0 || l < line) {
				line, grade = l, g
			}
		}
		return &eval.InputError{File: file, Line: line, Field: field,
			Msg: fmt.Sprintf("%s is no pass or fail: a pass/fail judge is aligned with a binary label, true or false (1 or 0)", strconv.FormatFloat(grade, 'g', -1, 64))}
	}
	line, v := scan.Unusable(graded)
	if line == 0 {
		return nil
	}
	want := `a binary label, true or false (1 or 0; "yes" or "no")`
	if graded {
		want = "a grade, a number on the judge's scale " + sc.String()
	}
	return &eval.InputError{File: file, Line: line, Field: field,
		Msg: fmt.Sprintf("%s does not read as a label: want %s, or none (absent or null) on a record without one", v, want)}
}

// split shuffles the rows with seed and holds out a share of them: the
// same rows and seed give the same parts. Rows that show the judge the
// same sample (one answer labelled by two people) are one unit, held out
// or trained on together, so that no held-out sample is shown to the
// model as a training example or a miss. Each label is held out in its
// share of the units (the quotas of the whole, largest remainder first,
// then the lowest label; a unit counting as its first row's label), and
// both parts have at least one unit of each binary label that two units
// or more carry.
func split(rows []row, holdout float64, seed uint64) (train, held []row) {
	first, members := units(rows)
	idx := make([]int, len(first))
	for i := range idx {
		idx[i] = i
	}
	r := rand.New(rand.NewPCG(seed, 0x616c69676e)) // "align"
	r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	n := int(math.Round(holdout * float64(len(first))))
	n = min(max(n, 1), len(first)-1)
	quota := quotas(first, n)
	taken := map[float64]int{}
	for _, i := range idx {
		l := first[i].label
		if taken[l] < quota[l] {
			taken[l]++
			held = append(held, members[i]...)
		} else {
			train = append(train, members[i]...)
		}
	}
	return train, held
}

// units groups rows by what they show the judge (row.view), in the order
// first seen: the first row of each group, and each group's rows.
func units(rows []row) (first []row, members [][]row) {
	at := map[string]int{}
	for _, r := range rows {
		if i, ok := at[r.view]; ok && r.view != "" {
			members[i] = append(members[i], r)
			continue
		}
		at[r.view] = len(first)
		first = append(first, r)
		members = append(members, []row{r})
	}
	return first, members
}

// viewOf is what def reads of s, as an example shows it: one text per
// field, in order; "" when it cannot be read (a unit of its own).
func viewOf(def *judges.Definition, s eval.Sample) string {
	ex, ok := def.ExampleOf(s, def.Scale.Grades()[0])
	if !ok {
		return ""
	}
	texts := make([]string, len(def.Fields))
	for i, f := range def.Fields {
		texts[i] = ex.Fields[f]
	}
	b, _ := json.Marshal(texts) // strings always marshal
	return string(b)
}

// quotas are how many rows of each label split holds out: n in all,
// each label's share of n by largest remainder (ties to the lower
// label); then, of two labels, one that two rows or more carry keeps a
// row in each part, the other giving or taking one where it can.
func quotas(rows []row, n int) map[float64]int {
	count := map[float64]int{}
	for _, r := range rows {
		count[r.label]++
	}
	keys := slices.Sorted(maps.Keys(count))
	quota := map[float64]int{}
	rem := map[float64]float64{}
	left := n
	for _, k := range keys {
		share := float64(n) * float64(count[k]) / float64(len(rows))
		quota[k] = int(share)
		rem[k] = share - float64(quota[k])
		left -= quota[k]
	}
	byRem := slices.Clone(keys)
	slices.SortStableFunc(byRem, func(a, b float64) int { return cmp.Compare(rem[b], rem[a]) })
	for _, k := range byRem[:left] {
		quota[k]++
	}
	if len(keys) != 2 {
		return quota
	}
	for i, k := range keys {
		o := keys[1-i]
		switch {
		case count[k] < 2:
		case quota[k] == 0:
			quota[k]++
			if quota[o] >= 2 {
				quota[o]--
			}
		case quota[k] == count[k]:
			quota[k]--
			if count[o]-quota[o] >= 2 {
				quota[o]++
			}
		}
	}
	return quota
}

// gradeOf is label as a grade of sc: a binary label is the scale's top
// (true) or bottom (false) grade, a graded one the nearest grade.
func gradeOf(sc judges.Scale, label float64, graded bool) string {
	gs := sc.Grades()
	if !graded {
		if label == 1 {
			return gs[len(gs)-1]
		}
		return gs[0]
	}
	g := int(math.Round(label)) - sc.Lo
	return gs[min(max(g, 0), len(gs)-1)]
}

// classes splits rows by label, in order, for drawing examples.
func classes(rows []row) [][]row {
	by := map[float64][]row{}
	var keys []float64
	for _, r := range rows {
		if _, ok := by[r.label]; !ok {
			keys = append(keys, r.label)
		}
		by[r.label] = append(by[r.label], r)
	}
	slices.Sort(keys)
	out := make([][]row, len(keys))
	for i, k := range keys {
		out[i] = by[k]
	}
	return out
}

// carry is "N records carry", in the number of n.
func carry(n int) string {
	if n == 1 {
		return "1 record carries"
	}
	return strconv.Itoa(n) + " records carry"
}
