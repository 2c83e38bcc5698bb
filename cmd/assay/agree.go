package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
)

type agreeFlags struct {
	metric      string
	score       string
	label       string
	labelType   string
	grades      string
	by          string
	dataset     string
	threshold   float64
	baseline    bool
	calibration bool
	format      string
	quiet       bool
	llm         llmFlags
}

func newAgreeCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := agreeFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   "agree (--metric NAME | --score FIELD) --label LABEL [flags] FILE\n  assay agree --label LABEL [flags] RUN_DIR",
		Short: "Measure how well a judge agrees with human labels",
		Long: `Compare a judge's values with a human label of each record. The values come
from one of three places:

  --metric NAME   run the judge now over FILE;
  --score FIELD   read them from FILE: a precomputed judge value or a second
                  rater (meta.judge_grade, human.rater2: a dotted path into
                  the record's id, human labels or metadata); no model call;
  RUN_DIR         a stored bench run (assay bench --out): its results.jsonl
                  joined by id with the labels of the dataset its config.json
                  names (--dataset FILE when that path no longer holds it);
                  --metric picks one of the run's metrics; no model call.

A binary label (human.faithful, human.relevant: true/false or 1/0) gets
balanced accuracy, precision, recall, F1, Cohen's kappa and the Matthews
correlation (MCC) at the judge's default threshold (0.5 for --score) and at
the best threshold for this data, and ROC AUC. The default threshold's
balanced accuracy comes with a 95% bootstrap interval (stratified, 2000
resamples, fixed seed). When the values are in [0, 1] they are read as
chances and their calibration is measured: Brier score, expected calibration
error and a 10-bin reliability table (in JSON; in Markdown with
--calibration, beside MCC). With --baseline the plain token-overlap baseline
is measured beside the judge.

A graded label (numbers with more than two values, 1-5 or 0-3; detected, or
--label-type graded) gets Spearman, Kendall tau-b and Pearson, which rank
the judge's values as they are against the grades; and linear and quadratic
weighted kappa, ordinal and interval Krippendorff alpha and the MAE (in
grades), which need the judge on the grade scale: its values as given when
they are grades (a second rater), else its native points when its scale is
the grades' (source_relevance's 1-5), else its value v in [0, 1] mapped to
the grade nearest min + v*(max-min). The grades are those observed, or
--grades. Each statistic has a 95% bootstrap interval (2000 resamples, fixed
seed; resamples where it is undefined are dropped and counted).

--by FIELD (meta.model, meta.domain) measures every statistic per value of
the field too, beside the whole.

Defaulted judge results are counted and left out of the statistics, never
averaged in; more of them than --max-default-rate allows (5%, none under
--strict) exits 3. So are records without a value (the judge cannot score
them, the field is missing, the run has no result): the first is named on
standard error, and when no labelled record has a value the run exits 2.`,
		Example: `  assay agree --metric faithfulness --label faithful --baseline data/begin.dev.jsonl
  assay agree --metric source_relevance --label relevant --llm openai:gpt-4o-mini data/msmarco.dev.jsonl
  assay agree --score meta.judge_grade --label relevance --by meta.model fixtures/rag/graded.jsonl
  assay agree --label faithful --calibration runs/nightly`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgree(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.metric, "metric", "", "judge to run now, or the metric of a stored run to read: "+fmt.Sprint(reg.Metrics()))
	fl.StringVar(&f.score, "score", "", "read the judge's values from this field of each record (meta.NAME, human.NAME) instead of running a judge")
	fl.StringVar(&f.label, "label", "", "human label to compare with (required), e.g. faithful, relevant, relevance; !NAME reads a binary one negated (!hallucinated)")
	fl.StringVar(&f.labelType, "label-type", "", "binary or graded (default: graded when the label holds numbers other than 0 and 1)")
	fl.StringVar(&f.grades, "grades", "", "the grades of a graded label, for the kappas, e.g. 1,2,3,4,5 (default: those observed)")
	fl.StringVar(&f.by, "by", "", "also measure per value of this field (meta.model, meta.domain)")
	fl.StringVar(&f.dataset, "dataset", "", "with RUN_DIR: the run's dataset, when the path in its config.json no longer holds it")
	fl.Float64Var(&f.threshold, "threshold", -1, "decision threshold on the judge's value for a binary label (default: the judge's own; 0.5 with --score)")
	fl.BoolVar(&f.baseline, "baseline", false, "also measure the plain token-overlap baseline")
	fl.BoolVar(&f.calibration, "calibration", false, "Markdown: also print MCC, Brier, ECE and the reliability table of a binary label (JSON always has them)")
	fl.StringVar(&f.format, "format", "md", "output format: md or json")
	f.llm.register(fl)
	registerMaxDefaultRate(fl, &f.llm)
	registerSamples(fl, &f.llm)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	_ = cmd.MarkFlagRequired("label")
	return cmd
}

