package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
)

// BreakerPolicy is when the Client takes the model server as down. Zero
// fields take the defaults in brackets.
type BreakerPolicy struct {
	// Failures is how many attempts in a row must go unanswered (timed
	// out, refused, reset, or a body cut off in transit) before the server
	// is taken as down [3]. Any answer, an error status included, resets
	// the count.
	Failures int
	// Cooldown is how long calls wait, unsent, once the server is taken
	// as down, before one of them goes out to test it; its answer brings
	// the server back and the waiting calls go on, and its failure starts
	// another cool-down [1s]. A test costs one request, so the cool-down
	// is short: it is how late a server that came back is noticed.
	Cooldown time.Duration
	// GiveUp is how long the server may stay down before calls stop
	// waiting for it [the retry policy's MaxElapsed, 2m]: from then on a
	// call fails at once, unsent, with ErrUnreachable, unless it is the
	// one that tests the server. A call never waits past its own retry
	// time or its context either.
	GiveUp time.Duration
}

func (p BreakerPolicy) withDefaults(retry RetryPolicy) BreakerPolicy {
	if p.Failures <= 0 {
		p.Failures = 3
	}
	if p.Cooldown <= 0 {
		p.Cooldown = time.Second
	}
	if p.GiveUp <= 0 {
		p.GiveUp = retry.withDefaults().MaxElapsed
	}
	return p
}

// breaker stops sending to a model server that does not answer: a
// circuit breaker (gobreaker) counting unanswered attempts. While it is
// open, calls wait for the server (await) rather than fail: a blip, a
// restart or a stall costs a pause, and only a server that stays down
// longer than GiveUp fails calls. It remembers the last unanswered
// attempt so that a refused call says why.
type breaker struct {
	cb     *gobreaker.CircuitBreaker[struct{}]
	policy BreakerPolicy
	now    func() time.Time

	// waiting counts the calls waiting for the server.
	waiting atomic.Int64

	mu   sync.Mutex
	last error // the last unanswered attempt's error
	// changed is closed and replaced at every change of state.
	changed chan struct{}
	// since is when the server was taken as down (zero while it is up);
	// opened is when the breaker last opened: a test goes out Cooldown
	// after it.
	since, opened time.Time
}

func newBreaker(p BreakerPolicy, retry RetryPolicy) *breaker {
	p = p.withDefaults(retry)
	b := &breaker{policy: p, now: time.Now, changed: make(chan struct{})}
	b.cb = gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        "model server",
		MaxRequests: 1, // one test call when the cool-down ends
		Timeout:     p.Cooldown,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= uint32(p.Failures) },
		// Only an attempt the server did not answer counts against it: a
		// 4xx or 5xx is an answer, and the retry loop deals with it.
		IsSuccessful: func(err error) bool { return !unanswered(err) },
		// A caller that went away says nothing about the server.
		IsExcluded: func(err error) bool { return errors.As(err, new(*callerGone)) },
		// Called with gobreaker's lock held: it must not call b.cb.
		OnStateChange: b.moved,
	})
	return b
}

// moved notes a change of the breaker's state and wakes the calls waiting
// for one.
func (b *breaker) moved(_ string, from, to gobreaker.State) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	switch to {
	case gobreaker.StateOpen:
		b.opened = now
		if from == gobreaker.StateClosed {
			b.since = now
		}
	case gobreaker.StateClosed:
		b.since = time.Time{}
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

// callerGone marks an attempt that ended because its caller's context
// did, for the breaker to leave out of its counts.
type callerGone struct{ err error }

func (e *callerGone) Error() string { return e.err.Error() }
func (e *callerGone) Unwrap() error { return e.err }

// unanswered reports whether err is an attempt the server gave no answer
// to: a transport error worth retrying, with no HTTP status.
func unanswered(err error) bool {
	return err != nil && Temporary(err) && !errors.As(err, new(*StatusError)) && !errors.Is(err, errLimitWait)
}

// await returns when a call may be sent: at once while the server is up,
// else when the cool-down ends and the server may be tested (the first
// call to try then tests it, the others wait for its answer). It fails
// with ErrUnreachable, permanent, when until passes first (the call's own
// retry time) or the server has been down longer than GiveUp; and with
// ctx's error when ctx ends.
func (b *breaker) await(ctx context.Context, until time.Time) error {
	counted := false
	defer func() {
		if counted {
			b.waiting.Add(-1)
		}
	}()
	for {
		state := b.cb.State() // moves an open breaker whose cool-down ended to half-open
		b.mu.Lock()
		changed, since, opened := b.changed, b.since, b.opened
		b.mu.Unlock()
		switch state {
		case gobreaker.StateClosed:
			return nil
		case gobreaker.StateHalfOpen:
			if c := b.cb.Counts(); c.Requests <= c.TotalExclusions {
				return nil // no test under way: this call may be it
			}
		}
		now := b.now()
		switch {
		case since.IsZero():
			// Closed again since State was read.
			continue
		case !until.IsZero() && !now.Before(until):
			return b.downErr(now.Sub(since), "this call's retry time ran out while the server was down")
		case now.Sub(since) >= b.policy.GiveUp:
			return b.downErr(now.Sub(since), fmt.Sprintf("down longer than %v, so calls are no longer held for it", b.policy.GiveUp))
		}
		if !counted {
			counted = true
			b.waiting.Add(1)
		}
		// Wake at the end of the cool-down, or when this call or the
		// server's patience runs out, whichever is first; a change of
		// state wakes it sooner.
		wake := since.Add(b.policy.GiveUp)
		if state == gobreaker.StateOpen {
			wake = earliest(wake, opened.Add(b.policy.Cooldown))
		}
		if !until.IsZero() {
			wake = earliest(wake, until)
		}
		t := time.NewTimer(max(wake.Sub(now), time.Millisecond))
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		t.Stop()
	}
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// run sends one attempt through the breaker, counted by its outcome. When
// the server is taken as down meanwhile (or a test is under way), the call
// waits for it as await does, until until.
func (b *breaker) run(ctx context.Context, until time.Time, attempt func() error) error {
	for {
		_, err := b.cb.Execute(func() (struct{}, error) {
			err := attempt()
			switch {
			case err != nil && ctx.Err() != nil:
				return struct{}{}, &callerGone{err}
			case unanswered(err):
				b.mu.Lock()
				b.last = err
				b.mu.Unlock()
			}
			return struct{}{}, err
		})
		if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
			if err := b.await(ctx, until); err != nil {
				return err
			}
			continue
		}
		if cg, ok := errors.AsType[*callerGone](err); ok {
			return cg.err
		}
		return err
	}
}

// down is since when the server has been taken as down (zero while it is
// up) and how many calls wait for it.
func (b *breaker) down() (since time.Time, waiting int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.since, int(b.waiting.Load())
}

// downErr is the error of a call refused while the server is down: it
// names the last unanswered attempt's error, how long the server has been
// down, and why the call stops waiting. It is permanent, so that a call
// waiting to retry gets no further attempt.
func (b *breaker) downErr(down time.Duration, why string) error {
	b.mu.Lock()
	last := b.last
	b.mu.Unlock()
	//nolint:errorlint // the last error is context: wrapping a timeout would make the server's silence look like the caller's deadline.
	return permanent(fmt.Errorf("%w: %v (%d attempts in a row went unanswered; no answer for %v: %s)",
		ErrUnreachable, last, b.policy.Failures, down.Round(time.Millisecond), why))
}
