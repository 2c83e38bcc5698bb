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
//
// It serves the batch API too (/v1/files, /v1/batches), each batch moving
// a step (validating, in_progress, finalizing, completed) each time it is
// retrieved, for `assay bench --batch`:
//
//	ASSAY_BATCH_POLL=100ms OPENAI_BASE_URL=http://127.0.0.1:8089/v1 assay bench --batch --llm openai:fake ...
//
// With -mix it misbehaves on a share of the calls, drawn at random (the
// same draws for the same -seed), as a flaky server does; on SIGINT or
// SIGTERM it prints how many calls got each fault (scripts/soak.sh):
//
//	go run ./internal/llmtest/fakellm -latency 200ms -mix 500=0.05,hang=0.01,reset=0.01 &
//
// With -align it grades the samples of a judge defined in a judges file
// right (as the labels file labels their answers) only when the judge's
// prompt contains -align-phrase, and proposes a rewrite of the criterion
// that contains it, for `assay align` by hand:
//
//	go run ./internal/llmtest/fakellm -latency 0 -align examples/support-labels.jsonl &
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/internal/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "address to listen on")
	latency := flag.Duration("latency", 50*time.Millisecond, "delay before every reply")
	fault := flag.String("fault", "", "answer every chat call with one misbehaviour: "+strings.Join(llmtest.FaultNames(), ", "))
	mix := flag.String("mix", "", "answer a share of the chat calls with misbehaviours, as NAME=SHARE pairs: 500=0.05,hang=0.01,reset=0.01")
	seed := flag.Uint64("seed", 1, "seed of -mix's draws")
	rate := flag.Float64("rate", 0, "admit this many chat calls a second (a token bucket; 0: no limit), answering the rest with 429 and Retry-After")
	burst := flag.Int("burst", 10, "the token bucket's size, with -rate")
	alignLabels := flag.String("align", "", "labels file (JSON Lines, answer and human.LABEL): grade a defined judge's samples as it labels them only when the prompt contains -align-phrase")
	alignLabel := flag.String("align-label", "helpful_reply", "with -align, the human label to grade by")
	alignPhrase := flag.String("align-phrase", "concrete step", "with -align, what a judge's prompt must contain to grade right (\"\": every prompt does)")
	flag.Parse()
	opt := llmtest.Func(llmtest.JudgeReplies)
	how := "valid judge replies"
	var mixer *llmtest.Mixer
	if *alignLabels != "" {
		replies, err := alignReplies(*alignLabels, *alignLabel, *alignPhrase)
		if err != nil {
			fail(2, "-align: "+err.Error())
		}
		opt = llmtest.Func(replies)
		how = fmt.Sprintf("judges graded right only when their prompt contains %q", *alignPhrase)
	}
	switch {
	case *fault != "" && *mix != "":
		fail(2, "give -fault or -mix, not both")
	case *fault != "":
		r, ok := llmtest.Faults()[*fault]
		if !ok {
			fail(2, fmt.Sprintf("-fault %q: want one of %s", *fault, strings.Join(llmtest.FaultNames(), ", ")))
		}
		opt = llmtest.Func(func(goopenai.ChatCompletionRequest) llmtest.Reply { return r })
		how = "fault " + *fault
	case *mix != "":
		var err error
		if mixer, err = llmtest.Mix(*mix, *seed, llmtest.JudgeReplies); err != nil {
			fail(2, "-"+err.Error())
		}
		opt = llmtest.Func(mixer.Reply)
		how = "faults " + *mix + " (seed " + fmt.Sprint(*seed) + ")"
	}
	opts := []llmtest.Option{opt, llmtest.Latency(*latency), llmtest.Quiet(), llmtest.AutoBatches()}
	switch {
	case *rate < 0 || *burst < 1:
		fail(2, "-rate must be 0 or more and -burst at least 1")
	case *rate > 0:
		opts = append(opts, llmtest.Limit(llmtest.NewBucket(*rate, *burst, nil)))
		how += fmt.Sprintf(", at most %g calls a second (burst %d)", *rate, *burst)
	}
	s := llmtest.Start(opts...)
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", *addr)
	if err != nil {
		fail(1, err.Error())
	}
	fmt.Fprintf(os.Stderr, "fakellm: serving http://%s/v1 with %v latency, %s\n", ln.Addr(), *latency, how)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close() // hung replies end with their connections
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fail(1, err.Error())
	}
	if mixer != nil {
		counts := mixer.Counts()
		parts := make([]string, 0, len(counts))
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
		fmt.Fprintf(os.Stderr, "fakellm: %d chat calls: %s\n", s.Calls(), strings.Join(parts, ", "))
	}
}

func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, "fakellm:", msg)
	os.Exit(code)
}
