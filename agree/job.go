package agree

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/run"
)

// Job is one measurement of agreement, everything `assay agree` is asked:
// the dataset or run folder, where the judge's values come from, the
// label, and the settings. [Measure] runs it; the command line, the
// service and a Go program build a Job and call it alike.
type Job struct {
	// Data is the dataset's path (Stdin, "-", reads Stdin), or a run
	// folder written by assay bench, whose results are the judge's values
	// joined by id with the labels of the dataset it judged.
	Data  string
	Stdin io.Reader
	// Dataset, with a run folder, is the dataset it judged, when the path
	// in its config.json no longer holds it.
	Dataset string
	// Metrics are the judges to run now over the dataset, a table each
	// (Registry's Metrics); with a run folder, the run's metrics to read
	// (none reads its one metric).
	Metrics []string
	// Registry holds the metrics Metrics may name; nil is the built-in one
	// (agent.Builtins).
	Registry *metric.Registry
	// Score reads the judge's values from this field of each record
	// instead (a path Field reads: meta.judge_score): no model is asked.
	Score string
	// Label is the human label to compare with (dataset.Record.Label;
	// "!NAME" reads a binary one negated), LabelType "binary" or "graded"
	// ("" tells them apart as LabelScan does).
	Label, LabelType string
	// Grades are a graded label's categories, ascending (ParseGrades);
	// nil takes those observed.
	Grades []float64
	// By, a field path, also measures every statistic per value of the
	// field.
	By string
	// Estimate also estimates the mean label over every record from the
	// labels and the judge's values on all of them (PPI++; Result.Mean):
	// the judge scores the records without the label too.
	Estimate bool
	// Weight, with Estimate, reads each labelled record's weight from
	// this field (meta.label_weight): 1/the probability it had of being
	// labelled, when the labels were taken with unequal probabilities
	// (an annotation queue's active order). The estimate is then the
	// weighted one (stats.PPIWeightedMean); "" takes the labelled
	// records as a uniform random draw (stats.PPIMean).
	Weight string
	// Threshold, when set, is the decision threshold on the judge's value
	// for a binary label, from 0 to 1; nil takes the judge's own (0.5 for
	// Score).
	Threshold *float64
	// Baseline also measures the plain token-overlap baseline, unless it
	// is one of Metrics already.
	Baseline bool
	// Judging is the model client and the rules for its failures. Several
	// models in its LLM.Spec, comma separated, judge as a jury, each with
	// its own client.
	Judging judging.Config
	// Env reads the environment (os.Getenv); nil reads nothing.
	Env func(string) string
	// Log receives progress and notices while the run goes on (standard
	// error); nil discards them. Quiet leaves progress out.
	Log   io.Writer
	Quiet bool
}

// ParseGrades reads grades written as the command line takes them
// ("1,2,3,4,5"), ascending or not; "" is none.
func ParseGrades(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var gs []float64
	for part := range strings.SplitSeq(s, ",") {
		g, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(g) || math.IsInf(g, 0) {
			return nil, eval.FlagError("--grades", "%q is not a number: write the grades as 1,2,3,4,5", part)
		}
		gs = append(gs, g)
	}
	slices.Sort(gs)
	if err := checkGrades(gs); err != nil {
		return nil, eval.FlagError("--grades", "want at least two distinct grades, got %q", s)
	}
	return gs, nil
}

// checkGrades checks that gs are two or more grades, ascending and
// distinct.
func checkGrades(gs []float64) error {
	if len(gs) < 2 || !slices.IsSorted(gs) || len(slices.Compact(slices.Clone(gs))) != len(gs) {
		return eval.FlagError("--grades", "want at least two distinct grades, ascending, got %s", gradeList(gs))
	}
	return nil
}

// check checks the settings that need neither the data nor a model.
func (job Job) check() error {
	switch {
	case job.Label == "":
		return eval.FlagError("--label", "name the human label to compare with (faithful, relevant, relevance)")
	case !slices.Contains([]string{"", "binary", "graded"}, job.LabelType):
		return eval.FlagError("--label-type", "must be binary or graded, got %q", job.LabelType)
	case job.Grades != nil:
		if err := checkGrades(job.Grades); err != nil {
			return err
		}
	}
	if job.Weight != "" && !job.Estimate {
		return eval.FlagError("--weight", "weights only the estimate of the mean label: give --estimate too")
	}
	for _, f := range []struct{ flag, path string }{{"--score", job.Score}, {"--by", job.By}, {"--weight", job.Weight}} {
		if f.path == "" {
			continue
		}
		if err := CheckFieldPath(f.path); err != nil {
			return eval.AsInputError(f.flag, err)
		}
	}
	return nil
}

