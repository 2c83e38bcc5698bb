package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/annotate"
	"github.com/assaylabs/assay/serve/dashboard"
	"github.com/assaylabs/assay/serve/internal/auth"
	"github.com/assaylabs/assay/serve/internal/httpjson"
	"github.com/assaylabs/assay/serve/live"
)

// Observer sees every (sample, metric) score of the live traffic: the
// context score of each /v1/context-score request (metric
// "context_quality"), each judgement of /v1/judge and each of a sampled
// trace, once, as it is stored. A run's (POST /v1/runs), a benchmark of a
// dataset, goes to its run folder and the run store instead. meta is the
// sample's metadata, each top-level field as a string (JSON for what is
// not a string), with "source" (context-score, judge or traces) and, for
// a trace, "trace_id".
//
// Observe is called on the goroutine that made the score, on the request
// path of /v1/context-score: it must return at once (hand the score to a
// goroutine of its own) and must not change meta (it may keep it: the
// server never changes a map it has passed).
type Observer interface {
	Observe(metric string, s eval.Score, meta map[string]string, at time.Time)
}

// Starter is an Observer that is also told when a judgement begins: the
// server calls Begin before it judges a sample with metric (a trace's,
// /v1/judge's), and the function Begin returns once that judgement is
// over, after its Observe. It must return at once.
type Starter interface {
	Begin(metric string) (end func())
}

// Route names, the endpoint label of the metrics.
const (
	routeContext = "POST /v1/context-score"
	routeScore   = "POST /v1/score"
	routeJudge   = "POST /v1/judge"
	routeRuns    = "POST /v1/runs"
	routeRun     = "GET /v1/runs/{id}"
	routeRunList = "GET /v1/runs"
	routeTraces  = "POST /v1/traces"
	routeSummary = "GET /v1/traces/summary"
	routeTrace   = "GET /v1/traces/{id}"
	routeHealth  = "GET /healthz"
	routeReady   = "GET /readyz"
	routeMetrics = "GET /metrics"
	routeOpenAPI = "GET /openapi.json"
	routeAlerts  = "GET /v1/alerts"
	routeDash    = "GET /{$}"
	routeDashAPI = "GET " + dashboard.DefaultJSONPath
)

// Server is `assay serve`: the library behind HTTP. Build it with New,
// mount more handlers with Handle, start its background work with Start
// (Serve does), and Close it.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	handler http.Handler
	metrics *metrics
	judger  *bench.Judger
	context *agent.Profile
	store   *store
	queue   *traceQueue
	// shared, with Config.Queue, takes the new traces instead of queue.
	shared *sharedTraces
	// otlp holds the spans of traces not yet whole (/otlp/v1/traces).
	otlp   *spanBuffer
	runs   *runManager
	routes []route
	// runStore is the run store (the baseline's and the dashboard's
	// runs); live watches the scores and raises the alerts; dash is the
	// dashboard's data.
	runStore *runstore.Store
	live     *live.Monitor
	dash     dashboard.Source
	// sessions are the dashboard's logins and signIns the failed
	// sign-ins by client, when a token is set.
	sessions *auth.Sessions
	signIns  *auth.Throttle
	// profiles are what a request's profile may name.
	profiles profileSet
	// queues are the annotation queues.
	queues *annotate.Queues

	observers atomic.Pointer[[]Observer]
	inFlight  chan struct{}
	startOnce sync.Once
	closeOnce sync.Once
	closeErr  error
}

// route is one API route: its pattern and handler, and what the OpenAPI
// document says of it.
type route struct {
	pattern string
	handle  func(http.ResponseWriter, *http.Request) error
	// api routes are bounded (body, time, requests in flight); health,
	// metrics and the document are not.
	api bool
	// cpu routes compute their answer from the body alone, waiting on
	// nothing a deadline could cut: they take no RequestTimeout of
	// their own (a context and a timer a request). Their handler keeps
	// nothing of the body once it returns (what it decodes is copied):
	// the body's buffer is then reused for the next request.
	cpu bool
	doc operation
}

