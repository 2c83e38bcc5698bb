package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/telemetry"
)

// JudgeJob is `assay judge`: judges over a dataset, each result printed as
// its record finishes, in record order, no run folder kept.
type JudgeJob struct {
	// Data is the dataset's path; Stdin ("-") reads Stdin, which is
	// copied to a temporary file as it is read, so memory holds a window
	// of records, never the input.
	Data  string
	Stdin io.Reader
	// Metrics are the judges to run, in the order their results come;
	// Registry holds them (nil: the built-in metrics, agent.Builtins).
	Metrics  []string
	Registry *metric.Registry
	// Min is the floors (MinGate.Set); a value under its floor fails.
	Min string
	// Format is how results are written to Out: OutputYAML (the
	// default), OutputJSON, OutputJSONL or OutputText.
	Format string
	Out    io.Writer
	// Judging is the model client and the rules for its failures.
	Judging judging.Config
	// Env reads the environment; Log receives progress and notices;
	// Quiet leaves progress out.
	Env   func(string) string
	Log   io.Writer
	Quiet bool
}

// JudgeOutcome is what a judge run did. A dry run has Plan and nothing
// else.
type JudgeOutcome struct {
	// Records is the dataset's size, Done the records judged whole.
	Records, Done int
	Summaries     []run.MetricStats
	// Skipped counts results with nothing to judge (no answer, no claim, no
	// sections where a metric reads a report's).
	Skipped  int
	Report   judging.Report
	Failures judging.Failures
	Plan     *judging.Plan
	// ran says the results were all written (the run finished or was
	// interrupted), so the summary is worth printing.
	ran bool
}

// Write prints the outcome's summary on log (results went to the job's
// Out as they finished), or a dry run's plan on out.
func (o *JudgeOutcome) Write(out, log io.Writer) {
	if o.Plan != nil {
		o.Plan.Write(out)
		return
	}
	if !o.ran {
		return
	}
	// An interrupted run still shows what it judged and spent.
	if o.Records > 1 {
		_ = run.FormatBrief(log, o.Summaries)
	}
	o.Report.Write(log)
	if o.Skipped > 0 {
		notEval := ""
		if n := notEvaluable(o.Summaries); n > 0 {
			notEval = fmt.Sprintf(", %d of them %s (a conversation from spans without message content)", n, eval.NotEvaluable)
		}
		fmt.Fprintf(log, "judge: skipped %d result(s) with nothing to judge (no answer, no question where a metric judges relevance to it, no claim, or no sections where a metric reads a report's%s): not scored, never passing --min\n",
			o.Skipped, notEval)
	}
}

// notEvaluable is how many results of ss were not evaluable.
func notEvaluable(ss []run.MetricStats) int {
	n := 0
	for _, s := range ss {
		n += s.NotEvaluable
	}
	return n
}

// Judge runs job: it checks every setting and the whole dataset before any
// model call, then judges record by record, writing each record's results
// to job.Out as soon as it and the records before it are done, so a long
// run shows progress and an interrupted one keeps what it judged.
//
// The error is an *eval.InputError for bad input or settings, or another
// error when the run could not go on (the model refused the key, the
// output could not be written). A run that ended is a JudgeOutcome whose
// Failures say why it did not pass. The run is a span
// (telemetry.StartRun), each record its child.
func Judge(ctx context.Context, job JudgeJob) (*JudgeOutcome, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	ctx, span := telemetry.StartRun(ctx, "assay.judge", job.Data, job.Metrics)
	o, err := judge(ctx, job)
	span.End(o.traced(err))
	return o, err
}

// judge is Judge in the run's span: the settings checked, the dataset
// read and checked, then judged record by record.
func judge(ctx context.Context, job JudgeJob) (*JudgeOutcome, error) {
	job, floors, err := checkJudgeJob(job)
	if err != nil {
		return nil, err
	}
	s, err := job.Judging.Open(job.Log, job.Env)
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.Close() }() // idle connections and the cache
	// The session's registry: its judges take the fact checker, when there is one.
	job.Registry = s.Registry(job.Registry)
	if err := job.Registry.CheckModel(job.Metrics, s.Model()); err != nil {
		return nil, err
	}
	threshold, build := judgesOf(job.Registry, job.Metrics, floors, s)
	ctx = telemetry.WithThreshold(ctx, threshold) // pass or fail in the traces' evaluation events
	scorers := build(s.Model())
	// Standard input is spooled to a temporary file, read by the check
	// pass and again by the run.
	tmp, err := os.MkdirTemp("", "assay-judge-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // the copy of standard input
	in, err := dataset.OpenInput(job.Data, job.Stdin, tmp)
	if err != nil {
		return nil, err
	}
	// A first pass checks the whole dataset, records and what each metric
	// needs of them, so that bad input is reported before any model call.
	data, err := dataset.Open(in.Path, in.Options(scorers))
	if err != nil {
		return nil, err
	}
	if job.Judging.DryRun {
		plan, err := judging.DryRun(ctx, s.Client(), job.Metrics, build, data.Len(), dataset.Samples(data.Records()), job.Registry.DryRun)
		if err != nil {
			return nil, err
		}
		plan.Judge = s.Judge()
		return &JudgeOutcome{Records: data.Len(), Plan: plan}, nil
	}
	j := &judgeRun{job: job, s: s, floors: floors, stats: run.Stats{Threshold: threshold}, o: &JudgeOutcome{Records: data.Len()}}
	return j.run(ctx, data, scorers)
}