// checkJudging checks the settings of what asks a model, src being where
// the values come from.
func (job Job) checkJudging(src source) error {
	jurors, err := job.Judging.Jurors()
	if err != nil {
		return err
	}
	judged := src.run != nil || job.Score != "" // values judged already
	switch t := job.Threshold; {
	case jurors != nil && judged:
		return inputErr("--llm %s: a jury judges now: give --metric NAME over a dataset (stored and --score values were judged already)", job.Judging.LLM.Spec)
	case job.Judging.Samples > 1 && judged:
		return inputErr("--samples %d: only a judge run now (--metric, no stored run) asks a model; stored and --score values were judged already (drop --samples)", job.Judging.Samples)
	case jurors != nil && job.Estimate:
		return inputErr("--llm %s: --estimate corrects one judge's mean: give one model", job.Judging.LLM.Spec)
	case job.Judging.Checker != "" && judged:
		return inputErr("--checker %s: only a judge run now (--metric, no stored run) asks a model; stored and --score values were judged already (drop --checker)", job.Judging.Checker)
	case t != nil && !(*t >= 0 && *t <= 1): // NaN too
		return eval.FlagError("--threshold", "want a value from 0 to 1, got %g", *t)
	}
	if !judged {
		if err := job.Judging.CheckChecker(src.metrics); err != nil {
			return err
		}
	} else if err := job.Judging.CheckClient(); err != nil {
		return err // no client is opened: its flags are checked all the same
	}
	return job.Judging.Check()
}

// source is where the judge's values come from.
type source struct {
	run     *run.Folder // a stored run, or nil
	metrics []string    // the judges to run now, or the stored run's metrics
	path    string      // the dataset
}

// source finds where the judge's values come from: a dataset, or a run
// folder and the dataset it judged.
func (job Job) source() (source, error) {
	fi, err := os.Stat(job.Data)
	if job.Data == dataset.Stdin || err != nil || !fi.IsDir() {
		return job.datasetSource(err)
	}
	return job.runSource()
}

// datasetSource is the source of a dataset, statErr the error of its stat.
func (job Job) datasetSource(statErr error) (source, error) {
	arg, none := job.Data, job.Score == "" && len(job.Metrics) == 0
	switch {
	case job.Dataset != "":
		return source{}, eval.FlagError("--dataset", "only with a run folder; %s is a file: give the dataset as the argument", arg)
	case job.Score != "" && len(job.Metrics) > 0:
		return source{}, inputErr("--score and --metric: give one: --metric runs a judge now, --score reads its values from the file")
	case none && statErr != nil && arg != dataset.Stdin:
		return source{}, &eval.InputError{Msg: fmt.Sprintf("%s: %v: give a run folder (assay bench --out), or a dataset with --metric or --score", arg, statErr), Err: statErr}
	case none:
		return source{}, inputErr("no judge values: give --metric NAME (run a judge now), --score FIELD (values in the file) or a run folder in place of the file")
	}
	for i, m := range job.Metrics {
		if _, err := job.Registry.New(m, nil); err != nil {
			return source{}, eval.AsInputError("--metric", err)
		}
		if slices.Contains(job.Metrics[:i], m) {
			return source{}, eval.FlagError("--metric", "%q is named twice", m)
		}
	}
	return source{path: arg, metrics: job.Metrics}, nil
}

// runSource is the source of the run folder job.Data.
func (job Job) runSource() (source, error) {
	arg := job.Data
	switch {
	case job.Score != "":
		return source{}, eval.FlagError("--score", "not with a run folder (%s): its values are the run's", arg)
	case job.Baseline:
		return source{}, eval.FlagError("--baseline", "not with a run folder (%s): measure the baseline over its dataset with --metric", arg)
	case job.Judging.DryRun:
		return source{}, eval.FlagError("--dry-run", "a run folder (%s) makes no model call", arg)
	}
	run, err := run.ReadFolder(arg)
	if err != nil {
		return source{}, eval.AsInputError("", err)
	}
	ms := run.Config.Metrics
	for _, m := range job.Metrics {
		if !slices.Contains(ms, m) {
			return source{}, eval.FlagError("--metric", "run %s has no metric %s: it has %s", arg, m, strings.Join(ms, ", "))
		}
	}
	src := source{run: run, path: job.Dataset, metrics: job.Metrics}
	if len(src.metrics) == 0 {
		if len(ms) != 1 {
			return source{}, inputErr("run %s has the metrics %s: pick one with --metric", arg, strings.Join(ms, ", "))
		}
		src.metrics = ms
	}
	if src.path == "" {
		src.path = run.Config.Dataset
		if src.path == dataset.Stdin {
			return source{}, inputErr("run %s read its dataset from standard input: give it with --dataset FILE", arg)
		}
		if _, err := os.Stat(src.path); err != nil {
			return source{}, job.unreadable(src.path, err)
		}
	}
	return src, job.checkSHA(src)
}

// checkSHA checks that the dataset of src is the one its run judged, byte
// for byte: the run's results are joined by id with its labels. Standard
// input cannot be hashed and read too.
func (job Job) checkSHA(src source) error {
	want := src.run.Config.DatasetSHA256
	if want == "" || src.path == dataset.Stdin {
		return nil
	}
	got, err := dataset.FileSHA256(src.path)
	if err != nil {
		return job.unreadable(src.path, err)
	}
	if got != want {
		return inputErr("the run in %s judged a dataset with sha256 %s (its %s), but %s has sha256 %s: its labels are not those of the records the run judged; give that dataset with --dataset FILE, or judge this one with assay bench",
			job.Data, want, run.FileConfig, src.path, got)
	}
	return nil
}

// unreadable is the error of a run folder's dataset at path that cannot
// be read.
func (job Job) unreadable(path string, err error) error {
	return &eval.InputError{Msg: fmt.Sprintf("run %s: its dataset %s cannot be read (%v): give it with --dataset FILE", job.Data, path, err), Err: err}
}

// inputErr is an input error with a message of its own.
func inputErr(format string, a ...any) error {
	return &eval.InputError{Msg: fmt.Sprintf(format, a...)}
}
