package telemetry_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"

	"github.com/assaylabs/assay/telemetry"
)

// TestSetupRejectsWhatTheSDKWouldDrop: the OTEL_* variables the SDK
// reads on its own are checked before it reads them, and a value it
// would drop (logging it, a header's secret with it), ignore or panic on
// is Setup's error naming the variable, with no header value in it, and
// nothing installed.
func TestSetupRejectsWhatTheSDKWouldDrop(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	tests := map[string]struct {
		env  map[string]string
		want []string
	}{
		"a sampler the SDK has not": {env: map[string]string{"OTEL_TRACES_SAMPLER": "bogus"},
			want: []string{"OTEL_TRACES_SAMPLER=bogus: want always_on"}},
		"a ratio that is no number": {env: map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "abc"},
			want: []string{"OTEL_TRACES_SAMPLER_ARG=abc: want the share of traces to keep, a number from 0 to 1"}},
		"a ratio over 1": {env: map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "1.5"},
			want: []string{"OTEL_TRACES_SAMPLER_ARG=1.5: want"}},
		"a ratio NaN": {env: map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "NaN"},
			want: []string{"OTEL_TRACES_SAMPLER_ARG=NaN: want"}},
		"a timeout that is no number": {env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
			want: []string{"OTEL_EXPORTER_OTLP_TIMEOUT=10s: want a number of milliseconds above 0"}},
		"a negative queue size, which panics in the SDK": {env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "-1"},
			want: []string{"OTEL_BSP_MAX_QUEUE_SIZE=-1: want a number of spans above 0"}},
		"a schedule delay of 0": {env: map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "0"},
			want: []string{"OTEL_BSP_SCHEDULE_DELAY=0: want"}},
		"a span limit that is no number": {env: map[string]string{"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT": "lots"},
			want: []string{"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT=lots: want a whole number"}},
		"a compression the SDK would take as none": {env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			want: []string{"OTEL_EXPORTER_OTLP_COMPRESSION=zstd: want gzip or none"}},
		"a header value not percent-encoded, never echoed": {env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x-team=eval,Authorization=Bearer%zzs3cret"},
			want: []string{"OTEL_EXPORTER_OTLP_HEADERS: header 2 (Authorization): its value is not percent-encoded"}},
		"a header with no =, never echoed": {env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key s3cret"},
			want: []string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS: header 1 has no '='"}},
		"a header key that is no header name": {env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "bad key=s3cret"},
			want: []string{"OTEL_EXPORTER_OTLP_HEADERS: header 1: its key is no HTTP header name"}},
		"a CA file that is missing": {env: map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"},
			want: []string{"OTEL_EXPORTER_OTLP_CERTIFICATE=/nonexistent/ca.pem: open /nonexistent/ca.pem"}},
		"a CA file with no certificate": {env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": notPEM},
			want: []string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE=" + notPEM + ": no PEM certificate in it"}},
		"a client certificate without its key": {env: map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": notPEM},
			want: []string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY: set both or neither"}},
		"resource attributes that are not key=value": {env: map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "team"},
			want: []string{"OTEL_RESOURCE_ATTRIBUTES: want key=value pairs"}},
		"every bad variable is named": {env: map[string]string{"OTEL_TRACES_SAMPLER": "x", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "0"},
			want: []string{"OTEL_TRACES_SAMPLER=x: ", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=0: "}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
			for k, v := range tc.env {
				env[k] = v
			}
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", env["OTEL_RESOURCE_ATTRIBUTES"]) // the SDK reads it from the process
			before := otel.GetTracerProvider()
			shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return env[k] })
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "s3cret")
			assert.Equal(t, before, otel.GetTracerProvider(), "nothing installed")
			assert.NoError(t, shutdown(t.Context()))
		})
	}
}

// TestSetupTakesTheSDKVariablesWhenGood: good values of the same
// variables pass.
func TestSetupTakesTheSDKVariablesWhenGood(t *testing.T) {
	tests := map[string]map[string]string{
		"a ratio sampler":    {"OTEL_TRACES_SAMPLER": "ParentBased_TraceIDRatio", "OTEL_TRACES_SAMPLER_ARG": "0.25"},
		"an argument unused": {"OTEL_TRACES_SAMPLER": "always_on", "OTEL_TRACES_SAMPLER_ARG": "junk"},
		"numbers":            {"OTEL_EXPORTER_OTLP_TIMEOUT": "2000", "OTEL_BSP_EXPORT_TIMEOUT": "0", "OTEL_SPAN_EVENT_COUNT_LIMIT": "-1"},
		"headers and gzip": {"OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x-team = eval,", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS": ""},
	}
	for name, vars := range tests {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
			for k, v := range vars {
				env[k] = v
			}
			shutdown, err := telemetry.Setup(t.Context(), func(k string) string { return env[k] })
			require.NoError(t, err)
			require.NoError(t, shutdown(t.Context()))
		})
	}
}
