package annotate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assaylabs/assay/annotation"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// The export's metadata fields that hold the judge's verdict: the value
// (a binary label's --score) and, on a graded queue, the judge's grade
// on the labels' 1-5 (a graded label's --score).
const (
	exportScore = "judge_score"
	exportGrade = "judge_grade"
	// exportWeight holds a label's weight, 1/its inclusion probability,
	// when the labels follow the active order (agree's --weight).
	exportWeight = "label_weight"
)

// queueView is what a request asks of the queue beyond its source: the
// order, the scale while there is no label, how many items and the
// export's label name.
type queueView struct {
	order annotation.Order
	scale annotation.Scale
	limit int
	label string
}

// queueViewOf reads a queue request's view from its query.
func queueViewOf(q url.Values) (queueView, error) {
	v := queueView{limit: defaultQueueLimit, label: q.Get("label")}
	var err error
	if v.order, err = annotation.ParseOrder(q.Get("order")); err != nil {
		return v, badRequest("order", "order: %v", err)
	}
	if v.scale, err = annotation.ParseScale(q.Get("scale")); err != nil {
		return v, badRequest("scale", "scale: %v", err)
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 || n > maxQueueLimit {
			return v, badRequest("limit", "limit: want a whole number from 0 to %d, got %s", maxQueueLimit, httpjson.Echo(l))
		}
		v.limit = n
	}
	if v.label != "" && !labelName(v.label) {
		return v, badRequest("label", "label: %s is not a label name: letters, digits, _ and - only (it becomes human.NAME in the export)", httpjson.Echo(v.label))
	}
	return v, nil
}

// labelName reports whether s may name the export's label: a field of
// the record's human object that agree's --label reads as one name.
func labelName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// queueAsked is the queue a request's query names (run, metric), and how
// it asks to see it (scale, order, limit, label).
func (s *Queues) queueAsked(ctx context.Context, q url.Values) (queueView, *builtQueue, error) {
	view, err := queueViewOf(q)
	if err != nil {
		return view, nil, err
	}
	b, err := s.buildQueue(ctx, queueParamsOf(q), view.scale)
	return view, b, err
}

// Get is the queue a query names (run, metric) as it asks to see it
// (scale, order, limit, label): GET /v1/queue's answer, and the page's.
func (s *Queues) Get(ctx context.Context, q url.Values) (*QueueResponse, error) {
	view, b, err := s.queueAsked(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := b.response(view.order, view.limit, view.label)
	return &resp, nil
}

// LabelRequest is the body of POST /v1/queue/labels: a person's label
// of one item of a queue.
type LabelRequest struct {
	// Run is the stored run's id (or its prefix) whose queue the item is
	// in; "" for the sampled traces. Metric is the queue's metric, ""
	// for the source's only one.
	Run    string `json:"run,omitempty"`
	Metric string `json:"metric,omitempty"`
	// Item is the sample's id in the queue.
	Item string `json:"item"`
	// Value is true (pass) or false (fail) on a binary queue, or a grade
	// from 1 to 5 on a graded one; a queue's labels keep the scale of
	// its first.
	Value json.RawMessage `json:"value" jsonschema:"true (pass) or false (fail), or a grade from 1 to 5"`
	Note  string          `json:"note,omitempty"`
	// Labeler names who labels; "" is how the request was signed in
	// (token, session; anonymous without a token).
	Labeler string `json:"labeler,omitempty"`
}

// LabelResponse is the answer of POST /v1/queue/labels: the label as
// stored, and the queue's counts, estimate and projection with it (no
// items).
type LabelResponse struct {
	Label Label         `json:"label"`
	Queue QueueResponse `json:"queue"`
}

// Put stores a person's label of an item of a queue (404 when the
// queue has no such item), in place of the item's last, with who (the
// labeler the request names, else signedInAs) and the time, and answers
// the label and the queue's counts, estimate and projection.
func (s *Queues) Put(ctx context.Context, req LabelRequest, signedInAs string) (*LabelResponse, error) {
	l, err := s.checkLabel(req, signedInAs)
	if err != nil {
		return nil, err
	}
	b, err := s.buildQueue(ctx, queueParams{run: req.Run, metric: req.Metric}, annotation.Scale(l.Scale))
	if err != nil {
		return nil, err
	}
	at := -1
	for i, e := range b.src.entries {
		if e.Result.ID == l.Item {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, &httpError{Status: http.StatusNotFound, Body: httpjson.ErrorBody{Error: fmt.Sprintf("item: %s has no item %s judged with %s", sourceName(b.src), httpjson.Echo(l.Item), b.src.metric), Field: "item"}}
	}
	if err := s.putLabel(ctx, b.src.key, b.src.metric, l); err != nil {
		if sc, ok := errors.AsType[*scaleConflictError](err); ok {
			return nil, badRequest("value", "value: %v (true or false for binary, 1 to 5 for graded)", sc)
		}
		return nil, err
	}
	b.labels[l.Item] = l
	b.q.Scale = annotation.Scale(l.Scale)
	b.q.Items[at].Label = &l.Value
	return &LabelResponse{Label: l, Queue: b.response(annotation.ByActive, 0, "")}, nil
}

// sourceName names a queue's source in messages.
func sourceName(src *queueSource) string {
	if src.run != "" {
		return "run " + src.run
	}
	return "the sampled traces"
}

// checkLabel checks a label request's fields and makes its label: the
// value's scale and number, the note and who, at the server's time.
func (s *Queues) checkLabel(req LabelRequest, signedInAs string) (Label, error) {
	l := Label{Item: req.Item, Note: req.Note, Who: req.Labeler, At: s.Now().UTC()}
	if l.Item == "" {
		return l, badRequest("item", "item: missing: the id of the sample labelled")
	}
	v := bytes.TrimSpace(req.Value)
	switch {
	case len(v) == 0 || bytes.Equal(v, []byte("null")):
		return l, badRequest("value", "value: missing: true (pass) or false (fail), or a grade from 1 to 5")
	case bytes.Equal(v, []byte("true")), bytes.Equal(v, []byte("false")):
		l.Scale, l.Value = string(annotation.Binary), 0
		if v[0] == 't' {
			l.Value = 1
		}
	default:
		var g float64
		if err := json.Unmarshal(v, &g); err != nil {
			return l, badRequest("value", "value: want true or false, or a grade from 1 to 5, got %s", echoValue(v))
		}
		if err := annotation.Graded.CheckLabel(g); err != nil {
			return l, badRequest("value", "value: %v (a pass or fail is true or false)", err)
		}
		l.Scale, l.Value = string(annotation.Graded), g
	}
	// In characters, as the page's fields bound them (a Thai character
	// is three bytes).
	if utf8.RuneCountInString(l.Note) > maxNote {
		return l, badRequest("note", "note: longer than %d characters", maxNote)
	}
	if utf8.RuneCountInString(l.Who) > maxLabeler || !printable(l.Who) {
		return l, badRequest("labeler", "labeler: a name of at most %d characters, printable characters only", maxLabeler)
	}
	if l.Who == "" {
		l.Who = signedInAs
	}
	return l, nil
}

// printable reports whether s is valid UTF-8 without control or
// bidirectional formatting characters (a labeler named with U+202E shows
// reversed in the labels' table).
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, termtext.Hidden)
}

