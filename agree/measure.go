package agree

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
)

// Table is one metric's results: the judge's, or each juror's of a jury
// with the jury's agreement.
type Table struct {
	Results []Result
	// Jury is the jurors' agreement with each other and the jury's result;
	// nil without a jury.
	Jury *JuryResult
}

// Outcome is what a measurement of agreement found: a table per metric,
// the baseline beside them, what each model client did, and the reasons
// the run failed. A dry run has Plans and nothing else.
type Outcome struct {
	// File names the dataset as errors do (dataset.StdinName for standard
	// input).
	File   string
	Tables []Table
	// Baseline is the token-overlap baseline's result, shown beside every
	// table; nil without Job.Baseline.
	Baseline *Result
	// Reports are what each juror's model client did, in order; none for
	// values judged already.
	Reports []judging.Report
	// Failures are the reasons the run failed, in the order found: calls
	// a budget refused, more neutral defaults than allowed, a result of
	// defaults alone.
	Failures judging.Failures
	// Plans are a dry run's, one per juror; nil for a run.
	Plans []*judging.Plan
}

// Passed reports whether the run passed: no failure of any kind.
func (o *Outcome) Passed() bool { return len(o.Failures) == 0 }

// Measure runs job: it checks every setting and the whole dataset before
// any model call, then compares the judge's values with the labels, one
// table per metric: values read from the records or from a stored run
// (no model call), or judges run now, each model of a jury with its own
// client, the jury then measured as one rater.
//
// The error is an *eval.InputError for bad input or settings, or another
// error when the run could not go on (the model refused the key, the
// context ended). A run that ended is an Outcome, whose Failures say why
// it did not pass.
func Measure(ctx context.Context, job Job) (*Outcome, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	job.Env, job.Log = judging.Env(job.Env), judging.Writer(job.Log)
	if job.Registry == nil {
		job.Registry = agent.Builtins()
	}
	if err := job.check(); err != nil {
		return nil, err
	}
	src, err := job.source()
	if err != nil {
		return nil, err
	}
	if err := job.checkJudging(src); err != nil {
		return nil, err
	}
	m, err := open(job, src)
	if err != nil {
		return nil, err
	}
	defer m.close()
	switch {
	case src.run != nil:
		err = m.values(func(metric string) (func(dataset.Record) eval.Score, float64) {
			return StoredScores(src.run.Results, metric), job.Registry.ThresholdOf(metric, judges.OfflineMethod(src.run.Config.Model))
		})
	case job.Score != "":
		err = m.values(func(string) (func(dataset.Record) eval.Score, float64) { return ScoreField(job.Score), 0.5 })
	default:
		err = m.judge(ctx)
	}
	if err == nil && job.Baseline && m.out.Plans == nil && !slices.Contains(src.metrics, judges.MetricTokenOverlap) {
		err = m.baseline(ctx)
	}
	if err != nil {
		return nil, err
	}
	if m.out.Plans == nil {
		m.end()
	}
	return m.out, nil
}

// measurement is a Measure under way.
type measurement struct {
	job  Job
	src  source
	data *dataset.Dataset
	opts Options
	// labelled counts the records with the label, for progress.
	labelled int
	// sessions are the jurors' model clients, defaulted their neutral
	// defaults; offline judges the baseline when there is no juror.
	sessions  []*judging.Session
	defaulted []int
	offline   *judging.Session
	out       *Outcome
	// causes holds the error of each default scored in this process under
	// its text (a Row keeps only the text), so that the advice after too
	// many defaults can tell a reply off the schema from a server down.
	causes sync.Map
}

