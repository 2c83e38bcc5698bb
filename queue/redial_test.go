package queue_test

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/queuetest"
	"github.com/assaylabs/assay/queue"
)

// lines is a log a test reads as it is written.
type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// waitCount waits until the log says s n times.
func (l *lines) waitCount(t *testing.T, s string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return strings.Count(l.b.String(), s) >= n
	}, queuetest.Deadline, 10*time.Millisecond, "the log never said %q %d time(s); it says:\n%s", s, n, &l.b)
}

// A worker whose NATS server went away says it does not answer, and
// says so again, each time, once it is connected again, also after the
// queue is opened on its connection (which is told of reconnections
// too).
func TestWorkerSaysItIsConnectedAgain(t *testing.T) {
	tests := map[string]struct{ outages int }{
		"restarted once":  {outages: 1},
		"restarted twice": {outages: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var lc net.ListenConfig
			l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
			require.NoError(t, err)
			addr := l.Addr().String()
			require.NoError(t, l.Close())
			store := t.TempDir()
			srv, err := queue.StartServer(queue.ServerConfig{StoreDir: store, Listen: addr})
			require.NoError(t, err)
			t.Cleanup(func() { srv.Close() })
			url := "nats://" + addr
			log := &lines{}
			nc, err := queue.DialRetry(url, "", "worker", log)
			require.NoError(t, err)
			t.Cleanup(nc.Close)
			_, err = queue.Open(t.Context(), nc, queue.Options{})
			require.NoError(t, err)

			for i := 1; i <= tc.outages; i++ {
				srv.Close()
				log.waitCount(t, "worker: the NATS server at "+url+" does not answer", i)
				srv, err = queue.StartServer(queue.ServerConfig{StoreDir: store, Listen: addr})
				require.NoError(t, err)
				log.waitCount(t, "worker: connected to the NATS server at "+url, i)
			}
		})
	}
}
