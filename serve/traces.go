package serve

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// Sampled reports whether the trace of traceID is judged at rate (0 to
// 1): when the first 8 bytes of the SHA-256 of the id, read as a
// big-endian unsigned integer and divided by 2^64, are below rate. The
// decision depends on the id alone, so it is the same on every server and
// for every metric, any client can compute it, and the traces sampled at
// a lower rate are a subset of those sampled at a higher one.
func Sampled(traceID string, rate float64) bool {
	switch {
	case rate >= 1:
		return true
	case !(rate > 0): // NaN too
		return false
	}
	h := sha256.Sum256([]byte(traceID))
	return float64(binary.BigEndian.Uint64(h[:8]))/math.Exp2(64) < rate
}

// MaxTraceIDBytes is the longest trace id the server takes. A W3C trace
// id is 32 hex digits and a UUID 36 characters: 256 bytes hold any id a
// tracing system makes, while an id is stored, used as a key and echoed
// in answers, pages and logs, which a megabyte of it should not be.
const MaxTraceIDBytes = 256

// checkTraceID refuses, as a 400 naming field, a trace id that is empty,
// longer than MaxTraceIDBytes, not UTF-8, or holding a character that is
// not printable: a control character (NUL, a line break, an escape) or a
// format one (a bidirectional override such as U+202E, a zero-width
// space), which would change how a page or a terminal shows the id, or
// hide it. The ASCII space is taken; path characters (/ and ..) are
// data like any other, the id being a key and never a path.
func checkTraceID(field, id string) error {
	switch {
	case id == "":
		return badRequest(field, "%s: missing or empty: each trace needs its id, which decides its sampling", field)
	case len(id) > MaxTraceIDBytes:
		return badRequest(field, "%s: %d bytes: a trace id has at most %d", field, len(id), MaxTraceIDBytes)
	case !utf8.ValidString(id):
		return badRequest(field, "%s: not UTF-8: a trace id is printable text", field)
	}
	for i, r := range id {
		if !unicode.IsPrint(r) {
			return badRequest(field, "%s: holds %U at byte %d: a trace id is printable text, without control, format or bidirectional characters", field, r, i)
		}
	}
	return nil
}

// TracesRequest is the body of POST /v1/traces.
type TracesRequest struct {
	// Metrics judge the sampled traces; empty is the server's
	// (Config.TraceMetrics).
	Metrics []string `json:"metrics,omitempty"`
	// Traces are the production samples, each with its trace id.
	Traces []TraceIn `json:"traces"`
}

// TraceIn is one production sample: its trace id (unique: a trace posted
// again is a duplicate, never judged twice; printable text of at most
// MaxTraceIDBytes) and the sample, a record as a dataset line has it
// (question, answer, contexts, metadata...).
type TraceIn struct {
	TraceID string          `json:"trace_id" jsonschema:"the trace's id, which decides its sampling: printable text of 1 to 256 bytes (no control, format or bidirectional characters)"`
	Sample  json.RawMessage `json:"sample"`
}

// TracesResponse is the answer of an accepted POST /v1/traces (202):
// every sampled trace is in the journal, to be judged (with a shared
// queue, Config.Queue: stored by the queue's server).
type TracesResponse struct {
	Received   int `json:"received"`
	Sampled    int `json:"sampled"`
	NotSampled int `json:"not_sampled"`
	// Duplicates are sampled traces whose id the journal held already
	// (with a shared queue: that its server had, posted within the hour).
	Duplicates int `json:"duplicates"`
	// QueueDepth is the sampled traces waiting or being judged now (by
	// this server: 0 with a shared queue, whose workers judge them;
	// /healthz gives that queue's depth).
	QueueDepth int `json:"queue_depth"`
}

// traceItem is one sampled trace, journaled, to judge.
type traceItem struct {
	id       string
	received time.Time
	sample   eval.Sample
	metrics  []string
	parent   spanRef // the posting request's span: the judgement's parent
}

// traceQueue holds the sampled traces from their journaling to the end of
// their judgement: a bound on how many (reserved), the items waiting
// (items, never fuller than the bound) and the workers that judge them.
type traceQueue struct {
	s        *Server
	capacity int

	mu       sync.Mutex
	cond     *sync.Cond
	reserved int
	stopped  bool

	// items are the traces queued; close closes it, and the workers
	// judge what it holds, then end.
	items chan traceItem
	// pushing is held (read) from a place's reservation to its trace's
	// push onto items, and (write) by close before it closes items: no
	// trace that was answered 202 misses the workers.
	pushing sync.RWMutex
	// ctx, cancelled after the grace period, cuts the judgements.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newTraceQueue(s *Server, capacity int) *traceQueue {
	q := &traceQueue{s: s, capacity: capacity, items: make(chan traceItem, capacity)}
	q.cond = sync.NewCond(&q.mu)
	q.ctx, q.cancel = context.WithCancel(context.Background())
	return q
}

