package assaytest_test

import (
	"fmt"

	"github.com/assaylabs/assay/assaytest"
	"github.com/assaylabs/assay/eval"
)

// printT stands in for the *testing.T of a user's test, printing what a
// failed test would print.
type printT struct{}

func (printT) Helper()                           {}
func (printT) Name() string                      { return "TestAnswer" }
func (printT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (printT) Fatalf(format string, args ...any) { fmt.Printf("FATAL: "+format+"\n", args...) }

var eiffel = eval.Sample{
	ID:     "eiffel",
	Query:  "When was the Eiffel Tower completed and how tall is it?",
	Answer: "The Eiffel Tower was completed in 1889. It is 330 metres tall. It was designed by Gustave Eiffel's company.",
	Sources: []eval.Source{
		{ID: "c1", Text: "The Eiffel Tower in Paris was completed in 1889 as the entrance arch of that year's World's Fair."},
		{ID: "c2", Text: "Including its antennas, the tower is 330 metres tall, about the height of an 81-storey building."},
	},
}

// A test requires the answer to be faithful to its contexts; the failure
// shows each claim with its verdict. In a user's test, t is the test's
// *testing.T; with no model set in the environment the judges are the
// offline ones, as here.
func ExampleRequire() {
	t := printT{}
	scores := assaytest.Require(t, eiffel, "faithfulness>=0.8")
	fmt.Printf("faithfulness %.2f\n", scores[0].Value)
	// Output:
	// FAIL: faithfulness>=0.8 of sample "eiffel": got 0.6667
	//     faithfulness = 0.6667 [offline (approximate)]
	//     reason: 2 of 3 claims supported by the contexts
	//     claims:
	//       [supported] The Eiffel Tower was completed in 1889. (c1)
	//       [supported] It is 330 metres tall. (c2)
	//       [unsupported] It was designed by Gustave Eiffel's company.
	//     issues:
	//       - unsupported: "It was designed by Gustave Eiffel's company."
	// faithfulness 0.67
}

// A test runs a dataset file and gates its statistics, as `assay bench
// --gate` does.
func ExampleRequireDataset() {
	t := printT{}
	stats := assaytest.RequireDataset(t, "testdata/faithful.jsonl", "faithfulness.mean>=0.9", "faithfulness.min>=0.8")
	fmt.Printf("%s over %d samples: mean %.2f, min %.2f\n", stats[0].Metric, stats[0].N, stats[0].Mean, stats[0].Min)
	// Output:
	// faithfulness over 3 samples: mean 1.00, min 1.00
}

// New gives a Judge of its own options: here the offline judges whatever
// the environment says (WithModel(nil)); WithModel(client) judges with an
// *llm.Client built by llm/setup.
func ExampleNew() {
	j := assaytest.New(assaytest.WithModel(nil), assaytest.WithConcurrency(4))
	scores := j.Require(printT{}, eiffel, "answer_relevancy>=0.3")
	fmt.Printf("%s %.2f by %s\n", scores[0].Metric, scores[0].Value, scores[0].Method)
	// Output:
	// answer_relevancy 1.00 by offline (approximate)
}

// Explain is how a failed check shows a score.
func ExampleExplain() {
	fmt.Println(assaytest.Explain(eval.Score{
		Metric: "completeness", Value: 0.5, Method: "llm:openai:gpt-4o-mini", Reason: "1 of 2 aspects covered",
		Evidence: eval.Evidence{Gaps: []string{"how tall it is"}},
	}))
	// Output:
	//     completeness = 0.5000 [llm:openai:gpt-4o-mini]
	//     reason: 1 of 2 aspects covered
	//     gaps:
	//       - how tall it is
}
