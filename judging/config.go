package judging

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/assaylabs/assay/eval"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/offline"
	"github.com/assaylabs/assay/llm/setup"
)

// Config is how a run's judgements are made and what their failures
// mean: the model client (setup.Config, the command line's model flags),
// how many neutral defaults a run may have, and how often each judgement
// is asked. `assay judge`, `assay bench` and `assay agree` share it.
// Start from Default: the zero value's Samples is refused (its
// zero LLM settings are setup.DefaultConfig's).
type Config struct {
	// LLM builds the model client (setup.Open). Its zero Concurrency and
	// timeouts are those of setup.DefaultConfig.
	LLM setup.Config
	// DryRun makes no call: the run prints the calls, tokens and cost it
	// would need.
	DryRun bool
	// Strict allows no neutral default: one fails the run.
	Strict bool
	// MaxDefaultRate is the share of judgements (0 to 1) that may fall
	// back to the neutral default before the run fails.
	MaxDefaultRate float64
	// Samples asks the model this many times per judgement
	// (judges.Sampled); at least 1.
	Samples int
	// Model, when set, is the model to judge with instead of the one LLM
	// builds (a Go test's own; the caller closes it). When it is an
	// *llm.Client its calls, tokens and cost are counted; nil Model is
	// LLM's.
	Model judges.Model
}

// Default is the command line's defaults.
func Default() Config {
	return Config{LLM: setup.DefaultConfig(), MaxDefaultRate: DefaultMaxRate, Samples: 1}
}

// Check checks the settings that need no model, before anything is read.
func (j Config) Check() error {
	if !(j.MaxDefaultRate >= 0 && j.MaxDefaultRate <= 1) { // NaN too
		return flagErr("--max-default-rate", "want a share from 0 to 1 (0.05 is 5%%), got %g", j.MaxDefaultRate)
	}
	return nil
}

// flagErr is an input error about a setting, named as the command line
// names it.
func flagErr(flag, format string, a ...any) error {
	return &eval.InputError{Field: flag, Msg: fmt.Sprintf(format, a...)}
}

// asInput makes err an input error about flag, unless it is one already.
func asInput(flag string, err error) error {
	var ie *eval.InputError
	if errors.As(err, &ie) {
		return err
	}
	return &eval.InputError{Field: flag, Msg: err.Error(), Err: err}
}

// Session is a run's open model client and what it counted. Its methods
// are safe for concurrent use.
type Session struct {
	cfg Config
	// model judges; client counts what it spent: the same client, or an
	// offline one for a Config.Model that is not an *llm.Client.
	model  judges.Model
	client *llm.Client
	closer io.Closer
	stable stability
}

// Open builds the model client of j, its notices on w, reading keys and
// URLs from env. The caller closes the session.
func (j Config) Open(w io.Writer, env func(string) string) (*Session, error) {
	cfg := j.LLM
	if strings.Contains(cfg.Spec, ",") {
		return nil, flagErr("--llm", "one model here; juries are for assay agree")
	}
	if cfg.Concurrency == 0 && cfg.CallTimeout == 0 && cfg.MaxRetryTime == 0 {
		d := setup.DefaultConfig()
		cfg.Concurrency, cfg.CallTimeout, cfg.MaxRetryTime = d.Concurrency, d.CallTimeout, d.MaxRetryTime
	}
	cfg.NoCache = cfg.NoCache || j.DryRun
	if cfg.Notices == nil {
		cfg.Notices = w
	}
	if j.Model != nil {
		c, ok := j.Model.(*llm.Client)
		if !ok {
			c = llm.New(llm.Config{Backend: offline.New(offline.Config{}), Concurrency: cfg.Concurrency})
		}
		if err := judges.CheckSamples(j.Samples, j.Model); err != nil {
			return nil, asInput("--samples", err)
		}
		return &Session{cfg: j, model: j.Model, client: c, closer: io.NopCloser(nil)}, nil
	}
	c, closer, err := setup.Open(cfg, env)
	if err != nil {
		return nil, asInput("--llm", err)
	}
	if err := judges.CheckSamples(j.Samples, c); err != nil {
		_ = closer.Close()
		return nil, asInput("--samples", err)
	}
	j.LLM = cfg
	return &Session{cfg: j, model: c, client: c, closer: closer}, nil
}

// Model is the model the session judges with.
func (s *Session) Model() judges.Model { return s.model }

// Close closes the client's idle connections and its cache.
func (s *Session) Close() error { return s.closer.Close() }

// TasksPerCall is how many judge tasks to run per model-call slot: tasks
// are cheap goroutines that mostly wait, so more of them than calls in
// flight keep the client's slots busy.
const TasksPerCall = 4

// Client is the session's model client, which counts calls, tokens and
// cost; judge with Model.
func (s *Session) Client() *llm.Client { return s.client }

