package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/judging"
)

// ExampleExecute runs what `assay bench --metric faithfulness --gate
// 'faithfulness.mean>=0.9' --out DIR` runs, from Go: the run folder, its
// summary and gates, and the reasons it did not pass.
func ExampleExecute() {
	dir, _ := os.MkdirTemp("", "example-run-")
	defer func() { _ = os.RemoveAll(dir) }()
	j := judging.Default()
	j.LLM.Spec = "offline"
	out, err := bench.Execute(context.Background(), bench.Job{
		Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"},
		Gates: []string{"faithfulness.mean>=0.9"}, Out: filepath.Join(dir, "run"), NoStore: true, Judging: j,
	})
	if err != nil {
		fmt.Println(err) // an *eval.InputError: bad input or settings, nothing judged
		return
	}
	m := out.Summary.Metrics[0]
	fmt.Printf("%s: %d of %d scored, mean %.3f\n", m.Metric, m.Scored, m.N, float64(m.Mean))
	for _, f := range out.Failures {
		fmt.Printf("%s (exit 1: %v): %v\n", f.Kind, f.Kind.Scored(), f.Err)
	}
	// Output:
	// faithfulness: 6 of 6 scored, mean 0.500
	// gate failed (exit 1: true): gate faithfulness.mean>=0.9 failed: got 0.5000 (faithfulness.mean is 0.5, want >= 0.9)
}