// checkJudgeJob fills in job's defaults and checks its settings, before
// anything is read: the floors are the parsed --min.
func checkJudgeJob(job JudgeJob) (JudgeJob, *run.MinGate, error) {
	job.Env, job.Log = judging.Env(job.Env), judging.Writer(job.Log)
	job.Out = judging.Writer(job.Out)
	if job.Format == "" {
		job.Format = report.OutputYAML
	}
	if err := report.CheckOutputFormat(job.Format, report.OutputYAML, report.OutputJSON, report.OutputJSONL, report.OutputText); err != nil {
		return job, nil, err
	}
	if job.Registry == nil {
		job.Registry = agent.Builtins()
	}
	if len(job.Metrics) == 0 {
		return job, nil, eval.FlagError("--metric", "name at least one metric (have %s)", metricList(job.Registry))
	}
	if err := checkMetrics(job.Registry, job.Metrics); err != nil {
		return job, nil, err
	}
	if err := job.Judging.CheckChecker(job.Metrics); err != nil {
		return job, nil, err
	}
	floors, err := run.ParseMinGate(job.Min)
	if err != nil {
		return job, nil, eval.AsInputError("--min", err)
	}
	if err := floors.Check(job.Metrics); err != nil {
		return job, nil, eval.AsInputError("--min", err)
	}
	if err := job.Judging.Check(); err != nil {
		return job, nil, err
	}
	return job, floors, nil
}

// judgeRun is a judge run under way: what counts its results.
type judgeRun struct {
	job      JudgeJob
	s        *judging.Session
	floors   *run.MinGate
	stats    run.Stats
	defaults judging.Defaults
	o        *JudgeOutcome
}

// run judges data record by record in this process, writing each
// record's results as it and the records before it are done, then says
// why the run did not pass.
func (j *judgeRun) run(ctx context.Context, data *dataset.Dataset, scorers []eval.Scorer) (*JudgeOutcome, error) {
	job, s, o := j.job, j.s, j.o
	meter, err := s.Meter(job.Log, job.Env, "judge", data.Len(), job.Quiet)
	if err != nil {
		return nil, err
	}
	out := report.NewResultWriter(meter.Writer(job.Out), job.Format)
	var werr error
	err = ScoreStream(ctx, data.Records(), telemetry.Scorers(scorers), s.Limit(), func(_ int, rec dataset.Record, scores []eval.Score) error {
		werr = j.record(out, meter, rec, scores)
		return werr
	})
	// A run that failed before any result was written prints nothing
	// rather than an empty list next to its error; an interrupted one
	// prints what it judged, which may be an empty list.
	interrupted := ctx.Err() != nil
	if cerr := out.Close((err == nil || interrupted) && werr == nil); werr == nil {
		werr = cerr
	}
	meter.Close() // after the results it may print, before the summary
	switch {
	case werr != nil:
		return nil, werr
	case err != nil && !interrupted:
		if errors.Is(err, llm.ErrAuth) {
			return nil, err
		}
		return nil, data.Err(err)
	}
	o.ran = true
	o.Summaries, o.Skipped = j.stats.Metrics(job.Metrics...), j.stats.Skipped()
	gradeThresholds(job.Registry, o.Summaries)
	o.Report = s.Report(j.stats.Defaulted())
	if interrupted {
		o.Failures = append(o.Failures, judging.Failure{Kind: judging.FailInterrupted, Err: fmt.Errorf("interrupted after %d of %d records: %w", o.Done, data.Len(), context.Cause(ctx))})
	}
	o.Failures = append(o.Failures, s.Failures(j.defaults)...)
	o.Failures = append(o.Failures, job.Judging.ScoredFailures(counts(o.Summaries))...)
	if err := j.floors.Err(); err != nil {
		o.Failures = append(o.Failures, judging.Failure{Kind: judging.FailFloor, Err: err})
	}
	return o, nil
}

// record counts a record's scores and writes its results, rounded as
// the floors compare them.
func (j *judgeRun) record(out *report.ResultWriter, meter *progress.Meter, rec dataset.Record, scores []eval.Score) error {
	defaulted := 0
	for _, sc := range scores {
		j.s.Observe(sc)
		j.defaults.Add(named(rec.ID, sc))
		if sc.Defaulted {
			defaulted++
		}
		r := run.ResultOf(rec.ID, sc)
		j.stats.Add(r)
		r.Value, r.Points = run.Round(r.Value), run.Round(r.Points)
		// The floor compares the value printed, rounded.
		j.floors.Add(eval.Score{Metric: r.Metric, Value: r.Value, Defaulted: r.Defaulted, Skipped: r.Skipped})
		if err := out.Write(r); err != nil {
			return err
		}
	}
	j.o.Done++
	meter.Add(1, defaulted)
	return out.Flush()
}

// named is sc with its error, if any, naming the record and metric, for
// the default-rate message.
func named(id string, sc eval.Score) eval.Score {
	if sc.Err != nil {
		sc.Err = fmt.Errorf("record %s: %s: %w", id, sc.Metric, sc.Err)
	}
	return sc
}
