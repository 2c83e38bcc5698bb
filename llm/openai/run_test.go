package openai_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// runCalls sends n distinct calls at once through c and returns their
// errors in order.
func runCalls(t *testing.T, c *llm.Client, n int) []error {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := request()
			req.Messages = append(req.Messages, llm.Message{Role: llm.User, Content: fmt.Sprint("record ", i)})
			var got verdict
			_, errs[i] = llm.ChatJSON(t.Context(), c, req, &got)
		})
	}
	wg.Wait()
	return errs
}

// TestServerDown: a server that hangs, resets or cuts off every reply is
// taken as down after three unanswered attempts in a row; calls then wait
// for it, and once it has stayed down past the breaker's patience they
// fail, queued ones and those waiting to retry included, unsent, each
// naming the cause. Without the breaker, 20 calls would make 80 attempts
// (4 each) and, hanging, wait out every one.
func TestServerDown(t *testing.T) {
	t.Parallel()
	const calls, conc = 20, 4
	tests := map[string]struct {
		reply llmtest.Reply
		cause string
	}{
		"hung server":       {llmtest.Reply{Delay: time.Hour}, "context deadline exceeded"},
		"connection resets": {llmtest.Reply{Reset: true}, "connection reset by peer"},
		"bodies cut off":    {llmtest.Reply{Body: `{"id": "x", "choices": [{"index": 0, "mess`}, "unexpected EOF"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Default(tc.reply))
			c := llm.New(llm.Config{Backend: newBackend(t, srv, nil), Retry: policy, Concurrency: conc,
				CallTimeout: 100 * time.Millisecond, Breaker: llm.BreakerPolicy{Cooldown: time.Hour, GiveUp: 100 * time.Millisecond}})
			errs := runCalls(t, c, calls)
			for i, err := range errs {
				require.ErrorIs(t, err, llm.ErrUnreachable, "call %d", i)
				assert.ErrorContains(t, err, "model server unreachable: ")
				assert.ErrorContains(t, err, tc.cause)
			}
			// The calls in flight when the server was taken as down, and
			// at most one more per slot freed before the third failure.
			assert.LessOrEqual(t, srv.Calls(), conc+2, "requests the server saw")
			assert.Equal(t, srv.Calls(), c.Usage().Calls)
		})
	}
}

// TestServerComesBack: after the cool-down one call tests the server; its
// answer brings the server back and the calls after it are sent.
func TestServerComesBack(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Script(llmtest.Reply{Reset: true}, llmtest.Reply{Reset: true}, llmtest.Reply{Reset: true}), llmtest.Default(ok))
	c := llm.New(llm.Config{Backend: newBackend(t, srv, nil), Retry: llm.RetryPolicy{MaxRetries: -1}, Concurrency: 1,
		Breaker: llm.BreakerPolicy{Cooldown: time.Nanosecond}})
	errs := runCalls(t, c, 1)
	require.ErrorContains(t, errs[0], "connection reset by peer")
	errs = append(runCalls(t, c, 2), runCalls(t, c, 3)...)
	assert.ErrorContains(t, errs[0], "connection reset by peer")
	assert.ErrorContains(t, errs[1], "connection reset by peer")
	for _, err := range errs[2:] {
		assert.NoError(t, err)
	}
	assert.Equal(t, 6, srv.Calls())
}

// TestBadKeyStopsCalls: the first 401 is the answer to every later call,
// which is not sent; the error carries the server's message.
func TestBadKeyStopsCalls(t *testing.T) {
	t.Parallel()
	tests := map[string]llmtest.Reply{
		"401": {Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-xx","type":"invalid_request_error","code":"invalid_api_key"}}`},
		"403": {Status: 403, Body: `{"error":{"message":"Country, region, or territory not supported","type":"request_forbidden"}}`},
	}
	for name, reply := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Default(reply))
			c := llm.New(llm.Config{Backend: newBackend(t, srv, nil), Retry: policy, Concurrency: 1})
			errs := runCalls(t, c, 10)
			for _, err := range errs {
				require.ErrorIs(t, err, llm.ErrAuth)
				assert.ErrorContains(t, err, "status "+name+": ")
				assert.ErrorContains(t, err, llmtestMessage(reply))
			}
			assert.Equal(t, 1, srv.Calls(), "only the first call was sent")
		})
	}
}

