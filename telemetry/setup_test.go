package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/assaylabs/assay/telemetry"
)

// collector is a fake OTLP/HTTP collector on a loopback port: it keeps
// each export it is sent.
type collector struct {
	srv     *httptest.Server
	mu      sync.Mutex
	exports []export
}

// export is one request a collector was sent, decoded.
type export struct {
	path, contentType string
	services, spans   []string
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req collectortrace.ExportTraceServiceRequest
		ct := r.Header.Get("Content-Type")
		if ct == "application/json" {
			err = protojson.Unmarshal(body, &req)
		} else {
			err = proto.Unmarshal(body, &req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		e := export{path: r.URL.Path, contentType: ct}
		for _, rs := range req.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					e.services = append(e.services, a.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					e.spans = append(e.spans, s.GetName())
				}
			}
		}
		c.mu.Lock()
		c.exports = append(c.exports, e)
		c.mu.Unlock()
		w.Header().Set("Content-Type", ct)
		if ct == "application/json" {
			_, _ = w.Write([]byte("{}"))
		}
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) got() []export {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]export(nil), c.exports...)
}

func TestSetupExportsWhenAnEndpointIsSet(t *testing.T) {
	tests := map[string]struct {
		env     func(url string) map[string]string
		sampler string // OTEL_TRACES_SAMPLER in the process, which the SDK reads
		want    []export
	}{
		"a base endpoint gets /v1/traces, protobuf, the service named": {
			env: func(url string) map[string]string {
				return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url + "/", "OTEL_SERVICE_NAME": "rag-eval"}
			},
			want: []export{{path: "/v1/traces", contentType: "application/x-protobuf", services: []string{"rag-eval"}, spans: []string{"probe"}}},
		},
		"a traces endpoint is used as it is, over the base one; http/json": {
			env: func(url string) map[string]string {
				return map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url + "/collect", "OTEL_EXPORTER_OTLP_ENDPOINT": url + "/base",
					"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
			},
			want: []export{{path: "/collect", contentType: "application/json", services: []string{telemetry.DefaultServiceName}, spans: []string{"probe"}}},
		},
		"a base endpoint with a query gets /v1/traces on its path": {
			env: func(url string) map[string]string {
				return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url + "/base/?tenant=t1"}
			},
			want: []export{{path: "/base/v1/traces", contentType: "application/x-protobuf", services: []string{telemetry.DefaultServiceName}, spans: []string{"probe"}}},
		},
		"the SDK's sampler from the environment: always_off exports nothing": {
			env:     func(url string) map[string]string { return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url} },
			sampler: "always_off",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OTEL_TRACES_SAMPLER", tc.sampler)
			c := newCollector(t)
			env := tc.env(c.srv.URL)
			before := otel.GetTracerProvider()
			shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return env[k] })
			require.NoError(t, err)
			assert.NotEqual(t, before, otel.GetTracerProvider(), "a provider is installed")
			_, span := otel.Tracer("test").Start(context.Background(), "probe")
			span.End()
			require.NoError(t, shutdown(t.Context()))
			assert.Equal(t, before, otel.GetTracerProvider(), "shutdown puts the previous provider back")
			assert.Equal(t, tc.want, c.got())
		})
	}
}

// TestShutdownSaysWhereTheSpansWereNotSent: spans that a collector did
// not take before the flush's deadline are reported with the collector's
// address (its password masked), not as a bare "context deadline
// exceeded".
func TestShutdownSaysWhereTheSpansWereNotSent(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a collector that hangs until the test ends
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	endpoint := strings.Replace(srv.URL, "http://", "http://probe:s3cret@", 1) + "/v1/traces"
	env := map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint}
	shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return env[k] })
	require.NoError(t, err)
	_, span := otel.Tracer("test").Start(context.Background(), "probe")
	span.End()
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the flush's time is up
	err = shutdown(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "not all sent to the collector at http://probe:xxxxx@127.0.0.1:")
	assert.NotContains(t, err.Error(), "s3cret")
}

// TestShutdownSaysACollectorRefusedTheSpans: a collector that answers
// an export with an error (here 400) is named in shutdown's error, in
// the words serving.md quotes, rather than logged by the SDK in a line
// of its own that names no collector.
func TestShutdownSaysACollectorRefusedTheSpans(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad export", http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}
	shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return env[k] })
	require.NoError(t, err)
	_, span := otel.Tracer("test").Start(context.Background(), "probe")
	span.End()
	err = shutdown(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the spans still held were not all sent to the collector at "+srv.URL+"/v1/traces: ")
	assert.Contains(t, err.Error(), "400")

	// A later setup starts with no error of this one.
	c := newCollector(t)
	shutdown, err = telemetry.Setup(t.Context(), func(k string) string { return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": c.srv.URL}[k] })
	require.NoError(t, err)
	assert.NoError(t, shutdown(t.Context()))
}

func TestSetupIsOffUnlessAsked(t *testing.T) {
	tests := map[string]struct {
		env map[string]string
		err string
	}{
		"no variable":                 {},
		"a service name alone":        {env: map[string]string{"OTEL_SERVICE_NAME": "x"}},
		"the SDK disabled":            {env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}},
		"the exporter none":           {env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}},
		"an endpoint with no scheme":  {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, err: "OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4318: want the collector's http:// or https:// URL"},
		"a traces endpoint not a URL": {env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://"}, err: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://: want"},
		"an exporter this build lacks": {env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"},
			err: "OTEL_TRACES_EXPORTER=zipkin: assay exports traces with otlp"},
		"gRPC, which this build does not link": {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"},
			err: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc: assay exports traces over OTLP/HTTP"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			before := otel.GetTracerProvider()
			shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return tc.env[k] })
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, before, otel.GetTracerProvider(), "nothing installed")
			require.NotNil(t, shutdown)
			assert.NoError(t, shutdown(t.Context()))
		})
	}
}

// TestShutdownMasksTheEndpointsSecrets: a collector named in shutdown's
// error is shown without its password or its query's values (a key, for
// some collectors).
func TestShutdownMasksTheEndpointsSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad export", http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	tests := map[string]struct {
		name, endpoint, want string
	}{
		"a key in a traces endpoint's query": {name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", endpoint: srv.URL + "/v1/traces?api_key=s3cret",
			want: "collector at http://" + host + "/v1/traces?api_key=xxxxx: "},
		"a key in a base endpoint's query, and a password": {name: "OTEL_EXPORTER_OTLP_ENDPOINT", endpoint: "http://u:s3cret@" + host + "?api_key=s3cret",
			want: "collector at http://u:xxxxx@" + host + "/v1/traces?api_key=xxxxx: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{tc.name: tc.endpoint}
			shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return env[k] })
			require.NoError(t, err)
			_, span := otel.Tracer("test").Start(context.Background(), "probe")
			span.End()
			err = shutdown(t.Context())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}
