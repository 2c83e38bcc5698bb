package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	// Cooldown is how long calls fail at once, unsent, once the server is
	// taken as down; then one call goes out to test it, and its answer
	// brings the server back or starts another cool-down [10s].
	Cooldown time.Duration
}

func (p BreakerPolicy) withDefaults() BreakerPolicy {
	if p.Failures <= 0 {
		p.Failures = 3
	}
	if p.Cooldown <= 0 {
		p.Cooldown = 10 * time.Second
	}
	return p
}

// breaker stops sending to a model server that does not answer: a
// circuit breaker (gobreaker) counting unanswered attempts, which
// remembers the last one so that a refused call says why.
type breaker struct {
	cb     *gobreaker.CircuitBreaker[struct{}]
	policy BreakerPolicy

	mu   sync.Mutex
	last error // the last unanswered attempt's error
}

func newBreaker(p BreakerPolicy) *breaker {
	p = p.withDefaults()
	b := &breaker{policy: p}
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
	})
	return b
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

// check returns the error of a call refused because the server is taken
// as down, or nil. It takes no test-call slot.
func (b *breaker) check() error {
	if b.cb.State() == gobreaker.StateOpen {
		return b.downErr()
	}
	return nil
}

// run sends one attempt through the breaker: refused at once (unsent)
// while the server is taken as down, else counted by its outcome.
func (b *breaker) run(ctx context.Context, attempt func() error) error {
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
		return b.downErr()
	}
	if cg, ok := errors.AsType[*callerGone](err); ok {
		return cg.err
	}
	return err
}

// down reports whether the server is taken as down.
func (b *breaker) down() bool { return b.cb.State() != gobreaker.StateClosed }

// downErr is the error of a call refused while the server is down: it
// names the last unanswered attempt's error. It is permanent, so that a
// call waiting to retry gets no further attempt.
func (b *breaker) downErr() error {
	b.mu.Lock()
	last := b.last
	b.mu.Unlock()
	//nolint:errorlint // the last error is context: wrapping a timeout would make the server's silence look like the caller's deadline.
	return permanent(fmt.Errorf("%w: %v (%d attempts in a row went unanswered; calls are not sent for %v, then one tests the server)",
		ErrUnreachable, last, b.policy.Failures, b.policy.Cooldown))
}
