package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/annotation"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// Route names of the annotation queue.
const (
	routeQueue       = "GET /v1/queue"
	routeQueueLabels = "POST /v1/queue/labels"
	routeQueueExport = "GET /v1/queue/export"
	routeQueuePage   = "GET /queue"
	// queuePagePath is where the page is served.
	queuePagePath = "/queue"
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
			return v, badRequest("limit", "limit: want a whole number from 0 to %d, got %q", maxQueueLimit, l)
		}
		v.limit = n
	}
	if v.label != "" && !labelName(v.label) {
		return v, badRequest("label", "label: %q is not a label name: letters, digits, _ and - only (it becomes human.NAME in the export)", v.label)
	}
	return v, nil
}

// labelName reports whether s may name the export's label: a field of
// the record's human object that agree's --label reads as one name.
func labelName(s string) bool {
	return validField(s) && !strings.Contains(s, ".")
}

// queueAsked is the queue a request's query names (run, metric), and how
// it asks to see it (scale, order, limit, label).
func (s *Server) queueAsked(r *http.Request) (queueView, *builtQueue, error) {
	q := r.URL.Query()
	view, err := queueViewOf(q)
	if err != nil {
		return view, nil, err
	}
	b, err := s.buildQueue(r.Context(), queueParamsOf(q), view.scale)
	return view, b, err
}

// getQueue is GET /v1/queue.
func (s *Server) getQueue(w http.ResponseWriter, r *http.Request) error {
	view, b, err := s.queueAsked(r)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpjson.Write(w, http.StatusOK, b.response(view.order, view.limit, view.label))
	return nil
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

// postLabel is POST /v1/queue/labels: the label checked, its item looked
// up in the queue (404 when not there), stored in place of the item's
// last, with who and the server's time.
func (s *Server) postLabel(w http.ResponseWriter, r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return &httpError{status: http.StatusUnsupportedMediaType, body: ErrorBody{Error: "send the label as JSON (Content-Type: application/json)"}}
	}
	var req LabelRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	l, err := s.checkLabel(r, req)
	if err != nil {
		return err
	}
	b, err := s.buildQueue(r.Context(), queueParams{run: req.Run, metric: req.Metric}, annotation.Scale(l.Scale))
	if err != nil {
		return err
	}
	at := -1
	for i, e := range b.src.entries {
		if e.result.ID == l.Item {
			at = i
			break
		}
	}
	if at < 0 {
		return &httpError{status: http.StatusNotFound, body: ErrorBody{Error: fmt.Sprintf("item: %s has no item %q judged with %s", sourceName(b.src), l.Item, b.src.metric), Field: "item"}}
	}
	if err := s.store.putLabel(r.Context(), b.src.key, b.src.metric, l); err != nil {
		if sc, ok := errors.AsType[*scaleConflictError](err); ok {
			return badRequest("value", "value: %v (true or false for binary, 1 to 5 for graded)", sc)
		}
		return err
	}
	b.labels[l.Item] = l
	b.q.Scale = annotation.Scale(l.Scale)
	b.q.Items[at].Label = &l.Value
	httpjson.Write(w, http.StatusOK, LabelResponse{Label: l, Queue: b.response(annotation.ByActive, 0, "")})
	return nil
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
func (s *Server) checkLabel(r *http.Request, req LabelRequest) (Label, error) {
	l := Label{Item: req.Item, Note: req.Note, Who: req.Labeler, At: s.cfg.Now().UTC()}
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
			return l, badRequest("value", "value: want true or false, or a grade from 1 to 5, got %s", clipText(string(v), 40))
		}
		if err := annotation.Graded.CheckLabel(g); err != nil {
			return l, badRequest("value", "value: %v (a pass or fail is true or false)", err)
		}
		l.Scale, l.Value = string(annotation.Graded), g
	}
	if len(l.Note) > maxNote {
		return l, badRequest("note", "note: longer than %d bytes", maxNote)
	}
	if len(l.Who) > maxLabeler || !printable(l.Who) {
		return l, badRequest("labeler", "labeler: a name of at most %d bytes, printable characters only", maxLabeler)
	}
	if l.Who == "" {
		l.Who = s.signedInAs(r)
	}
	return l, nil
}

// signedInAs is who a request is when it names no labeler: how it was
// let in.
func (s *Server) signedInAs(r *http.Request) string {
	switch {
	case s.cfg.Token == "":
		return "anonymous"
	case r.Header.Get("Authorization") != "":
		return "token"
	}
	return "session"
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// clipText is s cut to n bytes, marked.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
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

// getExport is GET /v1/queue/export: the queue as JSON Lines that
// `assay agree` reads, a line per item the judge scored (a default, a
// failure or a skip has no value to compare: left out, counted in
// X-Assay-Left-Out), in the source's order. Metadata holds the judge's
// value (judge_score), on a graded queue its grade on 1-5 (judge_grade),
// and with a label who gave it, when and its note, and when the labels
// follow the active order its weight, 1/its inclusion probability
// (label_weight); human.LABEL holds the label (true or false, or the
// grade), LABEL being the label parameter or the metric's name.
func (s *Server) getExport(w http.ResponseWriter, r *http.Request) error {
	view, b, err := s.queueAsked(r)
	if err != nil {
		return err
	}
	label := view.label
	if label == "" {
		label = b.src.metric
	}
	var out bytes.Buffer
	left := 0
	weights := b.q.Estimate(0).Weights
	for i, e := range b.src.entries {
		if !scored(e.result) {
			left++
			continue
		}
		rec := b.exportLine(i, label)
		if weights != nil && weights[i] > 0 {
			rec.Metadata[exportWeight] = weights[i]
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("export: item %s: %w", e.result.ID, err)
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-ndjson")
	h.Set("Content-Disposition", `attachment; filename="labels.jsonl"`)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Assay-Left-Out", strconv.Itoa(left))
	_, _ = w.Write(out.Bytes()) // the client went away: nothing to do
	return nil
}

// exportLine is the export's record of entry i.
func (b *builtQueue) exportLine(i int, label string) exportRecord {
	e := b.src.entries[i]
	smp, res := e.sample, e.result
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
