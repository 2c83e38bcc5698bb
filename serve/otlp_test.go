package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
)

const (
	fixtureMessages = "../fixtures/agents/weather.jsonl"
	fixtureSpans    = "../fixtures/agents/weather.spans.jsonl"
)

// scoresOf scores a sample offline with the conversation metrics, as
// "metric value points/max reason" lines.
func scoresOf(t *testing.T, s eval.Sample) []string {
	t.Helper()
	var out []string
	for _, m := range DefaultConversationMetrics() {
		sc, err := agent.Builtins().New(m, nil)
		require.NoError(t, err)
		got, err := sc.Score(t.Context(), s)
		require.NoError(t, err)
		require.False(t, got.Skipped, "%s: %s", m, got.Reason)
		out = append(out, line(got.Metric, got.Value, got.Points, got.Max, got.Reason))
	}
	return out
}

func line(metric string, v, p, max float64, reason string) string {
	b, _ := json.Marshal([]any{metric, v, p, max, reason})
	return string(b)
}

// replay sends the spans of an OTLP JSON export file through the
// OpenTelemetry Go SDK and its OTLP/HTTP exporter to url: each span again,
// with its name, times, attributes and status, under its parent; the SDK
// gives them new IDs. It returns the new trace IDs by the file's.
func replay(t *testing.T, url string, encoding otlptracehttp.Encoding, file string) map[string]string {
	t.Helper()
	var spans []conversation.Span
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	for l := range strings.Lines(string(data)) {
		req, err := conversation.DecodeJSON([]byte(l))
		require.NoError(t, err)
		spans = append(spans, conversation.Spans(req)...)
	}
	exp, err := otlptracehttp.New(t.Context(), otlptracehttp.WithEndpointURL(url+"/otlp/v1/traces"), otlptracehttp.WithEncoding(encoding))
	require.NoError(t, err)
	// A syncer exports each span when it ends, one request each: the
	// children before their root, as a trace's spans arrive over time.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	tracer := tp.Tracer("travel-agent")
	started := map[string]trace.Span{}
	traces := map[string]string{}
	var begin func(parent string, ctx context.Context)
	begin = func(parent string, ctx context.Context) {
		for _, s := range spans {
			if s.ParentID != parent || parent == "" && started[s.SpanID] != nil {
				continue
			}
			var kvs []attribute.KeyValue
			for k, v := range s.Attrs {
				switch x := v.(type) {
				case string:
					kvs = append(kvs, attribute.String(k, x))
				case int64:
					kvs = append(kvs, attribute.Int64(k, x))
				case bool:
					kvs = append(kvs, attribute.Bool(k, x))
				}
			}
			slices.SortFunc(kvs, func(a, b attribute.KeyValue) int { return strings.Compare(string(a.Key), string(b.Key)) })
			sctx, span := tracer.Start(ctx, s.Name, trace.WithTimestamp(time.Unix(0, int64(s.Start))), trace.WithAttributes(kvs...))
			started[s.SpanID] = span
			traces[s.TraceID] = span.SpanContext().TraceID().String()
			begin(s.SpanID, sctx)
		}
	}
	for _, s := range spans {
		if s.ParentID == "" {
			begin("", context.Background())
			break
		}
	}
	// End them children first, as they do.
	for _, s := range slices.Backward(spans) {
		if s.ParentID != "" {
			if s.Error {
				started[s.SpanID].SetStatus(codes.Error, s.Status)
			}
			started[s.SpanID].End(trace.WithTimestamp(time.Unix(0, int64(s.End))))
		}
	}
	for _, s := range spans {
		if s.ParentID == "" {
			started[s.SpanID].End(trace.WithTimestamp(time.Unix(0, int64(s.End))))
		}
	}
	return traces
}

