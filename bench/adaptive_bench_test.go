package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// BenchmarkRateLimited judges 150 samples (600 calls: faithfulness 2,
// context precision 1, source relevance 1) at --concurrency 64 against a
// server that answers after 50 ms behind a token bucket of 200 requests a
// second with a burst of 20, as a hosted API's per-key limit: 64 calls in
// flight ask for 1280 a second. The bucket's ideal time is (600 - 20) /
// 200 = 2.9 s; x-ideal is how far above it a run lands, and defaults
// counts the judgements that fell back to the neutral default. Then the
// bucket's rate is lifted and the run goes on: recovery is how many calls
// the limit took to get back to the ceiling, looked at every 200 (-1:
// not within 2000).
//
// "adaptive" is the Client's default; "fixed" keeps 64 calls in flight
// whatever the server says (AdaptivePolicy.Fixed), as before it.
func BenchmarkRateLimited(b *testing.B) {
	for name, p := range map[string]llm.AdaptivePolicy{"adaptive": {}, "fixed": {Fixed: true}} {
		b.Run(name, func(b *testing.B) { rateLimited(b, p) })
	}
}

func rateLimited(b *testing.B, p llm.AdaptivePolicy) {
	const (
		samples     = 150
		latency     = 50 * time.Millisecond
		concurrency = 64
		rate, burst = 200, 20
	)
	recs := fanoutRecords(samples)
	ideal := time.Duration(float64(samples*4-burst) / rate * float64(time.Second))
	var total time.Duration
	runs, defaults, recovery := 0, 0, 0
	var lim llm.LimitReport
	for b.Loop() {
		bucket := llmtest.NewBucket(rate, burst, nil)
		srv := llmtest.New(b, llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(latency), llmtest.Quiet(), llmtest.Limit(bucket))
		be, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "fake"})
		if err != nil {
			b.Fatal(err)
		}
		c := llm.New(llm.Config{Backend: be, Concurrency: concurrency, Adaptive: p})
		scorers := []eval.Scorer{judges.Faithfulness{Model: c}, judges.ContextPrecision{Model: c}, judges.SourceRelevance{Model: c}}
		start := time.Now()
		scores, err := bench.ScoreAll(context.Background(), recs, scorers, bench.TasksPerCall*concurrency)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		for _, row := range scores {
			for _, s := range row {
				if s.Defaulted {
					defaults++
				}
			}
		}
		lim = c.Limit()
		// The bucket refills for good: the limit goes back to the ceiling.
		bucket.SetRate(1e9)
		recovery = -1
		for done := 0; done < 2000; {
			if c.Limit().Final == concurrency {
				recovery = done
				break
			}
			if _, err := bench.ScoreAll(context.Background(), recs[:50], scorers, bench.TasksPerCall*concurrency); err != nil {
				b.Fatal(err)
			}
			done += 200
		}
		runs++
		srv.Close()
	}
	b.ReportMetric(float64(total)/float64(runs)/float64(ideal), "x-ideal")
	b.ReportMetric(float64(defaults)/float64(runs), "defaults")
	b.ReportMetric(float64(lim.Low), "limit-low")
	b.ReportMetric(float64(lim.High), "limit-high")
	b.ReportMetric(float64(lim.Decreases), "decreases")
	b.ReportMetric(float64(lim.Holds), "holds")
	b.ReportMetric(float64(recovery), "recovery-calls")
}