// open reads the dataset of src in a first pass, which checks it whole
// and its label, before any model call.
func open(job Job, src source) (*measurement, error) {
	scan := LabelScan{Label: job.Label}
	var by fieldSeen
	data, err := dataset.Open(src.path, dataset.Options{Stdin: job.Stdin, Scorers: modelOnly(job, src), Visit: func(r dataset.Record) error {
		scan.Add(r)
		by.add(r, job.By)
		return nil
	}})
	if err != nil {
		return nil, eval.AsInputError("", err)
	}
	if job.By != "" && !by.found {
		return nil, eval.FlagError("--by", "no record of %s has the field %s: every record would be the one group %s%s", termtext.Visible(data.Name()), job.By, NoGroup, by.hint(job.By))
	}
	opts, err := job.options(data.Name(), &scan)
	if err != nil {
		return nil, err
	}
	m := &measurement{job: job, src: src, data: data, opts: opts, labelled: scan.Binary, out: &Outcome{File: data.Name()}}
	if opts.Graded {
		m.labelled = scan.Numeric
	}
	if job.Estimate {
		m.labelled = data.Len() // the judge scores every record
	}
	return m, nil
}

// fieldSeen says whether any record has a field (Field), and whether any
// has metadata at all.
type fieldSeen struct{ found, metadata bool }

func (f *fieldSeen) add(r dataset.Record, path string) {
	if path == "" || f.found {
		return
	}
	v, ok := Field(r, path)
	f.found = ok && v != nil
	f.metadata = f.metadata || r.Sample.Metadata != nil
}

// hint says, for a path into the metadata that no record has, where
// Assay reads metadata from, when no record has any.
func (f *fieldSeen) hint(path string) string {
	if f.metadata {
		return ""
	}
	return metadataHint(path, "no record has metadata")
}

// metadataHint says, for a path into the metadata (meta.NAME), that
// what has none (no record, the record) has no metadata object, and
// where Assay reads it from (a "meta" field is not read); "" for
// another path.
func metadataHint(path, none string) string {
	if root, _, _ := strings.Cut(path, "."); root != "meta" && root != "metadata" {
		return ""
	}
	return " (" + none + ": it is read from the field metadata, an object)"
}

// modelOnly are the scorers, to check the dataset against, of the judges
// run now that have no offline counterpart (defined in a judges file): a
// record without a field one reads is an input error before any call,
// where the built-in judges count such a record as one they cannot score.
func modelOnly(job Job, src source) []eval.Scorer {
	if src.run != nil || job.Score != "" {
		return nil
	}
	var out []eval.Scorer
	for _, m := range src.metrics {
		if e, ok := job.Registry.Lookup(m); ok && e.ModelOnly {
			sc, _ := job.Registry.New(m, nil) // the names are checked by source
			out = append(out, sc)
		}
	}
	return out
}

// labelHint is what to write instead when --label names the human
// object itself (--label human.correct, read as human.human.correct):
// the key under it; "" otherwise.
func (job Job) labelHint() string {
	label, neg := strings.CutPrefix(job.Label, "!")
	key, ok := strings.CutPrefix(label, "human.")
	if !ok || key == "" {
		return ""
	}
	if neg {
		key = "!" + key
	}
	return fmt.Sprintf(" (--label names a key under each record's human object: did you mean --label %s?)", key)
}

// options are the Options of job over a dataset (file) whose labels scan
// counted.
func (job Job) options(file string, scan *LabelScan) (Options, error) {
	graded := job.LabelType == "graded" || (job.LabelType == "" && scan.Graded())
	switch {
	case job.Grades != nil && !graded:
		return Options{}, eval.FlagError("--grades", "the label human.%s is binary: give --label-type graded to read it as grades", job.Label)
	case graded && strings.HasPrefix(job.Label, "!"):
		return Options{}, eval.FlagError("--label "+job.Label, "a graded label cannot be negated (drop the leading !)")
	case graded && scan.Numeric == 0:
		return Options{}, inputErr("%s: no record has a numeric (graded) label human.%s%s", file, job.Label, job.labelHint())
	case !graded && scan.Binary == 0:
		return Options{}, inputErr("%s: no record has the binary label human.%s%s", file, job.Label, job.labelHint())
	}
	if out := scan.Outside(job.Grades); graded && job.Grades != nil && out != nil {
		cells := make([]string, len(out))
		for i, g := range out {
			cells[i] = fmt.Sprintf("%s (first on line %d)", gradeText(g), scan.FirstLine(g))
		}
		all := slices.Sorted(slices.Values(slices.Concat(job.Grades, out)))
		return Options{}, eval.FlagError("--grades", "the label human.%s of %s takes values that are not among the grades %s: %s; give every grade it takes (--grades %s), or leave --grades out to take those observed",
			job.Label, file, gradeList(job.Grades), strings.Join(cells, ", "), strings.ReplaceAll(gradeList(all), ", ", ","))
	}
	if err := unusableLabel(job, file, scan, graded); err != nil {
		return Options{}, err
	}
	return Options{Label: job.Label, Graded: graded, Grades: job.Grades, By: job.By, Estimate: job.Estimate, Weight: job.Weight}, nil
}

