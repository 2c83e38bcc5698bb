// Package annotate is the annotation queue of `assay serve`: a stored
// run's judgements of one metric, or the server's sampled traces', for a
// person to label, the samples ordered by what a label is worth (package
// annotation); the labels kept in the server's database and exported as
// a dataset `assay agree` reads, and the page a person labels on.
//
// Queues reads what it needs through interfaces declared here (Runs,
// Traces, DB); package serve builds one and answers its routes with it.
package annotate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/annotation"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// Queues are the annotation queues of a server, built from what it
// keeps: a stored run's judgements of one metric, or the sampled
// traces', for a person to label. The fields are what the queues read;
// Traces nil means the server keeps no traces (they live in a shared
// queue's bucket), and a queue of them is refused.
type Queues struct {
	// Runs is the run store; Traces the server's judged traces; DB the
	// database the labels are kept in.
	Runs   Runs
	Traces Traces
	DB     DB
	// RunThreshold is a stored run's pass mark of metric (offline: the
	// run judged with the offline model); TraceThreshold the traces'.
	RunThreshold   func(metric string, offline bool) float64
	TraceThreshold func(metric string) float64
	// Now is the clock of the labels' times.
	Now func() time.Time
}

// Runs is the run store as the queues read it: a run by its id or a
// unique prefix (a *runstore.RunNotFoundError when there is none).
type Runs interface {
	Get(ctx context.Context, ref string) (runstore.RunRow, error)
}

// Traces are the server's judged traces as a queue of them reads them:
// the metrics they were judged with, and the entries of one, the last
// judged first, at most limit (more says there were more).
type Traces interface {
	ScoredMetrics(ctx context.Context) ([]string, error)
	TraceEntries(ctx context.Context, metric string, limit int) (entries []Entry, more bool, err error)
}

// maxQueueTraces bounds a queue of traces: the most recently judged.
const maxQueueTraces = 10000

// Queue defaults and bounds.
const (
	defaultQueueLimit = 200
	maxQueueLimit     = 5000
	// maxNote and maxLabeler bound a label's note and labeler's name,
	// in characters (the page's fields' maxlength).
	maxNote    = 4000
	maxLabeler = 100
)

// projectionSteps are the numbers of more labels the queue projects
// the interval for.
var projectionSteps = []int{10, 25, 50, 100, 250}

// queueSource is a queue's samples and their judgements, before the
// labels.
type queueSource struct {
	// key names the queue in the labels table: "run:ID" or "traces";
	// run is the run's id, "" for the traces.
	key, run string
	metric   string
	// metrics are those the source has, for the error of another.
	threshold float64
	entries   []Entry
	// truncated says the traces were more than maxQueueTraces.
	truncated bool
}

// Entry is one sample of a queue and its judgement.
type Entry struct {
	Sample eval.Sample
	Result run.Result
}

// queueParams are what a request says of the queue: the run (an id or
// its prefix; "" for the traces) and the metric ("" for the source's
// only one).
type queueParams struct {
	run, metric string
}

// queueParamsOf reads the queue's parameters of a URL's query.
func queueParamsOf(q url.Values) queueParams {
	return queueParams{run: q.Get("run"), metric: q.Get("metric")}
}

// loadQueue reads the queue's samples and judgements.
func (s *Queues) loadQueue(ctx context.Context, p queueParams) (*queueSource, error) {
	if p.run != "" {
		return s.runQueue(ctx, p)
	}
	if s.Traces == nil {
		return nil, badRequest("run", "run: with a shared queue (--queue) the traces' judgements live in its bucket, not here: give a stored run's id (run=ID) to label")
	}
	return s.traceQueue(ctx, p.metric)
}