// TestConversationScoredEqualFromThreeInputs scores one conversation from
// OpenAI messages (JSON Lines), from an OTLP JSON file export of its
// spans, and live: the same spans sent by the OpenTelemetry Go SDK's
// OTLP/HTTP exporter, protobuf and JSON, to assay serve's
// /otlp/v1/traces on 127.0.0.1. Every conversation metric gives the same
// value, points and reason from all three.
func TestConversationScoredEqualFromThreeInputs(t *testing.T) {
	t.Parallel()
	fromMessages, err := dataset.Load(fixtureMessages)
	require.NoError(t, err)
	fromFile, err := dataset.Load(fixtureSpans)
	require.NoError(t, err)
	require.Len(t, fromFile, 1)
	want := scoresOf(t, fromMessages[0].Sample)
	assert.Equal(t, want, scoresOf(t, fromFile[0].Sample), "messages and the OTLP file export")

	for name, enc := range map[string]otlptracehttp.Encoding{"protobuf": otlptracehttp.EncodingProtobuf, "json": otlptracehttp.EncodingJSON} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := start(t, Config{})
			traces := replay(t, s.URL, enc, fixtureSpans)
			// The second trace's model call carries the whole history: its
			// conversation is the whole one (the first trace's is its first
			// turn, judged too).
			second := traces["5b8efff798038103d269b633813fc60d"]
			require.NotEmpty(t, second)
			var got *Trace
			eventually(t, "the second trace judged", func() bool {
				tr, err := s.Trace(t.Context(), second)
				if err != nil || !tr.Judged {
					return false
				}
				got = tr
				return true
			})
			assert.Equal(t, "trip-42", got.Metadata["conversation_id"])
			var live []string
			for _, m := range DefaultConversationMetrics() {
				i := slices.IndexFunc(got.Scores, func(sc TraceScore) bool { return sc.Metric == m })
				require.GreaterOrEqual(t, i, 0, m)
				sc := got.Scores[i]
				live = append(live, line(sc.Metric, sc.Value, sc.Points, sc.Max, sc.Reason))
			}
			assert.Equal(t, want, live, "messages and live OTLP")
			first, err := s.Trace(t.Context(), traces["5b8efff798038103d269b633813fc60c"])
			require.NoError(t, err, "the first trace is journaled too")
			assert.Equal(t, "trip-42", first.Metadata["conversation_id"])
		})
	}
}

