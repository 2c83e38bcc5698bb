package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/queue"
)

// The backlog tells the tasks handed out and not done apart from the
// workers taking tasks: a task a worker gave back (it refused the run and
// stopped) stays unacked on the server, though no worker holds it, and
// the backlog then says no worker takes tasks; a worker at a task is one.
func TestBacklogCountsWorkersTakingTasks(t *testing.T) {
	_, c := open(t)
	ctx := t.Context()
	backlog := func() queue.Backlog {
		bl, err := c.Backlog(ctx)
		require.NoError(t, err)
		bl.Idle = 0 // a stopped worker's fetch lingers until it expires
		return bl
	}
	require.NoError(t, c.Publish(ctx, "r", []string{"t1", "t2"}, [][]byte{[]byte("1"), []byte("2")}))

	refused := make(chan error, 1)
	go func() {
		refused <- c.Work(ctx, queue.WorkerConfig{Endpoint: "bad", Concurrency: 2, AckWait: time.Minute,
			Handle: func(context.Context, queue.Task) ([]byte, error) {
				return nil, fmt.Errorf("run r: a metric this worker does not know: %w", queue.ErrRefused)
			}})
	}()
	select {
	case err := <-refused:
		require.ErrorIs(t, err, queue.ErrRefused)
	case <-time.After(30 * time.Second):
		t.Fatal("the bad worker never refused")
	}
	require.Equal(t, queue.Backlog{Joined: true, Unacked: 2}, backlog(), "given back, held by no worker")

	started := make(chan struct{}, 2)
	work(t, c, queue.WorkerConfig{Endpoint: "good", Concurrency: 1, AckWait: time.Minute,
		Handle: func(ctx context.Context, _ queue.Task) ([]byte, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the good worker never took a task")
	}
	want := queue.Backlog{Joined: true, Unacked: 2, Workers: 1}
	require.Eventually(t, func() bool { return backlog() == want }, 30*time.Second, 10*time.Millisecond,
		"one held, one given back, one worker: got %+v", backlog())
}
