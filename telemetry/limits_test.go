package telemetry_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/assaylabs/assay/telemetry"
)

// TestSetupBoundsAttributeValues: a request's User-Agent and path, which
// a client sets to anything up to the server's header limit, reach the
// collector (over OTLP/HTTP protobuf) cut at MaxAttributeLength
// characters, or at OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT when set.
func TestSetupBoundsAttributeValues(t *testing.T) {
	tests := map[string]struct {
		limit string
		want  int
	}{
		"by default":             {want: telemetry.MaxAttributeLength},
		"as the variable says":   {limit: "100", want: 100},
		"unlimited when told so": {limit: "-1", want: 100_000},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", tc.limit) // the SDK reads it from the process
			var mu sync.Mutex
			longest := map[string]int{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, err := io.ReadAll(r.Body)
				require.NoError(t, err)
				var req collectortrace.ExportTraceServiceRequest
				require.NoError(t, proto.Unmarshal(body, &req))
				mu.Lock()
				defer mu.Unlock()
				for _, rs := range req.GetResourceSpans() {
					for _, ss := range rs.GetScopeSpans() {
						for _, s := range ss.GetSpans() {
							for _, a := range s.GetAttributes() {
								longest[a.GetKey()] = max(longest[a.GetKey()], len(a.GetValue().GetStringValue()))
							}
						}
					}
				}
				w.Header().Set("Content-Type", "application/x-protobuf")
			}))
			t.Cleanup(srv.Close)
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT": tc.limit}
			shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return env[k] })
			require.NoError(t, err)
			h := telemetry.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), "")
			req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/"+strings.Repeat("p", 99_999), nil)
			req.Header.Set("User-Agent", strings.Repeat("A", 100_000))
			h.ServeHTTP(httptest.NewRecorder(), req)
			require.NoError(t, shutdown(t.Context()))
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tc.want, longest["user_agent.original"])
			assert.Equal(t, tc.want, longest["url.path"])
		})
	}
}
