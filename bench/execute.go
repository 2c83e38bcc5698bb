package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/internal/atomicfile"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm/setup"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/telemetry"
)

// Job is one evaluation run, everything `assay bench` is asked: the
// dataset, what judges it, the run folder, the verdicts asked for (floors,
// gates, a baseline) and the files to write. [Execute] runs it; the CLI,
// the service and the workers build a Job and call it alike.
type Job struct {
	// Data is the dataset's path; Stdin ("-") reads Stdin, which is
	// copied into the run folder as it is read.
	Data  string
	Stdin io.Reader
	// Metrics are the judges to run (Registry's Metrics), in the order their
	// results are shown; or Profile names a card (dataset.ProfileContext,
	// dataset.ProfileResearch, dataset.ProfileDaily) whose metrics are judged instead.
	Metrics []string
	Profile string
	// Registry holds the metrics Metrics and the profile may name; nil is
	// the built-in metrics (agent.Builtins).
	Registry *metric.Registry
	// Out is the run folder; empty is assay-runs/RUN_ID under the working
	// directory. Resume resumes the unfinished run in Out.
	Out    string
	Resume bool
	// Min is the floors, as MinGate.Set reads them ("0.7",
	// "faithfulness=0.8"); a value under its floor fails the run.
	Min string
	// Gates are 'METRIC.STAT OP NUMBER' checks on the summary (ParseGate).
	Gates []string
	// Baseline names an earlier run to compare with: its folder, its id in
	// the run store, or "latest" (the last run of the same dataset and
	// metrics; none is said and compared with nothing).
	Baseline string
	// Label is a binary human label of the records to measure each
	// metric's calibration against ("faithful"; "!NAME" negated).
	Label string
	// JUnit, when set, is the file the gates and floors are written to as
	// JUnit XML.
	JUnit string
	// SummaryMD, when set with a baseline, is the file the comparison's
	// Markdown summary is appended to (WriteBaselineMarkdown): a pull
	// request's $GITHUB_STEP_SUMMARY.
	SummaryMD string
	// Judging is the model client and the rules for its failures.
	Judging judging.Config
	// Queue, when on, judges the run's pairs through NATS JetStream:
	// in-process workers, remote ones, or both (see Queue).
	Queue Queue
	// Store is the run store's file; empty is runstore.DefaultStorePath(Env).
	// NoStore records the run in no store (a Go test's run).
	Store   string
	NoStore bool
	// envless is true when the job was given no Env: the default store
	// cannot be found then (see openStore).
	envless bool
	// Env reads the environment (os.Getenv, as the CLI gives it); nil
	// reads nothing: no model key or URL, and no run store path, so that
	// without Store the run is recorded in no store and Outcome.StoreErr
	// says why.
	Env func(string) string
	// Log receives progress and notices while the run goes on (standard
	// error); nil discards them. Quiet leaves progress out.
	Log   io.Writer
	Quiet bool
	// Command and Version are recorded in config.json.
	Command []string
	Version string
	// Now is the clock of the run's id and times; nil is time.Now.
	Now func() time.Time
	// RunID, when set, is a new run's id (a caller that names the run
	// before it starts, as assay serve does); empty is NewRunID(Now()).
	// A resumed run keeps its own.
	RunID string
}

// Outcome is what a run did: its folder and configuration, its summary
// (gates, baseline and alerts included), what the model client did, and
// the reasons it did not pass. A dry run has Plan and nothing else.
type Outcome struct {
	Dir     string
	Config  run.Config
	Summary run.Summary
	// Records is the dataset's size; Kept and Redo are, for a resumed
	// run, the results kept and the defaulted or errored ones judged
	// again.
	Records    int
	Kept, Redo int
	// NoBaseline says why no baseline was compared ("latest" found none).
	NoBaseline string
	Report     judging.Report
	Failures   judging.Failures
	// Plan is a dry run's plan; nil for a run.
	Plan *judging.Plan
	// Undelivered are the results of a queued run's pairs whose tasks'
	// deliveries ran out (Result.Undelivered), each said by Write.
	Undelivered []run.Result
	// StoreErr is why the run could not be recorded in the run store (the
	// run folder has it all the same).
	StoreErr error
	// MaxCost is the run's cost budget in US dollars (--max-cost), 0 for
	// none.
	MaxCost float64
}

// Passed reports whether the run passed: no failure of any kind.
func (o *Outcome) Passed() bool { return len(o.Failures) == 0 }

// plan is what a run judges: its metrics, the units that judge them, the
// model-calling scorers of a dry run, and each metric's pass threshold.
type plan struct {
	metrics []string
	units   []dispatch.Unit
	// dryMetrics and dryScorers are the metrics and scorers a dry run
	// counts the calls of, given a model; nil dryScorers for a profile
	// that calls no model.
	dryMetrics []string
	dryScorers func(judges.Model) []eval.Scorer
	// check are the scorers whose needs the check pass checks.
	check []eval.Scorer
	// modelMetrics are the metrics whose scorers call the model.
	modelMetrics []string
	// data is the form of a profile's records (dataset.OpenProfileData),
	// "" for a dataset of RAG samples; registry, when set, holds the
	// metrics of a profile file (its judges among them); card is a
	// profile's own threshold of a metric, where it has one.
	data     string
	registry *metric.Registry
	card     func(name string) (float64, bool)
}