// unusableLabel is the input error of the first record whose label is
// there (not absent, null or blank) but does not read as one of its kind:
// such a record would be left out with the unlabelled ones, in silence.
func unusableLabel(job Job, file string, scan *LabelScan, graded bool) error {
	line, v := scan.Unusable(graded)
	if line == 0 {
		return nil
	}
	kind, want := "binary", "true or false (1 or 0)"
	if graded {
		kind, want = "graded", "a number"
	}
	if job.Estimate {
		return inputErr("%s:%d: human.%s is %s: --estimate reads every record's label to tell labelled records from the rest, and this %s label must be %s",
			file, line, job.Label, v, kind, want)
	}
	if !graded {
		want = `true or false (1 or 0; "yes" or "no")`
	}
	return inputErr("%s:%d: human.%s is %s: a %s label must be %s, or absent or null on a record without one",
		file, line, strings.TrimSpace(strings.TrimPrefix(job.Label, "!")), v, kind, want)
}

// threshold is the threshold of a result whose judge's own is def: nil
// for a graded label, Job.Threshold when set.
func (m *measurement) threshold(def float64) *float64 {
	if m.opts.Graded {
		return nil
	}
	if t := m.job.Threshold; t != nil {
		def = *t
	}
	return &def
}

// values measures values already known, a table per metric: value
// returns a metric's value function and the judge's own threshold.
func (m *measurement) values(value func(metric string) (func(dataset.Record) eval.Score, float64)) error {
	names := m.src.metrics
	if m.src.run == nil {
		names = []string{m.job.Score}
	}
	for _, name := range names {
		f, th := value(name)
		o := m.opts
		o.Threshold = m.threshold(th)
		res, err := Values(m.data.Records(), name, f, o)
		if err != nil {
			return eval.AsInputError("", m.data.Err(err))
		}
		m.out.Tables = append(m.out.Tables, Table{Results: []Result{res}})
	}
	for _, t := range m.out.Tables {
		if err := m.check(t.Results[0]); err != nil {
			return err
		}
	}
	return nil
}

// judge opens a model client per juror and runs each metric's judge with
// each, a table per metric; a dry run plans their calls instead.
func (m *measurement) judge(ctx context.Context) error {
	var err error
	if m.sessions, err = m.job.Judging.OpenJury(m.job.Log, m.job.Env); err != nil {
		return err
	}
	for _, s := range m.sessions {
		if err := m.job.Registry.CheckModel(m.src.metrics, s.Model()); err != nil {
			return err
		}
	}
	m.defaulted = make([]int, len(m.sessions))
	jurors, _ := m.job.Judging.Jurors() // checked by Measure
	metrics := m.src.metrics
	if m.job.Judging.DryRun {
		for _, s := range m.sessions {
			p, err := judging.DryRun(ctx, s.Client(), metrics, m.scorers(s, metrics), m.data.Len(), dataset.Samples(m.data.Records()), s.Registry(m.job.Registry).DryRun)
			if err != nil {
				return err
			}
			p.Judge = s.Judge()
			m.out.Plans = append(m.out.Plans, p)
		}
		return nil
	}
	for _, metric := range metrics {
		var t Table
		for i, s := range m.sessions {
			name := metric
			if jurors != nil {
				name = metric + " (" + jurors[i] + ")"
			}
			scorer := m.scorers(s, []string{metric})(s.Model())[0]
			res, err := m.run(ctx, s, scorer, name, m.threshold(s.Registry(m.job.Registry).DefaultThreshold(metric, s.Model())))
			if err != nil {
				return err
			}
			m.defaulted[i] += res.Defaulted
			t.Results = append(t.Results, res)
		}
		if t.Jury, err = m.jury(t.Results); err != nil {
			return err
		}
		m.out.Tables = append(m.out.Tables, t)
	}
	return nil
}

