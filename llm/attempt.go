package llm

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// DeadlinePolicy is how long one attempt of a call waits for its answer:
// a small multiple of the latency the server shows, so that a hung
// request costs about that much, not the whole CallTimeout. Zero fields
// take the defaults in brackets.
//
// An attempt's deadline is Multiple times the 99th percentile of the
// latencies of its tag's recent answered attempts (the last 256), at least
// Floor, doubled at each retry of the call. An attempt still unanswered at
// its deadline is hedged: a second request goes out, the first answer of
// the two wins and the other is cancelled; both are counted in the usage
// (Calls, Hedges). The attempt ends unanswered when the hedge has waited
// a deadline too (or, with no hedge to spare, at twice the deadline).
// CallTimeout caps every attempt: until Samples attempts of a tag have
// been answered, and whenever the deadline would reach it, an attempt
// waits CallTimeout, unhedged.
type DeadlinePolicy struct {
	// Multiple of the recent p99 latency [3].
	Multiple float64
	// Floor is the least deadline [1s]: below it, a loaded machine's own
	// pauses would look like a slow server.
	Floor time.Duration
	// Samples is how many answered attempts of a tag are needed before
	// its latency is trusted [10].
	Samples int
	// Hedges is how many hedge requests may be in flight at once [a
	// quarter of Concurrency, at least 1]; negative sends none, and an
	// attempt then ends unanswered at twice its deadline.
	Hedges int
	// Fixed turns the policy off: every attempt waits CallTimeout.
	Fixed bool
}

func (p DeadlinePolicy) withDefaults(concurrency int) DeadlinePolicy {
	if p.Multiple <= 0 {
		p.Multiple = 3
	}
	if p.Floor <= 0 {
		p.Floor = time.Second
	}
	if p.Samples <= 0 {
		p.Samples = 10
	}
	if p.Hedges == 0 {
		p.Hedges = max(1, concurrency/4)
	}
	return p
}

// latencyWindow is how many recent answered attempts of a tag the
// deadline is taken from.
const latencyWindow = 256

// latencies keeps the latency of the recent answered attempts of each
// tag. It is safe for concurrent use.
type latencies struct {
	mu   sync.Mutex
	tags map[string]*window
}

// window is a ring of a tag's recent latencies and their p99, computed
// again once a sixteenth of the ring is new.
type window struct {
	d     [latencyWindow]time.Duration
	n     int // filled
	next  int // to write
	p99   time.Duration
	stale int // added since p99 was computed
}

func (l *latencies) add(tag string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tags == nil {
		l.tags = map[string]*window{}
	}
	w := l.tags[tag]
	if w == nil {
		w = &window{}
		l.tags[tag] = w
	}
	w.d[w.next] = d
	w.next = (w.next + 1) % latencyWindow
	w.n = min(w.n+1, latencyWindow)
	w.stale++
}

// p99 is the 99th percentile of tag's recent latencies, false with fewer
// than samples of them.
func (l *latencies) p99(tag string, samples int) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.tags[tag]
	if w == nil || w.n < samples {
		return 0, false
	}
	if w.stale > 0 && (w.p99 == 0 || w.stale >= max(1, w.n/16)) {
		s := slices.Clone(w.d[:w.n])
		slices.Sort(s)
		w.p99 = s[(99*w.n+99)/100-1]
		w.stale = 0
	}
	return w.p99, true
}

// deadline is how long attempt try (0 for the first) of a call of tag
// waits before it is hedged, false when it waits CallTimeout unhedged
// (the policy is off, the tag's latency is not known yet, or the deadline
// would reach CallTimeout).
func (c *Client) deadline(tag string, try int) (time.Duration, bool) {
	p := c.deadlines
	if p.Fixed {
		return 0, false
	}
	p99, ok := c.lat.p99(tag, p.Samples)
	if !ok {
		return 0, false
	}
	d := max(time.Duration(p.Multiple*float64(p99)), p.Floor) << min(try, 16)
	if cap := c.cfg.CallTimeout; cap > 0 && d >= cap {
		return 0, false
	}
	return d, true
}

// callStats counts what one call sent: its attempts, the requests they
// made (hedges included) and the hedges.
type callStats struct {
	attempts, requests, hedges int
}

