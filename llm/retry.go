package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// RetryPolicy is how transient errors are retried. Zero fields take the
// defaults in brackets.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt [4];
	// negative disables retries.
	MaxRetries int
	// Initial is the first backoff interval [500ms]; Max caps each
	// interval [20s].
	Initial, Max time.Duration
	// MaxElapsed bounds the time spent retrying one call [2m].
	MaxElapsed time.Duration
	// MaxRetryAfter caps a server's Retry-After hint [60s].
	MaxRetryAfter time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries == 0 {
		p.MaxRetries = 4
	}
	if p.Initial == 0 {
		p.Initial = 500 * time.Millisecond
	}
	if p.Max == 0 {
		p.Max = 20 * time.Second
	}
	if p.MaxElapsed == 0 {
		p.MaxElapsed = 2 * time.Minute
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = time.Minute
	}
	return p
}

// hinted is a BackOff that waits at least the server's Retry-After hint
// when the last error carried one.
type hinted struct {
	backoff.BackOff
	hint time.Duration
	max  time.Duration
}

func (h *hinted) NextBackOff() time.Duration {
	d := h.BackOff.NextBackOff()
	if d == backoff.Stop {
		return d
	}
	if h.hint > 0 {
		d = min(h.hint, h.max)
		h.hint = 0
	}
	return d
}

func permanent(err error) error { return backoff.Permanent(err) }

// do runs op until it succeeds, fails permanently, the policy gives up or
// ctx ends. It returns the number of retries made. The error is op's last
// error; when ctx ended first, it wraps ctx's error and names the last one.
func (p RetryPolicy) do(ctx context.Context, op func() error, notify func(attempt int, err error, wait time.Duration)) (int, error) {
	p = p.withDefaults()
	exp := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(p.Initial),
		backoff.WithMaxInterval(p.Max),
		backoff.WithMaxElapsedTime(p.MaxElapsed),
		backoff.WithRandomizationFactor(0.5),
	)
	retries := max(p.MaxRetries, 0)
	h := &hinted{BackOff: backoff.WithMaxRetries(exp, uint64(retries)), max: p.MaxRetryAfter}
	attempts := 0
	var last error
	err := backoff.RetryNotify(func() error {
		attempts++
		err := op()
		if err == nil {
			return nil
		}
		last = err
		if ctx.Err() != nil || !Temporary(err) {
			return backoff.Permanent(err)
		}
		h.hint = retryAfter(err)
		return err
	}, backoff.WithContext(h, ctx), func(err error, wait time.Duration) {
		if notify != nil {
			notify(attempts, err, wait)
		}
	})
	if cerr := ctx.Err(); err != nil && cerr != nil && last != nil && !errors.Is(last, cerr) {
		// The caller's deadline ended the retries: say so, and what the
		// model server last said.
		err = fmt.Errorf("%w (last error: %v)", cerr, last)
	}
	return attempts - 1, err
}
