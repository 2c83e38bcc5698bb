package serve

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/trace"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/telemetry"
)

// traced is the server's handler with a server span per request
// (telemetry.Middleware): named after the route pattern that served it
// ("POST /v1/judge"), the caller's child when the request carries a W3C
// traceparent, so the run, sample and model-call spans a handler starts
// from the request's context land in the caller's trace. A no-op span
// while tracing is off.
func traced(h http.Handler) http.Handler { return telemetry.Middleware(h, "") }

// spanRef is the span of the request that left work to the background.
type spanRef = trace.SpanContext

// spanOf is the span context of a request, kept with work the request
// leaves to the background (a sampled trace, a run) so that its spans are
// the request's children.
func spanOf(r *http.Request) spanRef { return trace.SpanContextFromContext(r.Context()) }

// under is ctx (the background work's, for its cancellation) carrying
// parent as its span: the spans started from it are parent's children,
// in its trace. A zero parent (a trace or run resumed after a restart,
// whose request is gone) leaves ctx as it is: its spans start a trace.
func under(ctx context.Context, parent trace.SpanContext) context.Context {
	if !parent.IsValid() {
		return ctx
	}
	return trace.ContextWithSpanContext(ctx, parent)
}

// judgeContext is the context a sampled trace is judged in: the trace
// queue's, under the span of the request that posted it, so its sample
// span, model calls and evaluation events are in the caller's trace.
func judgeContext(ctx context.Context, it traceItem) context.Context {
	return under(ctx, it.parent)
}

// startJudgeRun opens the run span of POST /v1/judge's judgement of one
// sample with metrics, the request's child; end closes it with what the
// judgement did.
func startJudgeRun(ctx context.Context, metrics []string) (context.Context, func([]eval.Score, error)) {
	ctx, run := telemetry.StartRun(ctx, "assay.judge", "", metrics)
	return ctx, func(scores []eval.Score, err error) {
		e := telemetry.RunEnd{Records: 1, Err: err}
		if err == nil && len(scores) == len(metrics) {
			e.Judged = 1
		}
		run.End(e)
	}
}
