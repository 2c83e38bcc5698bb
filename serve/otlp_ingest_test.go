package serve

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// otlpConversationSpan is an OTLP JSON export of one root chat span of
// trace, with the string attribute key set to conv.
func otlpConversationSpan(t *testing.T, trace, key, conv string) string {
	t.Helper()
	b, err := json.Marshal(conv)
	require.NoError(t, err)
	return `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"` + trace + `","spanId":"00f067aa0ba902b7","name":"chat m","attributes":[` +
		`{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"` + key + `","value":{"stringValue":` + string(b) + `}}]}]}]}]}`
}

func gzipped(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.String()
}

// TestOTLPIngestRefusesWhatItCannotTake: an OTLP export is taken
// gzipped (Content-Encoding gzip in any case, or x-gzip) or as it is; a
// body that inflates past --max-body is refused 413 without being
// inflated whole, another coding 415, a conversation id
// (gen_ai.conversation.id, session.id) that is not a valid trace id 400;
// each refusal names its field and stores nothing.
func TestOTLPIngestRefusesWhatItCannotTake(t *testing.T) {
	t.Parallel()
	s := start(t, Config{MaxBody: 1 << 20})
	bomb := gzipped(t, make([]byte, 64<<20)) // 64 MiB of zeros: some 65 kB
	require.Less(t, len(bomb), 1<<20)
	span := func(key, conv string) func(string) string {
		return func(trace string) string { return otlpConversationSpan(t, trace, key, conv) }
	}
	zipped := func(conv string) func(string) string {
		return func(trace string) string {
			return gzipped(t, []byte(otlpConversationSpan(t, trace, "gen_ai.conversation.id", conv)))
		}
	}
	raw := func(b string) func(string) string { return func(string) string { return b } }
	tests := map[string]struct {
		body       func(trace string) string
		encoding   string
		status     int
		field, msg string
	}{
		"gzip":                                  {zipped("c1"), "gzip", http.StatusOK, "", ""},
		"GZIP, as HTTP codings are in any case": {zipped("c2"), "GZIP", http.StatusOK, "", ""},
		"x-gzip":                                {zipped("c3"), "x-gzip", http.StatusOK, "", ""},
		"identity":                              {span("gen_ai.conversation.id", "c4"), "identity", http.StatusOK, "", ""},
		"a conversation id of 256 bytes":        {span("gen_ai.conversation.id", strings.Repeat("c", MaxTraceIDBytes)), "", http.StatusOK, "", ""},
		"a gzip bomb":                           {raw(bomb), "gzip", http.StatusRequestEntityTooLarge, "Content-Encoding", "larger than 1048576 bytes once gunzipped"},
		"not gzip":                              {raw("not gzip"), "gzip", http.StatusBadRequest, "Content-Encoding", "Content-Encoding gzip"},
		"deflate":                               {span("gen_ai.conversation.id", "c5"), "deflate", http.StatusUnsupportedMediaType, "Content-Encoding", `Content-Encoding "deflate"`},
		"br":                                    {raw("\x0b\x02\x80"), "br", http.StatusUnsupportedMediaType, "Content-Encoding", `Content-Encoding "br"`},
		"a conversation id of 900 kB": {span("gen_ai.conversation.id", strings.Repeat("c", 900_000)), "",
			http.StatusBadRequest, "gen_ai.conversation.id", "gen_ai.conversation.id: 900000 bytes: a trace id has at most 256"},
		"a conversation id with a bidirectional override": {span("gen_ai.conversation.id", "abc\u202e<script>"), "",
			http.StatusBadRequest, "gen_ai.conversation.id", "holds U+202E at byte 3"},
		"a session id with a line break": {span("session.id", "s\n1"), "",
			http.StatusBadRequest, "session.id", "session.id: holds U+000A at byte 1"},
	}
	n := 0
	for name, tc := range tests {
		n++
		trace := fmt.Sprintf("%032x", 0xa11ce000+n)
		t.Run(name, func(t *testing.T) {
			body := tc.body(trace)
			code, got := call(t, http.MethodPost, s.URL+"/otlp/v1/traces", body, "Content-Type", "application/json", "Content-Encoding", tc.encoding)
			head := got[:min(len(got), 300)]
			require.Equal(t, tc.status, code, head)
			if tc.status == http.StatusOK {
				return
			}
			var eb ErrorBody
			require.NoError(t, json.Unmarshal([]byte(got), &eb), head)
			assert.Equal(t, tc.field, eb.Field)
			assert.Contains(t, eb.Error, tc.msg)
			assert.Less(t, len(got), 1000, head)
			code, _ = call(t, http.MethodGet, s.URL+"/v1/traces/"+trace, "")
			assert.Equal(t, http.StatusNotFound, code, "nothing of a refused export is stored")
		})
	}
}

