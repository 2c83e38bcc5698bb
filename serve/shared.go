package serve

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/dashboard"
	"github.com/assaylabs/assay/serve/internal/httpjson"
	"github.com/assaylabs/assay/serve/live"
)

// sharedTraces is the traces' path when the server shares a NATS
// JetStream queue with other replicas (Config.Queue): a sampled trace is
// published to the queue's stream, one task per metric, and answered 202
// once the server has stored them (that ack is the durability the
// journal gives otherwise); `assay worker` processes judge the tasks and
// store each (trace, metric) result once, create-if-absent, under
// t.TRACE.METRIC in the queue's bucket.
//
// Every replica watches those results in the bucket's stream order, the
// same order for all, and feeds its live monitor, its counters and its
// view (the summary and the dashboard's judgements) from that one
// sequence: so the alert windows of all replicas hold the same scores in
// the same order and agree, whichever replica a trace came through, and a
// replica started later replays the sequence from the start. The alert
// events that sequence causes are the same on every replica too, and
// each is delivered (stored, posted to the webhook) by the one replica
// that claims it first (claim), never again by a replica that replays.
//
// The traces' tasks wait on the queue's bounded stream (queue.Items,
// Config.QueueSize tasks across the replicas): a post past the bound is
// refused, 429, and a trace sent and not judged yet is read from there.
type sharedTraces struct {
	s    *Server
	nc   *nats.Conn
	conn *queue.Conn

	// runs are the item runs of the metric sets asked for (comma
	// joined), each specification stored in the bucket once.
	runMu sync.Mutex
	runs  map[string]run.Config

	mu      sync.Mutex
	rows    []sharedRow
	recent  []dashboard.Judged // the last recentJudged, oldest first
	applied int                // results applied

	// depthSeen is the stream's depth at the last look that answered.
	depthSeen atomic.Int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// sharedRow is one result as the summary groups it.
type sharedRow struct {
	day, metric, outcome string
	notEvaluable         bool
	value, cost          float64
	meta                 map[string]any
}

// traceTag is what a trace's task carries to its result: the trace's id,
// when it was received, its metrics, its metadata, and its question and
// answer (clipped) for the dashboard.
type traceTag struct {
	TraceID  string         `json:"trace_id"`
	Received time.Time      `json:"received"`
	Metrics  []string       `json:"metrics"`
	Metadata map[string]any `json:"metadata,omitempty"`
	Query    string         `json:"query,omitempty"`
	Answer   string         `json:"answer,omitempty"`
}

// openShared connects to the queue at cfg.Queue and bounds its stream of
// trace tasks at cfg.QueueSize; the server is set once made.
func openShared(cfg Config) (*sharedTraces, error) {
	nc, err := queue.Dial(cfg.Queue, cfg.QueueToken, "assay serve")
	if err != nil {
		return nil, fmt.Errorf("serve: --queue: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	conn, err := queue.Open(ctx, nc, queue.Options{MaxItems: int64(cfg.QueueSize)})
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &sharedTraces{nc: nc, conn: conn, runs: map[string]run.Config{}}, nil
}

// depth is how many trace tasks the queue's stream holds, waiting or
// being judged, for every replica: asked of the NATS server (within a
// second; the last answer when it does not give one).
func (q *sharedTraces) depth() int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if n, _, err := q.conn.ItemDepth(ctx); err == nil {
		q.depthSeen.Store(n)
	}
	return int(q.depthSeen.Load())
}

// MetaResultSeq is the metadata field of a score read from a shared
// queue (Config.Queue) that holds its result's sequence in the queue's
// bucket: the same on every replica, it names the alert events the
// result causes.
const MetaResultSeq = "result_seq"

// claim is the monitor's Claimer: an event caused by a shared result is
// delivered by the replica that first stores its key (the result's
// sequence, the event's kind and metric) in the queue's bucket, the
// event as its value; one another replica stored already, or that this
// replica replays after a restart, is not delivered again. An event of
// this replica's own scores (/v1/judge, /v1/context-score) is its own.
func (q *sharedTraces) claim(ctx context.Context, e live.Event) (bool, error) {
	seq := e.Meta[MetaResultSeq]
	if seq == "" {
		return true, nil
	}
	metric := e.Metric
	if !keySafe(metric) {
		metric = "b" + base64.RawURLEncoding.EncodeToString([]byte(metric))
	}
	b, err := json.Marshal(e)
	if err != nil {
		return false, err
	}
	return q.conn.Claim(ctx, alertKeyPrefix+seq+"."+e.Kind+"."+metric, b)
}

// alertKeyPrefix begins the keys of claimed alert events in the queue's
// bucket.
const alertKeyPrefix = "alert."

// start watches the results and records the tasks whose deliveries ran
// out, until close.
func (q *sharedTraces) start() {
	ctx, cancel := context.WithCancel(context.Background())
	q.cancel = cancel
	q.wg.Go(func() {
		if err := q.conn.RecordUndeliveredOf(ctx, dispatch.IsItemRun); err != nil {
			fmt.Fprintf(q.s.cfg.Log, "assay serve: recording undelivered traces: %v\n", err)
		}
	})
	q.wg.Go(func() { q.watch(ctx) })
}

// stop stops watching the results (none is applied after it).
func (q *sharedTraces) stop() {
	if q.cancel != nil {
		q.cancel()
	}
	q.wg.Wait()
}

// close stops and closes the connection.
func (q *sharedTraces) close() {
	q.stop()
	q.nc.Close()
}

// watch applies each trace result in the bucket's order; after the server
// restarts the watcher starts over, and the revisions applied are skipped.
func (q *sharedTraces) watch(ctx context.Context) {
	entries, err := q.conn.WatchKeys(ctx, traceKeyPrefix+">")
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(q.s.cfg.Log, "assay serve: watching the trace results: %v\n", err)
		}
		return
	}
	var last uint64
	for e := range entries {
		if e.Revision <= last {
			continue
		}
		last = e.Revision
		q.apply(e)
	}
}