// New builds the server of cfg: it opens the model session, the server's
// store in cfg.DataDir and the context profile. Nothing runs in the
// background until Start.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, eval.FlagError("--data-dir", "%s: not a folder, or a file stands in its path: give a folder", cfg.DataDir)
		}
		return nil, fmt.Errorf("serve: data folder: %w", err)
	}
	ctxProfile, err := agent.Profiles{Metrics: cfg.Registry}.Load("context")
	if err != nil {
		return nil, err
	}
	profiles, err := loadProfiles(cfg.Profiles, cfg.Registry)
	if err != nil {
		return nil, err
	}
	j, err := bench.OpenJudger(cfg.Judging, cfg.Registry, cfg.Log, cfg.Env)
	if err != nil {
		return nil, err
	}
	for _, m := range append(slices.Clone(cfg.TraceMetrics), cfg.ConversationMetrics...) {
		if err := j.Check(eval.Sample{Query: "q", Answer: "a", Sources: []eval.Source{{Text: "c"}}, Reference: "r"}, []string{m}); err != nil {
			_ = j.Close()
			if ie, ok := errors.AsType[*eval.InputError](err); ok && ie.Field == "--metric" {
				ie.Field = "--trace-metric"
			}
			return nil, err
		}
	}
	st, err := openStore(pathIn(cfg.DataDir, "serve.db"))
	if err != nil {
		_ = j.Close()
		return nil, err
	}
	runStore, err := runstore.OpenStore(cfg.Store)
	if err != nil {
		return nil, errors.Join(err, st.Close(), j.Close())
	}
	var shared *sharedTraces
	var claim live.Claimer
	if cfg.Queue != "" {
		if shared, err = openShared(cfg); err != nil {
			return nil, errors.Join(err, runStore.Close(), st.Close(), j.Close())
		}
		claim = live.ClaimFunc(shared.claim)
	}
	mon, err := newMonitor(cfg, runStore, st, j.Session().Config().LLM.CallTimeout, claim)
	if err != nil {
		if shared != nil {
			shared.close()
		}
		return nil, errors.Join(err, runStore.Close(), st.Close(), j.Close())
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), judger: j, context: ctxProfile, store: st, runStore: runStore, live: mon,
		inFlight: make(chan struct{}, cfg.MaxInFlight), shared: shared, profiles: profiles}
	if shared != nil {
		shared.s = s
	}
	if cfg.Workers == 0 {
		s.cfg.Workers = j.Session().Limit()
	}
	s.queue = newTraceQueue(s, cfg.QueueSize)
	s.otlp = newSpanBuffer(cfg.QueueSize, cfg.MaxTraceSpans)
	s.metrics = newMetrics(func() float64 { return float64(s.queueDepth()) })
	s.metrics.queueCap.Set(float64(cfg.QueueSize))
	s.metrics.reg.MustRegister(newLiveCollector(mon),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "assay_store_write_waits_total",
			Help: "Writes to serve.db (the trace journal, scores, runs, alert events) that queued behind another of this process's writes."},
			func() float64 { return float64(st.waits.Load()) }))
	s.runs = newRunManager(s)
	s.dash = s.dashboardSource()
	s.queues = s.annotationQueues()
	if cfg.Token != "" {
		s.signIns = auth.NewThrottle(s.cfg.Now)
		if s.sessions, err = auth.NewSessions(cfg.Token, s.cfg.Now); err != nil {
			return nil, errors.Join(err, mon.Close(), runStore.Close(), st.Close(), j.Close())
		}
	}
	obs := append([]Observer{liveObserver{mon}}, cfg.Observers...)
	s.observers.Store(&obs)
	s.routes = s.apiRoutes()
	for _, rt := range s.routes {
		s.mux.Handle(rt.pattern, s.wrap(rt))
	}
	s.handler = noSniff(s.guard(s.auth(s.recoverAll(s.mux))))
	wrap := cfg.Wrap
	if wrap == nil {
		wrap = traced
	}
	s.handler = wrap(s.handler)
	return s, nil
}

// Handler is the server's HTTP handler: every route, with bearer auth
// when a token is set.
func (s *Server) Handler() http.Handler { return s.handler }