// agreeSource is where the judge's values come from.
type agreeSource struct {
	run    *bench.RunFolder // a stored run, or nil
	metric string           // the stored run's metric
	path   string           // the dataset
}

func (f agreeFlags) source(arg string) (agreeSource, error) {
	fi, err := os.Stat(arg)
	if arg == bench.Stdin || err != nil || !fi.IsDir() {
		switch {
		case f.dataset != "":
			return agreeSource{}, inputErr(fmt.Errorf("--dataset: only with a run folder; %s is a file: give the dataset as the argument", arg))
		case f.score != "" && f.metric != "":
			return agreeSource{}, inputErr(errors.New("--score and --metric: give one: --metric runs a judge now, --score reads its values from the file"))
		case f.score == "" && f.metric == "" && err != nil && arg != bench.Stdin:
			return agreeSource{}, inputErr(fmt.Errorf("%s: %w: give a run folder (assay bench --out), or a dataset with --metric or --score", arg, err))
		case f.score == "" && f.metric == "":
			return agreeSource{}, inputErr(errors.New("no judge values: give --metric NAME (run a judge now), --score FIELD (values in the file) or a run folder in place of the file"))
		}
		if f.metric != "" {
			if _, err := f.llm.metrics.New(f.metric, nil); err != nil {
				return agreeSource{}, inputErr(fmt.Errorf("--metric: %w", err))
			}
		}
		return agreeSource{path: arg}, nil
	}
	if f.score != "" {
		return agreeSource{}, inputErr(fmt.Errorf("--score: not with a run folder (%s): its values are the run's", arg))
	}
	if f.baseline {
		return agreeSource{}, inputErr(fmt.Errorf("--baseline: not with a run folder (%s): measure the baseline over its dataset with --metric", arg))
	}
	if f.llm.dryRun {
		return agreeSource{}, inputErr(fmt.Errorf("--dry-run: a run folder (%s) makes no model call", arg))
	}
	run, err := bench.ReadRunFolder(arg)
	if err != nil {
		return agreeSource{}, inputErr(err)
	}
	ms := run.Config.Metrics
	switch {
	case f.metric != "" && !slices.Contains(ms, f.metric):
		return agreeSource{}, inputErr(fmt.Errorf("--metric: run %s has no metric %s: it has %s", arg, f.metric, strings.Join(ms, ", ")))
	case f.metric == "" && len(ms) != 1:
		return agreeSource{}, inputErr(fmt.Errorf("run %s has the metrics %s: pick one with --metric", arg, strings.Join(ms, ", ")))
	}
	src := agreeSource{run: run, path: f.dataset, metric: f.metric}
	if src.metric == "" {
		src.metric = ms[0]
	}
	if src.path == "" {
		src.path = run.Config.Dataset
		if src.path == bench.Stdin {
			return agreeSource{}, inputErr(fmt.Errorf("run %s read its dataset from standard input: give it with --dataset FILE", arg))
		}
		if _, err := os.Stat(src.path); err != nil {
			return agreeSource{}, inputErr(fmt.Errorf("run %s: its dataset %s cannot be read (%w): give it with --dataset FILE", arg, src.path, err))
		}
	}
	// The run's results are joined by id with the labels of the dataset it
	// judged, byte for byte; standard input cannot be hashed and read too.
	if want := run.Config.DatasetSHA256; want != "" && src.path != bench.Stdin {
		got, err := bench.FileSHA256(src.path)
		if err != nil {
			return agreeSource{}, inputErr(fmt.Errorf("run %s: its dataset %s cannot be read (%w): give it with --dataset FILE", arg, src.path, err))
		}
		if got != want {
			return agreeSource{}, inputErr(fmt.Errorf("the run in %s judged a dataset with sha256 %s (its %s), but %s has sha256 %s: its labels are not those of the records the run judged; give that dataset with --dataset FILE, or judge this one with assay bench",
				arg, want, bench.FileConfig, src.path, got))
		}
	}
	return src, nil
}