// Config is the session's settings.
func (s *Session) Config() Config { return s.cfg }

// Limit is how many scorers a run starts at once: enough to keep the
// client's calls in flight busy.
func (s *Session) Limit() int { return TasksPerCall * max(s.cfg.LLM.Concurrency, 1) }

// Sampled wraps each scorer (of metrics, in order) to ask the model
// Samples times, at the metric's pass threshold for a majority verdict.
func (s *Session) Sampled(metrics []string, threshold func(string) float64, scorers []eval.Scorer) []eval.Scorer {
	if s.cfg.Samples < 2 {
		return scorers
	}
	out := make([]eval.Scorer, len(scorers))
	for i, sc := range scorers {
		out[i] = judges.Sampled{Scorer: sc, K: s.cfg.Samples, Threshold: threshold(metrics[i])}
	}
	return out
}

// Meter starts the progress of a run over n records on w, with the money
// the client spends when it is a model's. Off a terminal a line is
// printed every $ASSAY_PROGRESS_EVERY (a duration; 5s by default).
func (s *Session) Meter(w io.Writer, env func(string) string, label string, n int, quiet bool) (*prog.Meter, error) {
	cfg := prog.Config{Label: label, Total: n, Quiet: quiet, Live: prog.IsTerminal(w)}
	if v := env("ASSAY_PROGRESS_EVERY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, flagErr("$ASSAY_PROGRESS_EVERY", "want a positive duration such as 30s, got %q", v)
		}
		cfg.Every = d
	}
	if !s.client.Offline() {
		cfg.Cost = s.client.Spent
		cfg.Note = func() string { return waitNote(s.client.Waits(), time.Now()) }
	}
	return prog.New(w, cfg), nil
}

// waitNote says what the calls in flight wait on, for the progress line,
// or "" when they wait on nothing unusual.
func waitNote(w llm.Waits, now time.Time) string {
	switch {
	case !w.Down.IsZero():
		return fmt.Sprintf("model server not answering for %v, %d call(s) waiting for it", now.Sub(w.Down).Round(time.Second), w.ForServer)
	case w.Slow > 0:
		return fmt.Sprintf("%d call(s) waiting on slow replies", w.Slow)
	}
	return ""
}

// Report is what a run's model client did: the line printed after a run.
type Report struct {
	Judge string    `json:"judge"`
	Usage llm.Usage `json:"usage"`
	// Defaulted counts the neutral defaults; Samples is how often each
	// judgement was asked, and Sampled and Unstable count the judgements
	// asked more than once and those whose answers disagreed.
	Defaulted int `json:"defaulted"`
	Samples   int `json:"samples,omitempty"`
	Sampled   int `json:"sampled,omitempty"`
	Unstable  int `json:"unstable,omitempty"`
}

// Report is what the session's client did, with defaulted neutral
// defaults.
func (s *Session) Report(defaulted int) Report {
	return Report{Judge: judges.Method(s.model), Usage: s.client.Usage(), Defaulted: defaulted,
		Samples: s.cfg.Samples, Sampled: int(s.stable.judged.Load()), Unstable: int(s.stable.unstable.Load())}
}

// Write prints the report as one line.
func (r Report) Write(w io.Writer) {
	u := r.Usage
	fmt.Fprintf(w, "judge: %s; calls %d (retries %d", r.Judge, u.Calls, u.Retries)
	if u.Hedges > 0 {
		fmt.Fprintf(w, ", hedged %d", u.Hedges)
	}
	fmt.Fprintf(w, ", cache hits %d", u.CacheHits)
	if u.CacheErrors > 0 {
		fmt.Fprintf(w, ", cache errors %d", u.CacheErrors)
	}
	fmt.Fprintf(w, "), tokens %d in / %d out", u.TokensIn, u.TokensOut)
	if u.Estimated {
		fmt.Fprint(w, " (partly estimated)")
	}
	fmt.Fprintf(w, ", cost %s; neutral defaults %d", u.Cost(), r.Defaulted)
	if r.Samples > 1 {
		fmt.Fprintf(w, "; unstable %d of %d judgement(s) over %d samples (majority share below 1 or spread std above %g)",
			r.Unstable, r.Sampled, r.Samples, judges.UnstableStd)
	}
	fmt.Fprintln(w)
}

// Failures are the run's own failures once it ended: calls the budget
// refused, more neutral defaults than allowed, and calls that gave up on
// a model server that stayed down (a failure whatever the defaults allow).
func (s *Session) Failures(d Defaults) []Failure {
	out := s.budget()
	if f, ok := s.cfg.defaultRate(d); ok {
		out = append(out, f)
	}
	if n := s.client.Unreachable(); n > 0 {
		out = append(out, Failure{Kind: FailUnreachable, Err: fmt.Errorf("the model server stopped answering and stayed down longer than --max-retry-time: %d call(s) gave up on it, and their judges used the neutral default; %s",
			n, DefaultAdvice(llm.ErrUnreachable))})
	}
	return out
}

