package live

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// outbox is a bounded queue of events served by one goroutine, which hands
// them, in order, to deliver. push never waits: a full queue drops its
// oldest event and counts it. The goroutine is owned by the outbox and
// stops in close.
type outbox struct {
	deliver func(context.Context, Event) (retries int, err error)

	mu      sync.Mutex
	buf     []Event // a ring: head is the oldest, count are queued
	head    int
	count   int
	busy    bool          // an event is being delivered
	idle    chan struct{} // closed while nothing is queued or in flight
	closed  bool
	wake    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	stopped chan struct{}
	lastErr string // why the last event given up on failed

	delivered, failed, retries, dropped, abandoned, elsewhere atomic.Int64
}

// errElsewhere is a claim's delivery of an event another monitor claimed.
var errElsewhere = errors.New("claimed by another monitor")

func newOutbox(size int, deliver func(context.Context, Event) (int, error)) *outbox {
	ctx, cancel := context.WithCancel(context.Background())
	o := &outbox{
		deliver: deliver,
		buf:     make([]Event, size),
		idle:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
		ctx:     ctx,
		cancel:  cancel,
		stopped: make(chan struct{}),
	}
	close(o.idle)
	go o.run()
	return o
}

// push queues e, dropping the oldest queued event when the queue is full.
// After close it drops e and counts it as abandoned.
func (o *outbox) push(e Event) {
	o.mu.Lock()
	switch {
	case o.closed:
		o.abandoned.Add(1)
		o.mu.Unlock()
		return
	case o.count == len(o.buf):
		o.buf[o.head] = Event{}
		o.head = (o.head + 1) % len(o.buf)
		o.count--
		o.dropped.Add(1)
	}
	if o.count == 0 && !o.busy {
		o.idle = make(chan struct{})
	}
	o.buf[(o.head+o.count)%len(o.buf)] = e
	o.count++
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued event, marking the outbox busy.
func (o *outbox) next() (Event, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.count == 0 {
		return Event{}, false
	}
	e := o.buf[o.head]
	o.buf[o.head] = Event{}
	o.head = (o.head + 1) % len(o.buf)
	o.count--
	o.busy = true
	return e, true
}

// done ends a delivery.
func (o *outbox) done() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.busy = false
	if o.count == 0 {
		close(o.idle)
	}
}

func (o *outbox) run() {
	defer close(o.stopped)
	for {
		e, ok := o.next()
		if !ok {
			select {
			case <-o.wake:
				continue
			case <-o.ctx.Done():
				return
			}
		}
		retries, err := o.deliver(o.ctx, e)
		o.retries.Add(int64(retries))
		switch {
		case errors.Is(err, errElsewhere):
			o.elsewhere.Add(1)
		case err != nil:
			if o.ctx.Err() != nil {
				o.abandoned.Add(1)
			} else {
				o.mu.Lock()
				o.lastErr = err.Error()
				o.mu.Unlock()
				o.failed.Add(1)
			}
		default:
			o.delivered.Add(1)
		}
		o.done()
		if o.ctx.Err() != nil {
			return
		}
	}
}

// flush waits until nothing is queued or in flight, or ctx ends.
func (o *outbox) flush(ctx context.Context) error {
	for {
		o.mu.Lock()
		idle, closed := o.idle, o.closed
		o.mu.Unlock()
		if closed {
			return nil
		}
		select {
		case <-idle:
			o.mu.Lock()
			again := o.count > 0 || o.busy
			o.mu.Unlock()
			if !again {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close stops the goroutine, cancelling a delivery in flight; what is
// still queued is counted as abandoned.
func (o *outbox) close() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.closed = true
	o.mu.Unlock()
	o.cancel()
	<-o.stopped
	o.mu.Lock()
	o.abandoned.Add(int64(o.count))
	clear(o.buf)
	o.count = 0
	o.mu.Unlock()
}

// Delivery counts what became of the events sent to a sink or a webhook.
type Delivery struct {
	// Enabled is false when there is no sink (no webhook URL).
	Enabled bool `json:"enabled"`
	// Delivered were accepted, Failed were given up on (retries spent or
	// an answer that no retry changes), Retries are the attempts after a
	// first one, Dropped were pushed out of a full queue, Abandoned were
	// queued or in flight when the monitor closed. Queued wait now.
	// Of a monitor's claims (Config.Claim), Delivered are the events it
	// claimed (and handed to its sink and webhook), Elsewhere those
	// another monitor claimed.
	Delivered int64 `json:"delivered"`
	Failed    int64 `json:"failed"`
	Retries   int64 `json:"retries"`
	Dropped   int64 `json:"dropped"`
	Abandoned int64 `json:"abandoned"`
	Queued    int64 `json:"queued"`
	Elsewhere int64 `json:"elsewhere,omitempty"`
	// LastError says why the last event Failed counts was given up on
	// (a webhook's answer, say); "" while none was.
	LastError string `json:"last_error,omitempty"`
}

func (o *outbox) stats() Delivery {
	if o == nil {
		return Delivery{}
	}
	o.mu.Lock()
	queued, lastErr := int64(o.count), o.lastErr
	o.mu.Unlock()
	return Delivery{
		Enabled:   true,
		Delivered: o.delivered.Load(),
		Failed:    o.failed.Load(),
		Retries:   o.retries.Load(),
		Dropped:   o.dropped.Load(),
		Abandoned: o.abandoned.Load(),
		Queued:    queued,
		Elsewhere: o.elsewhere.Load(),
		LastError: lastErr,
	}
}
