package telemetry

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
)

// Middleware returns next with a server span per request, named
// "{method} {route}" (route is the pattern it is mounted at, such as
// "/v1/judge"), with the HTTP semantic conventions' attributes and the
// response status. The span continues the caller's trace when the request
// carries a W3C traceparent header, so the run, sample and model-call
// spans the handler starts from r.Context() land in the caller's trace.
// With tracing off the span is a no-op.
func Middleware(next http.Handler, route string) http.Handler {
	return otelhttp.NewHandler(next, route,
		otelhttp.WithPropagators(Propagator()),
		otelhttp.WithSpanNameFormatter(func(route string, r *http.Request) string {
			return r.Method + " " + route
		}))
}