// CardFailures are the failures of a job that judged one report (a card):
// calls the budget refused, and under Strict any neutral default, of which
// the card had defaulted.
func (s *Session) CardFailures(defaulted int) []Failure {
	out := s.budget()
	if s.cfg.Strict && defaulted > 0 {
		out = append(out, Failure{Kind: FailDefaults, Err: fmt.Errorf("--strict: %d judge result(s) fell back to the neutral default", defaulted)})
	}
	return out
}

// budget is the failure of a run whose budget refused calls.
func (s *Session) budget() []Failure {
	n := s.client.BudgetStops()
	if n == 0 {
		return nil
	}
	// The limit as the user gave it, never rounded to $0.0000.
	return []Failure{{Kind: FailBudget, Err: fmt.Errorf("budget reached: %d call(s) not made (--max-cost $%s); their judges used the neutral default",
		n, strconv.FormatFloat(s.cfg.LLM.MaxCostUSD, 'f', -1, 64))}}
}

// defaultRate is the failure of a run whose share of neutral defaults is
// over MaxDefaultRate (0 under Strict).
func (j Config) defaultRate(d Defaults) (Failure, bool) {
	limit, flag := j.MaxDefaultRate, "--max-default-rate "+strconv.FormatFloat(j.MaxDefaultRate, 'f', -1, 64)
	if j.Strict {
		limit, flag = 0, "--strict (no default allowed)"
	}
	var re *DefaultRateError
	if !errors.As(d.Check(limit), &re) {
		return Failure{}, false
	}
	msg := fmt.Sprintf("%s fell back to the neutral default, over %s: %s\n%s, or allow more defaults with --max-default-rate",
		re.Summary(), flag, re.Cause(), DefaultAdvice(re))
	return Failure{Kind: FailDefaults, Err: &causeError{msg: msg, err: re}}, true
}

// DefaultAdvice says what to look at for the first cause of a run's
// defaults.
func DefaultAdvice(cause error) string {
	var se *llm.StatusError
	switch {
	case errors.Is(cause, llm.ErrUnreachable):
		return "the model server stopped answering for longer than --max-retry-time: check that it is up, then judge again (bench: --resume judges the defaulted pairs only)"
	case errors.Is(cause, llm.ErrReplyTooLarge):
		return fmt.Sprintf("the model's replies were over the %d-byte cap even when asked for a short one: lower the model's max tokens, or use another model", llm.MaxReply)
	case errors.Is(cause, llm.ErrNotChat):
		return "the server's replies are not chat completions: check that $OPENAI_BASE_URL is an OpenAI-compatible API root ending in /v1, and that the model answers with text, not tool calls"
	case errors.Is(cause, llm.ErrInvalidOutput):
		return "the model's replies do not follow the judges' JSON schema: use a model that supports structured output, " +
			"or set $ASSAY_OPENAI_OUTPUT (json_object or prompt) to what the server supports"
	case errors.Is(cause, judges.ErrMissingVerdicts):
		return "the model left items without a verdict even when asked again: use a stronger model"
	case errors.As(cause, &se) && se.Code == http.StatusTooManyRequests:
		return "the server kept rate limiting: lower --concurrency, set --rpm or --tpm, or raise --max-retry-time"
	}
	return "check that the model server is up and the key and model name are right (--llm, $OPENAI_BASE_URL, $OPENAI_API_KEY)"
}

// Observe counts sc when it is a sampled judgement (judges.Sampled).
func (s *Session) Observe(sc eval.Score) { s.stable.add(sc) }

// CountSampled adds judged sampled judgements, unstable of them (from a
// run's summary, earlier results of a resumed run included).
func (s *Session) CountSampled(judged, unstable int) { s.stable.count(judged, unstable) }

// stability counts the sampled judgements of a run and the unstable ones
// (judges.Unstable). It is safe for concurrent use.
type stability struct {
	judged, unstable atomic.Int64
}

// count adds judged sampled judgements, unstable of them (from a run's
// summary, earlier results of a resumed run included).
func (st *stability) count(judged, unstable int) {
	st.judged.Add(int64(judged))
	st.unstable.Add(int64(unstable))
}

// add counts sc when it is a sampled judgement.
func (st *stability) add(sc eval.Score) {
	if sc.Skipped || sc.Evidence.Counts[judges.CountSamples] < 2 {
		return
	}
	st.judged.Add(1)
	if judges.Unstable(sc) {
		st.unstable.Add(1)
	}
}
