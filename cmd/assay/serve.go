package main

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/serve"
)

type serveFlags struct {
	addr, token, dataDir string
	allowHosts           []string
	profiles             string
	readTimeout          time.Duration
	sampleRate           float64
	traceMetrics         []string
	convMetrics          []string
	queue, queueToken    string
	queueSize            int
	workers              int
	maxInFlight, maxRuns int
	maxBody              int64
	timeout, shutdown    time.Duration
	baseline, webhook    string
	alertWindow          int
	stallAfter           time.Duration
	llm                  llmFlags
}

func newServeCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := serveFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve the context score, judging, runs and sampled production traces over HTTP",
		Long: `Serve Assay over HTTP, JSON in and out, until SIGTERM or Ctrl-C: seed 002's
context score on POST /v1/context-score (no model call), POST /v1/score,
/v1/judge, /v1/runs, production samples on POST /v1/traces (sampled by a
hash of the trace id, journaled before 202, judged in the background, 429
when the queue is full), GET /healthz, /metrics and /openapi.json.
Every score but a run's feeds seed 002's live alerts (GET /v1/alerts, /metrics,
the store, --webhook) against --baseline or each metric's first window; the
dashboard at / shows them with the lowest and slowest samples and the runs.

It binds 127.0.0.1 by default; any other address needs --token (or
$ASSAY_TOKEN), which every request but /healthz and /readyz then carries
as Authorization: Bearer TOKEN; a browser signs in to the dashboard with a
form at / (a session cookie that opens the dashboard, nothing else). Ten
wrong tokens from one address, then one every 6 s; beyond, 429. On
loopback it answers only the Host names 127.0.0.1, localhost, [::1] and
--allow-host's, so no web page can reach it through a name of its own, and
refuses writes a browser sends from another origin. A request names a
profile, never a path: research, daily, context or a file of --profiles.
GET /readyz is 503 while every place of --max-in-flight is taken. Its files (the trace journal and scores, the
runs it starts) live in --data-dir, by default "serve" beside the run store
($ASSAY_DATA_DIR). On SIGTERM, requests in flight finish and queued traces
stay in the journal, judged after a restart, none twice.

With --queue nats://HOST:4222 several replicas behind a load balancer share
one NATS JetStream queue and the assay worker processes that take from it:
a sampled trace is answered 202 once the queue has stored it (429 past
--queue-size tasks), workers judge it, and every replica reads the same
results in the same order, so their trace answers, summaries and alert
windows agree; each alert event is stored and posted by one replica.`,
		Example: `  assay serve
  assay serve --addr 0.0.0.0:8080 --token "$TOKEN" --llm openai:gpt-4o-mini --sample-rate 0.1
  assay serve --baseline 20260105-1200-ab --webhook https://hooks.example.com/assay
  assay serve --queue nats://nats.internal:4222 --queue-token "$NATS_TOKEN" --llm openai:gpt-4o-mini
  curl -s localhost:8080/v1/context-score -d @fixtures/context/good.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, f) },
	}
	f.register(cmd.Flags())
	return cmd
}

// register defines serve's flags on fl.
func (f *serveFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.addr, "addr", serve.DefaultAddr, "address to listen on; other than loopback, --token is required")
	fl.StringVar(&f.token, "token", "", "bearer token every request but /healthz, /readyz and the sign-in must carry (default $ASSAY_TOKEN)")
	fl.StringSliceVar(&f.allowHosts, "allow-host", nil, "a name the server is reached by beside 127.0.0.1, localhost and [::1] (repeat, or a,b); a request with any other Host header is refused 403")
	fl.StringVar(&f.profiles, "profiles", "", "folder of profile files (NAME.yaml) that requests may name by NAME, beside research, daily and context")
	fl.StringVar(&f.dataDir, "data-dir", "", `folder of the server's journal, trace scores and runs (default "serve" beside the run store)`)
	fl.Float64Var(&f.sampleRate, "sample-rate", 1, "share of traces judged, 0 to 1, decided by a hash of the trace id")
	fl.StringSliceVar(&f.traceMetrics, "trace-metric", serve.DefaultTraceMetrics(), "metrics a trace is judged with when its request names none")
	fl.StringSliceVar(&f.convMetrics, "conversation-metric", serve.DefaultConversationMetrics(), "metrics a conversation assembled from OTLP spans (POST /otlp/v1/traces) is judged with")
	fl.StringVar(&f.queue, "queue", "1024", "sampled traces that may wait to be judged (beyond, POST /v1/traces answers 429); or a NATS URL (nats://HOST:4222) whose JetStream queue replicas share with assay worker processes")
	fl.StringVar(&f.queueToken, "queue-token", "", "the NATS server's token (--queue nats://...)")
	fl.IntVar(&f.queueSize, "queue-size", 0, "with --queue nats://...: the trace tasks (one per trace and metric) the shared queue holds, waiting or being judged; beyond, POST /v1/traces answers 429 (0: 1024)")
	fl.IntVar(&f.workers, "workers", 0, "traces judged at once (0: 4 x --concurrency)")
	fl.IntVar(&f.maxInFlight, "max-in-flight", 512, "API requests answered at once; beyond, 503")
	fl.IntVar(&f.maxRuns, "max-runs", 1, "runs (POST /v1/runs) judged at once; the others wait")
	fl.Int64Var(&f.maxBody, "max-body", 10<<20, "largest request body in bytes; beyond, 413")
	fl.DurationVar(&f.timeout, "timeout", time.Minute, "longest time to answer one request; beyond, 504")
	fl.DurationVar(&f.readTimeout, "read-timeout", 10*time.Second, "longest time a client may take to send a request's header, and its body (beyond, 408); a request holds a place among --max-in-flight only once its body has come")
	fl.DurationVar(&f.shutdown, "shutdown-timeout", 30*time.Second, "on SIGTERM, how long requests in flight and judgements under way may take to finish")
	fl.StringVar(&f.baseline, "baseline", "", "run (an id in the run store, or a run folder) whose means live alerts compare with (default: each metric's first full window)")
	fl.IntVar(&f.alertWindow, "alert-window", 100, "recent scores of a metric averaged by the live alert rule (at most 10000)")
	fl.StringVar(&f.webhook, "webhook", "", "http(s) URL posted every alert event as JSON (retried; never blocks scoring)")
	fl.DurationVar(&f.stallAfter, "stall-after", 0, "a judgement waiting this long for the model shows its metric stalled (0: two --call-timeout)")
	f.llm.register(fl)
	registerChecker(fl, &f.llm)
	registerJudges(fl, &f.llm)
	fl.Float64Var(&f.llm.maxDefaultRate, "max-default-rate", judging.DefaultMaxRate, "share of a run's judgements that may fall back to the neutral default before the run fails")
}

