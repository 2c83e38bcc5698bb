package serve

import (
	"cmp"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/loopback"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm/setup"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/internal/auth"
	"github.com/assaylabs/assay/serve/live"
)

// Config is how the server is built. Its zero fields are the documented
// defaults, except Judging, which starts from judging.Default().
type Config struct {
	// Addr is the address Serve's caller listens on; empty is
	// DefaultAddr, loopback. Any other than a loopback address needs a
	// Token.
	Addr string
	// Token, when set, is the bearer token every request but /healthz
	// must carry (Authorization: Bearer TOKEN); 401 otherwise.
	Token string
	// AllowHosts are the names, beside the loopback ones (127.0.0.1,
	// localhost, [::1]), that a request's Host may give; any other Host
	// is refused 403, so that no web page can reach a loopback server
	// through a name of its own (DNS rebinding). On an address other than
	// loopback, none is any Host. Cross-origin writes from a browser are
	// refused whatever the Host (Sec-Fetch-Site, Origin).
	AllowHosts []string
	// DataDir holds the server's own files: serve.db (the trace journal,
	// its scores and the runs it started), runs/ (their run folders) and
	// inputs/ (their datasets). Empty is "serve" beside the run store.
	DataDir string
	// Store is the run store's file (bench.Job.Store); empty is
	// runstore.DefaultStorePath(Env).
	Store string
	// Judging is the model client of /v1/judge, /v1/score, the traces
	// and the runs, and the rules for its failures.
	Judging judging.Config
	// Registry holds the metrics requests may name; nil is the built-in
	// ones (agent.Builtins).
	Registry *metric.Registry
	// Profiles is a folder of profile files (NAME.yaml) that requests
	// may name by NAME beside the built-in research, daily and context;
	// every one is checked when the server is built. A request never
	// names a path. Empty: the built-in profiles only.
	Profiles string
	// SampleRate is the share of traces judged, 0 to 1, decided by the
	// hash of each trace id (Sampled); nil is 1, every trace.
	SampleRate *float64
	// TraceMetrics are the metrics a trace is judged with when its
	// request names none; empty is defaultTraceMetrics.
	TraceMetrics []string
	// ConversationMetrics are the metrics a conversation assembled from
	// OTLP spans (/otlp/v1/traces) is judged with; empty is
	// DefaultConversationMetrics.
	ConversationMetrics []string
	// MaxTraceSpans is how many spans a trace sent to /otlp/v1/traces
	// may hold while it waits for its root span: the others that come
	// before the root are refused, counted in the answer's
	// partial_success, and the trace is judged with the spans it holds
	// and its root. 0 (or less) is 1000.
	MaxTraceSpans int
	// QueueSize is how many sampled traces may wait to be judged; a
	// request that would pass it is refused with 429. 0 is 1024. With
	// Queue, it bounds the queue's stream of trace tasks instead (one per
	// trace and metric, waiting or being judged, across every replica;
	// the replica started last sets it), whose full stream refuses a
	// request with 429 too.
	QueueSize int
	// Queue, when set, is a NATS server or cluster (nats://HOST:4222)
	// whose JetStream queue the server shares with other replicas and
	// with `assay worker` processes: a sampled trace is answered 202 once
	// the queue has stored it (not the journal), workers judge it, and
	// the results, the summary and the live alerts come from the queue's
	// bucket, the same on every replica. QueueToken is its token.
	Queue, QueueToken string
	// Workers judge traces at once; 0 is the model session's Limit.
	Workers int
	// MaxBody is the largest request body in bytes (413 beyond); 0 is
	// 10 MB.
	MaxBody int64
	// ReadTimeout bounds the time a client takes to send a request's
	// header and body (an API request's is answered 408 beyond, the
	// connection closed); 0 is 10 s. A request takes its place among MaxInFlight
	// only once its body has come, so slow senders hold none.
	ReadTimeout time.Duration
	// RequestTimeout bounds each API request (504 when a judgement takes
	// longer); 0 is 60 s.
	RequestTimeout time.Duration
	// MaxInFlight bounds the API requests answered at once (503 beyond,
	// counted); 0 is 512.
	MaxInFlight int
	// MaxRuns bounds the runs (POST /v1/runs) judged at once; the others
	// wait their turn. 0 is 1.
	MaxRuns int
	// ShutdownTimeout bounds a graceful shutdown: requests in flight and
	// judgements under way get this long to finish; 0 is 30 s.
	ShutdownTimeout time.Duration
	// Baseline is the run whose means live alerts compare recent scores
	// with: a run id (or unique prefix) in the run store, or a run
	// folder. Empty: each metric's first full alert window.
	Baseline string
	// AlertWindow is how many recent scores of a metric live alerts
	// average; 0 is live.DefaultWindow (100).
	AlertWindow int
	// Webhook, when set, is an http(s) URL posted every alert event as
	// JSON, retried with backoff from a queue of its own: never blocking
	// scoring.
	Webhook string
	// StallAfter: a metric whose judgement has waited this long for an
	// answer (or that has had none successful for this long while
	// judging) is shown stalled; 0 is two of the model's call timeouts.
	StallAfter time.Duration
	// Observers see every (sample, metric) score the server makes, as it
	// is made (AddObserver adds more).
	Observers []Observer
	// Wrap wraps the whole handler, outermost (before auth). Nil is
	// telemetry.Middleware: a server span per request, named after the
	// route pattern that served it and continuing the caller's W3C
	// traceparent, a no-op while tracing is off (telemetry.Setup).
	Wrap func(http.Handler) http.Handler
	// Env reads the environment (keys, URLs, the data folder); nil reads
	// nothing. Log receives notices; nil discards them.
	Env func(string) string
	Log io.Writer
	// Now is the clock of trace days and run ids; nil is time.Now.
	Now func() time.Time
	// Version is recorded in the config of the runs the server starts.
	Version string
}