// depth is how many traces are reserved: waiting or being judged.
func (q *traceQueue) depth() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.reserved
}

// reserve takes n places, or none when fewer are free.
func (q *traceQueue) reserve(n int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped || q.reserved+n > q.capacity {
		return false
	}
	q.reserved += n
	return true
}

// reserveWait takes one place, waiting for it; false when the queue
// stopped first.
func (q *traceQueue) reserveWait() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.stopped && q.reserved >= q.capacity {
		q.cond.Wait()
	}
	if q.stopped {
		return false
	}
	q.reserved++
	return true
}

func (q *traceQueue) release(n int) {
	q.mu.Lock()
	q.reserved -= n
	q.mu.Unlock()
	q.cond.Broadcast()
}

// start starts the workers and hands them the traces the journal holds
// unjudged (a restart's), oldest first, as places free up.
func (q *traceQueue) start(workers int, backlog []traceItem) {
	for range workers {
		q.wg.Go(q.work)
	}
	if len(backlog) > 0 {
		fmt.Fprintf(q.s.cfg.Log, "assay serve: %d trace(s) journaled and not judged: judging them\n", len(backlog))
	}
	q.wg.Go(func() {
		for _, it := range backlog {
			if !q.push(it) {
				return // stopped: they stay in the journal
			}
		}
	})
}

// push queues a trace of the backlog once a place is free; false when
// the queue stopped first.
func (q *traceQueue) push(it traceItem) bool {
	q.pushing.RLock()
	defer q.pushing.RUnlock()
	if !q.reserveWait() {
		return false
	}
	q.items <- it // never blocks: fewer than capacity are reserved before
	return true
}

// close stops the queue taking traces and drains it: the workers judge
// every trace queued (each was answered 202 by this process, or is the
// journal's backlog already handed over) and end. Judgements still under
// way when grace ends are cut; their traces, and those not reached, stay
// in the journal, judged after a restart.
func (q *traceQueue) close(grace time.Duration) {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.cond.Broadcast()
	q.pushing.Lock() // the pushes under way are over, and no more come
	close(q.items)
	q.pushing.Unlock()
	done := make(chan struct{})
	go func() { q.wg.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		q.cancel()
		<-done
	}
	q.cancel()
}

func (q *traceQueue) work() {
	for it := range q.items {
		q.judge(it)
		q.release(1)
	}
}

// judge judges a trace with the metrics it lacks a score of, and records
// the scores, each once. A judgement cut by the shutdown records nothing:
// the trace stays in the journal.
func (q *traceQueue) judge(it traceItem) {
	s := q.s
	ctx := judgeContext(q.ctx, it) // in the posting request's trace
	have, err := s.store.scored(ctx, it.id)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(s.cfg.Log, "assay serve: trace %q: %v (it stays in the journal)\n", it.id, err)
		}
		return
	}
	var todo []string
	for _, m := range it.metrics {
		if !have[m] {
			todo = append(todo, m)
		}
	}
	end := s.begin(todo)
	defer end() // after the scores are observed
	var scores []eval.Score
	if len(todo) > 0 {
		scores, err = s.judger.Judge(ctx, it.sample, todo)
		if ctx.Err() != nil {
			return // cut by the shutdown: judged after a restart
		}
		if err != nil {
			scores = make([]eval.Score, len(todo))
			for i, m := range todo {
				scores[i] = eval.Score{Metric: m, Reason: "could not be judged: " + err.Error(), Err: err}
			}
		}
	}
	at := s.cfg.Now()
	fresh, err := s.store.record(ctx, it, scores, at)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(s.cfg.Log, "assay serve: %v (it stays in the journal)\n", err)
		}
		return
	}
	meta := metaOf(it.sample.Metadata, "traces", it.id)
	for i, sc := range scores {
		if !fresh[i] {
			continue
		}
		if sc.Err != nil && !sc.Defaulted && !sc.Skipped {
			s.metrics.judgements.WithLabelValues(sc.Metric, OutcomeError).Inc()
			continue
		}
		s.observe(sc, meta, at)
	}
}

// metaOf is what observers see of a sample's metadata: each top-level
// field, a string as it is and any other value as JSON, with source (the
// endpoint that judged it) and the trace id when there is one.
func metaOf(md map[string]any, source, traceID string) map[string]string {
	out := make(map[string]string, len(md)+2)
	for k, v := range md {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := json.Marshal(v)
		if err == nil {
			out[k] = string(b)
		}
	}
	out["source"] = source
	delete(out, MetaResultSeq) // the server's, for a shared result
	if traceID != "" {
		out["trace_id"] = traceID
	}
	return out
}

