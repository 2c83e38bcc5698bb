package agree_test

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/judging"
)

// ExampleMeasure measures the offline faithfulness judge against the
// labels of six records, beside the token-overlap baseline.
func ExampleMeasure() {
	judging := judging.Default()
	judging.LLM.Spec = "offline"
	out, err := agree.Measure(context.Background(), agree.Job{
		Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"}, Label: "faithful",
		Baseline: true, Judging: judging,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := out.Write(os.Stdout, io.Discard, agree.Style{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Agreement with human labels on ../fixtures/rag/labelled.jsonl
	//
	// | metric | label | n (pos/neg) | defaulted | errors | skipped | AUC | threshold | bal. acc. [95% CI] | kappa | F1 | TP/FP/TN/FN |
	// |---|---|---|---|---|---|---|---|---|---|---|---|
	// | faithfulness | faithful | 6 (3/3) | 0 | 0 | 0 | 1.000 | 1 | 1.000 [1.000, 1.000] | 1.000 | 1.000 | 3/0/3/0 |
	// | faithfulness | faithful | 6 (3/3) | 0 | 0 | 0 | 1.000 | best 0.5 | 1.000 | 1.000 | 1.000 | 3/0/3/0 |
	// | token_overlap | faithful | 6 (3/3) | 0 | 0 | 0 | 0.778 | 0.8 | 0.500 [0.167, 0.833] | 0.000 | 0.400 | 1/1/2/2 |
	// | token_overlap | faithful | 6 (3/3) | 0 | 0 | 0 | 0.778 | best 0.5333 | 0.833 | 0.667 | 0.857 | 3/1/2/0 |
}
