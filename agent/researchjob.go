package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/assaylabs/assay/eval"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/dryrun"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/web"
)

// ResearchJob is `assay research`: one question researched end to end,
// with where to search, the model and the rules for its failures, the
// folder to write and the format to print. [RunResearch] runs it; the CLI
// and the service build a ResearchJob and call it alike. Zero fields take
// the defaults in brackets.
type ResearchJob struct {
	Question string
	// Mode is quick, standard or deep (modes) [standard].
	Mode string
	// Profile is the research profile, built in or a .yaml file: how the
	// report is scored, and its relevance gate [research].
	Profile string
	// RelevanceCutoff is the least relevance grade (1-5) the gate keeps;
	// nil for the profile's gate.relevance_cutoff, else the mode's, 3. A
	// cutoff outside 1-5, 0 included, is an input error.
	RelevanceCutoff *int
	// Search is the backend: "local", the corpus folder Corpus (the
	// embedded corpus when empty), or "searxng:URL" [local].
	Search string
	Corpus string
	// URLs are sources added directly (--url); AllowPrivate lets them, and
	// the pages searched, be fetched from private and loopback addresses
	// (never cloud metadata).
	URLs         []string
	AllowPrivate bool
	// Out, when set, is the folder the run is written into as it goes
	// (RunFolder).
	Out string
	// Format is how ResearchOutcome.Write prints the run: FormatMD,
	// FormatJSON or FormatYAML [md].
	Format string
	// Timeout stops the run after this long; what was done is kept [no
	// limit].
	Timeout time.Duration
	// AsOf is the day the run takes as today: source recency is rated
	// against it, and the trace's times start from it and run on
	// (ClockFrom) [now].
	AsOf time.Time
	// Registry holds the metrics of the research profile and their dry-run
	// stand-ins [the built-in ones].
	Registry *metric.Registry
	// Judging is the model client and the rules for its failures: under
	// Strict a neutral default fails the run. A research run asks each
	// judgement once (Samples 0 or 1) and takes no MaxDefaultRate.
	Judging judging.Config
	// Env reads the environment: keys, URLs, $ASSAY_CACHE_DIR [nothing].
	Env func(string) string
	// Log receives the stages as they go and the notices (standard
	// error) [discarded]; Quiet leaves them out.
	Log   io.Writer
	Quiet bool
}

// foundByURL is how a source given directly (ResearchJob.URLs) was found.
const foundByURL = "--url"

// ResearchOutcome is what a research run did: the run, what the model
// did, and the reasons it did not pass. A dry run has Plan and nothing
// else.
type ResearchOutcome struct {
	// Run is the run's record: its report, cards, sources and trace.
	Run *Run
	// Report is what the model did; nil offline.
	Report *judging.Report
	// Failures say why the run did not pass: a status other than pass
	// (judging.FailVerdict: rejected, insufficient data), or a failure of
	// the run itself (a model that failed every call, a budget that
	// stopped calls, a search backend out of reach, an interruption, a
	// folder that could not be written, a default under Strict).
	Failures judging.Failures
	// Plan is a dry run's plan; nil for a run.
	Plan *judging.Plan

	format string
}

// Passed reports whether the run passed: no failure of any kind.
func (o *ResearchOutcome) Passed() bool { return len(o.Failures) == 0 }

// Write prints the run on out in the job's format (Run.Write), or a dry
// run's plan; and on log the --url sources that were dropped, what the
// model did, and the status of a run that ended with its reason. The run
// reaches out even when its folder could not be written.
func (o *ResearchOutcome) Write(out, log io.Writer) error {
	if o.Plan != nil {
		o.Plan.Write(out)
		return nil
	}
	if err := o.Run.Write(out, o.format); err != nil {
		return err
	}
	for _, s := range o.Run.Sources {
		if s.FoundBy == foundByURL && s.Dropped != "" {
			fmt.Fprintf(log, "assay: --url %s: dropped: %s\n", s.URL, s.Dropped)
		}
	}
	if o.Report != nil {
		o.Report.Write(log)
	}
	if o.Run.Status.ended() {
		// A run an error stopped says so once, in its failure.
		fmt.Fprintf(log, "assay: %s: %s\n", o.Run.Status, o.Run.Reason)
	}
	return nil
}