// Defaults of Config.
const (
	DefaultAddr     = "127.0.0.1:8080"
	defaultQueue    = 1024
	defaultSpans    = 1000
	defaultMaxBody  = 10 << 20
	defaultTimeout  = 60 * time.Second
	defaultRead     = 10 * time.Second
	defaultInFlight = 512
	defaultShutdown = 30 * time.Second
)

// defaultTraceMetrics backs DefaultTraceMetrics, which hands out copies.
var defaultTraceMetrics = []string{"faithfulness", "answer_relevancy_grade"}

// DefaultTraceMetrics returns the metrics traces are judged with unless told
// otherwise: whether the answer keeps to its contexts and whether it
// answers the question (the model's direct grade, which needs no
// embedding model), both reference-free, as production traces have no
// reference answer.
func DefaultTraceMetrics() []string { return slices.Clone(defaultTraceMetrics) }

// withDefaults fills the zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	c = c.filled()
	if err := c.checkFlags(); err != nil {
		return c, err
	}
	if c.Store == "" {
		p, err := runstore.DefaultStorePath(c.Env)
		if err != nil {
			return c, err
		}
		c.Store = p
	}
	c.DataDir = cmp.Or(c.DataDir, filepath.Join(filepath.Dir(c.Store), "serve"))
	if err := c.checkBind(); err != nil {
		return c, err
	}
	return c, nil
}