// postTraces is POST /v1/traces.
func (s *Server) postTraces(w http.ResponseWriter, r *http.Request) error {
	var req TracesRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	if len(req.Traces) == 0 {
		return badRequest("traces", "traces: give at least one trace ({\"trace_id\": ..., \"sample\": {...}})")
	}
	metrics := req.Metrics
	if len(metrics) == 0 {
		metrics = s.cfg.TraceMetrics
	}
	now := s.cfg.Now()
	rate := *s.cfg.SampleRate
	seen := make(map[string]int, len(req.Traces))
	var items []traceItem
	for i, t := range req.Traces {
		at := "traces[" + strconv.Itoa(i) + "]"
		if err := checkTraceID(at+".trace_id", t.TraceID); err != nil {
			return err
		}
		if j, dup := seen[t.TraceID]; dup {
			return badRequest(at+".trace_id", "%s.trace_id: %s is traces[%d]'s too: one request names a trace once", at, httpjson.Echo(t.TraceID), j)
		}
		seen[t.TraceID] = i
		if len(t.Sample) == 0 {
			return badRequest(at+".sample", "%s.sample: missing: the sample to judge (question, answer, contexts...)", at)
		}
		rec, err := dataset.DecodeRecord(at+".sample", t.Sample)
		if err != nil {
			return sampleError(at+".sample", err)
		}
		if err := s.judger.Check(rec.Sample, metrics); err != nil {
			if ie, ok := errors.AsType[*eval.InputError](err); ok && ie.Field == "--metric" {
				return inputError("metrics", &eval.InputError{Msg: ie.Msg})
			}
			return sampleError(at+".sample", err)
		}
		if !Sampled(t.TraceID, rate) {
			continue
		}
		rec.Sample.ID = t.TraceID
		items = append(items, traceItem{id: t.TraceID, received: now, sample: rec.Sample, metrics: metrics, parent: spanOf(r)})
	}
	resp := TracesResponse{Received: len(req.Traces), NotSampled: len(req.Traces) - len(items)}
	if err := s.enqueue(w, r, routeTraces, items, &resp); err != nil {
		return err
	}
	s.accepted(w, resp)
	return nil
}

// enqueue keeps the sampled items of a request to judge: journaled and
// queued here, or published to the shared queue. It counts them in resp
// (Sampled, Duplicates, QueueDepth); its error is the request's answer
// when nothing of it was kept (413 for more than the queue holds, 429,
// counted as shed, when it is full). /v1/traces and /otlp/v1/traces admit
// their traces through it alike, each shed counted under its endpoint.
func (s *Server) enqueue(w http.ResponseWriter, r *http.Request, endpoint string, items []traceItem, resp *TracesResponse) error {
	if s.shared != nil {
		return s.postShared(w, r, endpoint, items, resp)
	}
	if len(items) > s.queue.capacity {
		return &httpError{Status: http.StatusRequestEntityTooLarge, Body: ErrorBody{Error: fmt.Sprintf("%d traces sampled in one request: the queue holds %d; send fewer at a time", len(items), s.queue.capacity), Field: tracesField(endpoint)}}
	}
	s.queue.pushing.RLock() // until the traces are on the queue: see close
	defer s.queue.pushing.RUnlock()
	if !s.queue.reserve(len(items)) {
		s.metrics.shed.WithLabelValues(endpoint, ShedQueueFull).Inc()
		s.metrics.traces.WithLabelValues("shed").Add(float64(resp.Received))
		w.Header().Set("Retry-After", "1")
		return &httpError{Status: http.StatusTooManyRequests, Body: ErrorBody{Error: fmt.Sprintf("the trace queue is full (%d sampled traces waiting): nothing of this request was kept; send it again later", s.queue.capacity)}}
	}
	fresh := []bool{}
	if len(items) > 0 {
		var err error
		if fresh, err = s.store.journal(r.Context(), items); err != nil {
			s.queue.release(len(items))
			return err
		}
	}
	for i, it := range items {
		if !fresh[i] {
			resp.Duplicates++
			s.queue.release(1)
			continue
		}
		resp.Sampled++
		s.queue.items <- it // never blocks: its place is reserved
	}
	resp.QueueDepth = s.queue.depth()
	return nil
}

// tracesField is the field of a request to endpoint that holds its
// traces: /v1/traces' traces, an OTLP export's resourceSpans.
func tracesField(endpoint string) string {
	if endpoint == routeOTLP {
		return "resourceSpans"
	}
	return "traces"
}