// Execute runs job: it checks every setting and the whole dataset before
// any model call, judges every (sample, metric) pair the run folder lacks,
// writing each result as it finishes, then summarises, compares with the
// baseline, checks the gates and floors, writes summary.json, report.html
// and the JUnit file, and records the run in the run store.
//
// The error is an *eval.InputError for bad input or settings (nothing was
// judged), or another error when the run could not go on (the model
// refused the key, the disk failed). A run that ended, passing or not, is
// an Outcome whose Failures say why it did not pass; an interrupted run
// (ctx done) is one too, with judging.FailInterrupted, and can be resumed.
// The run is a span (telemetry.StartRun), each sample its child.
func Execute(ctx context.Context, job Job) (*Outcome, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	ctx, span := telemetry.StartRun(ctx, "assay.bench", job.Data, job.Metrics)
	o, err := execute(ctx, job)
	span.End(o.traced(err))
	return o, err
}

// execute is Execute in the run's span: the settings checked, the
// input read and checked, then the run judged and its verdict written.
func execute(ctx context.Context, job Job) (*Outcome, error) {
	job, floors, err := checkJob(job)
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
	x := &execution{job: job, s: s, floors: floors}
	if err := x.plan(); err != nil {
		return nil, err
	}
	ctx = telemetry.WithThreshold(ctx, x.threshold) // pass or fail in the traces' evaluation events
	cleanup, err := x.open()
	defer cleanup()
	if err != nil {
		return nil, err
	}
	if job.Judging.DryRun {
		return x.dryRun(ctx)
	}
	return x.run(ctx)
}

// execution is a run under way: its job, model session and plan, then
// its configuration, folder and data.
type execution struct {
	job       Job
	s         *judging.Session
	floors    *run.MinGate
	p         plan
	gates     []run.Gate
	threshold func(string) float64

	cfg    run.Config
	dir    string
	in     dataset.Input
	data   data
	labels dataset.Labels
	folder *run.Run
	store  *pendingStore // the run store, nil with NoStore
	out    *Outcome
	// failed are the reasons the summarized run does not pass, besides
	// an interruption (verdict).
	failed judging.Failures
	// files are the run's files being written once its judging ended:
	// results.jsonl synced, summary.json, report.html, the JUnit file.
	files errgroup.Group
}

// checkJob fills in job's defaults and checks its settings, before
// anything is read: the floors are the parsed --min.
func checkJob(job Job) (Job, *run.MinGate, error) {
	job.envless = job.Env == nil
	job.Env, job.Log = judging.Env(job.Env), judging.Writer(job.Log)
	if job.Now == nil {
		job.Now = time.Now
	}
	if job.Registry == nil {
		job.Registry = agent.Builtins()
	}
	if err := job.Judging.Check(); err != nil {
		return job, nil, err
	}
	if err := job.Queue.check(); err != nil {
		return job, nil, err
	}
	if c := cmp.Or(job.Judging.LLM.Concurrency, setup.DefaultConfig().Concurrency); c <= setup.MaxConcurrency && job.Queue.Workers*c > setup.MaxConcurrency {
		// (a --concurrency past the limit is refused as the client opens, naming it)
		return job, nil, eval.FlagError("--workers", "%d workers with --concurrency %d each would keep %d calls in flight, past the %d a run allows: give fewer workers or a lower --concurrency",
			job.Queue.Workers, c, job.Queue.Workers*c, setup.MaxConcurrency)
	}
	if err := checkBatch(job); err != nil {
		return job, nil, err
	}
	if job.Resume && job.Out == "" {
		return job, nil, eval.FlagError("--resume", "give the run's folder with --out DIR")
	}
	if job.SummaryMD != "" && job.Baseline == "" {
		return job, nil, eval.FlagError("--summary-md", "appends the comparison with a baseline, and none is named: give --baseline (latest, a run id or a run folder), or leave --summary-md out")
	}
	floors, err := run.ParseMinGate(job.Min)
	if err != nil {
		return job, nil, eval.AsInputError("--min", err)
	}
	return job, floors, nil
}

// plan makes the run's plan with the session and checks what depends on
// it: the fact checker, the model, the floors, the gates and the output
// files.
func (x *execution) plan() error {
	job, s := &x.job, x.s
	p, err := planJob(*job, s, x.floors)
	if err != nil {
		return err
	}
	if p.registry != nil {
		job.Registry = p.registry // with the profile's judges
	}
	if err := job.Judging.CheckChecker(p.metrics); err != nil {
		return err
	}
	if err := job.Registry.CheckModel(p.metrics, s.Model()); err != nil {
		return err
	}
	if err := x.floors.Check(p.metrics); err != nil {
		return eval.AsInputError("--min", err)
	}
	if x.gates, err = parseGates(job.Gates, p.metrics); err != nil {
		return err
	}
	if err := report.CheckOutFile("--junit", job.JUnit); err != nil {
		return err
	}
	if err := report.CheckOutFile("--summary-md", job.SummaryMD); err != nil {
		return err
	}
	x.p, x.threshold = p, thresholds(job.Registry, p, x.floors, s)
	return nil
}

