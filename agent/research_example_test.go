package agent_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/fixtures"
	"github.com/assaylabs/assay/web"
)

// Research a question offline on the embedded corpus.
func ExampleResearch_Run() {
	dir, _ := os.MkdirTemp("", "assay-example")
	defer func() { _ = os.RemoveAll(dir) }()
	docs, _ := fs.Sub(fixtures.Corpus, "corpus")
	corpus, err := web.OpenLocal(context.Background(), "embedded:example", docs, filepath.Join(dir, "index.db"))
	if err != nil {
		panic(err)
	}
	defer func() { _ = corpus.Close() }()

	// NoRecency: the outcome must not depend on the day the example runs.
	opt := agent.Options{NoRecency: true}
	res, err := agent.Research{Options: opt, Searcher: corpus, Mode: agent.Modes()["quick"]}.Run(context.Background(),
		"What are the health effects of microplastics in drinking water?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Decision, res.Status)
	for _, it := range res.Iterations[1:] {
		fmt.Printf("iteration %d: %s -> %s\n", it.Iteration, it.Fix.Dimension, it.Card.Status)
	}
	// Output:
	// full_report pass
	// iteration 1: source_quality -> pass
}