// metricOf is the metric a stored run's values are read for.
func (f agreeFlags) metricOf(src agreeSource) string {
	if src.run != nil {
		return src.metric
	}
	return f.metric
}

// storedThreshold is metric's default threshold for a run judged by model
// ("offline" or "backend:model").
func storedThreshold(reg *metric.Registry, name, model string) float64 {
	m, ok := reg.Lookup(name)
	if !ok || m.Threshold == (metric.Threshold{}) {
		return 0.5
	}
	if model == "offline" || model == "" {
		return m.Threshold.Offline
	}
	return m.Threshold.Model
}

// parseGrades reads --grades: ascending distinct numbers.
func parseGrades(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var gs []float64
	for part := range strings.SplitSeq(s, ",") {
		g, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(g) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("--grades: %q is not a number: write the grades as 1,2,3,4,5", part)
		}
		gs = append(gs, g)
	}
	slices.Sort(gs)
	if len(slices.Compact(slices.Clone(gs))) != len(gs) || len(gs) < 2 {
		return nil, fmt.Errorf("--grades: want at least two distinct grades, got %q", s)
	}
	return gs, nil
}

func runAgree(cmd *cobra.Command, f agreeFlags, arg string) error {
	if err := checkFormat(f.format, "md", "json"); err != nil {
		return err
	}
	if !slices.Contains([]string{"", "binary", "graded"}, f.labelType) {
		return inputErr(fmt.Errorf("--label-type: must be binary or graded, got %q", f.labelType))
	}
	grades, err := parseGrades(f.grades)
	if err != nil {
		return inputErr(err)
	}
	for name, path := range map[string]string{"--score": f.score, "--by": f.by} {
		if path == "" {
			continue
		}
		if err := bench.CheckFieldPath(path); err != nil {
			return inputErr(fmt.Errorf("%s: %w", name, err))
		}
	}
	src, err := f.source(arg)
	if err != nil {
		return err
	}
	metric := f.metricOf(src)
	specs, err := f.llm.jurySpecs()
	if err != nil {
		return err
	}
	if specs != nil && (src.run != nil || f.metric == "") {
		return inputErr(fmt.Errorf("--llm %s: a jury judges now: give --metric NAME over a dataset (stored and --score values were judged already)", f.llm.spec))
	}
	if f.llm.samples != 1 && (src.run != nil || f.metric == "") {
		return inputErr(fmt.Errorf("--samples %d: only a judge run now (--metric, no stored run) asks a model; stored and --score values were judged already (drop --samples)", f.llm.samples))
	}
	setThreshold := cmd.Flags().Changed("threshold")
	if setThreshold && !(f.threshold >= 0 && f.threshold <= 1) { // NaN too
		return inputErr(fmt.Errorf("--threshold: want a value from 0 to 1, got %g", f.threshold))
	}
	if err := f.llm.checkMaxDefaultRate(); err != nil {
		return err
	}
	// A first pass checks the whole dataset, so that bad input is reported
	// before any model call; each scorer reads it again record by record.
	scan := bench.LabelScan{Label: f.label}
	data, err := bench.OpenDataset(src.path, bench.DatasetOptions{Stdin: cmd.InOrStdin(), Visit: func(r bench.Record) error {
		scan.Add(r)
		return nil
	}})
	if err != nil {
		return inputErr(err)
	}
	graded := f.labelType == "graded" || (f.labelType == "" && scan.Graded())
	if grades != nil && !graded {
		return inputErr(fmt.Errorf("--grades: the label human.%s is binary: give --label-type graded to read it as grades", f.label))
	}
	switch {
	case graded && strings.HasPrefix(f.label, "!"):
		return inputErr(fmt.Errorf("--label %s: a graded label cannot be negated (drop the leading !)", f.label))
	case graded && scan.Numeric == 0:
		return inputErr(fmt.Errorf("%s: no record has a numeric (graded) label human.%s", data.Name(), f.label))
	case !graded && scan.Binary == 0:
		return inputErr(fmt.Errorf("%s: no record has the binary label human.%s", data.Name(), f.label))
	}
	labelled := scan.Binary
	if graded {
		labelled = scan.Numeric
	}
	opts := bench.AgreeOptions{Label: f.label, Graded: graded, Grades: grades, By: f.by}
	threshold := func(th float64) *float64 {
		if graded {
			return nil
		}
		if setThreshold {
			th = f.threshold
		}
		return &th
	}
	var results []bench.AgreeResult
	switch {
	case src.run != nil:
		o := opts
		o.Threshold = threshold(storedThreshold(f.llm.metrics, metric, src.run.Config.Model))
		res, err := bench.AgreeValues(data.Records(), metric, bench.StoredScores(src.run.Results, metric), o)
		if err != nil {
			return inputErr(data.Err(err))
		}
		results = append(results, res)
	case f.score != "":
		o := opts
		o.Threshold = threshold(0.5)
		res, err := bench.AgreeValues(data.Records(), f.score, bench.ScoreField(f.score), o)
		if err != nil {
			return inputErr(data.Err(err))
		}
		results = append(results, res)
	}
	for _, r := range results {
		if err := unscored(cmd.ErrOrStderr(), data.Name(), r); err != nil {
			return err
		}
	}
	// A judge run now has one juror per model of --llm, each with its own
	// client (and so its own cache and usage), the other flags the same.
	type juror struct {
		flags  llmFlags
		client *llm.Client
	}
	type job struct {
		scorer    eval.Scorer
		metric    string
		threshold *float64
		juror     *juror // nil for the baseline
	}
	var jurors []*juror
	var jobs []job
	if src.run == nil && f.metric != "" {
		if specs == nil {
			specs = []string{f.llm.spec}
		}
		var dry []func() error
		for _, spec := range specs {
			jr := &juror{flags: f.llm}
			jr.flags.spec = spec
			c, closeCache, err := jr.flags.client(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeCache()
			if err := jr.flags.checkSamples(c); err != nil {
				return err
			}
			// A sampled ratio's majority verdict is at the threshold the
			// agreement reads the judge's value at.
			th := func(m string) float64 {
				if setThreshold {
					return f.threshold
				}
				return f.llm.metrics.DefaultThreshold(m, c)
			}
			build := jr.flags.sampledScorers([]string{f.metric}, th, judgeScorers(f.llm.metrics, []string{f.metric}))
			if f.llm.dryRun {
				dry = append(dry, func() error {
					return dryRun(cmd.Context(), cmd.OutOrStdout(), f.llm.metrics, c, []string{f.metric}, build, data.Len(), data.Records())
				})
				continue
			}
			jr.client = c
			name := f.metric
			if len(specs) > 1 {
				name = f.metric + " (" + spec + ")"
			}
			jurors = append(jurors, jr)
			jobs = append(jobs, job{build(c)[0], name, threshold(f.llm.metrics.DefaultThreshold(f.metric, c)), jr})
		}
		for _, d := range dry {
			if err := d(); err != nil {
				return err
			}
		}
		if f.llm.dryRun {
			return nil
		}
	}
	// The baseline of --metric token_overlap is itself, already a row.
	if f.baseline && f.metric != judges.MetricTokenOverlap {
		jobs = append(jobs, job{judges.TokenOverlap{}, judges.MetricTokenOverlap, threshold(f.llm.metrics.DefaultThreshold(judges.MetricTokenOverlap, nil)), nil})
	}
	defaulted := map[*juror]int{}
	var panel []bench.Juror
	for _, j := range jobs {
		// The baseline's meter and checks are the (first) judge's, as
		// they were before juries.
		var client *llm.Client
		lf := &f.llm
		owner := j.juror
		if owner == nil && len(jurors) > 0 {
			owner = jurors[0]
		}
		if owner != nil {
			client, lf = owner.client, &owner.flags
		}
		meter, err := newMeter(cmd, lf, "agree "+j.metric, labelled, f.quiet, client)
		if err != nil {
			return err
		}
		o := opts
		o.Threshold = j.threshold
		res, err := bench.AgreeStream(cmd.Context(), data.Records(), bench.AgreeJob{Scorer: metered{j.scorer, meter, lf.stable}, Metric: j.metric, Concurrency: bench.TasksPerCall * f.llm.concurrency}, o)
		meter.Close()
		switch {
		case err != nil && cmd.Context().Err() != nil:
			return &exitError{code: exitInfra, err: err}
		case err != nil:
			return runErr(data, err)
		}
		if client != nil {
			if err := lf.authErr(client); err != nil {
				return err
			}
		}
		if err := unscored(cmd.ErrOrStderr(), data.Name(), res); err != nil {
			return err
		}
		defaulted[owner] += res.Defaulted
		results = append(results, res)
		if j.juror != nil && len(jurors) > 1 {
			th := 0.0
			if j.threshold != nil {
				th = *j.threshold
			}
			panel = append(panel, bench.Juror{Result: res, Threshold: th})
		}
	}
	var jury *bench.JuryResult
	if len(panel) > 1 {
		jr, err := bench.Jury(panel, opts)
		if err != nil {
			return &exitError{code: exitInfra, err: err}
		}
		jury = &jr
	}
	if err := printAgree(cmd.OutOrStdout(), f.format, data.Name(), results, jury, f.calibration); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	for _, jr := range jurors {
		jr.flags.summary(cmd.ErrOrStderr(), jr.client, defaulted[jr])
	}
	for _, jr := range jurors {
		if err := jr.flags.budgetErr(jr.client); err != nil {
			return err
		}
	}
	if jury != nil {
		results = append(results, jury.Jury)
	}
	for _, r := range results {
		if err := f.llm.defaultRateErr(rowDefaults(r)); err != nil {
			return err
		}
		if r.N == 0 && r.Defaulted > 0 {
			// Nothing was measured: a run whose every judgement fell
			// back to the neutral default must not pass for a result.
			return &exitError{code: exitInfra, err: fmt.Errorf("%s: all %d labelled records fell back to the neutral default (the model calls failed): nothing to compare with the labels",
				r.Metric, r.Defaulted)}
		}
	}
	return nil
}

// metered counts each record its scorer scored on a progress meter, and
// each sampled judgement in stable (nil: none).
type metered struct {
	eval.Scorer
	meter  *prog.Meter
	stable *stability
}

var _ eval.Scorer = metered{}

func (m metered) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	sc, err := m.Scorer.Score(ctx, s)
	defaulted := 0
	if sc.Defaulted {
		defaulted = 1
	}
	m.meter.Add(1, defaulted)
	if err == nil {
		m.stable.add(sc)
	}
	return sc, err
}