// scorers returns the builder of the judges of metrics for session s,
// each asked Samples times with a sampled ratio's majority verdict at the
// threshold the agreement reads the judge's value at.
func (m *measurement) scorers(s *judging.Session, metrics []string) func(judges.Model) []eval.Scorer {
	threshold := func(metric string) float64 {
		if t := m.job.Threshold; t != nil {
			return *t
		}
		return s.Registry(m.job.Registry).DefaultThreshold(metric, s.Model())
	}
	// The session's registry: its judges take its fact checker, when it has one.
	return func(model judges.Model) []eval.Scorer {
		return s.Sampled(metrics, threshold, bench.JudgeScorers(s.Registry(m.job.Registry), metrics, model))
	}
}

// jury measures the jurors' results rs against each other and as one
// rater, each juror's verdicts at the threshold its result was measured
// at; nil for a judge alone.
func (m *measurement) jury(rs []Result) (*JuryResult, error) {
	if len(rs) < 2 {
		return nil, nil
	}
	panel := make([]Juror, len(rs))
	for i, r := range rs {
		panel[i] = Juror{Result: r}
		if r.Fixed != nil {
			panel[i].Threshold = r.Fixed.Threshold
		}
	}
	j, err := Jury(panel, m.opts)
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// baseline measures the token-overlap baseline, with the first juror's
// meter (offline's when none).
func (m *measurement) baseline(ctx context.Context) error {
	s := m.offline
	if len(m.sessions) > 0 {
		s = m.sessions[0]
	}
	if s == nil {
		j := m.job.Judging
		j.LLM.Spec, j.DryRun, j.Samples, j.Model, j.Checker, j.CheckerChunk = "offline", false, 1, nil, "", 0
		var err error
		if m.offline, err = j.Open(m.job.Log, m.job.Env); err != nil {
			return err
		}
		s = m.offline
	}
	res, err := m.run(ctx, s, judges.TokenOverlap{}, judges.MetricTokenOverlap, m.threshold(m.job.Registry.DefaultThreshold(judges.MetricTokenOverlap, nil)))
	if err != nil {
		return err
	}
	m.out.Baseline = &res
	if len(m.defaulted) > 0 {
		m.defaulted[0] += res.Defaulted
	}
	return nil
}

// run runs one judge (scorer, named name) of session s over the labelled
// records and measures its values at the threshold th.
func (m *measurement) run(ctx context.Context, s *judging.Session, scorer eval.Scorer, name string, th *float64) (Result, error) {
	meter, err := s.Meter(m.job.Log, m.job.Env, "agree "+name, m.labelled, m.job.Quiet)
	if err != nil {
		return Result{}, err
	}
	o := m.opts
	o.Threshold = th
	res, err := Stream(ctx, m.data.Records(), Judge{Scorer: metered{scorer, meter, s, &m.causes}, Metric: name, Concurrency: s.Limit()}, o)
	meter.Close()
	switch {
	case err != nil && ctx.Err() != nil:
		return Result{}, err
	case errors.Is(err, llm.ErrAuth):
		return Result{}, err
	case err != nil:
		return Result{}, eval.AsInputError("", m.data.Err(err))
	}
	// A scorer that fails goes on; no call was sent after a refused key.
	if err := s.Client().AuthErr(); err != nil {
		return Result{}, err
	}
	return res, m.check(res)
}

// check checks a result: the records its scorer could not score, and
// with Job.Estimate what the estimate needs.
func (m *measurement) check(res Result) error {
	if m.job.Estimate {
		if err := checkEstimate(m.data.Name(), res); err != nil {
			return err
		}
	}
	return m.unscored(res)
}

// unscored reports the labelled records the scorer returned an error for
// (a record without a field its metric needs, say; defaults are counted
// apart): an input error when that is every one of them, else a note on
// the log naming the first, as the statistics leave them out.
func (m *measurement) unscored(res Result) error {
	i := slices.IndexFunc(res.Rows, func(r Row) bool { return r.Err != "" && !r.Defaulted })
	if res.Errors == 0 || i < 0 {
		return nil
	}
	row := res.Rows[i]
	msg, _, _ := strings.Cut(row.Err, "\n") // a panic's stack stays in the JSON rows
	where := fmt.Sprintf("%s:%d: record %s: %s", m.data.Name(), row.Line, row.ID, msg)
	if res.Errors == len(res.Rows) {
		return inputErr("%s (%s could score none of the %s)", where, res.Metric, plural.Count(len(res.Rows), "labelled record"))
	}
	fmt.Fprintf(m.job.Log, "assay: %s (%d of %s left out)\n", termtext.Visible(where), res.Errors, plural.Count(len(res.Rows), "labelled record"))
	return nil
}

// end adds what each juror's client did, and the run's failures once it
// ended: the calls each juror's budget refused, then for each result (the
// baseline's and the juries' after the judges'), more neutral defaults
// than allowed or nothing but defaults.
func (m *measurement) end() {
	for i, s := range m.sessions {
		m.out.Reports = append(m.out.Reports, s.Report(m.defaulted[i]))
		m.out.Failures = append(m.out.Failures, s.Failures(judging.Defaults{})...) // its budget
	}
	var rs []Result
	for _, t := range m.out.Tables {
		rs = append(rs, t.Results...)
	}
	if m.out.Baseline != nil {
		rs = append(rs, *m.out.Baseline)
	}
	for _, t := range m.out.Tables {
		if t.Jury != nil {
			rs = append(rs, t.Jury.Jury)
		}
	}
	for _, r := range rs {
		if f, ok := m.job.Judging.DefaultRate(m.rowDefaults(r)); ok {
			m.out.Failures = append(m.out.Failures, f)
		}
		if r.N == 0 && r.Defaulted > 0 {
			// Nothing was measured: a run whose every judgement fell
			// back to the neutral default must not pass for a result.
			m.out.Failures = append(m.out.Failures, judging.Failure{Kind: judging.FailNothingScored, Err: fmt.Errorf(
				"%s: all %d labelled records fell back to the neutral default (the model calls failed): nothing to compare with the labels", r.Metric, r.Defaulted)})
		}
	}
}

// close closes the model clients.
func (m *measurement) close() {
	for _, s := range append(m.sessions, m.offline) {
		if s != nil {
			_ = s.Close() // idle connections and the cache, after the run
		}
	}
}

// rowDefaults counts the judgements of r's rows and their defaults, each
// metric apart, so that the baseline beside a judge does not dilute it.
// The first default keeps its error's chain when it was scored in this
// process. The defaults are counted by the kind of their cause
// (judging.CauseKind) when every cause was scored in this process: a
// cause known only by its text (a stored run's) has no kind to tell.
func (m *measurement) rowDefaults(r Result) judging.Defaults {
	d := judging.Defaults{Total: len(r.Rows)}
	causes, known := map[string]int{}, true
	for _, row := range r.Rows {
		if !row.Defaulted {
			continue
		}
		d.Defaulted++
		var cause error
		if row.Err != "" {
			cause = errors.New(row.Err)
			c, ok := m.causes.Load(row.Err)
			if ok {
				cause = c.(error)
			}
			known = known && ok
		}
		causes[judging.CauseKind(cause)]++
		if d.First == nil && cause != nil {
			d.First = fmt.Errorf("record %s: %s: %w", row.ID, r.Metric, cause)
		}
	}
	if known && d.Defaulted > 0 {
		d.Causes = causes
	}
	return d
}

// metered counts each record its scorer scored on a progress meter, and
// each sampled judgement in its session's report.
type metered struct {
	eval.Scorer
	meter   *prog.Meter
	session *judging.Session
	// causes keeps each default's error under its text (measurement's).
	causes *sync.Map
}

var _ eval.Scorer = metered{}

func (m metered) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	sc, err := m.Scorer.Score(ctx, s)
	defaulted := 0
	if sc.Defaulted {
		defaulted = 1
		if sc.Err != nil {
			m.causes.LoadOrStore(sc.Err.Error(), sc.Err)
		}
	}
	m.meter.Add(1, defaulted)
	if err == nil {
		m.session.Observe(sc)
	}
	return sc, err
}
