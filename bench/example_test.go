package bench_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
)

func ExampleRead() {
	data := `{"id":"q1","user_input":"Who wrote it?","response":"Ada.","retrieved_contexts":["Ada wrote it."],"human":{"faithful":"yes"}}
{"id":"q2","question":"When?","answer":null,"contexts":["In 1843."],"human":{"relevant":0}}
`
	recs, err := bench.Read("set.jsonl", strings.NewReader(data))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range recs {
		faithful, ok := r.Label("faithful")
		fmt.Printf("%s line %d: %q, %s=%q, faithful=%v (labelled %v)\n",
			r.ID, r.Line, r.Sample.Query, r.Sample.Sources[0].ID, r.Sample.Sources[0].Text, faithful, ok)
	}

	_, err = bench.Read("set.jsonl", strings.NewReader(`{"question":"q","contexts":"one"}`))
	fmt.Println(err)
	// Output:
	// q1 line 1: "Who wrote it?", c1="Ada wrote it.", faithful=true (labelled true)
	// q2 line 2: "When?", c1="In 1843.", faithful=false (labelled false)
	// set.jsonl:1: contexts: want an array of strings, got string
}

func ExampleScoreEach() {
	recs, _ := bench.Read("set.jsonl", strings.NewReader(`{"id":"a","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843."]}
{"id":"b","question":"When?","answer":"In 1901.","contexts":["In 1843."]}
`))
	faithfulness, _ := judges.New(judges.MetricFaithfulness, nil) // offline
	stats := bench.Stats{Threshold: func(string) float64 { return 0.75 }}
	err := bench.ScoreEach(context.Background(), recs, []eval.Scorer{faithfulness}, 8, func(i int, scores []eval.Score) error {
		// Called in record order, as soon as a record is done: write it out.
		fmt.Printf("%s: %s %.2f\n", recs[i].ID, scores[0].Metric, scores[0].Value)
		stats.Add(bench.ResultOf(recs[i].ID, scores[0]))
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	_ = bench.FormatBrief(os.Stdout, stats.Metrics())
	// Output:
	// a: faithfulness 1.00
	// b: faithfulness 0.00
	// metric        scored  mean   min    passed         defaulted
	// faithfulness  2/2     0.500  0.000  1/2 (>= 0.75)  0
}

// ExampleOpenDataset checks a dataset from standard input before any
// scorer runs, scores it and gates the scores with a floor.
func ExampleOpenDataset() {
	in := strings.NewReader(`{"id":"a","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843."]}
{"id":"b","question":"When?","answer":"In 1900.","contexts":["Ada wrote it in 1843."]}
`)
	scorers := []eval.Scorer{judges.TokenOverlap{}}
	data, err := bench.OpenDataset(bench.Stdin, bench.DatasetOptions{Stdin: in, Scorers: scorers})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(data.Name(), data.Format(), data.Len(), "records")
	gate, _ := bench.ParseMinGate("token_overlap=0.6")
	err = bench.ScoreStream(context.Background(), data.Records(), scorers, 4, func(_ int, rec bench.Record, scores []eval.Score) error {
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
