package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// --batch: a run through a fake server's batch endpoint ends as a plain
// run does, its usage line counting the batches; what it cannot go with
// is a usage error naming the flag.
func TestBenchBatchFlag(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies), llmtest.AutoBatches(), llmtest.Quiet())
	tmp := t.TempDir()
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "k", "ASSAY_BATCH_POLL": "1ms",
		"ASSAY_CACHE_DIR": filepath.Join(tmp, "cache"), "ASSAY_DATA_DIR": filepath.Join(tmp, "data")}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"through batches", []string{"--llm", "openai:fake"}, exitPass, "; batches 2 ("},
		{"with workers", []string{"--llm", "openai:fake", "--workers", "2"}, exitInput, "--batch: the queue's workers call their own models"},
		{"with a budget", []string{"--llm", "openai:gpt-4o-mini", "--max-cost", "1"}, exitInput, "--batch: a batch's cost is known only when it is done"},
		{"offline", []string{"--llm", "offline"}, exitInput, "--batch: offline has no batch endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := append([]string{"bench", "-q", "--batch", "--metric", "faithfulness", "--out", dir}, tc.args...)
			args = append(args, filepath.Join("..", "..", "fixtures", "rag", "labelled.jsonl"))
			var out, errb bytes.Buffer
			code := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
			require.Equal(t, tc.code, code, errb.String())
			assert.Contains(t, errb.String(), tc.want)
		})
	}
	assert.Zero(t, srv.Calls(), "no call sent one by one")
	assert.Equal(t, 2, srv.BatchCounts().Created)
}
