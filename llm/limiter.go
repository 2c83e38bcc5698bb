package llm

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// bucket is a token bucket on the Client's clock whose takings can be
// settled afterwards: a call takes its estimate before it starts, and
// once its real usage is known the difference is charged or given back.
// golang.org/x/time/rate cannot do that: a reservation can be cancelled
// only before it is used, so a tokens-per-minute limit fed estimates
// either holds calls back for tokens never used (estimates at the reply
// cap) or lets the real usage run past it (estimates that fall short).
//
// The level may go below zero: a taking larger than what is there is a
// debt, which the next taking waits out.
type bucket struct {
	rate  float64 // tokens a second
	burst float64
	now   func() time.Time

	mu     sync.Mutex
	level  float64
	last   time.Time
	behind bool // the last taking had to wait
}

func newBucket(perMinute, burst int, now func() time.Time) *bucket {
	return &bucket{rate: float64(perMinute) / 60, burst: float64(burst), level: float64(burst), now: now, last: now()}
}

// refill adds the tokens earned since the last look. b.mu is held.
func (b *bucket) refill() {
	t := b.now()
	if d := t.Sub(b.last); d > 0 {
		b.level = min(b.burst, b.level+d.Seconds()*b.rate)
	}
	b.last = t
}

// take takes n tokens and returns how long the caller must wait before
// it may go, and whether that wait starts an episode of waits (the last
// taking did not wait).
func (b *bucket) take(n int) (wait time.Duration, starts bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	b.level -= float64(n)
	if b.level >= 0 {
		b.behind = false
		return 0, false
	}
	starts = !b.behind
	b.behind = true
	return time.Duration(-b.level / b.rate * float64(time.Second)), starts
}

// settle charges n more tokens (n > 0) or gives back -n (n < 0): the
// difference between a call's real usage and what it took.
func (b *bucket) settle(n int) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	b.level = min(b.burst, b.level-float64(n))
}

// wait takes n tokens from b and waits until they are there. A wait that
// would end past ctx's deadline gives the tokens back and fails at once.
// onWait is told of a wait that starts an episode.
func (c *Client) wait(ctx context.Context, b *bucket, n int, onWait func(time.Duration)) error {
	d, starts := b.take(n)
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		b.settle(-n)
		return permanent(fmt.Errorf("%w: %w: the limit's next opening is in %v, past the deadline", context.DeadlineExceeded, errLimitWait, d.Round(time.Millisecond)))
	}
	if starts {
		onWait(d)
	}
	if err := c.sleep(ctx, d); err != nil {
		b.settle(-n)
		return err
	}
	return nil
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