// open makes the run's configuration, reads the input (into the run
// folder, or a temporary one for a dry run), resumes the folder when
// asked, and checks the whole dataset before any model call. cleanup
// removes what is temporary and closes the folder (closed before, with
// its error seen, when the run ends).
func (x *execution) open() (cleanup func(), err error) {
	job, s, p := x.job, x.s, x.p
	var closers []func()
	cleanup = func() {
		for _, c := range slices.Backward(closers) {
			c()
		}
	}
	started := job.Now().UTC()
	x.cfg = run.Config{RunID: cmp.Or(job.RunID, run.NewID(started)), Started: started, Command: job.Command, Version: job.Version,
		Dataset: recordedDataset(job.Data), Profile: job.Profile, Metrics: p.metrics, Model: modelOf(s, p), ModelMetrics: p.modelMetrics,
		Prompts: promptVersions(job.Registry, p.metrics), Settings: settings(job, p.metrics, x.threshold)}
	if len(p.modelMetrics) > 0 {
		x.cfg.Prices = s.Prices()
	}
	x.dir = cmp.Or(job.Out, filepath.Join("assay-runs", x.cfg.RunID))
	if err := checkOutputs(job, x.dir); err != nil {
		return cleanup, err
	}
	// A dry run keeps no folder: standard input is spooled to a temporary one.
	spoolDir := x.dir
	if job.Judging.DryRun {
		if spoolDir, err = os.MkdirTemp("", "assay-bench-"); err != nil {
			return cleanup, err
		}
		closers = append(closers, func() { _ = os.RemoveAll(spoolDir) }) // a temporary copy of standard input
	}
	if x.in, err = dataset.OpenInput(job.Data, job.Stdin, spoolDir); err != nil {
		return cleanup, err
	}
	x.cfg.DatasetSHA256 = x.in.SHA256
	if job.Resume {
		if x.folder, err = run.Resume(x.dir, x.cfg); err != nil {
			return cleanup, eval.AsInputError("--resume", err)
		}
		closers = append(closers, x.closeFolder)
		x.cfg = x.folder.Config()
	}
	// The check pass: bad input is reported before any model call.
	if x.data, err = openData(x.in, p.data, p.check); err != nil {
		return cleanup, err
	}
	if x.folder != nil {
		if err := x.folder.CheckPairs(pairsOf(x.data, p.metrics)); err != nil {
			return cleanup, err
		}
	}
	if x.labels, err = readLabels(job.Label, x.data, x.in.Name); err != nil {
		return cleanup, err
	}
	closers = append(closers, x.closeFolder) // one made by run, after open
	return cleanup, nil
}

// checkOutputs refuses a --junit or --summary-md file that is the
// dataset, a file of the run folder dir or of a baseline folder: written
// (or appended to) once the run is judged, it would spoil what the run
// read or keeps.
func checkOutputs(job Job, dir string) error {
	inputs := append(run.Files(dir), filepath.Join(dir, dispatch.FileBatches))
	if job.Data != dataset.Stdin {
		inputs = append(inputs, job.Data)
	}
	if job.Baseline != "" {
		inputs = append(inputs, run.Files(job.Baseline)...)
	}
	if err := report.CheckNotInput("--junit", job.JUnit, inputs...); err != nil {
		return err
	}
	return report.CheckNotInput("--summary-md", job.SummaryMD, inputs...)
}

// closeFolder closes the run folder, if there is one, for the early
// returns; a run that ends closes it itself, with its error seen.
func (x *execution) closeFolder() {
	if x.folder != nil {
		_ = x.folder.Close()
		x.folder = nil
	}
}

// readLabels reads the binary label of the records (--label), and
// refuses a label no record carries.
func readLabels(label string, d data, name string) (dataset.Labels, error) {
	if label == "" {
		return dataset.Labels{}, nil
	}
	labels, err := dataset.ReadLabels(d.Records(), label)
	if err != nil {
		return labels, err
	}
	if labels.Len() == 0 {
		return labels, eval.FlagError("--label "+label, "no record of %s has a binary label %s (true/false or 1/0 in its \"human\" object): name a label the records carry, or leave --label out",
			name, label)
	}
	return labels, nil
}

// dryRun is the plan of a dry run: how many calls the run would make.
func (x *execution) dryRun(ctx context.Context) (*Outcome, error) {
	s, p, n := x.s, x.p, x.data.Len()
	out := &Outcome{Config: x.cfg, Records: n, Plan: &judging.Plan{Judge: judges.Method(s.Model()), Records: n}}
	if p.dryScorers == nil {
		out.Plan.Note = fmt.Sprintf("--profile %s is deterministic and calls no model", x.job.Profile)
		return out, nil
	}
	plan, err := judging.DryRun(ctx, s.Client(), p.dryMetrics, p.dryScorers, n, dataset.Samples(x.data.Records()), x.job.Registry.DryRun)
	if err != nil {
		return nil, err
	}
	plan.Judge = s.Judge()
	plan.Batch = x.job.Judging.LLM.Batch // the run would pay the batch price
	out.Plan = plan
	return out, nil
}