// rowDefaults counts the judgements of r's rows and their defaults, each
// metric apart, so that the baseline beside a judge does not dilute it.
func rowDefaults(r bench.AgreeResult) judging.Defaults {
	d := judging.Defaults{Total: len(r.Rows)}
	for _, row := range r.Rows {
		if !row.Defaulted {
			continue
		}
		d.Defaulted++
		if d.First == nil && row.Err != "" {
			d.First = fmt.Errorf("record %s: %s: %w", row.ID, r.Metric, errors.New(row.Err))
		}
	}
	return d
}

// unscored reports the labelled records the scorer returned an error for
// (a record without a field its metric needs, say; defaults are counted
// apart): an input error when that is every one of them, else a note on w
// naming the first, as the statistics leave them out.
func unscored(w io.Writer, file string, res bench.AgreeResult) error {
	if res.Errors == 0 {
		return nil
	}
	i := slices.IndexFunc(res.Rows, func(r bench.Row) bool { return r.Err != "" && !r.Defaulted })
	if i < 0 {
		return nil
	}
	row := res.Rows[i]
	msg, _, _ := strings.Cut(row.Err, "\n") // a panic's stack stays in the JSON rows
	where := fmt.Sprintf("%s:%d: record %s: %s", file, row.Line, row.ID, msg)
	if res.Errors == len(res.Rows) {
		return inputErr(fmt.Errorf("%s (%s could score none of the %d labelled records)", where, res.Metric, len(res.Rows)))
	}
	fmt.Fprintf(w, "assay: %s (%d of %d labelled records left out)\n", where, res.Errors, len(res.Rows))
	return nil
}

