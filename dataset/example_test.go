package dataset_test

import (
	"fmt"
	"strings"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
)

func ExampleRead() {
	data := `{"id":"q1","user_input":"Who wrote it?","response":"Ada.","retrieved_contexts":["Ada wrote it."],"human":{"faithful":"yes"}}
{"id":"q2","question":"When?","answer":null,"contexts":["In 1843."],"human":{"relevant":0}}
`
	recs, err := dataset.Read("set.jsonl", strings.NewReader(data))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range recs {
		faithful, ok := r.Label("faithful")
		fmt.Printf("%s line %d: %q, %s=%q, faithful=%v (labelled %v)\n",
			r.ID, r.Line, r.Sample.Query, r.Sample.Sources[0].ID, r.Sample.Sources[0].Text, faithful, ok)
	}

	_, err = dataset.Read("set.jsonl", strings.NewReader(`{"question":"q","contexts":"one"}`))
	fmt.Println(err)
	// Output:
	// q1 line 1: "Who wrote it?", c1="Ada wrote it.", faithful=true (labelled true)
	// q2 line 2: "When?", c1="In 1843.", faithful=false (labelled false)
	// set.jsonl:1: contexts: want an array of strings, got string
}

// ExampleOpen checks a dataset from standard input before any scorer runs
// (every record valid, and each with what the scorers need), then reads
// its records again.
func ExampleOpen() {
	in := `{"id":"a","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843."],"reference":"Ada Lovelace."}
{"id":"b","question":"When?","answer":"In 1843.","contexts":["Ada wrote it in 1843."],"reference":"Ada wrote it in 1843."}
`
	recall, _ := judges.New(judges.MetricContextRecall, nil) // offline; needs a reference
	scorers := []eval.Scorer{recall}
	data, err := dataset.Open(dataset.Stdin, dataset.Options{Stdin: strings.NewReader(in), Scorers: scorers})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(data.Name(), data.Format(), data.Len(), "records")
	for rec, err := range data.Records() {
		if err != nil {
			fmt.Println(data.Err(err))
			return
		}
		fmt.Printf("%s line %d: %q\n", rec.ID, rec.Line, rec.Sample.Reference)
	}

	// A record without the reference the scorer needs is refused before
	// any call, naming its line and field.
	_, err = dataset.Open(dataset.Stdin, dataset.Options{Stdin: strings.NewReader(in + `{"id":"c","question":"q","contexts":["c"]}`), Scorers: scorers})
	fmt.Println(err)
	// Output:
	// <stdin> json 2 records
	// a line 1: "Ada Lovelace."
	// b line 2: "Ada wrote it in 1843."
	// <stdin>:3: reference: context_recall: sample has no reference answer
}