func llmtestMessage(r llmtest.Reply) string { return llm.ErrorMessage([]byte(r.Body)) }

// TestCorruptCacheStartsAnew: a cache whose pages were overwritten is set
// aside at the first read that finds it malformed, counted once as a
// cache error, and a new cache takes the replies from then on.
func TestCorruptCacheStartsAnew(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(ok))
	path := filepath.Join(t.TempDir(), "llm-cache.db")
	run := func() (eval.Usage, []error) {
		cache, err := llm.OpenCache(path, 1)
		require.NoError(t, err)
		defer func() { assert.NoError(t, cache.Close()) }()
		var mu sync.Mutex
		var reported []error
		c := llm.New(llm.Config{Backend: newBackend(t, srv, nil), Retry: policy, Cache: cache, Concurrency: 1, OnEvent: func(e llm.Event) {
			if e.Kind == "cache_error" {
				mu.Lock()
				reported = append(reported, e.Err)
				mu.Unlock()
			}
		}})
		for i := range 40 {
			req := request()
			req.Messages = append(req.Messages, llm.Message{Role: llm.User, Content: fmt.Sprint("record ", i, strings.Repeat(" padding", 60))})
			var got verdict
			_, err := llm.ChatJSON(t.Context(), c, req, &got)
			require.NoError(t, err)
		}
		return c.Usage(), reported
	}
	u, reported := run()
	require.Equal(t, 40, u.Calls)
	require.Empty(t, reported)

	// Garbage over every page after the first (the header).
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	st, err := f.Stat()
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(3*4096))
	_, err = f.WriteAt(bytes.Repeat([]byte{0xA5, 0x17, 0x00, 0xFF}, int(st.Size()-4096)/4), 4096)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	u, reported = run()
	require.Len(t, reported, 1, "one cache error: the read that found the file corrupt")
	var ce *llm.CacheCorruptError
	require.ErrorAs(t, reported[0], &ce)
	assert.FileExists(t, ce.Aside)
	assert.Equal(t, 1, u.CacheErrors)
	assert.Equal(t, 40, u.Calls, "the replies were lost with the file, and asked again")

	u, reported = run()
	assert.Empty(t, reported)
	assert.Equal(t, 0, u.Calls, "the new cache holds them")
	assert.Equal(t, 40, u.CacheHits)
	assert.Equal(t, 80, srv.Calls())
}

// TestBudgetRun: 40 calls at concurrency 4 under a budget that k of them
// fit, with half a call to spare. Each call holds a realistic estimate
// while in flight and settles at its real cost, so the run spends up to
// the budget, never past it, and refuses only the calls that would pass
// it. (Estimated at their reply cap, four calls in flight held a budget
// of 12 calls' cost at a third of it, and refused the rest.)
func TestBudgetRun(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("context ", 500) // about 1,000 tokens a prompt
	run := func(t *testing.T, budget float64, n int) (*llm.Client, *llmtest.Server, []error) {
		srv := llmtest.New(t, llmtest.Default(ok))
		b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "gpt-4o-mini", Timeout: 5 * time.Second})
		require.NoError(t, err)
		c := llm.New(llm.Config{Backend: b, Retry: policy, Concurrency: 4, MaxCostUSD: budget})
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				req := request()
				req.Messages = append(req.Messages, llm.Message{Role: llm.User, Content: fmt.Sprintf("%02d%s", i, pad)})
				var got verdict
				_, errs[i] = llm.ChatJSON(t.Context(), c, req, &got)
			})
		}
		wg.Wait()
		return c, srv, errs
	}
	// What one call costs at gpt-4o-mini's prices.
	one, _, errs := run(t, 0, 1)
	require.NoError(t, errs[0])
	perCall := one.Usage().CostUSD
	require.Greater(t, perCall, 0.0001)

	for name, k := range map[string]int{"12 calls fit": 12, "none fits": 0, "all fit": 40} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			budget := (float64(k) + 0.5) * perCall
			c, srv, errs := run(t, budget, 40)
			refused := 0
			for _, err := range errs {
				if errors.Is(err, llm.ErrBudget) {
					refused++
				} else {
					require.NoError(t, err)
				}
			}
			assert.Equal(t, k, srv.Calls(), "calls sent")
			assert.Equal(t, 40-k, refused)
			assert.Equal(t, refused, c.BudgetStops())
			assert.LessOrEqual(t, c.Usage().CostUSD, budget)
		})
	}
}