// Handle mounts h at pattern (a net/http ServeMux pattern, "GET
// /v1/report" say; the routes above are taken), behind the server's
// auth and panic recovery, its requests counted in /metrics under
// pattern. Call it before serving.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.instrument(pattern, h))
}

// AddObserver adds an observer of every score from now on.
func (s *Server) AddObserver(o Observer) {
	for {
		old := s.observers.Load()
		next := append(append([]Observer(nil), *old...), o)
		if s.observers.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Metrics is the server's Prometheus registry (/metrics): register the
// collectors of what is mounted (alerts, say) there.
func (s *Server) Metrics() *prometheus.Registry { return s.metrics.reg }

// DataDir is the folder of the server's own files.
func (s *Server) DataDir() string { return s.cfg.DataDir }

// Live is the monitor of the live alerts: every score the Observers see
// feeds it (a run's, a benchmark of a dataset, does not); /metrics,
// /v1/alerts and the dashboard read it.
func (s *Server) Live() *live.Monitor { return s.live }

// observe counts a score and hands it to the observers.
func (s *Server) observe(sc eval.Score, meta map[string]string, at time.Time) {
	s.metrics.judged(sc)
	for _, o := range *s.observers.Load() {
		o.Observe(sc.Metric, sc, meta, at)
	}
}

// begin tells the observers that are Starters that judgements of metrics
// begin, and returns the function that tells them they are over.
func (s *Server) begin(metrics []string) (end func()) {
	var ends []func()
	for _, o := range *s.observers.Load() {
		if st, ok := o.(Starter); ok {
			for _, m := range metrics {
				ends = append(ends, st.Begin(m))
			}
		}
	}
	return func() {
		for _, e := range ends {
			e()
		}
	}
}

// Start starts the background work: the trace workers, with the traces
// the journal holds unjudged, and the runs the server started and did
// not finish (resumed). Calling it again does nothing.
func (s *Server) Start(ctx context.Context) error {
	var err error
	s.startOnce.Do(func() {
		var backlog []traceItem
		if backlog, err = s.store.pending(ctx); err != nil {
			err = fmt.Errorf("serve: reading the trace journal: %w", err)
			return
		}
		// With a shared queue too: the journal's traces of an earlier
		// start without it are judged here.
		s.queue.start(s.cfg.Workers, backlog)
		if s.shared != nil {
			s.shared.start()
		}
		err = s.runs.resume(ctx)
	})
	return err
}

// Close stops the background work gracefully, within
// Config.ShutdownTimeout: every trace this process answered 202 is judged
// (those queued too, not left for a restart; what the timeout cuts stays
// in the journal), runs are interrupted (resumed by the next Start);
// the alert events still queued are delivered to the store and the
// webhook, for another ShutdownTimeout at most, and the monitor is
// closed; then it closes the stores and the model session. Stop serving
// first (Serve does it in order).
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.queue.close(s.cfg.ShutdownTimeout)
		if s.shared != nil {
			s.shared.stop() // its connection stays for the claims of the events flushed below
		}
		s.runs.close()
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		if err := s.live.Flush(ctx); err != nil {
			d := s.live.Snapshot()
			fmt.Fprintf(s.cfg.Log, "assay serve: alert events not delivered within %s (%d for the store, %d for the webhook): %v\n",
				s.cfg.ShutdownTimeout, d.Sink.Queued, d.Webhook.Queued, err)
		}
		cancel()
		s.closeErr = errors.Join(s.live.Close(), s.store.Close(), s.runStore.Close(), s.judger.Close())
		if s.shared != nil {
			s.shared.close()
		}
	})
	return s.closeErr
}

