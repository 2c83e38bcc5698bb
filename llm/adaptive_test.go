package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTimers is a limiter's clock and timers, moved by hand. It is safe
// for concurrent use.
type fakeTimers struct {
	mu     sync.Mutex
	t      time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

func (c *fakeTimers) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeTimers) after(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ft := &fakeTimer{at: c.t.Add(d), f: f}
	c.timers = append(c.timers, ft)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !ft.done
		ft.done = true
		return was
	}
}

// advance moves the clock by d and runs the timers due.
func (c *fakeTimers) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	var due []func()
	for _, ft := range c.timers {
		if !ft.done && !ft.at.After(c.t) {
			ft.done = true
			due = append(due, ft.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// step is one thing done to a limiter: take n slots (held in order;
// busy: taken as if the limit were in use, whatever is in flight),
// release n of those held (the last taken first) with an outcome, rate
// limits and hint, or move the clock.
type step struct {
	take    int
	busy    bool
	release int
	o       outcome
	rl      *RateLimits
	hint    time.Duration
	advance time.Duration
}

func takes(n int) step { return step{take: n, busy: true} }

func releases(n int, o outcome) step { return step{release: n, o: o} }

// TestLimiterAIMD: the rules of AdaptivePolicy, each from a limiter's
// start, with the limit's levels after them and whether a call may start.
func TestLimiterAIMD(t *testing.T) {
	t.Parallel()
	zero := &RateLimits{LimitRequests: 100, RemainingRequests: 0, ResetRequests: 10 * time.Second, LimitTokens: -1, RemainingTokens: -1}
	tests := map[string]struct {
		ceiling int
		policy  AdaptivePolicy
		steps   []step
		want    LimitReport
		held    bool // calls are held back at the end
	}{
		"starts at the ceiling": {
			ceiling: 64,
			want:    LimitReport{Adaptive: true, Ceiling: 64, Initial: 64, Low: 64, High: 64, Final: 64},
		},
		"a small ceiling, started at": {
			ceiling: 6,
			want:    LimitReport{Adaptive: true, Ceiling: 6, Initial: 6, Low: 6, High: 6, Final: 6},
		},
		"a 429 halves": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 16},
			steps: []step{takes(1), releases(1, overload)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 16, Low: 8, High: 16, Final: 8, Decreases: 1},
		},
		"the calls in flight together halve it once": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 16},
			steps: []step{takes(10), releases(10, overload)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 16, Low: 8, High: 16, Final: 8, Decreases: 1},
		},
		"a call sent after a halving halves it again": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 16},
			steps: []step{takes(1), releases(1, overload), takes(1), releases(1, overload)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 16, Low: 4, High: 16, Final: 4, Decreases: 2},
		},
		"floor 1": {
			ceiling: 4, policy: AdaptivePolicy{Initial: 1},
			steps: []step{takes(1), releases(1, overload)},
			want:  LimitReport{Adaptive: true, Ceiling: 4, Initial: 1, Low: 1, High: 1, Final: 1, Decreases: 1},
		},
		"before any halving each clean success adds one": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 4},
			steps: []step{takes(4), releases(4, clean)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 4, Low: 4, High: 8, Final: 8},
		},
		"the ceiling is never passed": {
			ceiling: 6, policy: AdaptivePolicy{Initial: 4},
			steps: []step{takes(4), releases(4, clean), takes(6), releases(6, clean)},
			want:  LimitReport{Adaptive: true, Ceiling: 6, Initial: 4, Low: 4, High: 6, Final: 6},
		},
		"after a halving, as many clean successes as the limit add one": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 16},
			steps: []step{takes(1), releases(1, overload), takes(8), releases(7, clean)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 16, Low: 8, High: 16, Final: 8, Decreases: 1},
		},
		"the eighth clean success of eight adds one": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 16},
			steps: []step{takes(1), releases(1, overload), takes(8), releases(8, clean)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 16, Low: 8, High: 16, Final: 9, Decreases: 1},
		},
		"a retried success never raises it": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 4},
			steps: []step{takes(4), releases(4, retried)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 4, Low: 4, High: 4, Final: 4},
		},
		"another failure ends the run of clean successes": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 16},
			steps: []step{takes(1), releases(1, overload), takes(8), releases(4, clean), releases(1, failed), releases(3, clean)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 16, Low: 8, High: 16, Final: 8, Decreases: 1},
		},
		"a success with the limit little used does not raise it": {
			ceiling: 16, policy: AdaptivePolicy{Initial: 8},
			steps: []step{{take: 1}, releases(1, clean), {take: 3}, releases(3, clean)},
			want:  LimitReport{Adaptive: true, Ceiling: 16, Initial: 8, Low: 8, High: 8, Final: 8},
		},
		"past the level it was halved from, each clean success adds one again": {
			ceiling: 32, policy: AdaptivePolicy{Initial: 4},
			steps: []step{
				takes(1), releases(1, overload), // 4 -> 2, halved from 4
				takes(2), releases(2, clean), // 3
				takes(3), releases(3, clean), // 4
				takes(4), releases(4, clean), // 5: past 4
				takes(5), releases(5, clean), // 10
			},
			want: LimitReport{Adaptive: true, Ceiling: 32, Initial: 4, Low: 2, High: 10, Final: 10, Decreases: 1},
		},
		"Retry-After holds every call back": {
			ceiling: 8, policy: AdaptivePolicy{Initial: 8},
			steps: []step{takes(1), {release: 1, o: overload, hint: 2 * time.Second}, {advance: time.Second}},
			want:  LimitReport{Adaptive: true, Ceiling: 8, Initial: 8, Low: 4, High: 8, Final: 4, Decreases: 1, Holds: 1, Held: 2 * time.Second},
			held:  true,
		},
		"until it has passed": {
			ceiling: 8, policy: AdaptivePolicy{Initial: 8},
			steps: []step{takes(1), {release: 1, o: overload, hint: 2 * time.Second}, {advance: 2 * time.Second}},
			want:  LimitReport{Adaptive: true, Ceiling: 8, Initial: 8, Low: 4, High: 8, Final: 4, Decreases: 1, Holds: 1, Held: 2 * time.Second},
		},
		"a hint is capped at the longest hold": {
			ceiling: 8, policy: AdaptivePolicy{Initial: 8},
			steps: []step{takes(1), {release: 1, o: failed, hint: time.Hour}, {advance: time.Minute}},
			want:  LimitReport{Adaptive: true, Ceiling: 8, Initial: 8, Low: 8, High: 8, Final: 8, Holds: 1, Held: time.Minute},
		},
		"a limit with nothing remaining holds calls until one request is back": {
			ceiling: 8, policy: AdaptivePolicy{Initial: 8},
			steps: []step{takes(4), {release: 1, o: clean, rl: zero}, {advance: 50 * time.Millisecond}},
			// 10 s to refill 100 requests: one is back in 100 ms.
			want: LimitReport{Adaptive: true, Ceiling: 8, Initial: 8, Low: 8, High: 8, Final: 8, Holds: 1, Held: 100 * time.Millisecond},
			held: true,
		},
		"and lets them go then": {
			ceiling: 8, policy: AdaptivePolicy{Initial: 8},
			steps: []step{takes(4), {release: 1, o: clean, rl: zero}, {advance: 100 * time.Millisecond}},
			want:  LimitReport{Adaptive: true, Ceiling: 8, Initial: 8, Low: 8, High: 8, Final: 8, Holds: 1, Held: 100 * time.Millisecond},
		},
		"fixed: the ceiling throughout, hints hold back only their call": {
			ceiling: 8, policy: AdaptivePolicy{Fixed: true},
			steps: []step{takes(2), {release: 1, o: overload, hint: time.Second}, releases(1, overload)},
			want:  LimitReport{Ceiling: 8, Initial: 8, Low: 8, High: 8, Final: 8},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := &fakeTimers{t: time.Unix(1_700_000_000, 0)}
			l := newLimiter(tt.ceiling, tt.policy, time.Minute, clock.now)
			l.after = clock.after
			var held []slot
			for i, st := range tt.steps {
				for range st.take {
					s, err := l.acquire(context.Background())
					require.NoError(t, err, "step %d", i)
					s.busy = s.busy || st.busy
					held = append(held, s)
				}
				require.LessOrEqual(t, st.release, len(held), "step %d", i)
				for range st.release {
					l.release(held[len(held)-1], st.o, st.rl, st.hint)
					held = held[:len(held)-1]
				}
				clock.advance(st.advance)
			}
			assert.Equal(t, tt.want, l.report())
			l.mu.Lock()
			open := l.open()
			l.mu.Unlock()
			assert.Equal(t, !tt.held, open, "a call may start")
		})
	}
}

