package bench_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// fanoutRecords are n one-context RAG samples.
func fanoutRecords(n int) []dataset.Record {
	recs := make([]dataset.Record, n)
	for i := range recs {
		recs[i] = dataset.Record{ID: fmt.Sprint(i), Sample: eval.Sample{
			Query:   fmt.Sprintf("What does study %d find about sleep and memory?", i),
			Answer:  fmt.Sprintf("Study %d finds that sleep helps memory. Participants slept eight hours.", i),
			Sources: []eval.Source{{ID: "c1", Text: fmt.Sprintf("Study %d reports that sleep consolidates memory in adults.", i)}},
		}}
	}
	return recs
}

// BenchmarkFanout judges 200 samples with faithfulness (2 calls), context
// precision (1) and source relevance (1 per source) against a server that
// answers every call after 50 ms, at concurrency 32. The ideal time is
// calls x 50 ms / 32; x-ideal reports how far above it a run lands.
func BenchmarkFanout(b *testing.B) {
	const (
		samples     = 200
		latency     = 50 * time.Millisecond
		concurrency = 32
	)
	srv := llmtest.New(b, llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(latency), llmtest.Quiet())
	recs := fanoutRecords(samples)
	var total time.Duration // judging time over all iterations
	runs := 0
	for b.Loop() {
		be, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "fake"})
		if err != nil {
			b.Fatal(err)
		}
		c := llm.New(llm.Config{Backend: be, Concurrency: concurrency})
		scorers := []eval.Scorer{judges.Faithfulness{Model: c}, judges.ContextPrecision{Model: c}, judges.SourceRelevance{Model: c}}
		start := time.Now()
		scores, err := bench.ScoreAll(context.Background(), recs, scorers, bench.TasksPerCall*concurrency)
		elapsed := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		for _, row := range scores {
			for _, s := range row {
				if s.Defaulted {
					b.Fatalf("%s defaulted: %v", s.Metric, s.Err)
				}
			}
		}
		calls := c.Usage().Calls
		if calls != samples*4 {
			b.Fatalf("calls = %d, want %d", calls, samples*4)
		}
		total += elapsed
		runs++
	}
	// x-ideal is the mean over every iteration, the first (cold) included.
	ideal := time.Duration(samples*4) * latency / concurrency
	b.ReportMetric(float64(total)/float64(runs)/float64(ideal), "x-ideal")
	b.ReportMetric(samples*4, "calls")
}
