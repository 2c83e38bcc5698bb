package serve

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// routeOTLP takes OTLP/HTTP trace exports: an application's OpenTelemetry
// exporter pointed at http://host:port/otlp sends its spans here.
const routeOTLP = "POST /otlp/v1/traces"

// DefaultConversationMetrics are the metrics a conversation assembled from
// spans is judged with unless told otherwise: none needs an expected
// answer, as production conversations have none.
func DefaultConversationMetrics() []string {
	return []string{
		"task_completion", "conversation_relevancy", "knowledge_retention", "role_adherence", "tool_call_errors", "tool_call_loops",
	}
}

// Content types of OTLP/HTTP.
const (
	otlpProto = "application/x-protobuf"
	otlpJSON  = "application/json"
)

// spanBuffer holds the spans of traces not yet whole: a trace is whole
// when its root span (the one without a parent, or whose parent is in
// the process that called the sender: conversation.Span.LocalRoot)
// arrives, as an SDK's batch exporter sends it after its children; the oldest trace is taken
// as it is when more than max are waiting. A waiting trace holds at most
// maxSpans spans: the others that come before its root are refused
// (counted by add), its root is always taken. It is safe for concurrent use.
type spanBuffer struct {
	mu       sync.Mutex
	max      int
	maxSpans int
	traces   map[string][]conversation.Span
	order    []string // trace IDs, oldest first
	// back are the span IDs of the traces put back (putBack), whose
	// export is sent again with the same spans: those are not kept twice.
	back map[string]map[string]struct{}
}

func newSpanBuffer(max, maxSpans int) *spanBuffer {
	return &spanBuffer{max: max, maxSpans: maxSpans, traces: map[string][]conversation.Span{}, back: map[string]map[string]struct{}{}}
}

// add keeps spans and returns the traces they make whole (and those
// pushed out by the bound), each with all its spans, in the order they
// were first seen, and how many spans it refused: those, not roots, of a
// trace that already holds maxSpans.
func (b *spanBuffer) add(spans []conversation.Span) (out [][]conversation.Span, refused int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	whole := map[string]bool{}
	for _, s := range spans {
		held, ok := b.traces[s.TraceID]
		if _, again := b.back[s.TraceID][s.SpanID]; again {
			// A span put back, sent again by the exporter's retry.
			if s.LocalRoot() {
				whole[s.TraceID] = true
			}
			continue
		}
		if !s.LocalRoot() && len(held) >= b.maxSpans {
			refused++
			continue
		}
		if !ok {
			b.order = append(b.order, s.TraceID)
		}
		b.traces[s.TraceID] = append(held, s)
		if s.LocalRoot() {
			whole[s.TraceID] = true
		}
	}
	keep := b.order[:0]
	for _, id := range b.order {
		if whole[id] {
			out = append(out, b.traces[id])
			delete(b.traces, id)
			delete(b.back, id)
			continue
		}
		keep = append(keep, id)
	}
	b.order = keep
	for len(b.order) > b.max {
		id := b.order[0]
		out = append(out, b.traces[id])
		delete(b.traces, id)
		delete(b.back, id)
		b.order = b.order[1:]
	}
	return out, refused
}

// putBack returns traces taken by add to the buffer, as they were: their
// request was refused (a full queue), and its export is sent again.
func (b *spanBuffer) putBack(traces [][]conversation.Span) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, spans := range traces {
		if len(spans) == 0 {
			continue
		}
		id := spans[0].TraceID
		if _, ok := b.traces[id]; !ok {
			b.order = append([]string{id}, b.order...)
		}
		b.traces[id] = append(spans, b.traces[id]...)
		ids := b.back[id]
		if ids == nil {
			ids = make(map[string]struct{}, len(spans))
			b.back[id] = ids
		}
		for _, s := range spans {
			ids[s.SpanID] = struct{}{}
		}
	}
}