func runServe(cmd *cobra.Command, f serveFlags) error {
	reg, err := f.llm.registry()
	if err != nil {
		return inputErr(err)
	}
	size, url, err := serve.ParseQueue(f.queue, f.queueSize)
	if err != nil {
		return runError(err)
	}
	cfg := serve.Config{Addr: f.addr, Token: cmp.Or(f.token, f.llm.env("ASSAY_TOKEN")), AllowHosts: f.allowHosts, Profiles: f.profiles,
		DataDir: f.dataDir, Judging: f.llm.judging(), ReadTimeout: f.readTimeout,
		Registry: reg, SampleRate: &f.sampleRate, TraceMetrics: f.traceMetrics, ConversationMetrics: f.convMetrics, QueueSize: size, Queue: url, QueueToken: f.queueToken, Workers: f.workers,
		MaxBody: f.maxBody, RequestTimeout: f.timeout, MaxInFlight: f.maxInFlight, MaxRuns: f.maxRuns, ShutdownTimeout: f.shutdown,
		Baseline: f.baseline, AlertWindow: f.alertWindow, Webhook: f.webhook, StallAfter: f.stallAfter,
		Env: f.llm.env, Log: cmd.ErrOrStderr(), Version: cmd.Root().Version}
	srv, err := serve.New(cfg)
	if err != nil {
		return runError(err)
	}
	ln, err := (&net.ListenConfig{}).Listen(cmd.Context(), "tcp", f.addr)
	if err != nil {
		_ = srv.Close()
		return &exitError{code: exitInfra, err: fmt.Errorf("serve: %w", err)}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "assay serve: stopped")
	return nil
}
