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
	// MaxElapsed bounds the time spent retrying one call [2m]. A
	// Retry-After hint that ends past it ends the retries at once, with an
	// error that says so.
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

// hinted is a BackOff that waits the server's Retry-After hint, capped at
// max, when the last error carried one. A hint that ends past the retry
// time limit stops the retries, and refused keeps it: retrying sooner than
// the server asked would only be refused again.
type hinted struct {
	backoff.BackOff
	exp     *backoff.ExponentialBackOff
	hint    time.Duration
	max     time.Duration
	refused time.Duration
}

func (h *hinted) NextBackOff() time.Duration {
	d := h.BackOff.NextBackOff()
	if d == backoff.Stop {
		return d
	}
	if h.hint > 0 {
		d = min(h.hint, h.max)
		// Compared without adding to the hint, which may be the longest
		// Duration (a server's hint of centuries, DurationOf).
		if lim := h.exp.MaxElapsedTime; lim > 0 && h.hint > lim-h.exp.GetElapsedTime() {
			h.refused, d = h.hint, backoff.Stop
		}
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
	h := &hinted{BackOff: backoff.WithMaxRetries(exp, uint64(retries)), exp: exp, max: p.MaxRetryAfter}
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
	if err != nil && h.refused > 0 && ctx.Err() == nil {
		// The server asked for a wait past the retry time limit: give up
		// now rather than sleep past it or retry too soon.
		err = fmt.Errorf("%w (the server asked to wait %v before retrying, past the retry time limit of %v)",
			err, h.refused.Round(time.Millisecond), p.MaxElapsed)
	}
	if cerr := ctx.Err(); err != nil && cerr != nil && last != nil && !errors.Is(last, cerr) {
		// The caller's deadline ended the retries: say so, and what the
		// model server last said.
		//nolint:errorlint // the caller's deadline ended the call; the server's last word is context, not a cause to retry on.
		err = fmt.Errorf("%w (last error: %v)", cerr, last)
	}
	return attempts - 1, err
}
