// Command bareclient makes chat calls against an OpenAI-compatible server
// with nothing but net/http, the floor of the whole-process fan-out
// benchmark (scripts/bench-fanout.sh): `assay judge` making the same calls
// can be no faster, and what it takes beyond this is its own cost.
//
//	bareclient -url http://127.0.0.1:8089/v1 -calls 800 -concurrency 32
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"

	"github.com/assaylabs/assay/internal/llmtest"
)

func main() {
	url := flag.String("url", os.Getenv("OPENAI_BASE_URL"), "base URL of the server, ending in /v1 (default $OPENAI_BASE_URL)")
	calls := flag.Int("calls", 800, "calls to make")
	conc := flag.Int("concurrency", 32, "calls in flight at once")
	flag.Parse()
	if *url == "" || *calls < 1 || *conc < 1 {
		fmt.Fprintln(os.Stderr, "bareclient: -url (or OPENAI_BASE_URL), -calls and -concurrency must be set and positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc}}
	failed, err := llmtest.Drive(ctx, client, *url, *calls, *conc)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bareclient: %d of %d calls failed, the first: %v\n", failed, *calls, err)
		os.Exit(1)
	}
}
