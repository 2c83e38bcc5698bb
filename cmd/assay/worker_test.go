package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The queue's flags: a run through in-process workers ends as a plain
// run does, and settings that cannot work are usage errors naming the
// flag, before anything is judged.
func TestBenchQueueFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"two in-process workers", []string{"--workers", "2"}, exitPass, "bench: run "},
		{"cluster beyond loopback without a token", []string{"--cluster=0.0.0.0:4222"}, exitInput, "--token: --cluster 0.0.0.0:4222 takes workers from other machines"},
		{"cluster and queue", []string{"--cluster", "--queue", "nats://127.0.0.1:4222"}, exitInput, "--cluster: embeds a NATS server, --queue uses another: give one"},
		{"queue not a NATS URL", []string{"--queue", "http://127.0.0.1:4222"}, exitInput, `--queue: want a NATS URL such as nats://HOST:4222, got "http://127.0.0.1:4222"`},
		{"negative workers", []string{"--workers", "-1"}, exitInput, "--workers: want 0 or more in-process workers, got -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := append([]string{"bench", "-q", "--llm", "offline", "--metric", "faithfulness", "--out", dir}, tc.args...)
			args = append(args, filepath.Join("..", "..", "fixtures", "rag", "labelled.jsonl"))
			var out, errb bytes.Buffer
			code := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
			require.Equal(t, tc.code, code, errb.String())
			assert.Contains(t, errb.String(), tc.want)
		})
	}
}

// assay worker refuses a URL that reaches no NATS server (exit 3) and
// bad limits (exit 2).
func TestWorkerErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline"}, exitInfra, "queue: connecting to nats://127.0.0.1:1"},
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--tasks", "-2"}, exitInput, "--tasks: want 0 or more tasks at once, got -2"},
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--max-in-flight", "-1"}, exitInput, "--max-in-flight: want 0 or more"},
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--endpoint-limit", "-1"}, exitInput, "--max-in-flight: want 0 or more"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
		require.Equal(t, tc.code, code, errb.String())
		assert.Contains(t, errb.String(), tc.want)
	}
}
