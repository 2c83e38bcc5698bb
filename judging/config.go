package judging

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/internal/termtext"
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
	// MaxSkipRate is the share of a metric's judgements (0 to 1) that may
	// be skipped for having nothing to judge (no answer, no claim) before
	// the run fails; 1 allows any. A metric with no scored judgement at
	// all fails whatever it is.
	MaxSkipRate float64
	// Samples asks the model this many times per judgement
	// (judges.Sampled); at least 1.
	Samples int
	// Model, when set, is the model to judge with instead of the one LLM
	// builds (a Go test's own; the caller closes it). When it is an
	// *llm.Client its calls, tokens and cost are counted; nil Model is
	// LLM's.
	Model judges.Model
	// Checker, when set, is the fact-checking model faithfulness and
	// context recall verify each claim with (--checker, an
	// OpenAI-compatible backend:model; see judges.FactChecker and
	// setup.OpenChecker). The session's Registry gives their judges it.
	Checker string
	// CheckerChunk is the most tokens of context sent with one claim
	// (--checker-chunk); 0 is judges.DefaultChunkTokens.
	CheckerChunk int
}

// Default is the command line's defaults.
func Default() Config {
	return Config{LLM: setup.DefaultConfig(), MaxDefaultRate: DefaultMaxRate, MaxSkipRate: 1, Samples: 1}
}

// Check checks the settings that need no model, before anything is read.
func (j Config) Check() error {
	if !(j.MaxDefaultRate >= 0 && j.MaxDefaultRate <= 1) { // NaN too
		return eval.FlagError("--max-default-rate", "want a share from 0 to 1 (0.05 is 5%%), got %g", j.MaxDefaultRate)
	}
	if !(j.MaxSkipRate >= 0 && j.MaxSkipRate <= 1) { // NaN too
		return eval.FlagError("--max-skip-rate", "want a share from 0 to 1 (1, the default, allows any), got %g", j.MaxSkipRate)
	}
	if err := judges.CheckChunkTokens(j.CheckerChunk); err != nil {
		return eval.AsInputError("", err) // it names --checker-chunk
	}
	if j.CheckerChunk != 0 && j.Checker == "" {
		return eval.FlagError("--checker-chunk", "sizes the chunks of a fact checker: give --checker too")
	}
	return nil
}

// llm is LLM with setup.DefaultConfig's calls in flight and timeouts
// when all three are zero (a Go caller's zero Config).
func (j Config) llm() setup.Config {
	cfg := j.LLM
	if cfg.Concurrency == 0 && cfg.CallTimeout == 0 && cfg.MaxRetryTime == 0 {
		d := setup.DefaultConfig()
		cfg.Concurrency, cfg.CallTimeout, cfg.MaxRetryTime = d.Concurrency, d.CallTimeout, d.MaxRetryTime
	}
	return cfg
}

// CheckClient checks the model client's settings as Open does, for a
// run that opens none (its values were judged already): the calls in
// flight, limits and timeouts of LLM (zero ones being the defaults, as
// Open takes them) and Samples. A value out of range is an input error
// naming its flag, not a setting ignored.
func (j Config) CheckClient() error {
	if err := j.llm().Check(); err != nil {
		return eval.AsInputError("", err) // it names its flag
	}
	if j.Samples < 1 || j.Samples > judges.MaxSamples {
		return eval.AsInputError("", judges.CheckSamples(j.Samples, nil)) // it names --samples
	}
	return nil
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
	check  checker
}

