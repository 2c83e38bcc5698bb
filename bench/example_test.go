package bench_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/run"
)

func ExampleScoreEach() {
	recs, _ := dataset.Read("set.jsonl", strings.NewReader(`{"id":"a","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843."]}
{"id":"b","question":"When?","answer":"In 1901.","contexts":["In 1843."]}
`))
	faithfulness, _ := judges.New(judges.MetricFaithfulness, nil) // offline
	stats := run.Stats{Threshold: func(string) float64 { return 0.75 }}
	err := bench.ScoreEach(context.Background(), recs, []eval.Scorer{faithfulness}, 8, func(i int, scores []eval.Score) error {
		// Called in record order, as soon as a record is done: write it out.
		fmt.Printf("%s: %s %.2f\n", recs[i].ID, scores[0].Metric, scores[0].Value)
		stats.Add(run.ResultOf(recs[i].ID, scores[0]))
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	_ = run.FormatBrief(os.Stdout, stats.Metrics())
	// Output:
	// a: faithfulness 1.00
	// b: faithfulness 0.00
	// metric        scored  mean   min    passed         defaulted
	// faithfulness  2/2     0.500  0.000  1/2 (>= 0.75)  0
}

// ExampleScoreStream checks a dataset from standard input before any
// scorer runs, scores it record by record and gates the scores with a
// floor.
func ExampleScoreStream() {
	in := strings.NewReader(`{"id":"a","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843."]}
{"id":"b","question":"When?","answer":"In 1900.","contexts":["Ada wrote it in 1843."]}
`)
	scorers := []eval.Scorer{judges.TokenOverlap{}}
	data, err := dataset.Open(dataset.Stdin, dataset.Options{Stdin: in, Scorers: scorers})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(data.Name(), data.Format(), data.Len(), "records")
	gate, _ := run.ParseMinGate("token_overlap=0.6")
	err = bench.ScoreStream(context.Background(), data.Records(), scorers, 4, func(_ int, rec dataset.Record, scores []eval.Score) error {
		for _, sc := range scores {
			fmt.Printf("%s %s %.2f\n", rec.ID, sc.Metric, sc.Value)
			gate.Add(sc)
		}
		return nil
	})
	if err != nil {
		fmt.Println(data.Err(err))
		return
	}
	fmt.Println(gate.Err())
	// Output:
	// <stdin> json 2 records
	// a token_overlap 1.00
	// b token_overlap 0.50
	// 1 score(s) below --min (token_overlap 1 under 0.6)
}
