package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/race"
	runpkg "github.com/assaylabs/assay/run"
)

// diffMemorySamples is how many samples TestRunsDiffMemoryAt100kSamples
// compares.
const diffMemorySamples = 100_000

// writeDiffRun writes a run folder of n samples judged on faithfulness
// (with two claims of evidence each) and answer_relevancy (with an
// issue), as a real run's results.jsonl holds them: value v(i, m).
func writeDiffRun(t *testing.T, dir string, n int, v func(i, m int) float64) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	metrics := []string{"faithfulness", "answer_relevancy"}
	cfg := runpkg.Config{RunID: filepath.Base(dir), Dataset: "data.jsonl", DatasetSHA256: "aa", Metrics: metrics, Model: "llm:openai:judge"}
	s := runpkg.Summary{RunID: cfg.RunID, Samples: n, Complete: true}
	f, err := os.Create(filepath.Join(dir, runpkg.FileResults))
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	sums := make([]float64, len(metrics))
	for i := range n {
		for m, name := range metrics {
			x := v(i, m)
			sums[m] += x
			r := runpkg.Result{ID: fmt.Sprintf("s%06d", i), Metric: name, Value: x, Method: "llm:openai:judge",
				Reason: fmt.Sprintf("%.3f of the claims are supported by the contexts", x), Usage: eval.Usage{Calls: 2, TokensIn: 900, TokensOut: 120, Latency: time.Duration(300+i%700) * time.Millisecond}}
			if m == 0 {
				r.Evidence.Claims = []eval.Claim{
					{Text: fmt.Sprintf("The refund for plan %d stays open for %d days after delivery.", i%97, 14+i%30), Verdict: eval.VerdictSupported, SourceID: "c1"},
					{Text: "Store credit is offered instead of cash after the refund window closes.", Verdict: eval.VerdictUnsupported},
				}
			} else {
				r.Evidence.Issues = []string{fmt.Sprintf("How long is the refund window of plan %d, and what happens after it?", i%97)}
			}
			require.NoError(t, enc.Encode(r))
		}
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	for m, name := range metrics {
		s.Metrics = append(s.Metrics, runpkg.MetricStats{Metric: name, N: n, Scored: n, Mean: runpkg.Num(sums[m] / float64(n)), Threshold: 0.5})
	}
	for name, doc := range map[string]any{runpkg.FileConfig: cfg, runpkg.FileSummary: s} {
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
}

// TestRunsDiffMemoryAt100kSamples: `assay runs diff` of two runs of
// 100,000 samples and two metrics (about 110 MB of results.jsonl each)
// reads both line by line and keeps a value, a verdict and a latency per
// result: its peak resident memory stays under 160 MB. Reading both files
// whole, as the comparison did before, peaked at 893 MB (BENCHMARKS.md).
func TestRunsDiffMemoryAt100kSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 220 MB of run files: not with -short")
	}
	if race.Enabled {
		t.Skip("the race detector's shadow memory would be measured too: .ci/run runs this test without it")
	}
	t.Parallel()
	root := t.TempDir()
	// Values spread by a hash; one sample in ten moved by 0.3 in B.
	value := func(i, m int, moved bool) float64 {
		x := math.Mod(float64((uint64(i)*2+uint64(m))*0x9e3779b97f4a7c15>>11)/float64(1<<53), 1)
		if moved && i%10 == 3 {
			x = math.Mod(x+0.3, 1)
		}
		return math.Round(x*1000) / 1000
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeDiffRun(t, a, diffMemorySamples, func(i, m int) float64 { return value(i, m, false) })
	writeDiffRun(t, b, diffMemorySamples, func(i, m int) float64 { return value(i, m, true) })

	code, rss := peakRSS(t, "runs", "diff", "--format", "json", a, b)
	assert.Contains(t, []int{exitPass, exitFailed}, code)
	t.Logf("runs diff at %d samples x 2 metrics: peak RSS %d MB", diffMemorySamples, rss>>20)
	assert.Less(t, rss, int64(160<<20), "peak RSS %d MB", rss>>20)
}