// Serve starts the background work and answers requests on ln until ctx
// is done, then shuts down gracefully: it stops listening, lets the
// requests in flight finish (within Config.ShutdownTimeout), then Closes
// the server.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.Start(ctx); err != nil {
		_ = s.Close()
		return err
	}
	// ReadTimeout bounds a request's header and body together; net/http
	// lifts the deadline once the body has been read to its end (its
	// background read, which watches for the client going away, reads
	// with none), so an answer may take RequestTimeout. A body that has
	// not come by then fails its read as a timeout: receive answers 408.
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: s.cfg.ReadTimeout, IdleTimeout: 2 * time.Minute,
		ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: s.cfg.RequestTimeout + 10*time.Second}
	fmt.Fprintf(s.cfg.Log, "assay serve: listening on http://%s (%s)\n", ln.Addr(), s.cfg.describe(s.judger.Session().Judge()))
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
		fmt.Fprintf(s.cfg.Log, "assay serve: shutting down (%d trace(s) queued or being judged: judged before exit, within %s)\n", s.queue.depth(), s.cfg.ShutdownTimeout)
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		if serveErr = hs.Shutdown(sctx); errors.Is(serveErr, context.DeadlineExceeded) {
			serveErr = fmt.Errorf("requests still in flight after the shutdown timeout (%s) were cut: %w", s.cfg.ShutdownTimeout, serveErr)
		}
		cancel()
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			serveErr = errors.Join(serveErr, err)
		}
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, s.Close())
}

// wrap is a route's handler with its bounds and accounting.
func (s *Server) wrap(rt route) http.Handler {
	h := http.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := rt.handle(w, r); err != nil {
			writeError(w, err, "")
		}
	}))
	if rt.api {
		h = s.bound(rt.pattern, rt.cpu, h)
	}
	return s.instrument(rt.pattern, h)
}

// bound limits an API request: the time its body takes to come
// (ReadTimeout, 408 beyond) and its size (MaxBody, 413 beyond), then the
// requests in flight (503 beyond MaxInFlight, counted as shed) and its
// time (RequestTimeout, when timed). The body is read whole before the
// request takes a place in flight, so that clients sending theirs slowly
// hold none.
//
// A cpu route (see route) takes no RequestTimeout, and its body is read
// into a buffer of bodies, given back once it has answered.
func (s *Server) bound(endpoint string, cpu bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkQuery(r); err != nil {
			writeError(w, err, "")
			return
		}
		var kept *[]byte
		if cpu {
			kept = bodies.Get().(*[]byte)
			defer func() {
				if cap(*kept) <= maxKeptBody {
					bodies.Put(kept)
				}
			}()
		}
		body, err := s.receive(w, r, kept)
		if err != nil {
			writeError(w, err, "")
			return
		}
		select {
		case s.inFlight <- struct{}{}:
		default:
			s.metrics.shed.WithLabelValues(endpoint, ShedBusy).Inc()
			w.Header().Set("Retry-After", "1")
			httpjson.Error(w, http.StatusServiceUnavailable, fmt.Sprintf("busy: %d requests in flight; try again shortly", s.cfg.MaxInFlight))
			return
		}
		s.metrics.inFlight.Inc()
		defer func() {
			<-s.inFlight
			s.metrics.inFlight.Dec()
		}()
		rb := &receivedBody{b: body}
		rb.Reset(body)
		r.Body = rb
		if cpu {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// checkQuery refuses, 400, a query that net/url cannot read whole (a bad
// escape, a semicolon, more parameters than it takes): URL.Query would
// drop all or part of it without a word, and the request be answered
// for another thing than it names. A parameter given more than once
// (limit=1&limit=1000) is refused too, naming it: every parameter of the
// API takes one value, and reading the first would answer for a value
// the client may not have meant.
func checkQuery(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return badRequest("query", "query: %v: give each parameter once, as name=value joined by &, escaped as a URL's query is", err)
	}
	for _, name := range slices.Sorted(maps.Keys(v)) {
		if n := len(v[name]); n > 1 {
			field := name
			if len(field) > httpjson.MaxEcho {
				field = "query" // no parameter of this API is as long: the message quotes its start
			}
			return badRequest(field, "query parameter %s given %d times: give it once (no parameter of this API takes several values)", httpjson.Echo(name), n)
		}
	}
	return nil
}

// receivedBody is a request body bound read whole: a handler takes its
// bytes as they are (bodyBytes) instead of reading a copy.
type receivedBody struct {
	bytes.Reader
	b []byte
}

func (*receivedBody) Close() error { return nil }

// bodyBytes is r's body whole: the bytes bound read, or read now.
func bodyBytes(r *http.Request) ([]byte, error) {
	if rb, ok := r.Body.(*receivedBody); ok {
		return rb.b, nil
	}
	return io.ReadAll(r.Body)
}

// bodies are the buffers of cpu routes' bodies, kept between requests
// up to maxKeptBody bytes each.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

const maxKeptBody = 64 << 10

// receive reads r's body, at most MaxBody bytes within ReadTimeout (the
// http.Server's, which Serve sets: net/http lifts it once the body is
// read, so that the answer may take RequestTimeout): a 413 beyond the
// size, a 408 beyond the time. With kept, the body is read into *kept's
// room, and *kept is left holding the buffer read into.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, kept *[]byte) ([]byte, error) {
	s.metrics.receiving.Inc()
	var buf bytes.Buffer
	if kept != nil {
		buf = *bytes.NewBuffer((*kept)[:0])
		defer func() { *kept = buf.Bytes()[:0] }()
	}
	if n := r.ContentLength; n > 0 && n <= s.cfg.MaxBody {
		// Room for the whole body and the read that finds its end: one
		// allocation, not a doubling per 512 bytes.
		buf.Grow(int(n) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	body := buf.Bytes()
	s.metrics.receiving.Dec()
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		w.Header().Set("Connection", "close")
		return nil, &httpError{Status: http.StatusRequestTimeout, Body: ErrorBody{Error: fmt.Sprintf(
			"request body not received within %s (assay serve --read-timeout): send it whole, at once", s.cfg.ReadTimeout)}}
	}
	if err != nil && !errors.As(err, new(*http.MaxBytesError)) {
		return nil, &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: "reading the request body: " + err.Error()}}
	}
	return body, err
}

