package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
		{"queue of a port past 65535", []string{"--queue", "nats://127.0.0.1:99999"}, exitInput, `--queue: "nats://127.0.0.1:99999": want a port from 1 to 65535`},
		{"queue of no host", []string{"--queue", "nats://"}, exitInput, `--queue: want a NATS URL such as nats://HOST:4222, got "nats://"`},
		{"negative workers", []string{"--workers", "-1"}, exitInput, "--workers: want 0 to 256 in-process workers, got -1"},
		{"workers past the limit", []string{"--workers", "100000000"}, exitInput, "--workers: want 0 to 256 in-process workers, got 100000000"},
		{"workers times concurrency past the limit", []string{"--workers", "100", "--concurrency", "64"}, exitInput,
			"--workers: 100 workers with --concurrency 64 each would keep 6400 calls in flight, past the 4096 a run allows"},
		{"workers of a huge concurrency", []string{"--workers", "1", "--concurrency", "100000000"}, exitInput, "--concurrency: want 1 to 4096 calls in flight, got 100000000"},
		{"a huge concurrency without a queue", []string{"--concurrency", "100000000"}, exitInput, "--concurrency: want 1 to 4096 calls in flight, got 100000000"},
		{"negative stall timeout", []string{"--workers", "1", "--stall-timeout", "-1s"}, exitInput, "--stall-timeout: want 0 (wait for ever) or a positive duration such as 5m, got -1s"},
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

// assay worker refuses bad limits (exit 2).
func TestWorkerErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--tasks", "-2"}, exitInput, "--tasks: want 0 to 16384 tasks at once, got -2"},
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--tasks", "100000000"}, exitInput, "--tasks: want 0 to 16384 tasks at once, got 100000000"},
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--concurrency", "100000000"}, exitInput, "--concurrency: want 1 to 4096 calls in flight, got 100000000"},
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--max-in-flight", "-1"}, exitInput, "--max-in-flight: want 0 or more"},
		{[]string{"worker", "nats://127.0.0.1:1", "--llm", "offline", "--endpoint-limit", "-1"}, exitInput, "--max-in-flight: want 0 or more"},
		// A URL no client reads was retried for ever (here, with the run
		// stopped before it starts, it exited 0).
		{[]string{"worker", "", "--llm", "offline"}, exitInput, `assay: URL: want a NATS URL such as nats://HOST:4222, got ""`},
		{[]string{"worker", "http://127.0.0.1:4222", "--llm", "offline"}, exitInput, `assay: URL: want a NATS URL such as nats://HOST:4222, got "http://127.0.0.1:4222"`},
		{[]string{"worker", "nats://127.0.0.1:99999", "--llm", "offline"}, exitInput, `assay: URL: "nats://127.0.0.1:99999": want a port from 1 to 65535`},
	} {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // what is refused is refused before the server is waited for
		code := run(ctx, tc.args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
		require.Equal(t, tc.code, code, errb.String())
		assert.Contains(t, errb.String(), tc.want)
	}
}

// assay worker started before its NATS server listens does not exit: it
// says it tries again, until it is stopped (Ctrl-C, exit 0).
func TestWorkerWaitsForServer(t *testing.T) {
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "nats://" + l.Addr().String()
	require.NoError(t, l.Close())
	errb := &signalWriter{want: "worker: the NATS server at " + url + " does not answer", seen: make(chan struct{})}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"worker", url, "--llm", "offline"}, func(string) string { return "" }, strings.NewReader(""), &bytes.Buffer{}, errb)
	}()
	select {
	case <-errb.seen:
	case code := <-done:
		t.Fatalf("the worker exited (%d): %s", code, errb.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("the worker never said it waits: %s", errb.String())
	}
	stop()
	require.Equal(t, exitPass, <-done, errb.String())
	assert.Contains(t, errb.String(), "trying again with backoff (250ms doubling to 5s) until it does")
}

// signalWriter keeps what is written and closes seen once it holds want.
type signalWriter struct {
	want string
	seen chan struct{}

	mu   sync.Mutex
	b    bytes.Buffer
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