// runQueue is the queue of a stored run: its results of the metric,
// joined by id with the records of the dataset it judged.
func (s *Queues) runQueue(ctx context.Context, p queueParams) (*queueSource, error) {
	row, err := s.Runs.Get(ctx, p.run)
	if nf, ok := errors.AsType[*runstore.RunNotFoundError](err); ok {
		return nil, runNotFound(nf)
	}
	if err != nil {
		return nil, err
	}
	metric, err := pickMetric(p.metric, row.Config.Metrics, "run "+row.ID)
	if err != nil {
		return nil, err
	}
	folder, err := run.ReadFolder(row.Dir)
	if err != nil {
		return nil, conflict("run %s: its folder cannot be read: %v", row.ID, err)
	}
	records, err := runRecords(row)
	if err != nil {
		return nil, err
	}
	src := &queueSource{key: "run:" + row.ID, run: row.ID, metric: metric,
		threshold: s.RunThreshold(metric, row.Config.Model == "offline")}
	if folder.Summary != nil {
		for _, m := range folder.Summary.Metrics {
			if m.Metric == metric && m.Threshold > 0 {
				src.threshold = m.Threshold
			}
		}
	}
	for res := range folder.Results.All() {
		if res.Metric != metric {
			continue
		}
		smp, ok := records[res.ID]
		if !ok {
			smp = eval.Sample{ID: res.ID}
		}
		src.entries = append(src.entries, Entry{Sample: smp, Result: res})
	}
	return src, nil
}

// runNotFound is a run the store does not hold (or an ambiguous
// prefix) as a 404 naming the run field. Its message is the store's
// without the store's file, which is the server's business.
func runNotFound(nf *runstore.RunNotFoundError) *httpError {
	msg := fmt.Sprintf("run: no run %s in the run store: see assay runs list", httpjson.Echo(nf.Ref))
	if len(nf.Candidates) > 1 {
		msg = "run: " + nf.Error()
	}
	return &httpError{Status: http.StatusNotFound, Body: httpjson.ErrorBody{Error: msg, Field: "run"}}
}

// runRecords are the samples of the dataset a run judged, by id; the
// dataset must be the one it judged, byte for byte.
func runRecords(row runstore.RunRow) (map[string]eval.Sample, error) {
	path := row.Config.Dataset
	if path == dataset.Stdin {
		return nil, conflict("run %s read its dataset from standard input: the queue has no samples to show", row.ID)
	}
	if want := row.Config.DatasetSHA256; want != "" {
		got, err := dataset.FileSHA256(path)
		if err != nil {
			return nil, conflict("run %s: its dataset %s cannot be read: %v", row.ID, path, err)
		}
		if got != want {
			return nil, conflict("run %s: its dataset %s changed since the run judged it (sha256 %s, was %s)", row.ID, path, got, want)
		}
	}
	recs, err := dataset.Load(path)
	if err != nil {
		return nil, conflict("run %s: its dataset: %v", row.ID, err)
	}
	out := make(map[string]eval.Sample, len(recs))
	for _, r := range recs {
		out[r.ID] = r.Sample
	}
	return out, nil
}

// traceQueue is the queue of the sampled traces judged with metric, the
// most recently judged first, at most maxQueueTraces.
func (s *Queues) traceQueue(ctx context.Context, metric string) (*queueSource, error) {
	metrics, err := s.Traces.ScoredMetrics(ctx)
	if err != nil {
		return nil, err
	}
	if len(metrics) == 0 {
		return nil, &httpError{Status: http.StatusNotFound, Body: httpjson.ErrorBody{Error: "no sampled trace has been judged yet: send traces (POST /v1/traces), or give a stored run's id (run=ID)", Field: "run"}}
	}
	if metric, err = pickMetric(metric, metrics, "the sampled traces"); err != nil {
		return nil, err
	}
	src := &queueSource{key: "traces", metric: metric, threshold: s.TraceThreshold(metric)}
	if src.entries, src.truncated, err = s.Traces.TraceEntries(ctx, metric, maxQueueTraces); err != nil {
		return nil, err
	}
	return src, nil
}