// RunResearch runs job: it checks every setting, opens the search backend
// and the model client, then researches the question end to end
// (Research.Run), writing the folder as it goes and the stages to job.Log.
//
// The error is an *eval.InputError for bad input or settings (nothing was
// run), or another error when a dry run could not go on. A run that ended,
// or that an error stopped after it started, is a ResearchOutcome whose
// Failures say why it did not pass.
func RunResearch(ctx context.Context, job ResearchJob) (*ResearchOutcome, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	mode, err := job.prepare()
	if err != nil {
		return nil, err
	}
	if job.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, job.Timeout)
		defer cancel()
	}
	profile, err := Profiles{Metrics: job.Registry}.Load(job.Profile)
	if err != nil {
		return nil, eval.AsInputError("--profile", err)
	}
	if profile.Kind != KindReport {
		return nil, eval.FlagError("--profile", "%q is a %s profile; research needs one of kind %s", job.Profile, profile.Kind, KindReport)
	}
	mode.Cutoff = cmp.Or(profile.Gate.Cutoff(), mode.Cutoff)
	if c := job.RelevanceCutoff; c != nil {
		mode.Cutoff = *c
	}
	if err := job.Judging.CheckChecker(profile.Names()); err != nil {
		return nil, err
	}
	s, err := job.Judging.Open(job.Log, job.Env)
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.Close() }() // idle connections and the cache
	// The session's registry: faithfulness takes the fact checker, when there is one.
	profile = profile.WithMetrics(s.Registry(profile.Metrics()))
	if err := profile.Metrics().CheckModel(profile.Names(), s.Model()); err != nil {
		return nil, err
	}
	searcher, closeSearch, err := openSearcher(ctx, job)
	if err != nil {
		return nil, err
	}
	defer closeSearch()
	client := s.Client()
	cfg := Research{
		Searcher: searcher,
		Fetcher:  &web.Fetcher{Guard: web.Guard{AllowPrivate: job.AllowPrivate}},
		URLs:     job.URLs, Mode: mode, Profile: profile,
		// One clock for the stages' times and for recency: it starts at
		// AsOf and runs on, so stages take their time.
		Options: Options{Model: s.Model(), Now: ClockFrom(job.AsOf)},
	}
	if job.Judging.DryRun {
		return dryRun(ctx, cfg, client, job)
	}
	if job.Out != "" {
		// The folder is written as the run goes, so a run that is killed
		// leaves its trace and its last iteration's files.
		if cfg.Folder, err = OpenRunFolder(job.Out); err != nil {
			return nil, &eval.InputError{Msg: "--out " + err.Error(), Err: err}
		}
	}
	status := prog.NewStatus(job.Log, prog.Config{Quiet: job.Quiet, Live: prog.IsTerminal(job.Log)})
	cfg.OnEvent = func(e Event) {
		if line, ended := e.Line(); ended {
			status.End(line)
		} else {
			status.Begin(line)
		}
	}
	res, runErr := cfg.Run(ctx, job.Question)
	status.Close()
	var outErr error
	if cfg.Folder != nil {
		outErr = cfg.Folder.Close()
	}
	if res == nil {
		return nil, inputErr(runErr)
	}
	out := &ResearchOutcome{Run: res, format: job.Format, Failures: job.failures(ctx, s, runErr, outErr, res)}
	if !client.Offline() || job.Judging.Checker != "" {
		r := s.Report(res.Defaulted)
		out.Report = &r
	}
	return out, nil
}

// prepare sets the job's defaults and checks what needs nothing opened,
// in the order the flags are given: the format, the mode, the question,
// the judging settings. It returns the mode.
func (job *ResearchJob) prepare() (Mode, error) {
	job.Mode = cmp.Or(job.Mode, modes["standard"].Name)
	job.Profile = cmp.Or(job.Profile, "research")
	job.Search = cmp.Or(job.Search, "local")
	job.Format = cmp.Or(job.Format, FormatMD)
	job.Judging.Samples = cmp.Or(job.Judging.Samples, 1)
	job.Env, job.Log = judging.Env(job.Env), judging.Writer(job.Log)
	if job.AsOf.IsZero() {
		job.AsOf = time.Now()
	}
	if !validFormat(job.Format) {
		return Mode{}, &eval.InputError{Field: "--format", Msg: fmt.Sprintf("must be %s, %s or %s, got %q", FormatMD, FormatJSON, FormatYAML, job.Format)}
	}
	mode, err := ModeNamed(job.Mode)
	if err != nil {
		return Mode{}, &eval.InputError{Field: "--mode", Msg: err.Error(), Err: err}
	}
	if c := job.RelevanceCutoff; c != nil && (*c < 1 || *c > 5) {
		return Mode{}, eval.FlagError("--relevance-cutoff", "must be a grade from 1 to 5, got %d", *c)
	}
	if err := checkSearch(job.Search); err != nil {
		return Mode{}, err
	}
	if job.Timeout < 0 {
		return Mode{}, eval.FlagError("--timeout", "want 0 (no limit) or a positive duration such as 10m, got %v", job.Timeout)
	}
	// A question of spaces, control and formatting characters alone has
	// nothing to search for.
	if !strings.ContainsFunc(job.Question, visible) {
		return Mode{}, &eval.InputError{Msg: "the question is empty"}
	}
	if job.Judging.Samples > 1 {
		return Mode{}, &eval.InputError{Field: "--samples", Msg: "a research run asks each judgement once"}
	}
	for _, raw := range job.URLs {
		if err := checkURL(raw); err != nil {
			return Mode{}, err
		}
	}
	return mode, job.Judging.Check()
}

