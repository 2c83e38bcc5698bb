package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestInterruptMessages stops each command that calls a model as Ctrl-C
// does (the context cancelled with the signal as its cause) once its
// first call has reached a server that answers slowly: it exits 3 and
// says how far it got and why, never with a format verb of a nil error
// ("(%!w(<nil>))", as bench said).
func TestInterruptMessages(t *testing.T) {
	t.Parallel()
	data := "../../fixtures/rag/labelled.jsonl"
	tests := map[string]struct {
		args []string
		// want is in standard error; "" checks only the exit and that no
		// message is malformed.
		want string
	}{
		"judge":    {args: []string{"judge", "-q", "--metric", "faithfulness", data}, want: "assay: interrupted after 0 of 6 records: interrupt signal received\n"},
		"bench":    {args: []string{"bench", "-q", "--metric", "faithfulness", "--out", "OUT", data}, want: "assay: interrupted with 0 of 6 record(s) judged (interrupt signal received): resume with --resume --out OUT"},
		"research": {args: []string{"research", "-q", "--now", "2026-11-23", "How do heat pumps perform in cold climates?"}, want: "assay: research stopped: interrupt signal received\n"},
		"agree":    {args: []string{"agree", "-q", "--metric", "faithfulness", "--label", "faithful", data}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			srv := llmtest.New(t, llmtest.Func(func(openai.ChatCompletionRequest) llmtest.Reply {
				cancel(errors.New("interrupt signal received"))
				return llmtest.Reply{Delay: time.Minute} // ends when the client goes away
			}))
			out := t.TempDir()
			env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL(),
				"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
			args := append([]string{tc.args[0], "--no-cache"}, tc.args[1:]...)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			var stdout, stderr bytes.Buffer
			code := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, exitInfra, code, stderr.String())
			assert.NotContains(t, stdout.String()+stderr.String(), "%!")
			assert.Contains(t, stderr.String(), strings.ReplaceAll(tc.want, "OUT", out))
		})
	}
}