// pickMetric is the metric a request names, or the source's only one.
func pickMetric(metric string, have []string, source string) (string, error) {
	switch {
	case metric == "" && len(have) == 1:
		return have[0], nil
	case metric == "":
		return "", badRequest("metric", "metric: the judgements of %s are of %s: pick one (metric=NAME)", source, strings.Join(have, ", "))
	case !slices.Contains(have, metric):
		return "", badRequest("metric", "metric: no judgement of %s is of %s: they are of %s", source, httpjson.Echo(metric), strings.Join(have, ", "))
	}
	return metric, nil
}

// httpError is an error answered with its status and body.
type httpError = httpjson.StatusError

// badRequest is a 400 naming field.
func badRequest(field, format string, args ...any) *httpError {
	return httpjson.BadRequest(field, format, args...)
}

// conflict is a 409: the queue's source is there but cannot be shown.
func conflict(format string, a ...any) *httpError {
	return &httpError{Status: http.StatusConflict, Body: httpjson.ErrorBody{Error: fmt.Sprintf(format, a...)}}
}

// scored says a judgement gave a value: neither a default, nor a skip,
// nor a failure.
func scored(r run.Result) bool { return r.Counted() && r.Error == "" }

// annotationItem is an entry as the ranking sees it, with its label.
func annotationItem(e Entry, l *Label) annotation.Item {
	r := e.Result
	it := annotation.Item{ID: r.ID, Scored: scored(r), Value: r.Value, Points: r.Points, Max: r.Max, Defaulted: r.Defaulted}
	c := r.Evidence.Counts
	if share, ok := c[judges.CountMajorityShare]; ok && c[judges.CountSamples] >= 2 {
		it.HasAgreement, it.Agreement = true, share
	}
	if l != nil {
		it.Label = &l.Value
	}
	return it
}

// queueScale is the scale of the queue's labels, or the one asked for
// while there are none.
func queueScale(labels map[string]Label, asked annotation.Scale) annotation.Scale {
	for _, l := range labels {
		return annotation.Scale(l.Scale)
	}
	return asked
}

// builtQueue is a queue's source, labels and ranking.
type builtQueue struct {
	src    *queueSource
	labels map[string]Label
	q      annotation.Queue
}

// buildQueue reads a queue and its labels.
func (s *Queues) buildQueue(ctx context.Context, p queueParams, asked annotation.Scale) (*builtQueue, error) {
	src, err := s.loadQueue(ctx, p)
	if err != nil {
		return nil, err
	}
	labels, err := s.Labels(ctx, src.key, src.metric)
	if err != nil {
		return nil, err
	}
	b := &builtQueue{src: src, labels: labels}
	b.q = annotation.Queue{Scale: queueScale(labels, asked), Threshold: src.threshold, Seed: src.key + "/" + src.metric,
		Items: make([]annotation.Item, len(src.entries))}
	for i, e := range src.entries {
		var l *Label
		if lb, ok := labels[e.Result.ID]; ok {
			l = &lb
		}
		b.q.Items[i] = annotationItem(e, l)
	}
	return b, nil
}

// QueueResponse is the answer of GET /v1/queue: the queue's items in
// order, what it counts, the estimate its labels make and how much more
// labels would narrow it.
type QueueResponse struct {
	// Run is the stored run's id; "" for the sampled traces.
	Run    string `json:"run,omitempty"`
	Source string `json:"source"`
	Metric string `json:"metric"`
	// Scale is the labels' (binary: pass or fail; graded: 1 to 5), Order
	// the items' (active, the default; worth; draw).
	Scale string `json:"scale"`
	Order string `json:"order"`
	// Threshold is the judge's pass mark.
	Threshold float64           `json:"threshold"`
	Counts    annotation.Counts `json:"counts"`
	// Truncated says the traces were more than the queue holds: the
	// last judged are in it.
	Truncated  bool                    `json:"truncated,omitempty"`
	Estimate   QueueEstimate           `json:"estimate"`
	Projection []annotation.Projection `json:"projection"`
	// Export is the path of the labels' export, Agree the command that
	// reads it (the export saved as labels.jsonl).
	Export string `json:"export"`
	Agree  string `json:"agree"`
	// Items are the first Limit of the queue: those not labelled, by
	// Order, then the labelled ones.
	Items []QueueItem `json:"items"`
}