// run judges the pairs the run folder lacks, then summarises and judges
// the run, writes its files and records it in the run store.
func (x *execution) run(ctx context.Context) (*Outcome, error) {
	job := x.job
	base, noBase, err := baselineDir(job, x.cfg)
	if err != nil {
		return nil, err
	}
	if x.folder == nil {
		if x.folder, err = run.Create(x.dir, x.cfg); err != nil {
			return nil, eval.AsInputError("--out", err)
		}
	}
	// --max-cost bounds the run in all: a resumed run's budget starts at
	// what its earlier attempts paid.
	x.s.Client().Budget().Spend(x.folder.Spent().CostUSD)
	if err := keepSteps(ctx, x.folder, job.Registry, x.p.metrics, x.s.Model(), job.Log); err != nil {
		return nil, err
	}
	if !job.NoStore {
		// The run store is opened while the run is judged, for write.
		x.store = openStoreAsync(job)
		defer x.store.close()
	}
	x.cfg = x.folder.Config()
	x.out = &Outcome{Dir: x.dir, Config: x.cfg, Records: x.data.Len(), NoBaseline: noBase, MaxCost: job.Judging.LLM.MaxCostUSD}
	err = x.judge(ctx)
	// results.jsonl is synced while the run is summarized; nothing of the
	// folder is left being written when run returns.
	x.files.Go(x.folder.Sync)
	defer func() { _ = x.files.Wait() }()
	stalled, isStalled := errors.AsType[*dispatch.StalledError](err)
	if isStalled {
		err = nil // a failure of the run, below: its results so far are summarized
	}
	interrupted := ctx.Err() != nil
	if err != nil && !interrupted {
		if _, ok := errors.AsType[*eval.InputError](err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", x.in.Name, err)
	}
	summary, shown, err := x.summarize(base)
	if err != nil {
		return nil, err
	}
	if interrupted {
		x.out.Failures = append(x.out.Failures, judging.Failure{Kind: judging.FailInterrupted, Err: fmt.Errorf("interrupted with %d of %d record(s) judged (%w): resume with --resume --out %s and the same DATA and flags",
			countComplete(summary), x.data.Len(), context.Cause(ctx), x.dir)})
	}
	if isStalled {
		x.out.Failures = append(x.out.Failures, judging.Failure{Kind: judging.FailInterrupted, Err: stalled})
	}
	x.out.Failures = append(x.out.Failures, x.failed...)
	if err := x.write(summary, shown); err != nil {
		return nil, err
	}
	return x.out, nil
}

// judge hands the pairs the run lacks to the dispatcher of the job's
// options, appending each result to results.jsonl as it arrives, the
// floors and the progress meter counting them.
func (x *execution) judge(ctx context.Context) error {
	job, folder, out := x.job, x.folder, x.out
	out.Kept, out.Redo = folder.Kept()
	gate := func(r run.Result) {
		// The floor compares the value rounded, as judge prints it.
		x.floors.Add(eval.Score{Metric: r.Metric, Value: run.Round(r.Value), Defaulted: r.Defaulted, Skipped: r.Skipped})
	}
	for r := range folder.Earlier() {
		gate(r)
	}
	todo := x.data.Len()
	if folder.Resumed() > 0 {
		todo = pendingRecords(x.data, folder, x.p.metrics)
		fmt.Fprintf(job.Log, "bench: resuming %s: %d result(s) kept, %d defaulted or failed to judge again, %d of %d record(s) to judge\n", x.dir, out.Kept, out.Redo, todo, x.data.Len())
	}
	if n := folder.SetAside(); n > 0 {
		fmt.Fprintf(job.Log, "bench: %d unreadable line(s) of %s set aside in %s; their pairs are judged again\n", n, run.FileResults, filepath.Join(x.dir, run.FileBad))
	}
	if n := folder.Repeated(); n > 0 {
		fmt.Fprintf(job.Log, "bench: %d line(s) of %s that came after their pair's final result (copied or edited in) set aside in %s; each pair keeps its first result\n", n, run.FileResults, filepath.Join(x.dir, run.FileBad))
	}
	meter, err := x.s.Meter(job.Log, job.Env, "bench", todo, job.Quiet)
	if err != nil {
		return err
	}
	defer meter.Close()
	folder.OnResult = func(r run.Result) {
		gate(r)
		if r.Defaulted {
			meter.Add(0, 1)
		}
	}
	folder.Expect(todo * len(x.p.metrics))
	return dispatcherOf(job, x.s, folder, x.p.units).Dispatch(ctx, dueItems(folder, x.data.Records(), x.p.units), func(res dispatch.Result) error {
		if _, err := folder.AppendNew(res.Results); err != nil {
			return err
		}
		for _, r := range res.Results {
			if r.Undelivered > 0 {
				out.Undelivered = append(out.Undelivered, r)
			}
		}
		if res.RecordDone {
			meter.Add(1, 0)
		}
		return nil
	})
}

// shownSamples are the samples report.html and the JUnit file show:
// their results, their texts and baseline values, and report.html's
// table of them, drawn.
type shownSamples struct {
	results *run.ResultFile
	more    report.Data
	table   *report.SampleTable
}

// summarize is the run's summary (calibration, the baseline comparison
// with base, the gates), what the model client did, and the samples the
// report and the JUnit file show.
func (x *execution) summarize(base string) (run.Summary, shownSamples, error) {
	job, s, dir := x.job, x.s, x.dir
	// The report and the JUnit file show the samples worth reading, so a
	// run of any size keeps flat memory. Without a baseline they are read,
	// and report.html's table of them drawn (most of the page), while the
	// summary is made: the table needs of it only the metrics and their
	// thresholds, known already (SampleTable.WriteHTML draws it again if
	// the summary has others).
	var (
		shown errgroup.Group
		sh    shownSamples
	)
	readShown := func(cmp *run.Comparison) (err error) {
		if sh.results, sh.more, err = report.ReadShownFrom(x.folder.Bounded, base, x.data.Records(), x.p.metrics, cmp); err != nil {
			return err
		}
		sh.table = report.DrawSampleTable(x.cfg, x.cfg.Metrics, x.threshold, sh.results, sh.more)
		return nil
	}
	if base == "" {
		shown.Go(func() error { return readShown(nil) })
	}
	summary := x.folder.Summary(x.data.Len(), job.Now().UTC(), x.threshold)
	gradeThresholds(job.Registry, summary.Metrics)
	for _, m := range summary.Metrics {
		s.CountSampled(m.Sampled, m.Unstable, m.WeakPasses)
	}
	if x.labels.Len() > 0 {
		if err := summary.AddCalibration(filepath.Join(dir, run.FileResults), x.labels); err != nil {
			_ = shown.Wait() // the error above is the one to tell
			return summary, shownSamples{}, err
		}
	}
	// A baseline comparison reads both runs' results line by line.
	if base != "" {
		cmp, alerts, err := run.Compare(base, filepath.Join(dir, run.FileResults), summary, &x.cfg)
		if err != nil {
			return summary, shownSamples{}, eval.AsInputError("--baseline "+job.Baseline, err)
		}
		summary.Baseline, summary.Alerts = cmp, alerts
	}
	summary.Notices = run.FloorNotices(summary.Metrics, summary.Alerts)
	if base != "" {
		shown.Go(func() error { return readShown(summary.Baseline) }) // the samples that flipped are shown too
	}
	summary.Gates = run.CheckGates(x.gates, summary)
	x.out.Report = s.Report(x.folder.Defaults().Defaulted)
	summary.Limit = x.out.Report.Limit
	x.out.Summary = summary
	if job.Queue.On() {
		// Workers elsewhere called their own models: the calls, tokens
		// and cost are the results', every attempt's.
		u, r := summary.Usage, &x.out.Report.Usage
		r.Calls, r.TokensIn, r.TokensOut = u.Calls, u.TokensIn, u.TokensOut
		r.CostUSD, r.CostUnknown = u.CostUSD, u.CostUnknown
		r.CacheHits, r.CachedTokensIn, r.CachedTokensOut = u.CacheHits, u.CachedTokensIn, u.CachedTokensOut
	}
	// What failed the run is kept in summary.json, for assay runs and a
	// resume: its gates and alerts are there already.
	x.failed = x.verdict(summary)
	for _, f := range x.failed {
		if f.Kind != judging.FailGate && f.Kind != judging.FailAlert {
			summary.Failed = append(summary.Failed, run.Failure{Kind: f.Kind.String(), Message: f.Err.Error()})
		}
	}
	// The summary is whole: summary.json is written while the samples
	// shown are still read.
	x.files.Go(func() error { return x.folder.WriteSummary(summary) })
	if err := shown.Wait(); err != nil {
		return summary, shownSamples{}, err
	}
	return summary, sh, nil
}

// verdict are the reasons the run summarised does not pass, besides an
// interruption: undelivered pairs, the model client's failures, the
// share of scored results, the floors, the gates and the alerts.
func (x *execution) verdict(summary run.Summary) judging.Failures {
	var fs judging.Failures
	if n := summary.Undelivered; n > 0 {
		fs = append(fs, judging.Failure{Kind: judging.FailUndelivered, Err: fmt.Errorf("%d pair(s) undelivered: the queue gave up on their tasks after every delivery failed (results.jsonl says why, \"undelivered\" on each); resume with --resume --out %s to judge them again",
			n, x.dir)})
	}
	fs = append(fs, x.s.Failures(x.folder.Defaults())...)
	fs = append(fs, x.job.Judging.ScoredFailures(counts(summary.Metrics))...)
	if err := x.floors.Err(); err != nil {
		fs = append(fs, judging.Failure{Kind: judging.FailFloor, Err: err})
	}
	for _, g := range summary.Gates {
		if !g.Passed {
			fs = append(fs, judging.Failure{Kind: judging.FailGate, Err: fmt.Errorf("gate %s failed: got %s%s", g.Gate, gotText(g), reasonText(g.Reason))})
		}
	}
	for _, a := range summary.Alerts {
		fs = append(fs, judging.Failure{Kind: judging.FailAlert, Err: fmt.Errorf("%s %s alert: %s", a.Severity, a.Type, a.Message)})
	}
	return fs
}

// write writes the run's files (report.html, the JUnit file,
// summary.json, the Markdown summary), records it in the run store and
// closes its folder.
func (x *execution) write(summary run.Summary, sh shownSamples) error {
	job, out, more := x.job, x.out, sh.more
	infra := out.Failures.Infra() != nil
	for _, f := range out.Failures {
		if f.Err != nil {
			more.Failed = append(more.Failed, f.Err.Error())
		}
	}
	// report.html and the JUnit file are written, each whole or not at
	// all, while summary.json is written and results.jsonl synced
	// (started as the judging ended) and then the run recorded in the run
	// store (opened while the run was judged): the store's record waits
	// for what `assay runs` reads (results.jsonl, summary.json,
	// config.json), synced to disk, not for the views drawn from them,
	// which a resume draws again. Its commit and the checkpoint as it
	// closes wait on the disk while the report is drawn.
	var views errgroup.Group
	views.Go(func() error { return writeRunFiles(x.dir, x.cfg, summary, sh, more, job.JUnit, x.floors, infra) })
	err := x.files.Wait()
	if err == nil && x.store != nil {
		out.StoreErr = x.store.record(x.cfg, summary, x.dir)
	}
	if err := errors.Join(err, views.Wait()); err != nil {
		return err
	}
	if err := appendSummaryMD(job.SummaryMD, out); err != nil {
		return err
	}
	// The folder stays locked until its files are written.
	err = x.folder.Close()
	x.folder = nil
	return err
}

// dispatcherOf is the dispatcher of job's run in folder, chosen once
// from its options: through the queue (--workers, --cluster, --queue),
// in rounds of batches (--batch), or in this process.
func dispatcherOf(job Job, s *judging.Session, folder *run.Run, units []dispatch.Unit) dispatch.Dispatcher {
	local := dispatch.Local{Units: units, Limit: s.Limit()}
	switch {
	case job.Queue.On():
		return queued(job, s, folder, units)
	case s.Client().Batch() != nil:
		return &dispatch.Batch{Local: local, Batch: s.Client().Batch(), Dir: folder.Dir(), Log: job.Log, Now: job.Now}
	}
	return local
}

// planJob is what job judges, given its model session.
func planJob(job Job, s *judging.Session, floors *run.MinGate) (plan, error) {
	switch {
	case job.Profile != "" && len(job.Metrics) > 0:
		return plan{}, &eval.InputError{Msg: "--metric and --profile: give one (a profile has its own metrics)"}
	case job.Profile != "" && job.Judging.Samples > 1:
		return plan{}, &eval.InputError{Msg: fmt.Sprintf("--samples %d: self-consistency is measured on judges named with --metric; a --profile runs its own scorers once (drop --samples or give --metric)", job.Judging.Samples)}
	case job.Profile != "":
		pr, err := ProfilePlan(job.Registry, job.Profile)
		if err != nil {
			return plan{}, err
		}
		return pr.build(s.Model()), nil
	case len(job.Metrics) == 0:
		return plan{}, eval.FlagError("--metric", "name at least one metric (have %s), or give --profile context, research or daily", metricList(job.Registry))
	}
	if err := checkMetrics(job.Registry, job.Metrics); err != nil {
		return plan{}, err
	}
	_, build := judgesOf(job.Registry, job.Metrics, floors, s)
	scorers := build(s.Model())
	units := make([]dispatch.Unit, len(scorers))
	for i, sc := range scorers {
		units[i] = dispatch.ScorerUnit(job.Metrics[i], sc)
	}
	p := plan{metrics: job.Metrics, units: units, dryMetrics: job.Metrics, dryScorers: build, check: scorers}
	for _, m := range job.Metrics {
		if r, ok := job.Registry.Lookup(m); ok && r.CallsModel() {
			p.modelMetrics = append(p.modelMetrics, m)
		}
	}
	return p, nil
}

// gradeThresholds sets the grade each threshold of ms stands for, where
// a judges file defines the metric (judges.ThresholdGrade), for the
// summaries to show beside its value.
func gradeThresholds(reg *metric.Registry, ms []run.MetricStats) {
	if reg == nil {
		return
	}
	for i, m := range ms {
		if e, ok := reg.Lookup(m.Metric); ok {
			ms[i].ThresholdGrade = judges.ThresholdGrade(e, m.Threshold)
		}
	}
}

// judgesOf are the threshold of each of metrics (its --min floor where
// one is set, else reg's default for the session's model) and the builder
// of their judges with a model, each asked the session's Samples times,
// a sampled ratio's majority verdict at that threshold, the one the
// summary counts passes at.
func judgesOf(reg *metric.Registry, metrics []string, floors *run.MinGate, s *judging.Session) (func(string) float64, func(judges.Model) []eval.Scorer) {
	threshold := func(name string) float64 {
		if v := floors.Floor(name); v > 0 {
			return v
		}
		return reg.DefaultThreshold(name, s.Model())
	}
	return threshold, func(m judges.Model) []eval.Scorer {
		return s.Sampled(metrics, threshold, JudgeScorers(reg, metrics, m))
	}
}

// checkMetrics checks that every metric is one of reg's --metric takes,
// named once.
func checkMetrics(reg *metric.Registry, metrics []string) error {
	for i, m := range metrics {
		if _, err := reg.New(m, nil); err != nil {
			return eval.AsInputError("--metric", err)
		}
		if slices.Contains(metrics[:i], m) {
			return eval.FlagError("--metric", "%q is named twice", m)
		}
	}
	return nil
}

func metricList(reg *metric.Registry) string {
	list := ""
	for i, m := range reg.Metrics() {
		if i > 0 {
			list += ", "
		}
		list += m
	}
	return list
}

// JudgeScorers returns reg's judges of metrics, which checkMetrics has
// checked, judging with m.
func JudgeScorers(reg *metric.Registry, metrics []string, m judges.Model) []eval.Scorer {
	out := make([]eval.Scorer, len(metrics))
	for i, name := range metrics {
		out[i], _ = reg.New(name, m)
	}
	return out
}

// modelOf is the judge a run records: the model when some metric calls
// it, else that none does.
func modelOf(s *judging.Session, p plan) string {
	if len(p.modelMetrics) == 0 && !judges.Offline(s.Model()) {
		return NoModel
	}
	return s.Judge()
}

// NoModel is run.Config.Model of a run none of whose metrics calls a model
// although one was given.
const NoModel = "none (deterministic metrics)"

// parseGates parses the gates and checks that each names a metric of the
// run.
func parseGates(exprs, metrics []string) ([]run.Gate, error) {
	gates := make([]run.Gate, len(exprs))
	for i, g := range exprs {
		var err error
		if gates[i], err = run.ParseGate(g); err != nil {
			return nil, eval.AsInputError("--gate", err)
		}
		if !slices.Contains(metrics, gates[i].Metric) {
			return nil, eval.FlagError("--gate", "%q: the run has no metric %s (it has %s)", g, gates[i].Metric, joinNames(metrics))
		}
	}
	return gates, nil
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// thresholds is the pass threshold of each metric in a run's summary: its
// --min floor where one is set, else the profile's or the metric's own.
func thresholds(reg *metric.Registry, p plan, floors *run.MinGate, s *judging.Session) func(string) float64 {
	return func(m string) float64 {
		if v := floors.Floor(m); v > 0 {
			return v
		}
		if p.card != nil {
			if v, ok := p.card(m); ok {
				return v
			}
		}
		return reg.DefaultThreshold(m, s.Model())
	}
}

// settings are the options that change a run's results or verdict,
// compared on resume.
func settings(job Job, metrics []string, threshold func(string) float64) map[string]string {
	j := job.Judging
	s := map[string]string{
		"--strict":           strconv.FormatBool(j.Strict),
		"--max-default-rate": strconv.FormatFloat(j.MaxDefaultRate, 'f', -1, 64),
	}
	if job.Min != "" {
		s["--min"] = job.Min
	}
	if j.Samples > 1 {
		// Absent at 1, so that the runs before --samples resume alike.
		s["--samples"] = strconv.Itoa(j.Samples)
	}
	if j.LLM.Batch {
		// Absent without it, so that the runs before --batch resume alike;
		// a batch run resumes with --batch, to pick up its batches.
		s["--batch"] = "true"
	}
	if j.Checker != "" {
		// Absent without one, so that the runs before --checker resume alike.
		s["--checker"] = j.Checker
		s["--checker-chunk"] = strconv.Itoa(cmp.Or(j.CheckerChunk, judges.DefaultChunkTokens))
	}
	for _, m := range metrics {
		s["threshold "+m] = strconv.FormatFloat(threshold(m), 'f', -1, 64)
	}
	return s
}

// promptVersions maps each embedded prompt template to its version, and
// each of metrics defined in a judges file ("judge NAME") to its
// definition's (metric.Entry.Version).
func promptVersions(reg *metric.Registry, metrics []string) map[string]string {
	out := reg.Versions(metrics)
	if out == nil {
		out = map[string]string{}
	}
	for _, name := range prompts.Names() {
		if t, err := prompts.Get(name); err == nil {
			out[name] = t.Version
		}
	}
	return out
}

// data is a checked dataset to read again record by record.
type data interface {
	Len() int
	Records() iter.Seq2[dataset.Record, error]
}

// openData runs the check pass over in: a profile's JSON Lines, or a
// dataset whose records must have what scorers need.
func openData(in dataset.Input, profile string, scorers []eval.Scorer) (data, error) {
	if profile != "" {
		return dataset.OpenProfileData(in.Path, in.Name, profile, daily.Default().MetricNames())
	}
	return dataset.Open(in.Path, in.Options(scorers))
}

// baselineDir resolves job's baseline before the run: its folder, or ""
// with the reason when "latest" finds no earlier run (the run goes on).
func baselineDir(job Job, cfg run.Config) (dir, none string, err error) {
	if job.Baseline == "" {
		return "", "", nil
	}
	store, err := openStore(job)
	if err != nil {
		return "", "", err
	}
	defer func() { _ = store.Close() }() // read only here
	dir, err = runstore.ResolveBaseline(store, job.Baseline, cfg)
	var nb *runstore.NoBaselineError
	if errors.As(err, &nb) {
		return "", nb.Error(), nil
	}
	if err != nil {
		return "", "", eval.AsInputError("", err) // it names --baseline and its value
	}
	// A resumed run has its id already: as its own baseline it would be
	// compared with itself, a delta of 0 that raises no alert.
	if job.Resume && cfg.RunID != "" {
		if h, herr := run.ReadHead(dir); herr == nil && h.Config.RunID == cfg.RunID {
			return "", "", &eval.InputError{Field: "--baseline", Msg: fmt.Sprintf("%q is this run itself (%s): compare it with an earlier run", job.Baseline, cfg.RunID)}
		}
	}
	return dir, "", nil
}

// pendingStore is the run store being opened for a run, to record it
// when it ends; close closes it whatever became of the run.
type pendingStore struct {
	opening sync.WaitGroup
	store   *runstore.Store
	err     error
}

// openStoreAsync starts opening job's run store.
func openStoreAsync(job Job) *pendingStore {
	p := &pendingStore{}
	p.opening.Go(func() { p.store, p.err = openStore(job) })
	return p
}

// record records the run in dir with its configuration and summary, and
// closes the store: the store's error, if it could not be opened.
func (p *pendingStore) record(cfg run.Config, s run.Summary, dir string) error {
	p.opening.Wait()
	if p.store == nil {
		return p.err
	}
	err := errors.Join(record(p.store, cfg, s, dir), p.store.Close())
	p.store = nil
	return err
}

// close closes the store if the run was not recorded in it.
func (p *pendingStore) close() {
	p.opening.Wait()
	if p.store != nil {
		_ = p.store.Close() // the run ended before its record: nothing to say
		p.store = nil
	}
}

// openStore opens the job's run store. A store the job gives no way to
// find (no Store, and no Env or one without its variables) is an
// *eval.InputError, a setting to fix, as runstore.Runs says it; a store
// that does not open is not.
func openStore(job Job) (*runstore.Store, error) {
	path := job.Store
	if path == "" && job.envless {
		return nil, &eval.InputError{Msg: "run store: the job names no Store and has no Env to find the default one in ($ASSAY_DATA_DIR, $HOME): set Job.Store, or Job.Env to os.Getenv"}
	}
	if path == "" {
		var err error
		if path, err = runstore.DefaultStorePath(job.Env); err != nil {
			return nil, &eval.InputError{Msg: err.Error(), Err: err}
		}
	}
	return runstore.OpenStore(path)
}

// record keeps the run in the run store.
func record(store *runstore.Store, cfg run.Config, s run.Summary, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return store.Record(cfg, s, abs)
}

// counts are the metrics' judgement counts, for judging.ScoredFailures.
func counts(ms []run.MetricStats) []judging.Counts {
	out := make([]judging.Counts, len(ms))
	for i, m := range ms {
		out[i] = judging.Counts{Metric: m.Metric, N: m.N, Scored: m.Scored, Skipped: m.Skipped, Defaulted: m.Defaulted, NotEvaluable: m.NotEvaluable}
	}
	return out
}

// countComplete is the fewest results of any metric: records judged whole.
func countComplete(s run.Summary) int {
	n := s.Samples
	for _, m := range s.Metrics {
		n = min(n, m.N)
	}
	return n
}

// pairsOf yields the (sample, metric) pairs of d's records by metrics.
func pairsOf(d data, metrics []string) iter.Seq[run.Key] {
	return func(yield func(run.Key) bool) {
		for rec, err := range d.Records() {
			if err != nil {
				return
			}
			for _, m := range metrics {
				if !yield(run.Key{ID: rec.ID, Metric: m}) {
					return
				}
			}
		}
	}
}

// pendingRecords counts the records of d with a pair run lacks.
func pendingRecords(d data, folder *run.Run, metrics []string) int {
	n := 0
	for rec, err := range d.Records() {
		if err != nil {
			break
		}
		if slices.ContainsFunc(metrics, func(m string) bool { return !folder.Done(run.Key{ID: rec.ID, Metric: m}) }) {
			n++
		}
	}
	return n
}

// writeRunFiles writes report.html (with sh's table, drawn ahead) into
// the run folder and, when junit is set, the JUnit XML there, each whole
// or not at all; neither is synced to disk (atomicfile.WriteView): both
// are drawn again by a resume.
func writeRunFiles(dir string, cfg run.Config, s run.Summary, sh shownSamples, more report.Data, junit string, floors *run.MinGate, infra bool) error {
	var g errgroup.Group
	g.Go(func() error {
		return atomicfile.WriteView(filepath.Join(dir, run.FileReport), 0o644, func(w io.Writer) error {
			return sh.table.WriteHTML(w, cfg, s, more)
		})
	})
	if junit != "" {
		g.Go(func() error {
			return atomicfile.WriteView(junit, 0o644, func(w io.Writer) error {
				return report.WriteJUnit(w, cfg, s, sh.results, report.JUnitOptions{Floor: floors.Floor, Infra: infra})
			})
		})
	}
	return g.Wait()
}

// num4 is a statistic with four decimals, or that it is undefined.
func num4(n run.Num) string {
	if !n.Defined() {
		return "nothing (undefined)"
	}
	return strconv.FormatFloat(float64(n), 'f', 4, 64)
}

// gotText is a failed gate's value as num4 writes it, with the digits
// more it takes not to read as meeting the gate.
func gotText(g run.GateResult) string {
	if !g.Got.Defined() {
		return num4(g.Got)
	}
	return g.GotText('f', 4)
}

func reasonText(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

// recordedDataset is the dataset as config.json records it: a file's
// absolute path, so that runs export, agree and a later look at the run
// find it again from any working directory; standard input as it is.
func recordedDataset(path string) string {
	if path == "" || path == dataset.Stdin {
		return path
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
