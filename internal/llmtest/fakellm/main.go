// Command fakellm serves the OpenAI chat and embeddings API with valid judge
// replies after a fixed latency, for end-to-end runs and benchmarks of assay
// without a model:
//
//	go run ./internal/llmtest/fakellm -latency 50ms &
//	OPENAI_BASE_URL=http://127.0.0.1:8089/v1 assay judge --llm openai:fake ...
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/assaylabs/assay/internal/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "address to listen on")
	latency := flag.Duration("latency", 50*time.Millisecond, "delay before every reply")
	flag.Parse()
	s := llmtest.Start(llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(*latency), llmtest.Quiet())
	defer s.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "fakellm: serving http://%s/v1 with %v latency\n", ln.Addr(), *latency)
	if err := http.Serve(ln, s.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}