// instrument counts a route's requests by status and times them, and
// answers a panic 500 (counted), so that none kills the server.
func (s *Server) instrument(endpoint string, next http.Handler) http.Handler {
	lat := s.metrics.latency.WithLabelValues(endpoint)
	ok := newLazyCounter(s.metrics.requests, endpoint, strconv.Itoa(http.StatusOK))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// recoverAll's writer, when it is the one given: nothing was
		// written between the two. It is told the request is counted here.
		sw, shared := w.(*statusWriter)
		if shared {
			sw.counted = true
		}
		if !shared || sw.wrote {
			sw = &statusWriter{ResponseWriter: w}
		}
		defer func() {
			if p := recover(); p != nil {
				s.panicked(sw, r, p)
			}
			if code := sw.code(); code == http.StatusOK {
				ok.Inc()
			} else {
				s.metrics.requests.WithLabelValues(endpoint, strconv.Itoa(code)).Inc()
			}
			lat.Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(sw, r)
	})
}

// panicked answers a recovered panic 500 and logs it with its stack.
func (s *Server) panicked(w *statusWriter, r *http.Request, p any) {
	if p == http.ErrAbortHandler { //nolint:errorlint // the sentinel is compared as net/http does
		panic(p)
	}
	s.metrics.panics.Inc()
	// The path escaped and the value quoted: a request's text starts no
	// line of the log.
	fmt.Fprintf(s.cfg.Log, "assay serve: panic answering %s %s: %q\n%s", r.Method, r.URL.EscapedPath(), fmt.Sprint(p), debug.Stack())
	if !w.wrote {
		httpjson.Error(w, http.StatusInternalServerError, "internal error: please report it with the request that caused it")
	}
}

// endpointUnmatched is the endpoint label of the requests no route
// answered: a path the server does not serve (404), a method a path does
// not take (405), a path the mux redirects to its clean form. The
// client's path is never a label.
const endpointUnmatched = "unmatched"

