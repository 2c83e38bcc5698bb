package telemetry

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
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
// caller's trace. With tracing off the span is a no-op.
func Middleware(next http.Handler, route string) http.Handler {
	if route == "" {
		next = routed(next)
	}
	return otelhttp.NewHandler(next, route,
		otelhttp.WithPropagators(Propagator()),
		otelhttp.WithSpanNameFormatter(func(route string, r *http.Request) string {
			return spanName(route, r)
		}))
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