// TestOTLPAnExportTooBigForTheQueueDoesNotWedgeIt: an export that makes
// more traces whole than the queue holds is refused 413, which an
// exporter does not send again; its traces used to be put back in the
// span buffer, past its bound, and pushed out into every later export,
// each refused 413 in turn. The next export is taken and judged.
func TestOTLPAnExportTooBigForTheQueueDoesNotWedgeIt(t *testing.T) {
	t.Parallel()
	s := start(t, Config{QueueSize: 4})
	export := func(from, n int) string {
		spans := make([]string, 0, n)
		for i := range n {
			spans = append(spans, fmt.Sprintf(`{"traceId":"%032x","spanId":"00f067aa0ba902b7","name":"chat m",`+
				`"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}`, from+i))
		}
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
	}
	code, body := call(t, http.MethodPost, s.URL+"/otlp/v1/traces", export(0x1000, 10), "Content-Type", "application/json")
	require.Equal(t, http.StatusRequestEntityTooLarge, code, body)
	assert.Contains(t, body, "10 traces sampled in one request: the queue holds 4")
	assert.Contains(t, body, `"field": "resourceSpans"`, "the field an OTLP export holds its traces in")
	for i := range 3 {
		code, body = call(t, http.MethodPost, s.URL+"/otlp/v1/traces", export(0x2000+i, 1), "Content-Type", "application/json")
		require.Equal(t, http.StatusOK, code, "export %d after the refused one: %s", i, body)
	}
	eventually(t, "the later export judged", func() bool {
		got, err := s.Trace(t.Context(), fmt.Sprintf("%032x", 0x2000))
		return err == nil && got.Judged
	})
}

// TestOTLPFromTheGoSDKGzipped: the OpenTelemetry Go SDK's exporter, gzip
// and protobuf, is taken; its export whose conversation id is a
// kilobyte is refused, as the SDK reports, and nothing of it is stored.
func TestOTLPFromTheGoSDKGzipped(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	tests := map[string]struct {
		conv string
		ok   bool
	}{
		"a conversation id":         {"session-42", true},
		"a conversation id of 1 kB": {strings.Repeat("s", 1024), false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exp, err := otlptracehttp.New(t.Context(), otlptracehttp.WithEndpointURL(s.URL+"/otlp/v1/traces"),
				otlptracehttp.WithCompression(otlptracehttp.GzipCompression), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
			require.NoError(t, err)
			tracer := sdktrace.NewTracerProvider().Tracer("agent")
			_, span := tracer.Start(t.Context(), "chat m", trace.WithAttributes(
				attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.conversation.id", tc.conv)))
			span.End()
			ro, ok := span.(sdktrace.ReadOnlySpan)
			require.True(t, ok)
			err = exp.ExportSpans(t.Context(), []sdktrace.ReadOnlySpan{ro})
			id := span.SpanContext().TraceID().String()
			if !tc.ok {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "400")
				code, _ := call(t, http.MethodGet, s.URL+"/v1/traces/"+id, "")
				assert.Equal(t, http.StatusNotFound, code)
				return
			}
			require.NoError(t, err)
			eventually(t, "the gzipped export judged", func() bool {
				got, err := s.Trace(t.Context(), id)
				return err == nil && got.Judged
			})
		})
	}
}
