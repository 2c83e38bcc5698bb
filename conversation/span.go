package conversation

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	common "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Span is one span as conversations are assembled from it: its place in
// its trace, its time, its attributes (OTLP values as Go values: string,
// bool, int64, float64, []any, map[string]any, []byte) and whether it
// failed.
type Span struct {
	TraceID, SpanID, ParentID string // hex; ParentID "" for a root span
	Name                      string
	Start, End                uint64 // Unix nanoseconds
	Attrs                     map[string]any
	// Error is true when the span's status is an error; Status is the
	// status message.
	Error  bool
	Status string
	// RemoteParent is true when the span's flags say its parent is in
	// another process (a service that called this one with a
	// traceparent): no span of this export names it.
	RemoteParent bool
}

// LocalRoot reports whether s is the first span of its trace in the
// process that sent it: a root, or a span whose parent is remote. Its
// process's spans of the trace have all come once it has, as an SDK
// exports a span after its children.
func (s Span) LocalRoot() bool { return s.ParentID == "" || s.RemoteParent }

// str returns the string attribute key, or "".
func (s Span) str(key string) string {
	v, _ := s.Attrs[key].(string)
	return v
}

// Spans flattens an OTLP export request into its spans; the attributes of
// a span's resource and scope are not its own and are left out.
//
// The request is read as a TracesData, which the OTLP specification keeps
// the same on the wire as the collector's ExportTraceServiceRequest (both
// are resource_spans = 1, in protobuf and in JSON), so that this package,
// and the dataset reader above it, do not link the collector's gRPC
// service.
func Spans(req *tracepb.TracesData) []Span {
	var out []Span
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				out = append(out, fromProto(sp))
			}
		}
	}
	return out
}

func fromProto(sp *tracepb.Span) Span {
	parent := sp.GetParentSpanId()
	if allZero(parent) {
		parent = nil // a root, as exporters that fill the field with zeros say
	}
	s := Span{
		TraceID: hex.EncodeToString(sp.GetTraceId()), SpanID: hex.EncodeToString(sp.GetSpanId()),
		ParentID: hex.EncodeToString(parent), Name: sp.GetName(),
		Start: sp.GetStartTimeUnixNano(), End: sp.GetEndTimeUnixNano(),
		Attrs:  attrs(sp.GetAttributes()),
		Error:  sp.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
		Status: sp.GetStatus().GetMessage(),
	}
	const remote = uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK | tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	s.RemoteParent = s.ParentID != "" && sp.GetFlags()&remote == remote
	return s
}

// Valid reports whether s has the IDs OTLP requires of a span: a trace
// ID of 16 bytes and a span ID of 8, neither all zero (the specification's
// invalid IDs, which spans of unrelated traces would share), and a parent
// ID of 8 bytes or none.
func (s Span) Valid() bool {
	return validID(s.TraceID, 16) && validID(s.SpanID, 8) && (s.ParentID == "" || len(s.ParentID) == 16)
}

// validID reports whether id is the hex of n bytes, not all zero.
func validID(id string, n int) bool {
	return len(id) == 2*n && strings.Trim(id, "0") != ""
}

// allZero reports whether b holds only zero bytes (or none).
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func attrs(kvs []*common.KeyValue) map[string]any {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		out[kv.GetKey()] = value(kv.GetValue())
	}
	return out
}

func value(v *common.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_BoolValue:
		return x.BoolValue
	case *common.AnyValue_IntValue:
		return x.IntValue
	case *common.AnyValue_DoubleValue:
		return x.DoubleValue
	case *common.AnyValue_BytesValue:
		return x.BytesValue
	case *common.AnyValue_ArrayValue:
		out := make([]any, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, value(e))
		}
		return out
	case *common.AnyValue_KvlistValue:
		return attrs(x.KvlistValue.GetValues())
	}
	return nil
}

// DecodeProto decodes an OTLP/HTTP protobuf body, an
// ExportTraceServiceRequest (read as the TracesData it equals on the wire).
func DecodeProto(body []byte) (*tracepb.TracesData, error) {
	var req tracepb.TracesData
	if err := proto.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("not an OTLP protobuf export request: %w", err)
	}
	return &req, nil
}

// DecodeJSON decodes an OTLP/HTTP JSON body, an ExportTraceServiceRequest
// as the OTLP specification writes it in JSON: protojson, except that
// trace and span IDs are hex (protojson's bytes are base64). Unknown
// fields are ignored, as the specification asks of a receiver.
func DecodeJSON(body []byte) (*tracepb.TracesData, error) {
	// encoding/json would read a byte that is not UTF-8 as U+FFFD, unsaid;
	// protobuf's decoder refuses it: so does this one.
	if !utf8.Valid(body) {
		return nil, fmt.Errorf("invalid UTF-8 in the JSON body: send text as UTF-8")
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	// One export request a body: what follows it is not read, so it is
	// an error rather than dropped.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: more after the export request's object: send one export request a body")
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, fmt.Errorf("want an OTLP export request (a JSON object with resourceSpans)")
	}
	if err := hexIDs(tree); err != nil {
		return nil, err
	}
	fixed, err := json.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("re-encode: %w", err)
	}
	var req tracepb.TracesData
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(fixed, &req); err != nil {
		return nil, fmt.Errorf("not an OTLP export request: %w", err)
	}
	return &req, nil
}

// idKeys are the members that hold trace and span IDs.
var idKeys = map[string]bool{"traceId": true, "spanId": true, "parentSpanId": true, "trace_id": true, "span_id": true, "parent_span_id": true}

// hexIDs rewrites, in place, every ID member of the tree from hex to
// base64, as protojson reads bytes.
func hexIDs(tree any) error {
	switch t := tree.(type) {
	case map[string]any:
		for k, v := range t {
			if s, ok := v.(string); ok && idKeys[k] {
				if s == "" {
					continue
				}
				b, err := hex.DecodeString(s)
				if err != nil {
					return fmt.Errorf("%s: want hex, got %q", k, s)
				}
				t[k] = base64.StdEncoding.EncodeToString(b)
				continue
			}
			if err := hexIDs(v); err != nil {
				return err
			}
		}
	case []any:
		for _, v := range t {
			if err := hexIDs(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// IsOTLPJSON reports whether a JSON object's text is an OTLP export
// request: an object with resourceSpans (or resource_spans).
func IsOTLPJSON(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' || !bytes.Contains(t, []byte("esource")) {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(t, &top) != nil {
		return false
	}
	_, a := top["resourceSpans"]
	_, b := top["resource_spans"]
	return a || b
}

// jsonText returns an attribute's JSON: a string holding JSON as it is,
// any other value encoded.
func jsonText(v any) []byte {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(strings.TrimSpace(x))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