// QueueEstimate is the PPI++ estimate of the mean label over the items
// the judge scored (as `assay agree --estimate` makes it of the
// export), its interval, the labels alone and the judge alone.
type QueueEstimate struct {
	agree.PPIFigures
	HalfWidth run.Num `json:"half_width"`
	// Design is the order the labels follow from its start: "active"
	// (each label weighted by 1/its inclusion probability, the export's
	// meta.label_weight) or "draw"; "" when neither. RandomDraw says
	// Design is one, as the estimate needs; Warning says what it means
	// when not.
	Design     string `json:"design,omitempty"`
	RandomDraw bool   `json:"random_draw"`
	Note       string `json:"note,omitempty"`
	Warning    string `json:"warning,omitempty"`
}

// QueueItem is one sample of the queue: what the person reads, the
// judge's verdict, its worth and its label.
type QueueItem struct {
	ID        string         `json:"id"`
	Question  string         `json:"question,omitempty"`
	Answer    string         `json:"answer,omitempty"`
	Contexts  []QueueContext `json:"contexts,omitempty"`
	Reference string         `json:"reference,omitempty"`
	// Messages are the conversation, when the sample is one.
	Messages []eval.Message `json:"messages,omitempty"`
	Judge    QueueJudgement `json:"judge"`
	// Worth, Uncertainty and Disagreement are annotation.Ranked's (a
	// disagreement only where the judge was asked more than once), Draw
	// the item's place in the random draw, Active its place in the
	// active order (none for an item the judge did not score) and
	// Inclusion its probability of being among as many of that order as
	// the scored items labelled now.
	Worth        float64  `json:"worth"`
	Uncertainty  float64  `json:"uncertainty"`
	Disagreement *float64 `json:"disagreement,omitempty"`
	Draw         int      `json:"draw"`
	Active       int      `json:"active,omitempty"`
	Inclusion    float64  `json:"inclusion"`
	Label        *Label   `json:"label,omitempty"`
}

// QueueContext is a retrieved context or source of a sample.
type QueueContext struct {
	Title string `json:"title,omitempty"`
	URL   string `json:"url,omitempty"`
	Text  string `json:"text"`
}

// QueueJudgement is the judge's verdict on an item.
type QueueJudgement struct {
	Metric string `json:"metric"`
	// Value is null when the judge gave none (Defaulted, Skipped, Error).
	Value run.Num `json:"value"`
	// Points and Max are the judge's native grade (4 of 5), when it
	// grades on a scale above 1; null otherwise.
	Points run.Num `json:"points"`
	Max    run.Num `json:"max"`
	// Pass is the verdict: the card's, or the value at or above the
	// threshold.
	Pass      *bool         `json:"pass,omitempty"`
	Reason    string        `json:"reason,omitempty"`
	Method    string        `json:"method,omitempty"`
	Defaulted bool          `json:"defaulted,omitempty"`
	Skipped   bool          `json:"skipped,omitempty"`
	Error     string        `json:"error,omitempty"`
	Evidence  eval.Evidence `json:"evidence,omitzero"`
}

// response is the queue as GET /v1/queue answers it, its first limit
// items in order.
func (b *builtQueue) response(order annotation.Order, limit int, exportLabel string) QueueResponse {
	src := b.src
	resp := QueueResponse{Run: src.run, Source: "sampled traces", Metric: src.metric, Scale: string(b.q.Scale), Order: string(order),
		Threshold: src.threshold, Counts: b.q.Counts(), Truncated: src.truncated, Items: []QueueItem{}, Projection: []annotation.Projection{}}
	if src.run != "" {
		resp.Source = "run " + src.run
	}
	e := b.q.Estimate(agree.MinLabelled)
	resp.Estimate = estimateOf(e)
	if p := e.Project(projectionSteps...); p != nil {
		resp.Projection = p
	}
	resp.Export, resp.Agree = b.exportRef(exportLabel, e.Design == annotation.ByActive)
	ranked := b.q.Rank(order)
	for _, r := range ranked[:min(limit, len(ranked))] {
		resp.Items = append(resp.Items, b.item(r))
	}
	return resp
}