// reply is the outcome of one request of an attempt.
type reply[T any] struct {
	v     T
	err   error
	took  time.Duration
	hedge bool
}

// hedged makes attempt try of a call of tag: send, cut at CallTimeout,
// hedged at its deadline and ended unanswered after it (DeadlinePolicy).
// Its answered latencies feed the tag's deadline.
func hedged[T any](ctx context.Context, c *Client, tag string, try int, st *callStats, send func(context.Context) (T, error)) (T, error) {
	var zero T
	st.attempts++
	start := time.Now()
	actx, cancel := ctx, context.CancelFunc(func() {})
	if c.cfg.CallTimeout > 0 {
		actx, cancel = context.WithTimeout(ctx, c.cfg.CallTimeout)
	}
	defer cancel()
	capAt, capped := actx.Deadline()
	// Each request has a channel place of its own, so that one cancelled
	// after the other won never blocks.
	replies := make(chan reply[T], 2)
	launch := func(hedge bool) context.CancelFunc {
		rctx, rcancel := context.WithCancel(actx)
		st.requests++
		t0 := time.Now()
		go func() {
			v, err := send(rctx)
			if hedge {
				<-c.hedges
			}
			replies <- reply[T]{v: v, err: err, took: time.Since(t0), hedge: hedge}
		}()
		return rcancel
	}
	defer launch(false)()
	pending, slow := 1, false
	defer func() {
		if slow {
			c.slow.Add(-1)
		}
	}()
	var (
		end  time.Time // when the attempt ends unanswered; zero: not yet set
		d    time.Duration
		last error // the first failure of a request, preferring an answer
		// lastV is what the request that failed with last returned: a
		// reply the server answered and billed (a refusal, no content)
		// carries its usage, which the call must count.
		lastV T
	)
	for {
		wake := end
		if end.IsZero() {
			wake, d = c.hedgeWake(tag, try, start)
		}
		if capped && !wake.Before(capAt) {
			wake = time.Time{} // CallTimeout ends the attempt first
		}
		t, timer := timerAt(wake)
		select {
		case r := <-replies:
			stop(t)
			pending--
			if r.err == nil {
				c.lat.add(tag, r.took)
				return r.v, nil
			}
			if last == nil || (unanswered(last) && !unanswered(r.err)) {
				last, lastV = r.err, r.v
			}
			if pending == 0 {
				return lastV, last
			}
			// The other request may still answer: wait for it, until end.
		case <-timer:
			now := time.Now()
			if !end.IsZero() {
				if !now.Before(end) {
					if last != nil && !unanswered(last) {
						return lastV, last
					}
					return zero, fmt.Errorf("no answer within %v (the attempt's deadline, from the latency of recent replies): %w",
						end.Sub(start).Round(time.Millisecond), context.DeadlineExceeded)
				}
				continue
			}
			if d == 0 || now.Sub(start) < d {
				continue
			}
			// The attempt outlived its deadline.
			if !slow {
				slow = true
				c.slow.Add(1)
			}
			end = start.Add(2 * d)
			if c.hedge() {
				st.hedges++
				pending++
				defer launch(true)()
				end = now.Add(d)
			}
		}
	}
}

// hedgeWake is when an attempt of tag started at start is next looked at
// before its deadline is set: at its deadline d, when the tag's latency
// tells one; else, unless deadlines are fixed, a floor from now, as the
// calls beside it are answered. Zero: never.
func (c *Client) hedgeWake(tag string, try int, start time.Time) (time.Time, time.Duration) {
	if d, ok := c.deadline(tag, try); ok {
		return start.Add(d), d
	}
	if !c.deadlines.Fixed {
		return time.Now().Add(c.deadlines.Floor), 0
	}
	return time.Time{}, 0
}

// timerAt starts a timer that fires at wake and returns it with its
// channel; a zero wake starts none and returns a nil channel, which never
// fires.
func timerAt(wake time.Time) (*time.Timer, <-chan time.Time) {
	if wake.IsZero() {
		return nil, nil
	}
	t := time.NewTimer(time.Until(wake))
	return t, t.C
}

// stop stops t, when there is one.
func stop(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// hedge takes a place for a hedge request, false when none is free.
func (c *Client) hedge() bool {
	select {
	case c.hedges <- struct{}{}:
		return true
	default:
		return false
	}
}