func TestOTLPAnswersPerSpec(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	noContent, err := os.ReadFile("../fixtures/agents/nocontent.spans.jsonl")
	require.NoError(t, err)
	tests := map[string]struct {
		body, contentType string
		status            int
		rejected          int64
		msg               string
	}{
		"a whole trace, JSON": {string(noContent), "application/json", http.StatusOK, 0, ""},
		"spans without ids": {`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"x","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}]}]}]}`,
			"application/json; charset=utf-8", http.StatusOK, 1, "without a valid trace ID"},
		"a trace ID of zeros": {otlpSpan("00000000000000000000000000000000", "00f067aa0ba902b7", ""),
			"application/json", http.StatusOK, 1, "without a valid trace ID"},
		"a span ID of zeros": {otlpSpan("4bf92f3577b34da6a3ce929d0e0e4736", "0000000000000000", ""),
			"application/json", http.StatusOK, 1, "without a valid trace ID"},
		"a parent ID of 4 bytes": {otlpSpan("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "0a0b0c0d"),
			"application/json", http.StatusOK, 1, "parent span ID"},
		"not OTLP":           {`[1,2]`, "application/json", http.StatusBadRequest, 0, "OTLP export request"},
		"not protobuf":       {"\xff\xff\xff", "application/x-protobuf", http.StatusBadRequest, 0, "not an OTLP protobuf export request"},
		"wrong content type": {`{}`, "text/plain", http.StatusUnsupportedMediaType, 0, "OTLP/HTTP sends"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { // in turn: the trace is looked for after
			code, body := call(t, http.MethodPost, s.URL+"/otlp/v1/traces", tc.body, "Content-Type", tc.contentType)
			require.Equal(t, tc.status, code, body)
			if code != http.StatusOK {
				assert.Contains(t, body, tc.msg)
				return
			}
			var resp coltrace.ExportTraceServiceResponse
			require.NoError(t, protojson.Unmarshal([]byte(body), &resp))
			assert.Equal(t, tc.rejected, resp.GetPartialSuccess().GetRejectedSpans())
			assert.Contains(t, resp.GetPartialSuccess().GetErrorMessage(), tc.msg)
		})
	}
	// The conversation without content is journaled and its scores are
	// not_evaluable: skipped, shown (the trace, the summary), never a
	// value.
	var tr *Trace
	eventually(t, "the trace without content judged", func() bool {
		got, err := s.Trace(t.Context(), "5b8efff798038103d269b633813fc60c")
		tr = got
		return err == nil && got.Judged
	})
	require.Len(t, tr.Scores, len(DefaultConversationMetrics()))
	for _, sc := range tr.Scores {
		assert.Equal(t, "skipped", sc.Outcome, sc.Metric)
		assert.Equal(t, "not_evaluable", sc.Error, sc.Metric)
		assert.Equal(t, "not_evaluable: "+conversation.NotEvaluableReason, sc.Reason, sc.Metric)
	}
	sum, err := s.TraceSummary(t.Context(), SummaryQuery{})
	require.NoError(t, err)
	require.Len(t, sum.Groups, len(DefaultConversationMetrics()))
	for _, g := range sum.Groups {
		assert.Equal(t, [5]int{1, 0, 0, 1, 1}, [5]int{g.N, g.Scored, g.Defaulted, g.Skipped, g.NotEvaluable}, g.Metric)
		assert.Nil(t, g.Mean, g.Metric)
	}
}

// otlpSpan is an OTLP JSON export of one chat span with these IDs
// (parent "" for none).
func otlpSpan(traceID, spanID, parentID string) string {
	return `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"` + traceID + `","spanId":"` + spanID + `","parentSpanId":"` + parentID +
		`","name":"chat m","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}]}]}]}`
}

func TestSpanBufferWaitsForTheRoot(t *testing.T) {
	t.Parallel()
	b := newSpanBuffer(2, 10)
	add := func(spans ...conversation.Span) [][]conversation.Span {
		got, refused := b.add(spans)
		require.Zero(t, refused)
		return got
	}
	child := func(trace string) conversation.Span {
		return conversation.Span{TraceID: trace, SpanID: "c" + trace, ParentID: "r" + trace}
	}
	root := func(trace string) conversation.Span { return conversation.Span{TraceID: trace, SpanID: "r" + trace} }
	assert.Empty(t, add(child("1")), "no root yet")
	got := add(root("1"), child("2"))
	require.Len(t, got, 1)
	assert.Len(t, got[0], 2, "the trace whole, its child kept")
	assert.Empty(t, add(child("3")))
	got = add(child("4"))
	require.Len(t, got, 1, "three waiting, two allowed: the oldest goes as it is")
	assert.Equal(t, "2", got[0][0].TraceID)
	b.putBack(got)
	got = add(root("2"))
	require.Len(t, got, 1, "a trace put back is whole when its root comes again")
	assert.Len(t, got[0], 2)
}

// TestSpanBufferKeepsARetriedSpanOnce: an export refused 429 puts its
// traces back, and the exporter sends the same spans again; each is kept
// once, however many retries, and the root sent again makes the trace
// whole.
func TestSpanBufferKeepsARetriedSpanOnce(t *testing.T) {
	t.Parallel()
	b := newSpanBuffer(10, 10)
	export := []conversation.Span{
		{TraceID: "t", SpanID: "c1", ParentID: "r"}, {TraceID: "t", SpanID: "c2", ParentID: "r"}, {TraceID: "t", SpanID: "r"},
	}
	got, refused := b.add(export)
	require.Zero(t, refused)
	require.Len(t, got, 1)
	for retry := range 3 {
		b.putBack(got) // the queue was full: 429
		got, refused = b.add(export)
		require.Zero(t, refused)
		require.Len(t, got, 1, "retry %d", retry)
		assert.Len(t, got[0], 3, "retry %d: each span once", retry)
	}
	got, _ = b.add([]conversation.Span{{TraceID: "t", SpanID: "c1", ParentID: "r"}})
	assert.Empty(t, got, "once the trace is taken, a span of its id starts a new one")
}

// TestSpanBufferBoundsTheSpansOfATrace: a trace waiting for its root
// holds at most maxSpans spans; those past it are refused and counted,
// the root is always taken and makes the trace whole with what it
// holds, and other traces are not concerned.
func TestSpanBufferBoundsTheSpansOfATrace(t *testing.T) {
	t.Parallel()
	children := func(trace string, n int) []conversation.Span {
		out := make([]conversation.Span, n)
		for i := range out {
			out[i] = conversation.Span{TraceID: trace, SpanID: fmt.Sprint("c", i), ParentID: "r"}
		}
		return out
	}
	root := conversation.Span{TraceID: "a", SpanID: "r"}
	tests := map[string]struct {
		batches [][]conversation.Span
		refused []int // per batch
		whole   []int // spans of each trace made whole by the last batch
	}{
		"under the bound": {batches: [][]conversation.Span{children("a", 2), {root}}, refused: []int{0, 0}, whole: []int{3}},
		"at the bound":    {batches: [][]conversation.Span{children("a", 3), {root}}, refused: []int{0, 0}, whole: []int{4}},
		"past it in one request": {batches: [][]conversation.Span{append(children("a", 5), root)},
			refused: []int{2}, whole: []int{4}},
		"past it over requests": {batches: [][]conversation.Span{children("a", 2), children("a", 2), children("a", 100), {root}},
			refused: []int{0, 1, 100, 0}, whole: []int{4}},
		"another trace is not concerned": {batches: [][]conversation.Span{children("a", 4), append(children("b", 3), conversation.Span{TraceID: "b", SpanID: "r"})},
			refused: []int{1, 0}, whole: []int{4}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newSpanBuffer(10, 3)
			var got [][]conversation.Span
			for i, batch := range tc.batches {
				var refused int
				got, refused = b.add(batch)
				assert.Equal(t, tc.refused[i], refused, "batch %d", i)
			}
			var sizes []int
			for _, tr := range got {
				sizes = append(sizes, len(tr))
			}
			assert.Equal(t, tc.whole, sizes)
		})
	}
}

