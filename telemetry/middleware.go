package telemetry

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Middleware returns next with a server span per request, named
// "{method} {route}": route is the pattern next is mounted at, such as
// "/v1/judge"; with route "" next is a whole http.ServeMux and the span
// takes the pattern that served the request ("POST /v1/judge"), or the
// method alone when none did. The span has the HTTP semantic conventions'
// attributes and the response status, and continues the caller's trace
// when the request carries a W3C traceparent header, so the run, sample
// and model-call spans the handler starts from r.Context() land in the
// caller's trace.
//
// While no tracer provider is installed (Installed), a request goes to
// next as it came: otelhttp's no-op path still reads the headers and
// wraps the request and the writer, 36 allocations and several
// microseconds a request for spans nobody records.
func Middleware(next http.Handler, route string) http.Handler {
	in := next
	if route == "" {
		in = routed(next)
	}
	traced := otelhttp.NewHandler(in, route,
		otelhttp.WithPropagators(Propagator()),
		otelhttp.WithSpanNameFormatter(func(route string, r *http.Request) string {
			return spanName(route, r)
		}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !Installed() {
			next.ServeHTTP(w, r)
			return
		}
		traced.ServeHTTP(w, r)
	})
}

// defaultProvider is OpenTelemetry's global tracer provider as the
// process starts: a no-op until another is installed.
var defaultProvider = otel.GetTracerProvider()

// Installed reports whether a tracer provider has been installed
// (Setup's, or a program's own otel.SetTracerProvider) and is the global
// one now; false while it is OpenTelemetry's default, whose spans are
// no-ops, as when no OTEL_* variable asks for tracing.
func Installed() bool {
	// The default's dynamic type is a pointer: the comparison cannot panic.
	return otel.GetTracerProvider() != defaultProvider
}

// spanName is the server span's name for r.
func spanName(route string, r *http.Request) string {
	switch {
	case route != "":
		return r.Method + " " + route
	case r.Pattern == "":
		return r.Method
	case strings.Contains(r.Pattern, " "):
		return r.Pattern // "POST /v1/judge" names the method
	}
	return r.Method + " " + r.Pattern
}

// routed is mux with the http.route of the pattern that served a request
// set on the request's span, as otelhttp reads the pattern before the mux
// has chosen it.
func routed(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if r.Pattern == "" {
			return
		}
		p := r.Pattern
		if _, path, ok := strings.Cut(p, " "); ok {
			p = path // without the method
		}
		if i := strings.Index(p, "/"); i > 0 {
			p = p[i:] // without the host
		}
		trace.SpanFromContext(r.Context()).SetAttributes(semconv.HTTPRoute(p))
	})
}
