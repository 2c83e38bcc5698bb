// Package serve is `assay serve`: the library behind HTTP, JSON in and
// out, for a live RAG system and for clients in any language.
//
//   - POST /v1/context-score: seed 002's context quality score and CRAG
//     action, the numbers `assay score --profile context` prints; no model
//     call and no disk write on that path.
//   - POST /v1/score, /v1/judge: a report's card, a sample's judgements,
//     by the library calls of `assay score` and `assay judge`.
//   - POST /v1/runs, GET /v1/runs/{id}: a run through bench.Execute in the
//     background, a normal run folder and run store row, resumed after a
//     restart.
//   - POST /v1/traces: production samples, sampled by a hash of their
//     trace id (Sampled), journaled in the server's SQLite file before
//     202 is answered, judged by a bounded pool from a bounded queue (429
//     when full, counted); their scores stored once per (trace, metric),
//     grouped by day and metadata (GET /v1/traces/summary). With
//     Config.Queue they go instead to a NATS JetStream queue shared by
//     several replicas and judged by `assay worker` processes; every
//     replica reads the results from the queue's bucket in one order
//     (shared.go), so their answers and alert windows agree.
//   - Live alerts (package live): every score of the live traffic (a
//     context score, a judgement of /v1/judge, a sampled trace's; not a
//     run's, a benchmark of a dataset) feeds a live.Monitor, which
//     applies seed 002's rule to each metric's recent scores against a
//     baseline (Config.Baseline, a stored run; or the first full window)
//     and sees a judge that stops answering. Its events are written to the
//     store (alert_events) and posted to Config.Webhook from goroutines
//     of its own; its state is in /metrics (read when scraped) and on
//     GET /v1/alerts.
//   - GET / and /v1/dashboard: the dashboard (package dashboard) of the
//     monitor, the run store's runs and the lowest and slowest recent
//     trace judgements with their evidence.
//   - GET /queue, /v1/queue, POST /v1/queue/labels, GET /v1/queue/export:
//     the annotation queue (package annotate) of a stored run's
//     judgements or the sampled traces', ordered by package annotation;
//     the labels in serve.db (labels), exported as a dataset `assay
//     agree --estimate` reads.
//   - GET /healthz, /metrics (Prometheus, a registry of its own),
//     /openapi.json.
//
// The bearer token, the dashboard's session cookies, the throttle of
// failed sign-ins and the Host guard are package serve/internal/auth;
// which route takes a session is decided here.
//
// A Server is built with New from a Config, serves with Serve (graceful
// on ctx done: the HTTP server stops, then the trace workers, then the
// monitor's events are flushed) and is extended in one place: Handle
// mounts a handler, AddObserver (or Config.Observers) sees every score
// of the live traffic (telemetry, say), and Metrics is the Prometheus
// registry to add collectors to.
package serve
