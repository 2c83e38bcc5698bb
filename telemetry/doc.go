// Package telemetry carries Assay's judgements to a team's tracing with
// OpenTelemetry: a span per model call in the GenAI semantic conventions
// (`chat {model}`), a span per run and per sample, and one
// `gen_ai.evaluation.result` event per (sample, metric).
//
// It is off by default. Setup turns it on when the standard OTEL_*
// variables ask for it (an OTLP endpoint), exporting over OTLP/HTTP;
// otherwise nothing is installed and every hook here costs a no-op span.
//
//	shutdown, err := telemetry.Setup(ctx, os.Getenv)
//	if err != nil { ... } // a variable with a bad value, named
//	defer shutdown(context.Background()) // flushes the spans still held
//
// The hooks read the global tracer provider at each call, so they follow
// whatever Setup (or a test) installed:
//   - Backend wraps an llm.Backend: each chat and embedding request is a
//     client span, child of the caller's context.
//   - StartRun, StartSample, Evaluated and Scorers are what bench calls
//     around a run, each sample and each score.
//   - Middleware continues a caller's trace from its traceparent header.
package telemetry