// postShared publishes sampled traces to a shared queue: nil once the
// queue stored every one; 429, counted, when its stream is full.
func (s *Server) postShared(w http.ResponseWriter, r *http.Request, endpoint string, items []traceItem, resp *TracesResponse) error {
	tasks := 0
	for _, it := range items {
		tasks += len(it.metrics)
	}
	if tasks > s.cfg.QueueSize {
		return &httpError{Status: http.StatusRequestEntityTooLarge, Body: ErrorBody{Error: fmt.Sprintf("%d traces sampled in one request, %d tasks (one per trace and metric): the shared queue holds %d; send fewer at a time", len(items), tasks, s.cfg.QueueSize), Field: tracesField(endpoint)}}
	}
	dup, err := s.shared.publish(r.Context(), items)
	if errors.Is(err, errQueueFull) {
		s.metrics.shed.WithLabelValues(endpoint, ShedQueueFull).Inc()
		s.metrics.traces.WithLabelValues("shed").Add(float64(resp.Received))
		w.Header().Set("Retry-After", "1")
		return &httpError{Status: http.StatusTooManyRequests, Body: ErrorBody{Error: fmt.Sprintf(
			"the shared trace queue is full (%d tasks waiting or being judged): send this request again later (what the queue kept of it is not judged twice)", s.cfg.QueueSize)}}
	}
	if err != nil {
		return err
	}
	for _, d := range dup {
		if d {
			resp.Duplicates++
		} else {
			resp.Sampled++
		}
	}
	return nil
}

// accepted counts the traces of an accepted request and answers it 202.
func (s *Server) accepted(w http.ResponseWriter, resp TracesResponse) {
	s.metrics.traces.WithLabelValues("sampled").Add(float64(resp.Sampled))
	s.metrics.traces.WithLabelValues("not_sampled").Add(float64(resp.NotSampled))
	s.metrics.traces.WithLabelValues("duplicate").Add(float64(resp.Duplicates))
	httpjson.Write(w, http.StatusAccepted, resp)
}

// sampleError is an error about a sample as a 400 under its path.
func sampleError(path string, err error) error {
	if ie, ok := errors.AsType[*eval.InputError](err); ok {
		e := *ie
		e.File = "" // the path names it
		if path != "" {
			e.Line, e.Col = 0, 0 // of the sample alone
		}
		return inputError(path, &e)
	}
	return err
}

// getTrace is GET /v1/traces/{id}.
func (s *Server) getTrace(w http.ResponseWriter, r *http.Request) error {
	if err := checkTraceID("id", r.PathValue("id")); err != nil {
		return err
	}
	t, err := s.Trace(r.Context(), r.PathValue("id"))
	if errors.Is(err, errNoTrace) {
		where := "in the journal (not sent, or not sampled)"
		if s.shared != nil {
			where = "in the shared queue (not sent, or not sampled)"
		}
		return &httpError{Status: http.StatusNotFound, Body: ErrorBody{Error: fmt.Sprintf("no trace %s %s", httpjson.Echo(r.PathValue("id")), where)}}
	}
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, t)
	return nil
}

// getTraceSummary is GET /v1/traces/summary.
func (s *Server) getTraceSummary(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	q := SummaryQuery{By: v.Get("by"), Metric: v.Get("metric"), From: v.Get("from"), To: v.Get("to")}
	if q.By != "" && !validField(q.By) {
		return badRequest("by", "by: want a metadata field name (letters, digits, _, - and .), got %s", httpjson.Echo(q.By))
	}
	for _, d := range []struct{ name, v string }{{"from", q.From}, {"to", q.To}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d.v); err != nil {
			return badRequest(d.name, "%s: want a day as YYYY-MM-DD, got %s", d.name, httpjson.Echo(d.v))
		}
	}
	sum, err := s.TraceSummary(r.Context(), q)
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, sum)
	return nil
}

// TraceSummary groups the stored trace scores as q asks (the dashboard's
// and GET /v1/traces/summary's figures).
// With a shared queue, they are the results in the queue's bucket (the
// same on every replica, once each has read them all).
func (s *Server) TraceSummary(ctx context.Context, q SummaryQuery) (*TraceSummary, error) {
	if s.shared != nil {
		return s.shared.summary(q), nil
	}
	return s.store.summary(ctx, q)
}

// Trace is a journaled trace and its scores; with a shared queue, a trace
// and the scores the queue's bucket holds of it (an error wrapping none
// until one is judged).
func (s *Server) Trace(ctx context.Context, id string) (*Trace, error) {
	if s.shared != nil {
		return s.shared.trace(ctx, id)
	}
	return s.store.trace(ctx, id)
}