// echoValue is how an error answer quotes a label's value that is no
// label: a JSON string as the text it holds, anything else as its JSON,
// quoted as every answer quotes what it was sent (httpjson.Echo).
func echoValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return httpjson.Echo(s)
	}
	return httpjson.Echo(string(v))
}

// exportRecord is a line of the export: the sample as a dataset line has
// it, the judge's verdict in its metadata and the label in human.
type exportRecord struct {
	ID                string                  `json:"id"`
	Query             string                  `json:"query,omitempty"`
	Answer            string                  `json:"answer,omitempty"`
	Sources           []eval.Source           `json:"sources,omitempty"`
	Reference         string                  `json:"reference,omitempty"`
	GroundTruth       map[string]float64      `json:"ground_truth,omitempty"`
	Messages          []eval.Message          `json:"messages,omitempty"`
	ExpectedToolCalls []eval.ExpectedToolCall `json:"expected_tool_calls,omitempty"`
	Ordered           bool                    `json:"ordered,omitempty"`
	Metadata          map[string]any          `json:"metadata"`
	Human             map[string]any          `json:"human,omitempty"`
}

// Export is the queue a query names as JSON Lines that `assay agree`
// reads (GET /v1/queue/export), each control or bidirectional
// formatting character written as its \u escape (encode.Escaped), a
// line per item the judge scored (a
// default, a failure or a skip has no value to compare: left out,
// counted in left), in the source's order. Metadata holds the judge's
// value (judge_score), on a graded queue its grade on 1-5 (judge_grade),
// and with a label who gave it, when and its note, and when the labels
// follow the active order its weight, 1/its inclusion probability
// (label_weight); human.LABEL holds the label (true or false, or the
// grade), LABEL being the label parameter or the metric's name.
func (s *Queues) Export(ctx context.Context, q url.Values) (lines []byte, left int, err error) {
	view, b, err := s.queueAsked(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	label := view.label
	if label == "" {
		label = b.src.metric
	}
	var out bytes.Buffer
	weights := b.q.Estimate(0).Weights
	for i, e := range b.src.entries {
		if !scored(e.Result) {
			left++
			continue
		}
		rec := b.exportLine(i, label)
		if weights != nil && weights[i] > 0 {
			rec.Metadata[exportWeight] = weights[i]
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return nil, 0, fmt.Errorf("export: item %s: %w", e.Result.ID, err)
		}
		out.Write(encode.Escaped(line)) // an id's U+202E as \u202E: a terminal shows it
		out.WriteByte('\n')
	}
	return out.Bytes(), left, nil
}

// exportLine is the export's record of entry i.
func (b *builtQueue) exportLine(i int, label string) exportRecord {
	e := b.src.entries[i]
	smp, res := e.Sample, e.Result
	meta := maps.Clone(smp.Metadata)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["judge_metric"] = res.Metric
	meta[exportScore] = res.Value
	if b.q.Scale == annotation.Graded {
		meta[exportGrade] = b.q.Items[i].OnScale(annotation.Graded)
	}
	rec := exportRecord{ID: res.ID, Query: smp.Query, Answer: smp.Answer, Sources: smp.Sources, Reference: smp.Reference,
		GroundTruth: smp.GroundTruth, Messages: smp.Messages, ExpectedToolCalls: smp.ExpectedToolCalls, Ordered: smp.Ordered, Metadata: meta}
	if l, ok := b.labels[res.ID]; ok {
		meta["labeler"], meta["labelled_at"] = l.Who, l.At.Format("2006-01-02T15:04:05Z07:00")
		if l.Note != "" {
			meta["label_note"] = l.Note
		}
		var v any = l.Value
		if l.Scale == string(annotation.Binary) {
			v = l.Value == 1
		}
		rec.Human = map[string]any{label: v}
	}
	return rec
}
