// Package queuetest holds what the tests of the NATS queue and of the
// runs that go through it share: a worker's log watched for a line, and
// the wait for workers to bind to the queue's shared consumer.
package queuetest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/queue"
)

// Deadline bounds each wait: far longer than any wait takes, so that
// only a test that would never pass fails by it.
const Deadline = 60 * time.Second

// Log is a log that says when a line holding its want is written. It is
// safe for concurrent use.
type Log struct {
	want string
	seen chan struct{}

	mu   sync.Mutex
	b    strings.Builder
	once sync.Once
}

// NewLog is a log watched for want.
func NewLog(want string) *Log { return &Log{want: want, seen: make(chan struct{})} }

// Write keeps p and notes when the log holds want.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if strings.Contains(l.b.String(), l.want) {
		l.once.Do(func() { close(l.seen) })
	}
	return len(p), nil
}

// String is what was written.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Wait waits until want is written, failing the test after Deadline.
func (l *Log) Wait(t testing.TB) {
	t.Helper()
	select {
	case <-l.seen:
	case <-time.After(Deadline):
		t.Fatalf("the log never said %q; it says:\n%s", l.want, l.String())
	}
}

// WaitWorkers waits until n workers wait on the queue's shared consumer
// of tasks, so that the first tasks published go to all of them.
func WaitWorkers(t testing.TB, js jetstream.JetStream, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		cons, err := js.Consumer(t.Context(), queue.Stream, queue.Consumer)
		if err != nil {
			return false
		}
		info, err := cons.Info(t.Context())
		return err == nil && info.NumWaiting == n
	}, Deadline, 10*time.Millisecond, "%d worker(s) waiting on the queue", n)
}

// Open starts an embedded NATS server on a temporary store and opens the
// queue on it with opts; the server, the connection and the queue end
// with the test.
func Open(t testing.TB, opts queue.Options) (*queue.Server, *queue.Conn) {
	t.Helper()
	srv, err := queue.StartServer(queue.ServerConfig{StoreDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	nc, err := srv.Connect("test")
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	c, err := queue.Open(t.Context(), nc, opts)
	require.NoError(t, err)
	return srv, c
}