const traceKeyPrefix = "t."

// traceKey is the bucket key of trace id's result of metric: the id in
// unpadded URL-safe base64 (any id is a valid key so), then the metric.
func traceKey(id, metric string) string {
	return traceKeyPrefix + base64.RawURLEncoding.EncodeToString([]byte(id)) + "." + metric
}

// parseTraceKey is the trace id and metric of a trace key.
func parseTraceKey(key string) (id, metric string, ok bool) {
	enc, metric, ok := strings.Cut(strings.TrimPrefix(key, traceKeyPrefix), ".")
	if !ok || !strings.HasPrefix(key, traceKeyPrefix) {
		return "", "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	return string(b), metric, err == nil
}

// traceTaskID is the task of trace id's metric: its message id, which
// drops a second publish of the pair (a post retried, to any replica).
func traceTaskID(id, metric string) string {
	h := sha256.Sum256([]byte("trace\x00" + id + "\x00" + metric))
	return "t" + hex.EncodeToString(h[:16])
}

// keySafe reports whether metric can be a key's last token.
func keySafe(metric string) bool {
	return metric != "" && !strings.ContainsFunc(metric, func(c rune) bool {
		return !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	})
}

// itemRun is the item run judging with metrics, its specification stored
// in the bucket the first time.
func (q *sharedTraces) itemRun(ctx context.Context, metrics []string) (run.Config, error) {
	key := strings.Join(metrics, ",")
	q.runMu.Lock()
	defer q.runMu.Unlock()
	if spec, ok := q.runs[key]; ok {
		return spec, nil
	}
	for _, m := range metrics {
		if !keySafe(m) {
			return run.Config{}, badRequest("metrics", "metrics: %s cannot name a result in the queue (letters, digits, _ and - only)", httpjson.Echo(m))
		}
	}
	spec, err := q.s.judger.ItemRun(metrics)
	if err != nil {
		return run.Config{}, err
	}
	if err := dispatch.PutItemRun(ctx, q.conn, spec); err != nil {
		return run.Config{}, queueDown(err)
	}
	q.runs[key] = spec
	return spec, nil
}

// publish puts the sampled traces on the queue, one task per metric, and
// returns once the server has stored every one; dup[i] says every task of
// items[i] was there already (the trace posted before).
func (q *sharedTraces) publish(ctx context.Context, items []traceItem) (dup []bool, err error) {
	dup = make([]bool, len(items))
	if len(items) == 0 {
		return dup, nil
	}
	spec, err := q.itemRun(ctx, items[0].metrics) // one request, one set of metrics
	if err != nil {
		return nil, err
	}
	var out []dispatch.Tagged
	for _, it := range items {
		tag, err := json.Marshal(traceTag{TraceID: it.id, Received: it.received.UTC(), Metrics: it.metrics, Metadata: it.sample.Metadata,
			Query: eval.Clip(it.sample.Query, eval.MaxText), Answer: eval.Clip(it.sample.Answer, eval.MaxText)})
		if err != nil {
			return nil, fmt.Errorf("trace %q: metadata: %w", it.id, err)
		}
		for _, m := range it.metrics {
			out = append(out, dispatch.Tagged{ID: traceTaskID(it.id, m), Key: traceKey(it.id, m), Metric: m, Sample: it.sample, Tag: tag})
		}
	}
	tasks, err := dispatch.PublishTagged(ctx, q.conn, spec, out)
	if errors.Is(err, queue.ErrFull) {
		return nil, errQueueFull
	}
	if err != nil {
		return nil, queueDown(err)
	}
	k := 0
	for i, it := range items {
		dup[i] = !slices.Contains(tasks[k:k+len(it.metrics)], false)
		k += len(it.metrics)
	}
	return dup, nil
}

// errQueueFull is a post some of whose tasks the queue's stream refused,
// full: answered 429 and counted as shed.
var errQueueFull = errors.New("the shared queue is full")

// queueDown is a queue that did not store what it was given in time: 503,
// to send again (what it stored is not judged twice).
func queueDown(err error) error {
	return &httpError{Status: http.StatusServiceUnavailable, Body: ErrorBody{Error: fmt.Sprintf(
		"the queue did not store the traces: %v; send them again (a trace stored already is not judged twice)", err)}}
}

// apply feeds one stored result to the monitor, the counters and the
// view.
func (q *sharedTraces) apply(e queue.Entry) {
	id, metric, ok := parseTraceKey(e.Key)
	if !ok {
		return
	}
	tag, res := readTraceResult(e, id, metric)
	s := q.s
	sc := res.Score()
	if sc.Err != nil && !sc.Defaulted && !sc.Skipped {
		s.metrics.judgements.WithLabelValues(metric, OutcomeError).Inc()
	} else {
		meta := metaOf(tag.Metadata, "traces", id)
		meta[MetaResultSeq] = strconv.FormatUint(e.Revision, 10)
		s.observe(sc, meta, e.Created)
	}
	received := cmp.Or(tag.Received, e.Created)
	row := sharedRow{day: day(received), metric: metric, outcome: resultOutcome(res), notEvaluable: res.NotEvaluable(), value: res.Value, cost: res.Usage.CostUSD,
		meta: tag.Metadata}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rows = append(q.rows, row)
	if len(q.recent) == recentJudged {
		q.recent = slices.Delete(q.recent, 0, 1)
	}
	q.recent = append(q.recent, dashboard.Judged{SampleID: id, Question: tag.Query, Answer: tag.Answer, At: e.Created, Result: res})
	q.applied++
}

// readTraceResult reads a stored result: a worker's (its tag and the
// result of metric), or a neutral default saying why there is none (its
// deliveries ran out, or the reply was not one).
func readTraceResult(e queue.Entry, id, metric string) (traceTag, run.Result) {
	r := e.Reply()
	tag := traceTag{TraceID: id}
	why := r.Err
	if r.Undelivered == 0 {
		var tr dispatch.TaggedResults
		err := json.Unmarshal(r.Results, &tr)
		if err == nil {
			err = json.Unmarshal(tr.Tag, &tag)
		}
		switch {
		case err != nil:
			why = "a worker's reply did not read: " + err.Error()
		case len(tr.Results) != 1 || tr.Results[0].Metric != metric:
			why = fmt.Sprintf("a worker's reply is not the result of %s", metric)
		default:
			res := tr.Results[0]
			res.ID = id
			return tag, res
		}
	}
	return tag, run.Result{ID: id, Metric: metric, Value: 0.5, Method: "queue", Defaulted: true, Undelivered: max(r.Undelivered, 1),
		Reason: "not judged: the queue gave up on its task", Error: eval.Clip("undelivered: "+why, eval.MaxText)}
}

// resultOutcome is a result's outcome as the trace scores count it.
func resultOutcome(r run.Result) string {
	switch {
	case r.Defaulted:
		return OutcomeDefaulted
	case r.Skipped:
		return OutcomeSkipped
	case r.Error != "":
		return OutcomeError
	}
	return OutcomeScored
}

// trace reads trace id's results from the bucket, and its tasks not
// judged yet from the stream: those first, as a task leaves the stream
// after its result is stored, so none is missed in between.
func (q *sharedTraces) trace(ctx context.Context, id string) (*Trace, error) {
	filter := traceKeyPrefix + base64.RawURLEncoding.EncodeToString([]byte(id)) + ".*"
	waiting, err := dispatch.Waiting(ctx, q.conn, filter)
	if err != nil {
		return nil, err
	}
	entries, err := q.conn.Entries(ctx, filter)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 && len(waiting) == 0 {
		return nil, errNoTrace
	}
	t := &Trace{TraceID: id, Scores: []TraceScore{}}
	have := map[string]bool{}
	for _, w := range waiting {
		var tag traceTag
		if json.Unmarshal(w.Tag, &tag) == nil && !tag.Received.IsZero() {
			t.Received, t.Day, t.Metrics, t.Metadata = tag.Received.UTC().Format(storeTime), day(tag.Received), tag.Metrics, tag.Metadata
			break
		}
	}
	for _, e := range entries {
		_, metric, ok := parseTraceKey(e.Key)
		if !ok {
			continue
		}
		tag, res := readTraceResult(e, id, metric)
		if t.Received == "" && !tag.Received.IsZero() { // every task of a trace has its tag
			t.Received, t.Day, t.Metrics, t.Metadata = tag.Received.UTC().Format(storeTime), day(tag.Received), tag.Metrics, tag.Metadata
		}
		have[metric] = true
		t.Scores = append(t.Scores, TraceScore{Metric: metric, Outcome: resultOutcome(res), Value: res.Value, Points: res.Points, Max: res.Max,
			Reason: res.Reason, Method: res.Method, Error: res.Error, CostUSD: res.Usage.CostUSD, Judged: e.Created.UTC().Format(storeTime)})
	}
	slices.SortFunc(t.Scores, func(a, b TraceScore) int { return cmp.Compare(a.Metric, b.Metric) })
	t.Judged = len(t.Metrics) > 0
	for _, m := range t.Metrics {
		t.Judged = t.Judged && have[m]
	}
	return t, nil
}

// summary groups the results applied as q asks, as the journal's summary
// does.
func (q *sharedTraces) summary(sq SummaryQuery) *TraceSummary {
	type key struct {
		day, metric, group string
		has                bool
	}
	groups := map[key]*SummaryGroup{}
	sums := map[key]float64{}
	q.mu.Lock()
	for _, r := range q.rows {
		if sq.Metric != "" && r.metric != sq.Metric || sq.From != "" && r.day < sq.From || sq.To != "" && r.day > sq.To {
			continue
		}
		k := key{day: r.day, metric: r.metric}
		if sq.By != "" {
			if v, ok := r.meta[sq.By]; ok && v != nil {
				k.has = true
				if s, isStr := v.(string); isStr {
					k.group = s
				} else if b, err := json.Marshal(v); err == nil {
					k.group = string(b)
				}
			}
		}
		g := groups[k]
		if g == nil {
			g = &SummaryGroup{Day: r.day, Metric: r.metric}
			if k.has {
				g.Group = &k.group
			}
			groups[k] = g
		}
		g.N++
		g.CostUSD += r.cost
		switch r.outcome {
		case OutcomeScored:
			g.Scored++
			sums[k] += r.value
		case OutcomeDefaulted:
			g.Defaulted++
		case OutcomeSkipped:
			g.Skipped++
			if r.notEvaluable {
				g.NotEvaluable++
			}
		case OutcomeError:
			g.Errors++
		}
	}
	q.mu.Unlock()
	keys := make([]key, 0, len(groups))
	for k, g := range groups {
		if g.Scored > 0 {
			m := sums[k] / float64(g.Scored)
			g.Mean = &m
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.metric, b.metric), compareBool(a.has, b.has), cmp.Compare(a.group, b.group))
	})
	out := &TraceSummary{By: sq.By, Groups: make([]SummaryGroup, len(keys))}
	for i, k := range keys {
		out.Groups[i] = *groups[k]
	}
	return out
}

// compareBool orders false (no group, SQL's NULL) first.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// judged are the last judgements applied, for the dashboard to pick its
// lowest and slowest from.
func (q *sharedTraces) judged() []dashboard.Judged {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.recent)
}
