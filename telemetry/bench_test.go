package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/telemetry"
	"github.com/assaylabs/assay/telemetry/telemetrytest"
)

// tracing is how a benchmark traces: off (the global no-op provider, as
// when no OTEL_* variable is set) or on, the SDK batching every span to an
// exporter that drops them (the work of tracing without a collector).
var tracing = []struct {
	name string
	on   bool
}{{"off", false}, {"on", true}}

// traceOn installs tracing for b when on.
func traceOn(b *testing.B, on bool) {
	if !on {
		return
	}
	telemetrytest.Install(b, sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter())))
}

// instant is a scorer that costs nothing: what is left is the per-sample
// path, the hooks included.
type instant struct{ metric string }

func (s instant) Score(context.Context, eval.Sample) (eval.Score, error) {
	return eval.Score{Metric: s.metric, Value: 0.75, Reason: "stand-in"}, nil
}

// BenchmarkSamplePath runs bench's per-sample path (bench.ScoreAll) over
// 1,000 records with two scorers that cost nothing, their scores recorded
// as evaluation events (telemetry.Scorers, as bench.Judge does): the
// worst case for the hooks, whose cost is all there is to measure.
func BenchmarkSamplePath(b *testing.B) {
	recs := make([]dataset.Record, 1000)
	for i := range recs {
		recs[i] = dataset.Record{ID: fmt.Sprint(i), Line: i + 1, Sample: eval.Sample{Query: "q", Answer: "a"}}
	}
	scorers := telemetry.Scorers([]eval.Scorer{instant{"faithfulness"}, instant{"context_precision"}})
	for _, tc := range tracing {
		b.Run(tc.name, func(b *testing.B) {
			traceOn(b, tc.on)
			b.ReportAllocs()
			for b.Loop() {
				ctx, run := telemetry.StartRun(context.Background(), "assay.judge", "bench", nil)
				if _, err := bench.ScoreAll(ctx, recs, scorers, 32); err != nil {
					b.Fatal(err)
				}
				run.End(telemetry.RunEnd{Records: len(recs)})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/sample")
		})
	}
}

// BenchmarkJudge is `assay judge` (bench.Judge) of 200 samples with
// context precision (one model call each) against the fake model server
// on a loopback port, answering at once: a run, 200 sample spans, 200
// chat spans and 200 evaluation events when on.
func BenchmarkJudge(b *testing.B) {
	srv := llmtest.New(b, llmtest.Func(llmtest.JudgeReplies), llmtest.Quiet())
	var data strings.Builder
	for i := range 200 {
		fmt.Fprintf(&data, `{"id":"s%d","question":"What helps memory %d?","answer":"Sleep helps memory.","contexts":["Sleep consolidates memory."]}`+"\n", i, i)
	}
	path := b.TempDir() + "/data.jsonl"
	if err := os.WriteFile(path, []byte(data.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "k"}
	for _, tc := range tracing {
		b.Run(tc.name, func(b *testing.B) {
			traceOn(b, tc.on)
			j, _ := judgingOf(openaiSetting, srv.URL())
			j.LLM.Concurrency = 8
			b.ReportAllocs()
			for b.Loop() {
				o, err := bench.Judge(context.Background(), bench.JudgeJob{Data: path, Metrics: []string{"context_precision"},
					Out: io.Discard, Log: io.Discard, Judging: j, Env: func(k string) string { return env[k] }, Quiet: true})
				if err != nil || o.Done != 200 {
					b.Fatal(err, o)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/sample")
		})
	}
}

// BenchmarkHooksOff is what the hooks of one sample cost with tracing
// off: the sample span started and ended over two scorers, and their two
// scores offered as evaluation events.
func BenchmarkHooksOff(b *testing.B) {
	scores := []eval.Score{{Metric: "faithfulness", Value: 0.75}, {Metric: "context_precision", Value: 1}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		sctx, s := telemetry.StartSample(ctx, "s1", 1, 2)
		telemetry.Evaluated(sctx, scores[0])
		s.Done(nil)
		telemetry.Evaluated(sctx, scores[1])
		s.Done(nil)
	}
}

// BenchmarkMiddleware is telemetry.Middleware around a mux answering at
// once, against the mux alone: what the server span costs a request.
func BenchmarkMiddleware(b *testing.B) {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/context-score", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	for _, tc := range []struct {
		name string
		h    http.Handler
		on   bool
	}{{"none", mux, false}, {"off", telemetry.Middleware(mux, ""), false}, {"on", telemetry.Middleware(mux, ""), true}} {
		b.Run(tc.name, func(b *testing.B) {
			traceOn(b, tc.on)
			req := httptest.NewRequestWithContext(b.Context(), http.MethodPost, "/v1/context-score", http.NoBody)
			b.ReportAllocs()
			for b.Loop() {
				tc.h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