// printAgree prints the results rs and, for a jury (nil: none), the
// jurors' agreement with each other and the jury's row after theirs. The
// JSON of a jury is an object {"results": rs, "jury": jury}; without one
// it is rs, as it always was.
func printAgree(w io.Writer, format, file string, rs []bench.AgreeResult, jury *bench.JuryResult, calibration bool) error {
	if format == "json" {
		if jury != nil {
			return writeJSON(w, struct {
				Results []bench.AgreeResult `json:"results"`
				Jury    *bench.JuryResult   `json:"jury"`
			}{rs, jury})
		}
		return writeJSON(w, rs)
	}
	if jury != nil {
		// The jury's row right after its jurors', before the baseline.
		n := len(jury.Jurors)
		rs = slices.Concat(rs[:n], []bench.AgreeResult{jury.Jury}, rs[n:])
	}
	// Buffered, so that a failed write (a full disk) is kept and returned.
	bw := bufio.NewWriter(w)
	var binary, graded []bench.AgreeResult
	for _, r := range rs {
		if r.GradedStats != nil {
			graded = append(graded, r)
		} else {
			binary = append(binary, r)
		}
	}
	if len(binary) > 0 {
		fmt.Fprintf(bw, "Agreement with human labels on %s\n\n", file)
		fmt.Fprint(bw, bench.MarkdownHeader)
		for _, r := range binary {
			fmt.Fprint(bw, r.Markdown())
		}
		for _, g := range groupNames(binary) {
			fmt.Fprintf(bw, "\nBy %s = %s\n\n", binary[0].By, g)
			fmt.Fprint(bw, bench.MarkdownHeader)
			for _, r := range binary {
				if i := slices.IndexFunc(r.Groups, func(x bench.AgreeResult) bool { return x.Group == g }); i >= 0 {
					fmt.Fprint(bw, r.Groups[i].Markdown())
				}
			}
		}
		if calibration {
			fmt.Fprintf(bw, "\nMCC and calibration (%d bins)\n\n", bench.CalibrationBins)
			fmt.Fprint(bw, bench.CalibrationMarkdownHeader)
			for _, r := range binary {
				fmt.Fprint(bw, r.CalibrationMarkdown())
				for _, g := range r.Groups {
					fmt.Fprint(bw, g.CalibrationMarkdown())
				}
			}
		}
	}
	if len(graded) > 0 {
		if len(binary) > 0 {
			fmt.Fprintln(bw)
		}
		fmt.Fprintf(bw, "Agreement with graded human labels on %s (grades %s; 95%% bootstrap intervals)\n\n", file, gradeList(graded[0].Grades))
		fmt.Fprint(bw, bench.GradedMarkdownHeader)
		for _, r := range graded {
			fmt.Fprint(bw, r.Markdown())
			for _, g := range r.Groups {
				fmt.Fprint(bw, g.Markdown())
			}
		}
		first := true
		for _, r := range graded {
			for _, x := range append([]bench.AgreeResult{r}, r.Groups...) {
				d := x.Dropped()
				if d == "" {
					continue
				}
				if first {
					fmt.Fprintln(bw)
					first = false
				}
				group := x.Group
				if group == "" {
					group = "all"
				}
				fmt.Fprintf(bw, "%s, %s: undefined bootstrap resamples dropped: %s\n", x.Metric, group, d)
			}
		}
	}
	if jury != nil {
		fmt.Fprintf(bw, "\n%s", jury.Markdown())
	}
	return bw.Flush()
}

// groupNames are the groups of rs, in order, each once.
func groupNames(rs []bench.AgreeResult) []string {
	var names []string
	for _, r := range rs {
		for _, g := range r.Groups {
			if !slices.Contains(names, g.Group) {
				names = append(names, g.Group)
			}
		}
	}
	return names
}

func gradeList(gs []float64) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = strconv.FormatFloat(g, 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}
