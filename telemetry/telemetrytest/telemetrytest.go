// Package telemetrytest records the spans a test makes and reads them:
// the helpers the tests of telemetry and of serve share.
package telemetrytest

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Install makes tp the global tracer provider until tb ends, when the one
// before is put back and tp is shut down. A test that installs one must
// not run in parallel with another that does.
func Install(tb testing.TB, tp *sdktrace.TracerProvider) {
	tb.Helper()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	tb.Cleanup(func() {
		otel.SetTracerProvider(prev)
		_ = tp.Shutdown(context.Background())
	})
}

// Record installs a tracer provider that keeps every span ended, in
// memory, until tb ends.
func Record(tb testing.TB) *tracetest.InMemoryExporter {
	tb.Helper()
	exp := tracetest.NewInMemoryExporter()
	Install(tb, sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))
	return exp
}

// Only is the one span named name; tb fails when there is not exactly one.
func Only(tb testing.TB, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	tb.Helper()
	got := Named(spans, name)
	if len(got) != 1 {
		tb.Fatalf("%d spans named %q, want 1", len(got), name)
	}
	return got[0]
}

// Named are the spans named name.
func Named(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Attrs is kvs as a map, to compare whole.
func Attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// Events are the attributes of s's events named name.
func Events(s tracetest.SpanStub, name string) []map[attribute.Key]attribute.Value {
	var out []map[attribute.Key]attribute.Value
	for _, e := range s.Events {
		if e.Name == name {
			out = append(out, Attrs(e.Attributes))
		}
	}
	return out
}