// Open builds the model client of j, its notices on w, reading keys and
// URLs from env. The caller closes the session.
func (j Config) Open(w io.Writer, env func(string) string) (*Session, error) {
	cfg := j.llm()
	if strings.Contains(cfg.Spec, ",") {
		return nil, eval.FlagError("--llm", "one model here; juries are for assay agree")
	}
	cfg.NoCache = cfg.NoCache || j.DryRun
	// A dry run makes no call: its plan prices the calls as sent one by one.
	cfg.Batch = cfg.Batch && !j.DryRun
	if v := Env(env)("ASSAY_BATCH_POLL"); cfg.Batch && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, eval.FlagError("$ASSAY_BATCH_POLL", "want a positive duration such as 30s (the first wait between two polls of a batch), got %q", v)
		}
		cfg.BatchPolicy.Poll = d
	}
	if cfg.Notices == nil {
		cfg.Notices = w
	}
	if j.Model != nil {
		c, ok := j.Model.(*llm.Client)
		if !ok {
			c = llm.New(llm.Config{Backend: offline.New(offline.Config{}), Concurrency: cfg.Concurrency})
		}
		if err := judges.CheckSamples(j.Samples, j.Model); err != nil {
			return nil, eval.AsInputError("", err) // it names --samples and its value
		}
		s := &Session{cfg: j, model: j.Model, client: c, closer: io.NopCloser(nil)}
		if err := s.openChecker(cfg, env); err != nil {
			return nil, err
		}
		return s, nil
	}
	// Their errors name the flag already (--llm, --concurrency, --samples).
	c, closer, err := setup.Open(cfg, env)
	if err != nil {
		return nil, eval.AsInputError("", err) // it names its flag: --llm, --prices, --max-cost...
	}
	if err := judges.CheckSamples(j.Samples, c); err != nil {
		_ = closer.Close()
		return nil, eval.AsInputError("", err) // it names --samples and its value
	}
	j.LLM = cfg
	s := &Session{cfg: j, model: c, client: c, closer: closer}
	if err := s.openChecker(cfg, env); err != nil {
		_ = closer.Close()
		return nil, err
	}
	return s, nil
}

// Model is the model the session judges with.
func (s *Session) Model() judges.Model { return s.model }

// Close closes the client's idle connections and its cache, and the
// checker's.
func (s *Session) Close() error { return errors.Join(s.closer.Close(), s.check.close()) }

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
			return nil, eval.FlagError("$ASSAY_PROGRESS_EVERY", "want a positive duration such as 30s, got %q", v)
		}
		cfg.Every = d
	}
	if !s.client.Offline() || s.check.client != nil {
		cfg.Cost = s.spent
		cfg.Note = func() string { return waitNote(s.client.Waits(), time.Now()) }
	}
	return prog.New(w, cfg), nil
}

// spent is what the session's calls cost so far, the fact checker's
// included, and whether that is their whole cost (see llm.Client.Spent).
func (s *Session) spent() (usd float64, known bool) {
	usd, known = s.client.Spent()
	if c := s.check.client; c != nil {
		cu, ck := c.Spent()
		usd, known = usd+cu, known && ck
	}
	return usd, known
}

// waitNote says what the calls in flight wait on, for the progress line,
// or "" when they wait on nothing unusual.
func waitNote(w llm.Waits, now time.Time) string {
	switch {
	case !w.Down.IsZero():
		return fmt.Sprintf("model server not answering for %v, %s waiting for it", now.Sub(w.Down).Round(time.Second), plural.Count(w.ForServer, "call"))
	case w.Slow > 0:
		return plural.Count(w.Slow, "call") + " waiting on slow replies"
	}
	return ""
}

// Report is what a run's model client did: the line printed after a run.
type Report struct {
	Judge string     `json:"judge"`
	Usage eval.Usage `json:"usage"`
	// Defaulted counts the neutral defaults; Samples is how often each
	// judgement was asked, and Sampled and Unstable count the judgements
	// asked more than once and those whose answers disagreed.
	Defaulted int `json:"defaulted"`
	Samples   int `json:"samples,omitempty"`
	Sampled   int `json:"sampled,omitempty"`
	Unstable  int `json:"unstable,omitempty"`
	// WeakPasses counts the sampled judgements that passed in some draws
	// and failed in others (judges.WeakPass).
	WeakPasses int `json:"weak_passes,omitempty"`
	// Checker is the fact-checking model (--checker), and CheckerUsage
	// what its client did, when there is one.
	Checker      string      `json:"checker,omitempty"`
	CheckerUsage *eval.Usage `json:"checker_usage,omitempty"`
	// Limit is what the limit on calls in flight did (adaptive unless
	// fixed; llm.AdaptivePolicy); nil for a client that calls no model.
	Limit *llm.LimitReport `json:"limit,omitempty"`
	// Batch is what a batch run's batches did (--batch); nil otherwise.
	Batch *llm.BatchReport `json:"batch,omitempty"`
}