// TestLimiterWaitersGoInOrder: calls that wait for a slot get one in the
// order they asked, when a slot frees or a hold ends; one whose context
// ends stops waiting.
func TestLimiterWaitersGoInOrder(t *testing.T) {
	t.Parallel()
	clock := &fakeTimers{t: time.Unix(1_700_000_000, 0)}
	l := newLimiter(1, AdaptivePolicy{}, time.Minute, clock.now)
	l.after = clock.after
	first, err := l.acquire(context.Background())
	require.NoError(t, err)
	got := make(chan int, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() { _, err := l.acquire(ctx); cancelled <- err }()
	waitFor(t, l, 1)
	for i := 1; i <= 2; i++ {
		go func() {
			s, err := l.acquire(context.Background())
			if err == nil {
				got <- i
				l.release(s, clean, nil, 0)
			}
		}()
		waitFor(t, l, i+1)
	}
	cancel()
	require.ErrorIs(t, <-cancelled, context.Canceled)
	// A 429 with a hint: the slot frees, but the hold keeps the waiters.
	l.release(first, overload, nil, time.Second)
	select {
	case i := <-got:
		t.Fatalf("waiter %d went during the hold", i)
	default:
	}
	clock.advance(time.Second)
	assert.Equal(t, 1, <-got)
	assert.Equal(t, 2, <-got)
}

// waitFor waits until n calls wait for a slot (goroutines started by the
// test reach acquire in their own time; no result depends on how long).
func waitFor(t *testing.T, l *limiter, n int) {
	t.Helper()
	for {
		l.mu.Lock()
		w := len(l.waiters)
		l.mu.Unlock()
		if w >= n {
			return
		}
		runtime.Gosched()
	}
}

// TestAttemptOutcome: what an attempt's error says to the limit.
func TestAttemptOutcome(t *testing.T) {
	t.Parallel()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := map[string]struct {
		ctx  context.Context
		err  error
		try  int
		want outcome
	}{
		"first attempt answered":    {err: nil, want: clean},
		"a retry answered":          {err: nil, try: 1, want: retried},
		"429":                       {err: fmt.Errorf("chat: %w", &StatusError{Code: http.StatusTooManyRequests}), want: overload},
		"timeout":                   {err: fmt.Errorf("no answer: %w", context.DeadlineExceeded), want: overload},
		"500":                       {err: &StatusError{Code: 500}, want: failed},
		"reset":                     {err: errors.New("connection reset by peer"), want: failed},
		"the caller went away":      {ctx: done, err: context.Canceled, want: unused},
		"the caller's deadline":     {ctx: done, err: context.DeadlineExceeded, want: unused},
		"429 after the caller left": {ctx: done, err: &StatusError{Code: 429}, want: unused},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			assert.Equal(t, tt.want, attemptOutcome(ctx, tt.err, tt.try))
		})
	}
}