// recoverAll answers a panic outside the routes (an unmatched path) 500,
// and counts the requests no route counted (instrument) under
// endpointUnmatched, so that assay_http_requests_total adds up to the
// requests answered.
func (s *Server) recoverAll(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				s.panicked(sw, r, p)
			}
			if !sw.counted {
				s.metrics.requests.WithLabelValues(endpointUnmatched, strconv.Itoa(sw.code())).Inc()
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// auth requires the bearer token, when one is set, of every request but
// /healthz, /readyz and the login (answered 401 otherwise); the
// dashboard's page and data (GET / and /v1/dashboard) and the
// annotation queue's (sessionAllowed) take a login's session cookie
// too. A browser without either gets the login form for a page. A client past its failed sign-ins (throttle) is answered 429
// before its token is looked at.
func (s *Server) auth(next http.Handler) http.Handler {
	if s.cfg.Token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/readyz", loginPath:
			next.ServeHTTP(w, r)
			return
		}
		if given := r.Header.Get("Authorization"); given != "" {
			client := auth.ClientOf(r)
			if wait := s.signIns.Wait(client); wait > 0 {
				s.metrics.requests.WithLabelValues("throttled", strconv.Itoa(http.StatusTooManyRequests)).Inc()
				httpjson.Error(w, http.StatusTooManyRequests, auth.TooMany(w, wait))
				return
			}
			if s.sessions.BearerIs(given) {
				next.ServeHTTP(w, r)
				return
			}
			s.signIns.Failed(client)
		}
		if sessionAllowed(r) && s.sessions.Valid(r) {
			next.ServeHTTP(w, r)
			return
		}
		s.metrics.requests.WithLabelValues("unauthorized", strconv.Itoa(http.StatusUnauthorized)).Inc()
		w.Header().Set("WWW-Authenticate", `Bearer realm="assay"`)
		if wantsLoginForm(r) {
			s.loginPage(w, http.StatusUnauthorized, "", r.URL.RequestURI())
			return
		}
		httpjson.Error(w, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer TOKEN")
	})
}

// statusWriter remembers the status written, and whether a route's
// instrument counted the request.
type statusWriter struct {
	http.ResponseWriter
	status  int
	wrote   bool
	counted bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) code() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// HealthResponse is the answer of GET /healthz and GET /readyz.
type HealthResponse struct {
	// Status is "ok" (healthz: the process answers), "ready" (readyz:
	// an API request would be taken now) or "busy" (readyz, 503: every
	// place in flight is taken, an API request would be answered 503).
	Status     string `json:"status"`
	Judge      string `json:"judge"`
	QueueDepth int    `json:"queue_depth"`
	QueueSize  int    `json:"queue_size"`
	// InFlight are the API requests being answered, of MaxInFlight.
	InFlight    int `json:"in_flight"`
	MaxInFlight int `json:"max_in_flight"`
}

func (s *Server) health(status string) HealthResponse {
	return HealthResponse{Status: status, Judge: s.judger.Session().Judge(), QueueDepth: s.queueDepth(), QueueSize: s.cfg.QueueSize,
		InFlight: len(s.inFlight), MaxInFlight: s.cfg.MaxInFlight}
}

// healthz is GET /healthz: the process lives (200 while it answers at
// all), with what readyz says beside.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	httpjson.Write(w, http.StatusOK, s.health("ok"))
	return nil
}

// readyz is GET /readyz: 200 while an API request would be taken, 503
// (busy) while every place in flight is taken, so that a load balancer
// sends no more.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) error {
	if len(s.inFlight) >= s.cfg.MaxInFlight {
		w.Header().Set("Retry-After", "1")
		httpjson.Write(w, http.StatusServiceUnavailable, s.health("busy"))
		return nil
	}
	httpjson.Write(w, http.StatusOK, s.health("ready"))
	return nil
}

// queueDepth is the sampled traces waiting or being judged here; with a
// shared queue, plus the trace tasks its stream holds for every replica.
func (s *Server) queueDepth() int {
	n := s.queue.depth()
	if s.shared != nil {
		n += s.shared.depth()
	}
	return n
}

func (s *Server) metricsHandler() func(http.ResponseWriter, *http.Request) error {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{Registry: s.metrics.reg})
	return func(w http.ResponseWriter, r *http.Request) error {
		h.ServeHTTP(w, r)
		return nil
	}
}