// Report is what the session's client did, with defaulted neutral
// defaults.
func (s *Session) Report(defaulted int) Report {
	r := Report{Judge: judges.Method(s.model), Usage: s.client.Usage(), Defaulted: defaulted,
		Samples: s.cfg.Samples, Sampled: int(s.stable.judged.Load()), Unstable: int(s.stable.unstable.Load()),
		WeakPasses: int(s.stable.weak.Load())}
	if c := s.check.client; c != nil {
		u := c.Usage()
		r.Checker, r.CheckerUsage = c.Name(), &u
	}
	if !s.client.Offline() {
		l := s.client.Limit()
		r.Limit = &l
	}
	if b := s.client.Batch(); b != nil {
		br := b.Report()
		r.Batch = &br
	}
	return r
}

// Write prints the report as one line.
func (r Report) Write(w io.Writer) {
	u := r.Usage
	// The names come from flags (--llm, --checker): shown, not obeyed.
	fmt.Fprintf(w, "judge: %s; calls %d (", termtext.Visible(r.Judge), u.Calls)
	if r.Batch != nil {
		fmt.Fprintf(w, "batch %d, ", u.BatchCalls)
	}
	fmt.Fprintf(w, "retries %d", u.Retries)
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
	if u.CachedTokensIn > 0 || u.CachedTokensOut > 0 {
		fmt.Fprintf(w, " paid, %d in / %d out from the cache", u.CachedTokensIn, u.CachedTokensOut)
	}
	fmt.Fprintf(w, ", cost %s; neutral defaults %d", u.Cost(), r.Defaulted)
	if r.Samples > 1 {
		fmt.Fprintf(w, "; unstable %d of %d judgement(s) over %d samples (majority share below 1 or spread std above %g), weak passes %d",
			r.Unstable, r.Sampled, r.Samples, judges.UnstableStd, r.WeakPasses)
	}
	if b := r.Batch; b != nil {
		writeBatch(w, *b)
	}
	if l := r.Limit; l != nil {
		writeLimit(w, *l)
	}
	if cu := r.CheckerUsage; cu != nil {
		fmt.Fprintf(w, "; checker %s: calls %d (retries %d), tokens %d in / %d out, cost %s", termtext.Visible(r.Checker), cu.Calls, cu.Retries, cu.TokensIn, cu.TokensOut, cu.Cost())
	}
	fmt.Fprintln(w)
}

// writeBatch says what a batch run's batches did, for the usage line:
// "; batches 2 (120 call(s), 118 answered at the batch price; 1 failed or
// expired; 2 call(s) sent directly)".
func writeBatch(w io.Writer, b llm.BatchReport) {
	fmt.Fprintf(w, "; batches %d (%d call(s), %d answered at the batch price", b.Batches, b.Calls, b.Answered)
	if b.Failed > 0 {
		fmt.Fprintf(w, "; %d failed or expired", b.Failed)
	}
	if b.Direct > 0 {
		fmt.Fprintf(w, "; %d call(s) sent directly", b.Direct)
	}
	fmt.Fprint(w, ")")
}

// writeLimit says what the adaptive limit on calls in flight did, for the
// usage line, when it moved or the server held calls back: "; in flight:
// limit 16 at first, 8 to 32, 32 at the end (of --concurrency 32), halved
// 2 time(s) on 429s or timeouts, held back 3 time(s) (1.2s) by the
// server's Retry-After or rate-limit headers". A limit that stayed where
// it started says nothing.
func writeLimit(w io.Writer, l llm.LimitReport) {
	if !l.Adaptive || l.Low == l.Initial && l.High == l.Initial && l.Holds == 0 {
		return
	}
	fmt.Fprintf(w, "; in flight: limit %d at first, %d to %d, %d at the end (of --concurrency %d)", l.Initial, l.Low, l.High, l.Final, l.Ceiling)
	if l.Decreases > 0 {
		fmt.Fprintf(w, ", halved %d time(s) on 429s or timeouts", l.Decreases)
	}
	if l.Holds > 0 {
		fmt.Fprintf(w, ", held back %d time(s) (%v) by the server's Retry-After or rate-limit headers", l.Holds, l.Held.Round(time.Millisecond))
	}
}

