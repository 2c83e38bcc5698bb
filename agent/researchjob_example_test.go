package agent_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/judging"
)

// Run `assay research` from Go: offline, on the embedded corpus, as of a
// fixed day; the outcome says whether it passed and why not.
func ExampleRunResearch() {
	cache, _ := os.MkdirTemp("", "assay-example")
	defer func() { _ = os.RemoveAll(cache) }()
	env := map[string]string{"ASSAY_CACHE_DIR": cache} // the corpus index and the reply cache

	out, err := agent.RunResearch(context.Background(), agent.ResearchJob{
		Question: "How do heat pumps perform in cold climates?",
		Mode:     "quick",
		AsOf:     time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		Judging:  judging.Default(),
		Env:      func(k string) string { return env[k] },
	})
	if err != nil {
		panic(err) // an *eval.InputError: a setting or the question is wrong
	}
	fmt.Println(out.Run.Status, out.Run.Decision, out.Passed())
	for _, f := range out.Failures {
		fmt.Println(f.Kind, f.Err)
	}
	// Output:
	// pass full_report true
}
