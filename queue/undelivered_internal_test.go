package queue

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// reader is a reader of Advisories that yields nothing. Its Stop ends a
// Next in progress when reaches is set; else it does not, as nats.go's
// ordered consumer's does not when it comes while the consumer is made
// again after the server restarted (it stops the consumer being
// replaced). A Next given a context (NextContext: ctx) ends with it.
type reader struct {
	ctx     context.Context
	reaches bool

	once    sync.Once
	stopped chan struct{}
}

func (r *reader) Next(opts ...jetstream.NextOpt) (jetstream.Msg, error) {
	var bound, stopped <-chan struct{}
	if len(opts) > 0 {
		bound = r.ctx.Done()
	}
	if r.reaches {
		stopped = r.stopped
	}
	select {
	case <-bound:
		return nil, r.ctx.Err()
	case <-stopped:
		return nil, jetstream.ErrMsgIteratorClosed
	}
}

func (r *reader) Stop()  { r.once.Do(func() { close(r.stopped) }) }
func (r *reader) Drain() { r.Stop() }

// RecordUndelivered ends, with no error, once its context ends: before
// its reader is there, while it reads, and when the reader's Stop does
// not end its Next (a coordinator waits for it: its run did not end).
func TestRecordUndeliveredEndsWithItsContext(t *testing.T) {
	tests := map[string]struct {
		// reader is nil for a server that does not answer yet.
		reader func(ctx context.Context) *reader
	}{
		"before its reader is there": {},
		"reading": {reader: func(ctx context.Context) *reader {
			return &reader{ctx: ctx, reaches: true, stopped: make(chan struct{})}
		}},
		"its reader made again as it ends": {reader: func(ctx context.Context) *reader {
			return &reader{ctx: ctx, stopped: make(chan struct{})}
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			reading := make(chan struct{})
			c := &Conn{advisories: func(context.Context) (jetstream.MessagesContext, error) {
				if tc.reader == nil {
					cancel() // it ends while the server does not answer
					return nil, errors.New("nats: no responders available for request")
				}
				close(reading)
				return tc.reader(ctx), nil
			}}
			done := make(chan error, 1)
			go func() { done <- c.RecordUndelivered(ctx, "r1") }()
			if tc.reader != nil {
				<-reading
				cancel()
			}
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("RecordUndelivered did not return after its context ended")
			}
		})
	}
}
