package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// AdaptivePolicy is how the Client's limit on calls in flight follows
// what the model server says (AIMD, as TCP's congestion window). The
// limit starts at Initial and never passes Concurrency, the ceiling:
//   - a 429, or an attempt the server did not answer in time, halves it
//     (at least 1), once for the calls in flight together: an attempt
//     sent before the last halving does not halve it again;
//   - a call answered at its first attempt with the limit in use (half
//     or more of it in flight) is a clean success. Until the first
//     halving each clean success adds one (the limit doubles every
//     round trip, so a server that takes the ceiling gets it after a few
//     replies); after it, a run of as many clean successes in a row as
//     the limit adds one, until the limit passes the level it was halved
//     from, where each clean success adds one again (the server takes
//     more than it did: the limit gets back to the ceiling quickly once a
//     rate limit has refilled);
//   - a success after a retry never raises the limit; any other failure
//     ends the run of clean successes;
//   - a Retry-After hint (of a 429 or a 503) holds every call back, not
//     only the one that got it, until it has passed (capped by
//     RetryPolicy.MaxRetryAfter); so does a reply that says a server's
//     request or token limit has nothing remaining (x-ratelimit-remaining
//     0), until one request or token of it is back (its x-ratelimit-reset
//     over its x-ratelimit-limit, or the whole reset when the server does
//     not give the limit); such a reply does not raise the limit either.
//     (Fewer remaining requests than the limit says nothing: a bucket of
//     small burst refills fast.)
//
// Zero fields take the defaults in brackets.
type AdaptivePolicy struct {
	// Initial is the limit calls start at [Concurrency]. The first round
	// of calls goes out before any reply has said anything; a server
	// that does not take that many refuses the excess with 429s, which
	// halve the limit once and are retried after their Retry-After, so
	// starting lower only slows the servers that do take it (a fan-out
	// at 32 started at 16 took 1.12x its ideal time in the fan-out
	// benchmark, against 1.08x started at 32; against a token bucket at
	// --concurrency 64, started at 64: 0 defaults, 1.04x its ideal time).
	Initial int
	// Fixed turns adaptation off: the limit is Concurrency throughout,
	// and hints hold back only the call that got them.
	Fixed bool
}

// LimitReport is what the adaptive limit on calls in flight did.
type LimitReport struct {
	// Adaptive is false when the limit was fixed (AdaptivePolicy.Fixed).
	Adaptive bool `json:"adaptive"`
	// Ceiling is Concurrency; Initial, Low, High and Final are the
	// limit's start, least, greatest and last levels.
	Ceiling int `json:"ceiling"`
	Initial int `json:"initial"`
	Low     int `json:"low"`
	High    int `json:"high"`
	Final   int `json:"final"`
	// Decreases counts the halvings (a 429 or an unanswered attempt).
	Decreases int `json:"decreases,omitempty"`
	// Holds counts the times a server's hint held every call back
	// (Retry-After, or an x-ratelimit limit with nothing remaining), and
	// Held is how long they held calls back in all.
	Holds int           `json:"holds,omitempty"`
	Held  time.Duration `json:"held_ns,omitempty"`
}

// RateLimits are what a reply's x-ratelimit headers say of the server's
// limits (Response.RateLimits).
type RateLimits struct {
	// LimitRequests and LimitTokens are the size of each limit, and
	// RemainingRequests and RemainingTokens what is left of it; below 0
	// when the server did not say.
	LimitRequests, LimitTokens         int
	RemainingRequests, RemainingTokens int
	// ResetRequests and ResetTokens are how long until each limit is
	// whole again.
	ResetRequests, ResetTokens time.Duration
}

// unsaid is RateLimits with nothing said.
var unsaid = RateLimits{LimitRequests: -1, LimitTokens: -1, RemainingRequests: -1, RemainingTokens: -1}

// exhausted is how long calls are held back by a limit with nothing
// remaining: until one unit of it is back (reset over its size, as the
// limit refills evenly), or, when its size is not said, until reset.
func exhausted(size, remaining int, reset time.Duration) time.Duration {
	switch {
	case remaining != 0:
		return 0
	case size > 0:
		return reset / time.Duration(size)
	}
	return reset
}

// outcome is what became of an attempt that held a slot, for the limit.
type outcome int

const (
	unused   outcome = iota // the slot was given back unsent
	clean                   // answered at the first attempt
	retried                 // answered at a later attempt
	overload                // a 429, or no answer in time
	failed                  // any other failure
)

// slot is a place among the calls in flight: the limit's epoch (its
// halvings so far) when it was taken, and whether half the limit or more
// was in flight then.
type slot struct {
	epoch int
	busy  bool
}

// limiter is the limit on calls in flight, adapted by AdaptivePolicy.
// Waiting calls get their slots in the order they asked. It is safe for
// concurrent use.
type limiter struct {
	ceiling int
	fixed   bool
	maxHold time.Duration // the longest a hint holds calls back
	now     func() time.Time
	// after runs f after d (time.AfterFunc), and returns its stop.
	after func(d time.Duration, f func()) func() bool

	mu       sync.Mutex
	limit    int
	inflight int
	waiters  []chan slot
	epoch    int
	run      int  // clean successes in a row since the last change
	slow     bool // no halving yet, or grown past peak: each clean success adds one
	peak     int  // the limit the last halving came from
	hold     time.Time
	stopHold func() bool
	rep      LimitReport
}