// postOTLP is POST /otlp/v1/traces: an OTLP/HTTP export request, protobuf
// or JSON. Its spans are assembled into conversations (package
// conversation) once their trace is whole; each conversation is sampled by
// the hash of its conversation ID (its trace ID when it has none), with
// the rule and rate of /v1/traces, so a session is judged whole or not at
// all, and is journaled and judged by the same pool, under its trace ID,
// with the server's conversation metrics. The answer is an
// ExportTraceServiceResponse in the request's encoding; spans that cannot
// be taken (no valid trace or span ID: of the wrong length, or all zero)
// are counted in its partial success, and so are the spans past
// Config.MaxTraceSpans of a trace whose root has not come; a parent span
// ID of zeros marks a root. A queue that is full answers 429 with Retry-After, which OTLP
// exporters retry. The body is taken gzipped or as it is (otlpDecoded);
// a span whose conversation id is not a valid trace id is a 400 naming
// the attribute (checkConversationID), and nothing of the request is kept.
func (s *Server) postOTLP(w http.ResponseWriter, r *http.Request) error {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != otlpProto && ct != otlpJSON {
		return &httpError{Status: http.StatusUnsupportedMediaType, Body: ErrorBody{Error: fmt.Sprintf(
			"Content-Type %s: OTLP/HTTP sends %s or %s", httpjson.Echo(r.Header.Get("Content-Type")), otlpProto, otlpJSON)}}
	}
	body, err := bodyBytes(r)
	if err != nil {
		return err
	}
	if body, err = s.otlpDecoded(r, body); err != nil {
		return err
	}
	var req *tracepb.TracesData
	if ct == otlpProto {
		req, err = conversation.DecodeProto(body)
	} else {
		req, err = conversation.DecodeJSON(body)
	}
	if err != nil {
		return badRequest("", "%v", err)
	}
	var spans []conversation.Span
	rejected := 0
	for _, sp := range conversation.Spans(req) {
		if !sp.Valid() {
			rejected++
			continue
		}
		if err := checkConversationID(sp); err != nil {
			return err
		}
		spans = append(spans, sp)
	}
	var why string
	if rejected > 0 {
		why = fmt.Sprintf("%d span(s) without a valid trace ID (16 bytes, not all zero), span ID (8 bytes, not all zero) or parent span ID (8 bytes, or none)", rejected)
	}
	whole, tooMany := s.otlp.add(spans)
	if tooMany > 0 {
		rejected += tooMany
		why = joinWhy(why, fmt.Sprintf("%d span(s) of a trace that already holds %d spans waiting for its root span (the limit of a trace; its root is still taken)", tooMany, s.cfg.MaxTraceSpans))
	}
	items, bad, badWhy := s.otlpItems(r, whole)
	if bad > 0 {
		rejected += bad
		why = joinWhy(why, badWhy)
	}
	resp := TracesResponse{Received: len(items) + bad, NotSampled: 0}
	var sampled []traceItem
	for _, it := range items {
		if it.sampled {
			sampled = append(sampled, it.traceItem)
		} else {
			resp.NotSampled++
		}
	}
	if err := s.enqueue(w, r, routeOTLP, sampled, &resp); err != nil {
		// Nothing was kept. An exporter sends the request again after a
		// 429, 502, 503 or 504 (the OTLP specification's retryable
		// answers), and the spans its earlier requests brought must
		// still be here for it; after any other answer (a 413: more
		// traces than the queue holds) it drops the request, and so does
		// the buffer, which would otherwise push them, past its bound,
		// into every later export.
		switch asHTTP(err, "").Status {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			s.otlp.putBack(whole)
		}
		return err
	}
	s.metrics.traces.WithLabelValues("sampled").Add(float64(resp.Sampled))
	s.metrics.traces.WithLabelValues("not_sampled").Add(float64(resp.NotSampled))
	s.metrics.traces.WithLabelValues("duplicate").Add(float64(resp.Duplicates))
	out := &coltrace.ExportTraceServiceResponse{}
	if rejected > 0 {
		out.PartialSuccess = &coltrace.ExportTracePartialSuccess{RejectedSpans: int64(rejected), ErrorMessage: why}
	}
	var b []byte
	if ct == otlpProto {
		b, err = proto.Marshal(out)
	} else {
		b, err = protojson.Marshal(out)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return nil
}

// otlpDecoded is body as its Content-Encoding says: as it is (none, or
// identity) or gunzipped (gzip, x-gzip, in any case), at most MaxBody
// bytes once decoded, so that a small body that inflates to gigabytes is
// refused (413) without being inflated; any other coding is refused 415,
// as OTLP/HTTP exporters compress with gzip or not at all.
func (s *Server) otlpDecoded(r *http.Request, body []byte) ([]byte, error) {
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
	default:
		return nil, &httpError{Status: http.StatusUnsupportedMediaType, Body: ErrorBody{Field: "Content-Encoding", Error: fmt.Sprintf(
			"Content-Encoding %s: send the export as it is or gzip-compressed (Content-Encoding: gzip)", httpjson.Echo(r.Header.Get("Content-Encoding")))}}
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, badRequest("Content-Encoding", "Content-Encoding gzip: %v", err)
	}
	if body, err = io.ReadAll(io.LimitReader(zr, s.cfg.MaxBody+1)); err != nil {
		return nil, badRequest("Content-Encoding", "Content-Encoding gzip: %v", err)
	}
	if int64(len(body)) > s.cfg.MaxBody {
		return nil, &httpError{Status: http.StatusRequestEntityTooLarge, Body: ErrorBody{Field: "Content-Encoding", Error: fmt.Sprintf(
			"request body larger than %d bytes once gunzipped (assay serve --max-body): send fewer spans a request", s.cfg.MaxBody)}}
	}
	return body, nil
}