// checkURL refuses a --url that is not an absolute http or https URL
// with a host: a typo is the user's to fix before any search or fetch,
// not a source dropped in passing.
func checkURL(raw string) error { return checkWebURL("--url", raw) }

// checkWebURL checks that raw, given by flag, is an http or https URL
// with a host.
func checkWebURL(flag, raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return &eval.InputError{Field: flag, Msg: fmt.Sprintf("%q is not a URL: %v", raw, errors.Unwrap(err)), Err: err}
	case u.Scheme != "http" && u.Scheme != "https":
		return eval.FlagError(flag, "%q: want an http or https URL", raw)
	case u.Hostname() == "":
		return eval.FlagError(flag, "%q: no host", raw)
	}
	return nil
}

// checkSearch checks the search backend (--search): local, or searxng:
// and the http(s) URL of a SearxNG server.
func checkSearch(search string) error {
	u, ok := strings.CutPrefix(search, "searxng:")
	switch {
	case !ok && search != "local":
		return &eval.InputError{Field: "--search", Msg: fmt.Sprintf("must be local or searxng:URL, got %q", search)}
	case ok && u == "":
		return &eval.InputError{Field: "--search", Msg: "searxng needs a URL, as in searxng:http://127.0.0.1:8888"}
	case ok:
		return checkWebURL("--search", u)
	}
	return nil
}

// dryRun is the run with a recording stand-in for the model (llm/dryrun):
// its plan counts the calls, tokens and cost of every step, repairs
// included, and no call is made.
func dryRun(ctx context.Context, cfg Research, client *llm.Client, job ResearchJob) (*ResearchOutcome, error) {
	rec := dryrun.New(client, cfg.Profile.Metrics().DryRun, StandIn)
	cfg.Model = dryrun.Client(rec, client)
	if _, err := cfg.Run(ctx, job.Question); err != nil {
		return nil, err
	}
	p := judging.NewPlan(client, 0)
	p.Header = fmt.Sprintf("dry run for %s: the research run, repairs included, with stand-in replies; no call made (a real run's repairs depend on its model's replies: at most two)",
		judges.Method(client))
	p.AddCalls(rec.Calls())
	return &ResearchOutcome{Plan: p}, nil
}

// failures are why a run that returned res did not pass, the run's own
// failures first, in the order that names the cause best: a budget that
// stopped calls (the cause of the defaults, rather than their count), the
// error that stopped the run, a folder that could not be written, a
// default under Strict, calls that spent past the budget; then a status
// other than pass.
func (job ResearchJob) failures(ctx context.Context, s *judging.Session, runErr, outErr error, res *Run) judging.Failures {
	var fs judging.Failures
	add := func(k judging.FailureKind, err error) { fs = append(fs, judging.Failure{Kind: k, Err: err}) }
	var me *ModelError
	var ue *web.UnreachableError
	budgetStops := s.Client().BudgetStops()
	if budgetStops > 0 && (runErr == nil || errors.As(runErr, &me)) {
		add(judging.FailBudget, fmt.Errorf("budget reached: %d call(s) not made under --max-cost $%s, and the steps they were for fell back to their defaults; raise --max-cost (or use the response cache) and run again",
			budgetStops, strconv.FormatFloat(job.Judging.LLM.MaxCostUSD, 'f', -1, 64)))
	}
	switch {
	case errors.As(runErr, &me):
		add(judging.FailDefaults, fmt.Errorf("%w; check that the model server is up and its key is valid (--llm, OPENAI_BASE_URL, OPENAI_API_KEY), or run with --llm offline", runErr))
	case errors.As(runErr, &ue):
		add(judging.FailError, fmt.Errorf("%w; check that it is running at that address, or search the local corpus (--search local, --corpus DIR)", runErr))
	case ctx.Err() != nil && res.Status == StatusInterrupted:
		// Why the run was stopped: an interrupt, the timeout.
		add(judging.FailInterrupted, fmt.Errorf("research stopped: %w", context.Cause(ctx)))
	case runErr != nil:
		add(judging.FailError, fmt.Errorf("research stopped: %w", runErr))
	}
	if outErr != nil {
		add(judging.FailError, fmt.Errorf("--out %w", outErr))
	}
	for _, f := range s.CardFailures(res.Defaulted) {
		// Strict's defaults, and a budget the calls spent past though none
		// was refused; one that refused calls is said above, with its cause.
		if f.Kind == judging.FailDefaults || (f.Kind == judging.FailBudget && budgetStops == 0) {
			fs = append(fs, f)
		}
	}
	if res.Status.ended() && res.Status != StatusPass {
		add(judging.FailVerdict, fmt.Errorf("%s: %s", res.Status, res.Reason))
	}
	return fs
}

// visible reports whether r shows as something: a letter, mark, number,
// punctuation or symbol.
func visible(r rune) bool { return unicode.IsGraphic(r) && !unicode.IsSpace(r) }
