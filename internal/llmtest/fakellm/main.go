// Command fakellm serves the OpenAI chat and embeddings API with valid judge
// replies after a fixed latency, for end-to-end runs and benchmarks of assay
// without a model:
//
//	go run ./internal/llmtest/fakellm -latency 50ms &
//	OPENAI_BASE_URL=http://127.0.0.1:8089/v1 assay judge --llm openai:fake ...
//
// With -fault it misbehaves in one way on every chat call, to try by hand
// what a run does when its model server fails (the same behaviours the
// fault tables script):
//
//	go run ./internal/llmtest/fakellm -fault 401 &
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/internal/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "address to listen on")
	latency := flag.Duration("latency", 50*time.Millisecond, "delay before every reply")
	fault := flag.String("fault", "", "answer every chat call with one misbehaviour: "+strings.Join(llmtest.FaultNames(), ", "))
	flag.Parse()
	opt := llmtest.Func(llmtest.JudgeReplies)
	if *fault != "" {
		r, ok := llmtest.Faults[*fault]
		if !ok {
			fmt.Fprintf(os.Stderr, "fakellm: -fault %q: want one of %s\n", *fault, strings.Join(llmtest.FaultNames(), ", "))
			os.Exit(2)
		}
		opt = llmtest.Func(func(goopenai.ChatCompletionRequest) llmtest.Reply { return r })
	}
	s := llmtest.Start(opt, llmtest.Latency(*latency), llmtest.Quiet())
	defer s.Close()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
	how := "valid judge replies"
	if *fault != "" {
		how = "fault " + *fault
	}
	fmt.Fprintf(os.Stderr, "fakellm: serving http://%s/v1 with %v latency, %s\n", ln.Addr(), *latency, how)
	if err := http.Serve(ln, s.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}