// estimateOf is an estimate as the queue answers it.
func estimateOf(e annotation.Estimate) QueueEstimate {
	out := QueueEstimate{PPIFigures: agree.FiguresOf(e.PPI), HalfWidth: run.Num(e.HalfWidth),
		Design: string(e.Design), RandomDraw: e.RandomDraw, Note: e.Note}
	if !e.RandomDraw {
		out.Warning = "the labels are the first neither of the active order (order=active) nor of the random draw (order=draw): the estimate assumes labels taken at random, so this one may be biased; for one that holds, label in one of those orders from the start"
	}
	return out
}

// item is a ranked entry as the queue answers it.
func (b *builtQueue) item(r annotation.Ranked) QueueItem {
	e := b.src.entries[r.Index]
	smp, res := e.Sample, e.Result
	it := QueueItem{ID: res.ID, Question: smp.Query, Answer: smp.Answer, Reference: smp.Reference, Messages: smp.Messages,
		Worth: r.Worth, Uncertainty: r.Uncertainty, Draw: r.Draw, Active: r.Active, Inclusion: r.Inclusion}
	for _, c := range smp.Sources {
		it.Contexts = append(it.Contexts, QueueContext{Title: c.Title, URL: c.URL, Text: c.Text})
	}
	if r.HasDisagreement {
		it.Disagreement = &r.Disagreement
	}
	if l, ok := b.labels[res.ID]; ok {
		it.Label = &l
	}
	j := QueueJudgement{Metric: res.Metric, Value: run.Num(res.Value), Points: run.Num(math.NaN()), Max: run.Num(math.NaN()), Pass: res.Pass,
		Reason: res.Reason, Method: res.Method, Defaulted: res.Defaulted, Skipped: res.Skipped, Error: res.Error, Evidence: res.Evidence}
	if res.Max > 1 {
		j.Points, j.Max = run.Num(res.Points), run.Num(res.Max)
	}
	if !scored(res) {
		j.Value, j.Pass = run.Num(math.NaN()), nil
	} else if j.Pass == nil {
		j.Pass = new(res.Value >= b.src.threshold)
	}
	it.Judge = j
	return it
}

// exportRef is the path of the queue's export and the command that
// reads the export saved as labels.jsonl; weighted, the labels follow
// the active order and the command weights them.
func (b *builtQueue) exportRef(label string, weighted bool) (string, string) {
	q := url.Values{}
	if b.src.run != "" {
		q.Set("run", b.src.run)
	}
	q.Set("metric", b.src.metric)
	if label != "" && label != b.src.metric {
		q.Set("label", label)
	}
	if label == "" {
		label = b.src.metric
	}
	weight := ""
	if weighted {
		weight = " --weight meta." + exportWeight
	}
	cmd := "assay agree --score meta." + exportScore + " --label " + label + " --estimate" + weight + " labels.jsonl"
	if b.q.Scale == annotation.Graded {
		cmd = fmt.Sprintf("assay agree --score meta.%s --label %s --label-type graded --grades %s --estimate%s labels.jsonl", exportGrade, label, gradeList(), weight)
	}
	return "/v1/queue/export?" + q.Encode(), cmd
}

// gradeList is the graded scale's grades as --grades takes them.
func gradeList() string {
	var gs []string
	for g := annotation.MinGrade; g <= annotation.MaxGrade; g++ {
		gs = append(gs, strconv.Itoa(g))
	}
	return strings.Join(gs, ",")
}
