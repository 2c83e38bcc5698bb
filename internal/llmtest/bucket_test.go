package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// manualClock is a clock a test moves. It is safe for concurrent use.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestBucketTake: a bucket of 2 refilling at 10 a second admits its
// burst, then one request every 100 ms, and says when the next is back.
func TestBucketTake(t *testing.T) {
	t.Parallel()
	type take struct {
		advance   time.Duration
		ok        bool
		remaining int
		wait      time.Duration
		full      time.Duration
	}
	tests := map[string][]take{
		"the burst, then empty": {
			{ok: true, remaining: 1, full: 100 * time.Millisecond},
			{ok: true, remaining: 0, full: 200 * time.Millisecond},
			{ok: false, wait: 100 * time.Millisecond, full: 200 * time.Millisecond},
		},
		"one back after 100 ms": {
			{ok: true, remaining: 1, full: 100 * time.Millisecond},
			{ok: true, remaining: 0, full: 200 * time.Millisecond},
			{advance: 60 * time.Millisecond, ok: false, wait: 40 * time.Millisecond, full: 140 * time.Millisecond},
			{advance: 40 * time.Millisecond, ok: true, remaining: 0, full: 200 * time.Millisecond},
		},
		"never past its burst": {
			{advance: time.Hour, ok: true, remaining: 1, full: 100 * time.Millisecond},
		},
	}
	for name, takes := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := &manualClock{t: time.Unix(1_700_000_000, 0)}
			b := NewBucket(10, 2, clock.now)
			admitted, refused := 0, 0
			for i, tk := range takes {
				clock.add(tk.advance)
				ok, remaining, wait, full := b.Take()
				assert.Equal(t, []any{tk.ok, tk.remaining, tk.wait, tk.full}, []any{ok, remaining, wait, full}, "take %d", i)
				if ok {
					admitted++
				} else {
					refused++
				}
			}
			a, r := b.Counts()
			assert.Equal(t, []int{admitted, refused}, []int{a, r})
		})
	}
}

// TestBucketAnswers: an admitted call has its reply with x-ratelimit
// headers; a refused one a 429 at once with Retry-After (whole seconds),
// retry-after-ms and nothing remaining.
func TestBucketAnswers(t *testing.T) {
	t.Parallel()
	clock := &manualClock{t: time.Unix(1_700_000_000, 0)}
	bucket := NewBucket(4, 1, clock.now)
	srv := New(t, Limit(bucket), Latency(time.Hour))
	// The latency is for admitted calls only: the first is cut short by
	// its context, the second is refused at once.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = post(ctx, t, srv.URL()+"/chat/completions", chatBody)
	}()
	// Waits for the first call to take the bucket's one token (counted
	// as a call already before it does: the second would race it for the
	// token, and the one admitted second would wait the hour); decides
	// nothing.
	for admitted, _ := bucket.Counts(); admitted < 1; admitted, _ = bucket.Counts() {
		time.Sleep(time.Millisecond)
	}
	got, body, err := post(context.Background(), t, srv.URL()+"/chat/completions", chatBody)
	cancel()
	<-done
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, got.status, string(body))
	assert.Equal(t, "1", got.header.Get("Retry-After"))
	assert.Equal(t, "250", got.header.Get("Retry-After-Ms"))
	assert.Equal(t, "0", got.header.Get("X-Ratelimit-Remaining-Requests"))
	assert.Equal(t, "1", got.header.Get("X-Ratelimit-Limit-Requests"))
	assert.Equal(t, "250ms", got.header.Get("X-Ratelimit-Reset-Requests"))
	assert.Contains(t, string(body), "rate_limit")
}

// TestAdaptiveLimitAgainstBucket: a Client at concurrency 16 against a
// bucket of 4 whose clock moves only when the client waits to retry (as
// long as the server asked): every call is answered, the limit was
// halved and calls were held back, and the admitted calls are the calls.
func TestAdaptiveLimitAgainstBucket(t *testing.T) {
	t.Parallel()
	clock := &manualClock{t: time.Unix(1_700_000_000, 0)}
	bucket := NewBucket(1000, 4, clock.now)
	srv := New(t, Limit(bucket), Default(Reply{Content: `{"ok":true}`}))
	be, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "m"})
	require.NoError(t, err)
	c := llm.New(llm.Config{Backend: be, Concurrency: 16, Retry: llm.RetryPolicy{MaxRetries: 50, Initial: time.Millisecond, Max: time.Millisecond},
		OnEvent: func(e llm.Event) {
			if e.Kind == "retry" {
				clock.add(e.Wait)
			}
		}})
	t.Cleanup(func() { _ = c.Close() })
	const calls = 40
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			_, errs[i] = c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: fmt.Sprint("call ", i)}}})
		})
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
	admitted, refused := bucket.Counts()
	assert.Equal(t, calls, admitted)
	assert.Positive(t, refused)
	lim := c.Limit()
	assert.Equal(t, 16, lim.Initial, "the ceiling")
	assert.Positive(t, lim.Decreases)
	assert.Less(t, lim.Low, lim.Initial)
	assert.Positive(t, lim.Holds)
	assert.Equal(t, calls+refused, c.Usage().Calls)
}