func newLimiter(ceiling int, p AdaptivePolicy, maxHold time.Duration, now func() time.Time) *limiter {
	start := ceiling
	if !p.Fixed {
		if p.Initial > 0 {
			start = min(ceiling, p.Initial)
		}
	}
	return &limiter{
		ceiling: ceiling, fixed: p.Fixed, maxHold: maxHold, now: now,
		after: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop },
		limit: start, slow: true,
		rep: LimitReport{Adaptive: !p.Fixed, Ceiling: ceiling, Initial: start, Low: start, High: start},
	}
}

// acquire takes a slot, waiting while the limit is full or a hint holds
// calls back, or until ctx ends.
func (l *limiter) acquire(ctx context.Context) (slot, error) {
	l.mu.Lock()
	if len(l.waiters) == 0 && l.open() {
		s := l.take()
		l.mu.Unlock()
		return s, nil
	}
	ch := make(chan slot, 1)
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	select {
	case s := <-ch:
		return s, nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, w := range l.waiters {
		if w == ch {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			return slot{}, ctx.Err()
		}
	}
	// The slot was given as ctx ended: pass it on.
	<-ch
	l.inflight--
	l.dispatch()
	return slot{}, ctx.Err()
}

// open reports whether a call may start now. l.mu is held.
func (l *limiter) open() bool {
	return l.inflight < l.limit && (l.hold.IsZero() || !l.now().Before(l.hold))
}

// take counts a call in flight. l.mu is held.
func (l *limiter) take() slot {
	l.inflight++
	return slot{epoch: l.epoch, busy: 2*l.inflight >= l.limit}
}

// dispatch gives free slots to the waiting calls, in order. l.mu is held.
func (l *limiter) dispatch() {
	for len(l.waiters) > 0 && l.open() {
		ch := l.waiters[0]
		l.waiters = l.waiters[1:]
		ch <- l.take()
	}
}

// release gives s back with what became of its attempt, the server's
// rate-limit headers (nil when it sent none) and its Retry-After hint.
func (l *limiter) release(s slot, o outcome, rl *RateLimits, hint time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	if !l.fixed {
		l.adapt(s, o, rl)
		l.holdFor(hint)
	}
	l.dispatch()
}

// adapt moves the limit by o, the outcome of an attempt that took s. l.mu
// is held.
func (l *limiter) adapt(s slot, o outcome, rl *RateLimits) {
	if rl == nil {
		rl = &unsaid
	}
	// A limit of the server's with nothing remaining holds calls back,
	// and a reply that says so raises nothing.
	spent := max(exhausted(rl.LimitRequests, rl.RemainingRequests, rl.ResetRequests),
		exhausted(rl.LimitTokens, rl.RemainingTokens, rl.ResetTokens))
	l.holdFor(spent)
	switch {
	case o == overload && s.epoch == l.epoch:
		// (An attempt sent before the last halving was taken into account
		// by it.)
		l.run = 0
		l.epoch++
		l.slow = false
		l.peak = l.limit
		l.rep.Decreases++
		l.set(max(1, l.limit/2))
	case o == overload, o == failed:
		l.run = 0
	case o == clean && s.busy && spent == 0 && l.limit < l.ceiling:
		l.run++
		if l.slow || l.run >= l.limit {
			l.run = 0
			l.set(l.limit + 1)
			// Past the level the last halving came from, the server takes
			// more than it did then (its bucket refilled, the traffic
			// beside ours went): probe as at the start.
			l.slow = l.slow || l.limit > l.peak
		}
	}
}

// set moves the limit to n. l.mu is held.
func (l *limiter) set(n int) {
	l.limit = n
	l.rep.Low = min(l.rep.Low, n)
	l.rep.High = max(l.rep.High, n)
}

// holdFor holds every call back for d from now (at most maxHold),
// unless a hold already lasts longer. l.mu is held.
func (l *limiter) holdFor(d time.Duration) {
	if d <= 0 {
		return
	}
	d = min(d, l.maxHold)
	now := l.now()
	end := now.Add(d)
	if !end.After(l.hold) {
		return
	}
	if l.hold.After(now) {
		l.rep.Held += end.Sub(l.hold)
		l.stopHold()
	} else {
		l.rep.Held += d
		l.rep.Holds++
	}
	l.hold = end
	l.armHold(d)
}

// armHold ends the hold after d, or later if it was extended meanwhile,
// and lets the waiting calls go. l.mu is held.
func (l *limiter) armHold(d time.Duration) {
	l.stopHold = l.after(d, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if left := l.hold.Sub(l.now()); left > 0 {
			l.armHold(left)
			return
		}
		l.hold = time.Time{}
		l.dispatch()
	})
}

// report is what the limit did so far.
func (l *limiter) report() LimitReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rep
	r.Final = l.limit
	return r
}

// attemptOutcome is what an attempt that was sent (try 0 for a call's
// first) and ended in err says to the limit: a 429 or no answer in time
// is an overload; an attempt that ended because its caller went away
// says nothing.
func attemptOutcome(ctx context.Context, err error, try int) outcome {
	var se *StatusError
	var ne net.Error
	switch {
	case err == nil && try == 0:
		return clean
	case err == nil:
		return retried
	case ctx.Err() != nil || errors.Is(err, errLimitWait):
		return unused
	case errors.As(err, &se):
		if se.Code == http.StatusTooManyRequests {
			return overload
		}
		return failed
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return overload
	}
	return failed
}