// TestOTLPRefusesSpansPastATracesBound: an exporter that sends spans of
// one trace whose root never comes is refused those past
// Config.MaxTraceSpans (1000 by default), each counted in the answer's
// partial_success; the root is taken, and the trace judged.
func TestOTLPRefusesSpansPastATracesBound(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	const trace = "6e0c63257de34c926f9efcd03899f9aa"
	export := func(from, n int, root bool) string {
		spans := make([]string, 0, n+1)
		for i := range n {
			spans = append(spans, fmt.Sprintf(`{"traceId":%q,"spanId":"%016x","parentSpanId":"00f067aa0ba902b7","name":"chat m",`+
				`"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}`, trace, 0x1000+from+i))
		}
		if root {
			spans = append(spans, `{"traceId":"`+trace+`","spanId":"00f067aa0ba902b7","name":"invoke_agent a",`+
				`"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]}`)
		}
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
	}
	steps := []struct {
		name     string
		body     string
		rejected int64
	}{
		{"900 spans, held", export(0, 900, false), 0},
		{"150 more: 50 past the bound", export(900, 150, false), 50},
		{"20 more, all past it", export(1050, 20, false), 20},
		{"the root, taken with 5 more refused", export(1070, 5, true), 5},
	}
	for _, st := range steps {
		code, body := call(t, http.MethodPost, s.URL+"/otlp/v1/traces", st.body, "Content-Type", "application/json")
		require.Equal(t, http.StatusOK, code, "%s: %s", st.name, body)
		var resp coltrace.ExportTraceServiceResponse
		require.NoError(t, protojson.Unmarshal([]byte(body), &resp), st.name)
		assert.Equal(t, st.rejected, resp.GetPartialSuccess().GetRejectedSpans(), st.name)
		if st.rejected > 0 {
			assert.Contains(t, resp.GetPartialSuccess().GetErrorMessage(), "already holds 1000 spans waiting for its root span", st.name)
		}
	}
	eventually(t, "the trace judged with the spans it held", func() bool {
		got, err := s.Trace(t.Context(), trace)
		return err == nil && got.Judged
	})
}

// TestATraceWhoseRootIsRemoteIsWholeAtItsLocalRoot sends, through the
// OpenTelemetry Go SDK's OTLP/HTTP exporter, the spans of an agent
// service that was called with a traceparent: its top span's parent is
// in the caller, so no span of the trace here is a root. Its trace is
// whole when that top span comes, and judged; it used to wait until
// --queue other traces pushed it out.
func TestATraceWhoseRootIsRemoteIsWholeAtItsLocalRoot(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	exp, err := otlptracehttp.New(t.Context(), otlptracehttp.WithEndpointURL(s.URL+"/otlp/v1/traces"))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()

	caller := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled, Remote: true,
	})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), caller)
	tracer := tp.Tracer("agent")
	ctx, agent := tracer.Start(ctx, "invoke_agent weather", trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent")))
	_, chat := tracer.Start(ctx, "chat m", trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat")))
	chat.End()
	agent.End()

	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	eventually(t, "the trace with a remote parent judged", func() bool {
		got, err := s.Trace(t.Context(), id)
		return err == nil && got.Judged
	})
}