// filled returns c with the zero fields that need no lookup set to their
// defaults.
func (c Config) filled() Config {
	c.Addr = cmp.Or(c.Addr, DefaultAddr)
	if c.Env == nil {
		c.Env = func(string) string { return "" }
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Judging.Samples == 0 {
		d := judging.Default()
		d.LLM, d.Model, d.Checker, d.CheckerChunk = c.Judging.LLM, c.Judging.Model, c.Judging.Checker, c.Judging.CheckerChunk
		c.Judging = d
	}
	if c.SampleRate == nil {
		one := 1.0
		c.SampleRate = &one
	}
	if len(c.TraceMetrics) == 0 {
		c.TraceMetrics = defaultTraceMetrics
	}
	if len(c.ConversationMetrics) == 0 {
		c.ConversationMetrics = DefaultConversationMetrics()
	}
	c.QueueSize = cmp.Or(c.QueueSize, defaultQueue)
	if c.MaxTraceSpans <= 0 {
		c.MaxTraceSpans = defaultSpans
	}
	c.MaxBody = cmp.Or(c.MaxBody, defaultMaxBody)
	c.RequestTimeout = cmp.Or(c.RequestTimeout, defaultTimeout)
	c.ReadTimeout = cmp.Or(c.ReadTimeout, defaultRead)
	c.MaxInFlight = cmp.Or(c.MaxInFlight, defaultInFlight)
	c.MaxRuns = cmp.Or(c.MaxRuns, 1)
	c.ShutdownTimeout = cmp.Or(c.ShutdownTimeout, defaultShutdown)
	return c
}

// checkFlags checks the filled fields a flag sets and names the first
// flag out of range.
func (c Config) checkFlags() error {
	if r := *c.SampleRate; !(r >= 0 && r <= 1) {
		return eval.FlagError("--sample-rate", "want a share from 0 to 1 (0.1 judges one trace in ten), got %g", r)
	}
	for _, d := range []struct {
		name, zero string
		v          time.Duration
	}{{"--read-timeout", defaultRead.String(), c.ReadTimeout}, {"--stall-after", "two call timeouts", c.StallAfter},
		{"--timeout", defaultTimeout.String(), c.RequestTimeout}, {"--shutdown-timeout", defaultShutdown.String(), c.ShutdownTimeout}} {
		if d.v < 0 {
			return eval.FlagError(d.name, "want a duration >= 0 (0: %s), got %s", d.zero, d.v)
		}
	}
	if c.MaxBody < 0 {
		return eval.FlagError("--max-body", "want a size in bytes > 0 (0: %d), got %d", defaultMaxBody, c.MaxBody)
	}
	if err := c.checkQueueURL(); err != nil {
		return err
	}
	for _, h := range c.AllowHosts {
		if name := auth.HostName(h); name == "" || strings.ContainsAny(h, "/@ ") || (strings.Contains(name, ":") && net.ParseIP(name) == nil) {
			return eval.FlagError("--allow-host", "want a host name as a browser's address bar has it (assay.internal, or assay.internal:8080), got %q", h)
		}
	}
	if c.Webhook != "" {
		if u, err := url.Parse(c.Webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return eval.FlagError("--webhook", "want an http or https URL (https://hooks.example.com/assay), got %q", c.Webhook)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"--queue", c.QueueSize}, {"--workers", c.Workers}, {"--max-in-flight", c.MaxInFlight}, {"--max-runs", c.MaxRuns}, {"--alert-window", c.AlertWindow}} {
		if f.v < 0 {
			return eval.FlagError(f.name, "want a number >= 0, got %d", f.v)
		}
	}
	// The queue's places are allocated when the server starts, and each
	// worker is a goroutine judging: numbers past these would exhaust
	// memory before the first request instead of being refused.
	if c.QueueSize > MaxQueue {
		return eval.FlagError("--queue", "want at most %d sampled traces waiting, got %d", MaxQueue, c.QueueSize)
	}
	if c.AlertWindow > live.MaxWindow {
		return eval.FlagError("--alert-window", "want at most %d recent scores, got %d", live.MaxWindow, c.AlertWindow)
	}
	if c.Workers > setup.MaxConcurrency {
		return eval.FlagError("--workers", "want at most %d traces judged at once, got %d", setup.MaxConcurrency, c.Workers)
	}
	return nil
}

// checkQueueURL checks the URL of a shared queue, if one is given.
func (c Config) checkQueueURL() error {
	if c.Queue == "" {
		return nil
	}
	if !strings.HasPrefix(c.Queue, "nats://") && !strings.HasPrefix(c.Queue, "tls://") {
		return eval.FlagError("--queue", "want a NATS URL such as nats://HOST:4222 (or a number: the size of the in-process queue), got %q", c.Queue)
	}
	if err := queue.CheckURL(c.Queue); err != nil {
		return eval.FlagError("--queue", "%v", err)
	}
	return nil
}

// MaxQueue is the most sampled traces --queue lets wait in the process.
const MaxQueue = 1 << 20

// ParseQueue reads --queue and --queue-size (0 when not given): a
// number is the size of the in-process trace queue (QueueSize), a nats://
// or tls:// URL the queue shared with other replicas (Queue), whose
// stream of trace tasks --queue-size bounds.
func ParseQueue(v string, sharedSize int) (size int, url string, err error) {
	if strings.Contains(v, "://") {
		if sharedSize < 0 {
			return 0, "", eval.FlagError("--queue-size", "want a number of tasks >= 0 (0: %d), got %d", defaultQueue, sharedSize)
		}
		return sharedSize, v, nil
	}
	if sharedSize != 0 {
		return 0, "", eval.FlagError("--queue-size", "bounds a shared queue (--queue nats://...); the in-process queue's size is --queue N")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, "", eval.FlagError("--queue", "want the number of sampled traces that may wait (1024), or a NATS URL (nats://HOST:4222), got %q", v)
	}
	return n, "", nil
}

// checkBind refuses an address other than loopback without a token.
func (c Config) checkBind() error {
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return eval.FlagError("--addr", "want HOST:PORT (127.0.0.1:8080), got %q: %v", c.Addr, err)
	}
	// A port is a number from 0 (any free one) to 65535, or a service's
	// name (http); one out of range failed only at listen, as exit 3.
	if port != "" && strings.TrimLeft(port, "+-0123456789") == "" {
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return eval.FlagError("--addr", "want HOST:PORT with a port from 0 to 65535 (127.0.0.1:8080), got %q", c.Addr)
		}
	}
	if c.Token == "" && !loopback.Is(host) {
		return eval.FlagError("--token", "%s is not a loopback address: anyone who reaches it could use the server and its model key; give --token (or $ASSAY_TOKEN), or bind 127.0.0.1", c.Addr)
	}
	return nil
}

func pathIn(dir string, parts ...string) string {
	return filepath.Join(append([]string{dir}, parts...)...)
}

// describe says what the configuration serves, for the log.
func (c Config) describe(judge string) string {
	if c.Queue != "" {
		return fmt.Sprintf("traces sampled at %g with %v, conversations (/otlp/v1/traces) with %v, judged by the workers of %s, data in %s",
			*c.SampleRate, c.TraceMetrics, c.ConversationMetrics, c.Queue, c.DataDir)
	}
	return fmt.Sprintf("judge %s, traces sampled at %g with %v, conversations (/otlp/v1/traces) with %v, queue %d, data in %s",
		judge, *c.SampleRate, c.TraceMetrics, c.ConversationMetrics, c.QueueSize, c.DataDir)
}