// attrSession is OpenInference's conversation id, which package
// conversation reads when a span has no gen_ai.conversation.id.
const attrSession = "session.id"

// checkConversationID refuses, as a 400 naming the attribute and the
// span, a span (of valid IDs) whose conversation id (gen_ai.conversation.id, or
// session.id) is not a valid trace id (checkTraceID): it decides the
// conversation's sampling and is stored and shown with its judgement,
// so it is bounded and printable as a trace id of POST /v1/traces is.
func checkConversationID(sp conversation.Span) error {
	for _, key := range []string{conversation.AttrConversation, attrSession} {
		id, ok := sp.Attrs[key].(string)
		if !ok || id == "" {
			continue
		}
		if err := checkTraceID(key, id); err != nil {
			he := asHTTP(err, "")
			he.Body.Error = fmt.Sprintf("span %s of trace %s: %s", sp.SpanID, sp.TraceID, he.Body.Error)
			return he
		}
	}
	return nil
}

// otlpItem is a conversation to judge, and whether it is sampled.
type otlpItem struct {
	traceItem
	sampled bool
}

// otlpItems assembles the whole traces into conversations to judge, one
// item each, keyed by its first trace's ID. A conversation the metrics
// cannot take (the check of the judger) is rejected: its spans are
// counted, and why is said.
func (s *Server) otlpItems(r *http.Request, traces [][]conversation.Span) (items []otlpItem, rejected int, why string) {
	metrics := s.cfg.ConversationMetrics
	now := s.cfg.Now()
	rate := *s.cfg.SampleRate
	for _, spans := range traces {
		for _, c := range conversation.Assemble(spans) {
			sample := c.Sample()
			sample.Metadata = map[string]any{"conversation_id": c.ID}
			if err := s.judger.Check(sample, metrics); err != nil {
				rejected += c.Spans
				why = joinWhy(why, fmt.Sprintf("conversation %s: %v", c.ID, err))
				continue
			}
			items = append(items, otlpItem{
				traceItem: traceItem{id: c.Traces[0], received: now, sample: sample, metrics: metrics, parent: spanOf(r)},
				sampled:   Sampled(c.ID, rate),
			})
		}
	}
	return items, rejected, why
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