// Failures are the run's own failures once it ended: calls the budget
// refused, more neutral defaults than allowed, and calls that gave up on
// a model server that stayed down (a failure whatever the defaults allow).
func (s *Session) Failures(d Defaults) []Failure {
	out := s.budget()
	if f, ok := s.cfg.DefaultRate(d); ok {
		out = append(out, f)
	}
	if n := s.client.Unreachable(); n > 0 {
		out = append(out, Failure{Kind: FailUnreachable, Err: fmt.Errorf("the model server stopped answering and stayed down longer than --max-retry-time: %d call(s) gave up on it, and their judges used the neutral default; %s",
			n, DefaultAdvice(llm.ErrUnreachable))})
	}
	return out
}

// Counts are one metric's judgements: N in all, Scored of them measured,
// Skipped with nothing to judge, Defaulted to the neutral default.
type Counts struct {
	Metric                        string
	N, Scored, Skipped, Defaulted int
	// NotEvaluable counts, of Skipped, the conversations that could not
	// be judged (spans without message content).
	NotEvaluable int
}

// ScoredFailures are the failures of metrics that measured nothing for
// want of anything to judge (none scored, some skipped), or skipped more
// than MaxSkipRate allows. A metric whose judgements all defaulted is the
// default rate's to judge (Failures), and one nothing was asked of (N 0)
// is none.
func (j Config) ScoredFailures(counts []Counts) []Failure {
	var out []Failure
	for _, c := range counts {
		switch {
		case c.N == 0:
		case c.Scored == 0 && c.Skipped > 0:
			check := "check that the samples carry what it judges"
			if c.NotEvaluable > 0 {
				check += fmt.Sprintf(" (%d %s: spans without a readable user or assistant message; each result says why: content capture off, or messages that cannot be read)", c.NotEvaluable, eval.NotEvaluable)
			}
			out = append(out, Failure{Kind: FailNothingScored, Err: fmt.Errorf(
				"%s: none of its %d judgement(s) was scored (%d skipped with nothing to judge, %d defaulted): its figures are undefined; %s",
				c.Metric, c.N, c.Skipped, c.Defaulted, check)})
		case float64(c.Skipped)/float64(c.N) > j.MaxSkipRate:
			out = append(out, Failure{Kind: FailNothingScored, Err: fmt.Errorf(
				"%s: %d of %d judgement(s) skipped with nothing to judge, over --max-skip-rate %s",
				c.Metric, c.Skipped, c.N, strconv.FormatFloat(j.MaxSkipRate, 'f', -1, 64))})
		}
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

// budget is the failure of a run whose budget refused calls, or whose
// calls cost more than it: calls in flight together, each within it by
// its estimate, whose replies were longer than estimated.
func (s *Session) budget() []Failure {
	b := s.client.Budget()
	// The limit as the user gave it, never rounded to $0.0000.
	limit := strconv.FormatFloat(b.Max(), 'f', -1, 64)
	if n := b.Stops(); n > 0 {
		return []Failure{{Kind: FailBudget, Err: fmt.Errorf("budget reached: %d call(s) not made (--max-cost $%s); their judges used the neutral default",
			n, limit)}}
	}
	// Only calls of this session pass the budget: a resumed run whose
	// earlier attempts spent it (Budget.Spend) and that calls nothing more
	// did not.
	if spent := b.Spent(); b.Max() > 0 && spent > b.Max() && spent > b.Carried() {
		return []Failure{{Kind: FailBudget, Err: fmt.Errorf("budget passed: the calls spent $%.4f, over --max-cost $%s: calls in flight together cost more than their estimates "+
			"(replies longer than the ones before them); lower --concurrency, or set a lower --max-cost, for a closer bound", spent, limit)}}
	}
	return nil
}

// DefaultRate is the failure of judgements d when their share of neutral
// defaults is over MaxDefaultRate (0 under Strict); ok is false when it
// is within. Session.Failures checks a run's; a run that holds several
// sets of judgements (agree's metrics) checks each.
func (j Config) DefaultRate(d Defaults) (f Failure, ok bool) {
	limit, flag := j.MaxDefaultRate, "--max-default-rate "+strconv.FormatFloat(j.MaxDefaultRate, 'f', -1, 64)
	if j.Strict {
		limit, flag = 0, "--strict (no default allowed)"
	}
	var re *DefaultRateError
	if !errors.As(d.Check(limit), &re) {
		return Failure{}, false
	}
	by := re.ByCause()
	if by != "" {
		by = " (" + by + ")"
	}
	msg := fmt.Sprintf("%s fell back to the neutral default%s, over %s: %s\n%s, or allow more defaults with --max-default-rate",
		re.Summary(), by, flag, re.Cause(), DefaultAdvice(re))
	return Failure{Kind: FailDefaults, Err: &causeError{msg: msg, err: re}}, true
}

// DefaultAdvice says what to look at for the first cause of a run's
// defaults.
func DefaultAdvice(cause error) string {
	var se *llm.StatusError
	var ce *judges.CheckerError
	switch {
	case errors.As(cause, &ce):
		return CheckerAdvice(ce.Checker)
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

// CheckerAdvice says what to look at when the fact checker named checker
// (--checker, "openai:MODEL") failed: its own server, and the variables
// it reads them from (setup.OpenChecker), not the judging model's.
func CheckerAdvice(checker string) string {
	url, key := fmt.Sprintf("$%s, else $OPENAI_BASE_URL", setup.CheckerBaseURLVar), "$OPENAI_API_KEY"
	switch b, _, _ := strings.Cut(checker, ":"); b {
	case "ollama":
		url = "$OLLAMA_HOST"
	case "vllm":
		key = "$VLLM_API_KEY"
	case "llamacpp":
		key = "$LLAMA_API_KEY"
	}
	return fmt.Sprintf("the fact checker %s failed: check that its server is up, serves that model and answers Yes or No "+
		"(--checker; its API root from %s; its key from $%s, else %s)", checker, url, setup.CheckerAPIKeyVar, key)
}

// Observe counts sc when it is a sampled judgement (judges.Sampled).
func (s *Session) Observe(sc eval.Score) { s.stable.add(sc) }

// CountSampled adds judged sampled judgements, unstable of them and weak
// of them weak passes (from a run's summary, earlier results of a
// resumed run included).
func (s *Session) CountSampled(judged, unstable, weak int) { s.stable.count(judged, unstable, weak) }

// stability counts the sampled judgements of a run and the unstable ones
// (judges.Unstable). It is safe for concurrent use.
type stability struct {
	judged, unstable, weak atomic.Int64
}

// count adds judged sampled judgements, unstable of them (from a run's
// summary, earlier results of a resumed run included).
func (st *stability) count(judged, unstable, weak int) {
	st.judged.Add(int64(judged))
	st.unstable.Add(int64(unstable))
	st.weak.Add(int64(weak))
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
	if judges.WeakPass(sc) {
		st.weak.Add(1)
	}
}

// Env is env, or an environment with nothing set when nil: what a job
// reads its variables through.
func Env(env func(string) string) func(string) string {
	if env == nil {
		return func(string) string { return "" }
	}
	return env
}

// Writer is where a job writes what a person should know: w, with its
// writes serialized, or io.Discard when nil. A job writes its log from
// many goroutines at once (its calls, its progress, the in-process
// workers of bench --workers N), so w need not be safe for concurrent use
// (a bytes.Buffer in a test, say). A file is given back as it is: its
// writes are serialized already, and the progress meter asks it whether
// it is a terminal.
func Writer(w io.Writer) io.Writer {
	switch w.(type) {
	case nil:
		return io.Discard
	case *lockedWriter, *os.File:
		return w
	}
	if w == io.Discard {
		return w
	}
	return &lockedWriter{w: w}
}

// lockedWriter is a writer whose writes take turns.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
