package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/assaylabs/assay/eval"
)

// stubBackend answers from a list of errors (nil = success), then succeeds.
type stubBackend struct {
	mu      sync.Mutex
	errs    []error
	calls   atomic.Int64
	content string
	delay   time.Duration
	usage   eval.Usage // zero: 1,000 tokens in, 100 out
}

func (b *stubBackend) Name() string { return "stub:gpt-4o-mini" }

func (b *stubBackend) Chat(ctx context.Context, _ Request) (Response, error) {
	b.calls.Add(1)
	b.mu.Lock()
	delay := b.delay
	b.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return Response{}, ctx.Err()
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errs) > 0 {
		err := b.errs[0]
		b.errs = b.errs[1:]
		if err != nil {
			return Response{}, err
		}
	}
	c := b.content
	if c == "" {
		c = `{"ok":true}`
	}
	u := b.usage
	if u == (eval.Usage{}) {
		u = eval.Usage{TokensIn: 1000, TokensOut: 100}
	}
	return Response{Content: c, Usage: u}, nil
}

func (b *stubBackend) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, ErrNoEmbeddings
}

var fast = RetryPolicy{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxRetries: 3, MaxRetryAfter: 30 * time.Millisecond}

func TestClientRetries(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]struct {
		errs     []error
		attempts int64
		retries  int
		wantErr  func(error) bool
		minTime  time.Duration
	}{
		"success first time":  {attempts: 1},
		"503 then success":    {errs: []error{&StatusError{Code: 503}}, attempts: 2, retries: 1},
		"408 and 409 retried": {errs: []error{&StatusError{Code: 408}, &StatusError{Code: 409}}, attempts: 3, retries: 2},
		"429 honours a capped Retry-After": {
			errs: []error{&StatusError{Code: 429, RetryAfter: time.Minute}}, attempts: 2, retries: 1, minTime: 30 * time.Millisecond,
		},
		"429 whose Retry-After passes MaxElapsed gives up at once": {
			errs: []error{&StatusError{Code: 429, RetryAfter: time.Hour}}, attempts: 1,
			wantErr: func(err error) bool {
				var se *StatusError
				return errors.As(err, &se) && se.Code == 429 &&
					strings.Contains(err.Error(), "the server asked to wait 1h0m0s before retrying, past the retry time limit of 2m0s")
			},
		},
		"401 is permanent": {
			errs: []error{&StatusError{Code: 401}}, attempts: 1,
			wantErr: func(err error) bool { var se *StatusError; return errors.As(err, &se) && se.Code == 401 },
		},
		"gives up after MaxRetries": {
			errs:     []error{&StatusError{Code: 500}, &StatusError{Code: 500}, &StatusError{Code: 500}, &StatusError{Code: 500}, &StatusError{Code: 500}},
			attempts: 4, retries: 3,
			wantErr: func(err error) bool { var se *StatusError; return errors.As(err, &se) && se.Code == 500 },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &stubBackend{errs: tc.errs}
			c := New(Config{Backend: b, Retry: fast})
			start := time.Now()
			resp, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: "hi"}}})
			assert.Equal(t, tc.attempts, b.calls.Load())
			if tc.wantErr != nil {
				require.Error(t, err)
				assert.True(t, tc.wantErr(err), "got %v", err)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tc.retries, resp.Usage.Retries)
				assert.Equal(t, tc.retries+1, resp.Usage.Calls)
			}
			assert.GreaterOrEqual(t, time.Since(start), tc.minTime, "a backoff sleeps at least its interval")
		})
	}
}

func TestClientDeadlineNamesTheLastError(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := &stubBackend{errs: []error{&StatusError{Code: 429, RetryAfter: time.Minute}}}
	c := New(Config{Backend: b, Retry: RetryPolicy{MaxRetryAfter: 2 * time.Minute}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, Request{Messages: []Message{{Role: User, Content: "hi"}}})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "status 429")
}

// hangFirst never answers its first call (until the context ends), like a
// server that accepts a connection and stalls, and answers the rest.
type hangFirst struct{ stubBackend }

func (h *hangFirst) Chat(ctx context.Context, req Request) (Response, error) {
	if h.calls.Load() == 0 {
		h.calls.Add(1)
		<-ctx.Done()
		return Response{}, ctx.Err()
	}
	return h.stubBackend.Chat(ctx, req)
}

func (h *hangFirst) Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error) {
	if h.calls.Add(1) == 1 {
		<-ctx.Done()
		return nil, eval.Usage{}, ctx.Err()
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, eval.Usage{TokensIn: len(texts)}, nil
}

func TestClientCallTimeout(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]struct {
		timeout time.Duration
		embed   bool
		wantErr bool
		retries int
	}{
		"a stalled attempt is cut and retried":           {timeout: 50 * time.Millisecond, retries: 1},
		"without it the retry time runs out":             {timeout: 0, wantErr: true},
		"a stalled embedding attempt is cut and retried": {timeout: 50 * time.Millisecond, embed: true, retries: 1},
		"an embedding without it runs out of time":       {timeout: 0, embed: true, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := New(Config{Backend: &hangFirst{}, CallTimeout: tc.timeout,
				Retry: RetryPolicy{Initial: time.Millisecond, MaxElapsed: time.Second}})
			// Without a call timeout the stalled attempt holds until ctx
			// ends; with one, the retry succeeds long before this
			// deadline, which is far off so that a loaded machine does
			// not reach it.
			deadline := time.Minute
			if tc.wantErr {
				deadline = time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			var u eval.Usage
			var err error
			if tc.embed {
				_, u, err = c.Embed(ctx, []string{"x"})
			} else {
				var r Response
				r, err = c.Chat(ctx, Request{Messages: []Message{{Role: User, Content: "x"}}})
				u = r.Usage
			}
			if tc.wantErr {
				require.ErrorIs(t, err, context.DeadlineExceeded)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.retries, u.Retries)
		})
	}
}

func TestClientBudget(t *testing.T) {
	defer goleak.VerifyNone(t)
	// gpt-4o-mini: 1000 in x $0.15/M + 100 out x $0.60/M = $0.00021 a call.
	b := &stubBackend{}
	var events []string
	var mu sync.Mutex
	c := New(Config{Backend: b, MaxCostUSD: 0.0004, OnEvent: func(e Event) {
		mu.Lock()
		events = append(events, e.Kind)
		mu.Unlock()
	}})
	req := func(i int) Request {
		return Request{Messages: []Message{{Role: User, Content: string(rune('a' + i))}}, MaxTokens: 100}
	}
	for i := range 2 {
		_, err := c.Chat(context.Background(), req(i))
		require.NoError(t, err, "call %d", i)
	}
	_, err := c.Chat(context.Background(), req(3))
	require.ErrorIs(t, err, ErrBudget)
	assert.Contains(t, err.Error(), "limit $0.0004")
	assert.Equal(t, int64(2), b.calls.Load(), "the third call was not started")
	assert.Equal(t, 1, c.BudgetStops())
	assert.InDelta(t, 0.00042, c.Usage().CostUSD, 1e-9)
	assert.Contains(t, events, "budget_stop")
}

// TestClientSharedBudget: two clients spending from one Budget (a judging
// model and its fact checker) stop together at its limit: the second
// client's calls count against what the first spent, and the refusals of
// both are counted by each.
func TestClientSharedBudget(t *testing.T) {
	defer goleak.VerifyNone(t)
	// gpt-4o-mini: $0.00021 a call, as above.
	judge, checker := &stubBackend{}, &stubBackend{}
	budget := NewBudget(0.0004)
	a := New(Config{Backend: judge, Budget: budget})
	b := New(Config{Backend: checker, Budget: budget, MaxCostUSD: 100})
	req := func(i int) Request {
		return Request{Messages: []Message{{Role: User, Content: string(rune('a' + i))}}, MaxTokens: 100}
	}
	_, err := a.Chat(context.Background(), req(0))
	require.NoError(t, err)
	_, err = b.Chat(context.Background(), req(1))
	require.NoError(t, err, "the second call fits what is left")
	_, err = b.Chat(context.Background(), req(2))
	require.ErrorIs(t, err, ErrBudget, "the budget is shared, not the checker's own $100")
	assert.Contains(t, err.Error(), "spent $0.0004")
	assert.Equal(t, int64(1), checker.calls.Load())
	assert.Equal(t, 1, a.BudgetStops())
	assert.Equal(t, 1, b.BudgetStops())
	assert.InDelta(t, 0.0004, a.MaxCost(), 1e-12)
	assert.InDelta(t, 0.00021, b.Usage().CostUSD, 1e-9, "each client counts its own usage")
}

// TestClientBudgetWithQueue launches more calls than the concurrency
// limit at once: calls waiting for a slot hold no part of the budget, so
// the run spends up to the limit instead of stopping when the queue's
// estimates fill it, and stops within a slot's worth of calls of it.
func TestClientBudgetWithQueue(t *testing.T) {
	defer goleak.VerifyNone(t)
	// Each call costs $0.00021 (1000 in, 100 out) and is estimated at
	// about $0.00006 before it starts (its prompt, and 100 out).
	const limit, cost, conc, launched = 0.0015, 0.00021, 2, 20
	b := &stubBackend{delay: 5 * time.Millisecond}
	c := New(Config{Backend: b, MaxCostUSD: limit, Concurrency: conc})
	var wg sync.WaitGroup
	var refused atomic.Int64
	for i := range launched {
		wg.Go(func() {
			_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: fmt.Sprint(i)}}, MaxTokens: 100})
			if errors.Is(err, ErrBudget) {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	calls := b.calls.Load()
	assert.GreaterOrEqual(t, calls, int64(7-conc), "the queue did not use up the budget (7 calls fit)")
	assert.LessOrEqual(t, c.Usage().CostUSD, limit+conc*cost, "at most a slot's worth of calls over")
	assert.Equal(t, launched-calls, refused.Load())
	assert.Equal(t, int(refused.Load()), c.BudgetStops())
}

func TestClientSingleflightAndUsage(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := &stubBackend{delay: 50 * time.Millisecond}
	c := New(Config{Backend: b})
	var wg sync.WaitGroup
	var paid atomic.Int64
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Chat(context.Background(), Request{Key: "same", Messages: []Message{{Role: User, Content: "x"}}})
			assert.NoError(t, err)
			paid.Add(int64(r.Usage.Calls))
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(1), b.calls.Load())
	assert.Equal(t, int64(1), paid.Load(), "only the caller that sent it pays")
	assert.Equal(t, 1, c.Usage().Calls)
}

func TestClientConcurrencyLimit(t *testing.T) {
	defer goleak.VerifyNone(t)
	var inflight, peak atomic.Int64
	b := &limitBackend{inflight: &inflight, peak: &peak}
	c := New(Config{Backend: b, Concurrency: 3})
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: string(rune('a' + i))}}})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(3), peak.Load())
}

type limitBackend struct{ inflight, peak *atomic.Int64 }

func (b *limitBackend) Name() string { return "stub:x" }
func (b *limitBackend) Chat(context.Context, Request) (Response, error) {
	n := b.inflight.Add(1)
	for {
		p := b.peak.Load()
		if n <= p || b.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(10 * time.Millisecond)
	b.inflight.Add(-1)
	return Response{Content: "{}"}, nil
}
func (b *limitBackend) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, ErrNoEmbeddings
}

func TestTemporary(t *testing.T) {
	tests := map[string]struct {
		err  error
		want bool
	}{
		"429":         {&StatusError{Code: http.StatusTooManyRequests}, true},
		"502":         {&StatusError{Code: 502}, true},
		"400":         {&StatusError{Code: 400}, false},
		"404":         {&StatusError{Code: 404}, false},
		"canceled":    {context.Canceled, false},
		"refusal":     {&RefusalError{Reason: "no"}, false},
		"invalid out": {ErrInvalidOutput, false},
		"budget":      {ErrBudget, false},
		"too large":   {&ReplyTooLargeError{Size: MaxReply + 1}, false},
		"not chat":    {fmt.Errorf("%w: no choices", ErrNotChat), false},
		// net/http's error for a kept-alive connection the server closed
		// under a POST (a server stopped or restarted), as Client.Do
		// returns it.
		"server closed idle connection": {&url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/chat/completions",
			Err: errors.New("http: server closed idle connection")}, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, Temporary(tc.err)) })
	}
}

// IsUnreachable knows a server that gave no answer (refused, reset, no
// route, a name that does not resolve, a connection not made in time, or
// the Client taking it as down) from one that answered, however badly.
func TestIsUnreachable(t *testing.T) {
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	var d net.Dialer
	_, refused := d.DialContext(t.Context(), "tcp", closed)
	require.Error(t, refused)
	tests := map[string]struct {
		err  error
		want bool
	}{
		"a closed loopback port": {&url.Error{Op: "Post", URL: "http://" + closed + "/v1/chat/completions", Err: refused}, true},
		"taken as down":          {fmt.Errorf("openai:m: chat: %w: connection refused", ErrUnreachable), true},
		"reset":                  {fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		"no such host":           {&url.Error{Op: "Post", URL: "http://nowhere.invalid", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}, true},
		"connect timeout":        {&net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}, true},
		"503":                    {&StatusError{Code: 503}, false},
		"401":                    {authErr(&StatusError{Code: 401}), false},
		"a slow reply":           {fmt.Errorf("attempt: %w", context.DeadlineExceeded), false},
		"canceled":               {fmt.Errorf("dial: %w", context.Canceled), false},
		"invalid output":         {ErrInvalidOutput, false},
		"nil":                    {nil, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, IsUnreachable(tc.err)) })
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		in   string
		want time.Duration
	}{
		"seconds":      {"2", 2 * time.Second},
		"fraction":     {"0.5", 500 * time.Millisecond},
		"http date":    {"Mon, 23 Nov 2026 10:00:30 GMT", 30 * time.Second},
		"past date":    {"Mon, 23 Nov 2026 09:00:00 GMT", 0},
		"empty":        {"", 0},
		"garbage":      {"soon", 0},
		"negative":     {"-3", 0},
		"not a number": {"NaN", 0},
		"infinite":     {"inf", 0},
		"longer than a Duration holds, not a negative wait": {"99999999999", time.Duration(math.MaxInt64)},
		"an exponent past the range":                        {"1e300", time.Duration(math.MaxInt64)},
		"just under the range":                              {"9e9", 9e9 * time.Second},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, ParseRetryAfter(tc.in, now)) })
	}
}

// TestReplyError: the error bodies servers send in a success reply, in
// each of their shapes, and success replies that merely look like one.
func TestReplyError(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		// code is the *StatusError code, 0 for a plain error; msg is empty
		// when body is not an error body.
		code int
		msg  string
	}{
		"OpenAI's object with a numeric code": {
			body: `{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":429}}`,
			code: 429, msg: "Rate limit exceeded",
		},
		"digits in a string code (LiteLLM)": {
			body: `{"error":{"message":"too many requests","type":"None","code":"429"}}`, code: 429, msg: "too many requests",
		},
		"a code name": {
			body: `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`, code: 429, msg: "slow down",
		},
		"an overload type (Anthropic)": {
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, code: 503, msg: "Overloaded",
		},
		"a string (Ollama)": {body: `{"error":"model not found"}`, msg: "model not found"},
		"the fields at the top level (vLLM)": {
			body: `{"object":"error","message":"no such model","type":"NotFoundError","code":404}`, code: 404, msg: "no such model",
		},
		"a code outside 400-599 is no status": {
			body: `{"error":{"message":"odd","code":200}}`, msg: "odd",
		},
		"an error without a message is the body": {
			body: `{"error":{"type":"invalid_request_error"}}`, msg: `{"error":{"type":"invalid_request_error"}}`,
		},
		"a null error is none":                 {body: `{"error":null,"choices":[]}`},
		"a chat reply with a message (Ollama)": {body: `{"model":"m","message":{"role":"assistant","content":""},"done":true}`},
		"a completion without choices":         {body: `{"id":"x","object":"chat.completion","choices":[]}`},
		"not JSON":                             {body: "<html>502 Bad Gateway</html>"},
		"empty":                                {body: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := ReplyError(http.StatusOK, []byte(tc.body), 2*time.Second)
			if tc.msg == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.body, ErrorMessage([]byte(tc.body)), "the body is the message")
				return
			}
			want := tc.msg
			if tc.code != 0 {
				want = fmt.Sprintf("status %d: %s", tc.code, tc.msg)
			}
			require.EqualError(t, err, "error in a 200 reply: "+want)
			assert.Equal(t, tc.msg, ErrorMessage([]byte(tc.body)))
			var se *StatusError
			if assert.Equal(t, tc.code != 0, errors.As(err, &se)) && se != nil {
				assert.Equal(t, StatusError{Code: tc.code, RetryAfter: 2 * time.Second, Message: tc.msg}, *se)
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	type v struct {
		A int `json:"a"`
	}
	tests := map[string]struct {
		in   string
		want int
		err  string
	}{
		"plain":                 {`{"a":1}`, 1, ""},
		"fenced":                {"```json\n{\"a\":2}\n```", 2, ""},
		"prose around":          {`Here it is: {"a":3} hope it helps`, 3, ""},
		"braces in strings":     {`{"a":4,"b":"}{"}`, 4, ""},
		"truncated":             {`{"a":`, 0, "no JSON object"},
		"none":                  {`I cannot do that`, 0, "no JSON object"},
		"wrong type":            {`{"a":"x"}`, 0, `field "a": want int, got string`},
		"reasoning first":       {"<think>The schema wants {\"a\": n}; maybe {a: 5}? Let me answer.</think>\n{\"a\":5}", 5, ""},
		"reasoning, upper case": {"<THINK>{{{</THINK>```json\n{\"a\":6}\n```", 6, ""},
		"stray braces in prose": {`Using the format {like this} I answer: {"a":7}`, 7, ""},
		"truncated then whole":  {`{"a": {"a":8}`, 8, ""},
		"only reasoning":        {"<think>I would answer {\"a\":9} but", 0, "no JSON object"},
		"first error reported":  {`{"a":"x"} and {"a":"y"}`, 0, `field "a": want int, got string`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out v
			err := DecodeJSON(tc.in, &out)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrInvalidOutput)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, out.A)
		})
	}
}

func TestModelOfAndCost(t *testing.T) {
	p := DefaultPrices()
	assert.InDelta(t, 0.15+0.60, p.Cost("openai:gpt-4o-mini", 1e6, 1e6), 1e-9)
	assert.InDelta(t, 0.80, p.Cost("langchain:anthropic:claude-3-5-haiku-latest", 1e6, 0), 1e-9)
	assert.Equal(t, 0.0, p.Cost("ollama:qwen2.5:7b", 1e6, 1e6), "a model with no price counts zero")
	assert.False(t, p.Known("ollama:qwen2.5:7b"), "and that zero is not a price")
	assert.Equal(t, "qwen2.5:7b", modelOf("ollama:qwen2.5:7b"))
}

// fakeClock is a clock that moves only when a wait is slept.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) sleep(_ context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sleeps = append(f.sleeps, d)
	f.t = f.t.Add(d)
	return nil
}

// TestClientRateLimits runs calls one after another under each limit, on
// a clock that moves only by the waits: the waits are those of the
// limit, the tokens limit settles each call at its real usage, and a
// spell of waits is reported once.
func TestClientRateLimits(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]struct {
		cfg       Config
		usage     eval.Usage // the server's, per call
		calls     int
		maxTokens int
		waits     []time.Duration
		events    int
	}{
		// 120 a minute is 2 a second, with a burst of 2.
		"requests per minute": {cfg: Config{RPM: 120}, calls: 5,
			waits: []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}, events: 1},
		// 600 a minute is 10 a second, with a burst of 600. Each call
		// takes its estimate, 6 prompt tokens by the byte rule and 100 out
		// (its cap, then the mean of real replies), and is charged its
		// real 1,100: the second waits for the first's debt of 500 and its
		// own 106 (60.6 s), the third for 994 and 106 (110 s).
		"tokens per minute charges the real usage": {cfg: Config{TPM: 600}, calls: 3, maxTokens: 100,
			usage: eval.Usage{TokensIn: 1000, TokensOut: 100},
			waits: []time.Duration{60600 * time.Millisecond, 110 * time.Second}, events: 1},
		// Each call takes 6 + 500 (its cap) but uses 11: the unused is
		// given back, so six calls fit in a burst of 600 without a wait.
		// Taken at the cap and never given back, they would wait.
		"tokens per minute gives back the unused": {cfg: Config{TPM: 600}, calls: 6, maxTokens: 500,
			usage: eval.Usage{TokensIn: 10, TokensOut: 1}},
		"no limits": {cfg: Config{}, calls: 25},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			cfg := tc.cfg
			cfg.Backend = &stubBackend{usage: tc.usage}
			cfg.Now = clock.now
			events := 0
			cfg.OnEvent = func(e Event) {
				if e.Kind == "limit_wait" {
					events++
					assert.Equal(t, tc.waits[0], e.Wait, "the wait that starts the spell")
					assert.Equal(t, cmp.Or(tc.cfg.RPM, tc.cfg.TPM), e.PerMinute)
				}
			}
			c := New(cfg)
			c.sleep = clock.sleep
			for i := range tc.calls {
				_, err := c.Chat(context.Background(), Request{MaxTokens: cmp.Or(tc.maxTokens, 40), Messages: []Message{{Role: User, Content: fmt.Sprintf("call %d", i)}}})
				require.NoError(t, err)
			}
			assert.Equal(t, tc.waits, clock.sleeps)
			assert.Equal(t, tc.events, events, "limit_wait events")
		})
	}
}

func TestBucket(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := newBucket(600, 600, clock.now) // 10 a second
	steps := []struct {
		take, settle int
		advance      time.Duration
		wait         time.Duration
		starts       bool
	}{
		{take: 500}, // 100 left
		{take: 100}, // 0 left
		{take: 50, wait: 5 * time.Second, starts: true},
		{take: 10, wait: 6 * time.Second},                            // still behind: no new spell
		{settle: -60},                                                // both given back: 0
		{advance: 10 * time.Second, take: 100},                       // 100 earned
		{settle: 200, take: 0, wait: 20 * time.Second, starts: true}, // charged 200 more
		{advance: time.Hour, take: 600},                              // full again, never past the burst
	}
	for i, st := range steps {
		clock.t = clock.t.Add(st.advance)
		b.settle(st.settle)
		wait, starts := b.take(st.take)
		assert.Equal(t, st.wait, wait, "step %d", i)
		assert.Equal(t, st.starts, starts, "step %d", i)
	}
}

// A rate limit whose next slot comes after the caller's deadline refuses
// at once, without retrying, with an error that is the deadline's
// (errors.Is context.DeadlineExceeded) and names the rate limit.
func TestClientRateLimitPastDeadline(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]Config{
		"requests per minute": {RPM: 1},
		"tokens per minute":   {TPM: 60},
	}
	for name, cfg := range tests {
		t.Run(name, func(t *testing.T) {
			cfg.Backend = &stubBackend{}
			c := New(cfg)
			// The first call takes the burst; the second would wait about
			// a minute for the next token.
			_, err := c.Chat(context.Background(), Request{MaxTokens: 40, Messages: []Message{{Role: User, Content: "first"}}})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err = c.Chat(ctx, Request{MaxTokens: 40, Messages: []Message{{Role: User, Content: "second"}}})
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.NoError(t, ctx.Err(), "refused at once, not after waiting for the deadline")
			assert.Contains(t, err.Error(), "past the deadline")
			assert.Zero(t, c.Waits().Down, "our own limit says nothing of the server")
		})
	}
}

// scopedBackend is a stubBackend that says which server it talks to.
type scopedBackend struct {
	stubBackend
	scope string
}

func (b *scopedBackend) CacheScope() string { return b.scope }

func TestCacheKeyIncludesTheServer(t *testing.T) {
	req := Request{Messages: []Message{{Role: User, Content: "same prompt"}}}
	a := New(Config{Backend: &scopedBackend{scope: "openai:m@https://api.openai.com/v1"}})
	b := New(Config{Backend: &scopedBackend{scope: "openai:m@http://127.0.0.1:8000/v1"}})
	c := New(Config{Backend: &scopedBackend{scope: "openai:m@https://api.openai.com/v1"}})
	assert.NotEqual(t, a.key(req), b.key(req), "two servers, one model name")
	assert.Equal(t, a.key(req), c.key(req))
}

// TestClientUnreachableServer: once attempts in a row go unanswered, the
// server is taken as down and calls wait for it: after the cool-down one
// call tests it, and its answer brings it back for every call waiting.
// Only a server that stays down longer than the breaker's patience fails
// calls, the one waiting and those after it at once, unsent, naming the
// last error. A server that answers, even with errors, is never taken as
// down.
func TestClientUnreachableServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	refused := fmt.Errorf("dial tcp 127.0.0.1:1: %w", syscall.ECONNREFUSED)
	repeat := func(err error, n int) []error {
		errs := make([]error, n)
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	tests := map[string]struct {
		errs     []error
		cooldown time.Duration
		giveUp   time.Duration
		calls    int
		attempts int64
		failed   int // calls that ended in ErrUnreachable
		other    int // calls that ended in another error
	}{
		// The first call's first three attempts trip the breaker; it
		// waits for the server until the breaker gives up, and every
		// later call is refused unsent.
		"down for good: three attempts, then nothing is sent": {
			errs: repeat(refused, 100), giveUp: 50 * time.Millisecond, calls: 4, attempts: 3, failed: 4,
		},
		"a success between failures keeps the server up": {
			errs:  []error{refused, refused, nil, refused, refused, nil},
			calls: 2, attempts: 6,
		},
		"a server answering 500 keeps its retries": {errs: repeat(&StatusError{Code: 500}, 100), calls: 3, attempts: 3 * 4, other: 3},
		// A cool-down of a nanosecond is over by the first call's next
		// attempt: it is the test call, and its success brings the server
		// back for the calls after it.
		"after the cool-down one call tests the server": {
			errs: repeat(refused, 3), cooldown: time.Nanosecond, calls: 3, attempts: 3 + 1 + 2,
		},
		// The call that tripped the breaker waits out the cool-down and
		// tests the server, whose answer brings it back.
		"a blip costs a wait, not the call": {
			errs: repeat(refused, 3), cooldown: 20 * time.Millisecond, calls: 3, attempts: 3 + 1 + 2,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &stubBackend{errs: tc.errs}
			c := New(Config{Backend: b, Retry: fast, Breaker: BreakerPolicy{Cooldown: cmp.Or(tc.cooldown, time.Hour), GiveUp: cmp.Or(tc.giveUp, time.Minute)}})
			failed, other := 0, 0
			for i := range tc.calls {
				_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: fmt.Sprint("call ", i)}}})
				switch {
				case errors.Is(err, ErrUnreachable):
					failed++
					assert.ErrorContains(t, err, "model server unreachable: dial tcp 127.0.0.1:1: connection refused")
				case err != nil:
					other++
				}
			}
			assert.Equal(t, tc.attempts, b.calls.Load(), "attempts sent")
			assert.Equal(t, tc.failed, failed, "calls refused as unreachable")
			assert.Equal(t, tc.other, other, "calls failed otherwise")
		})
	}
}

// TestClientCallsWaitForTheServer: calls made at once while the server is
// down wait for it, unsent, and all go on when the test call finds it
// back: none fails, and the server sees only the three attempts that took
// it as down, the test and the calls.
func TestClientCallsWaitForTheServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	refused := fmt.Errorf("dial tcp 127.0.0.1:1: %w", syscall.ECONNREFUSED)
	const calls = 20
	b := &stubBackend{errs: []error{refused, refused, refused}}
	c := New(Config{Backend: b, Retry: fast, Concurrency: 4, Breaker: BreakerPolicy{Cooldown: 20 * time.Millisecond}})
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			_, errs[i] = c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: fmt.Sprint("call ", i)}}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "call %d", i)
	}
	assert.Equal(t, int64(3+calls), b.calls.Load(), "attempts sent")
	assert.Equal(t, Waits{}, c.Waits(), "nothing waits once the server is back")
}

// TestClientServerDownBoundsEachCall: a call waits for a server that is
// down no longer than its own retry time (RetryPolicy.MaxElapsed), nor
// than its context.
func TestClientServerDownBoundsEachCall(t *testing.T) {
	defer goleak.VerifyNone(t)
	refused := fmt.Errorf("dial tcp 127.0.0.1:1: %w", syscall.ECONNREFUSED)
	errs := make([]error, 100)
	for i := range errs {
		errs[i] = refused
	}
	tests := map[string]struct {
		retry   RetryPolicy
		timeout time.Duration
		want    error
	}{
		"the retry time ends the wait": {
			retry: RetryPolicy{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxElapsed: 50 * time.Millisecond}, timeout: time.Minute,
			want: ErrUnreachable,
		},
		"the context ends the wait": {retry: fast, timeout: 50 * time.Millisecond, want: context.DeadlineExceeded},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &stubBackend{errs: slices.Clone(errs)}
			c := New(Config{Backend: b, Retry: tc.retry, Breaker: BreakerPolicy{Cooldown: time.Hour, GiveUp: time.Hour}})
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			_, err := c.Chat(ctx, Request{Messages: []Message{{Role: User, Content: "x"}}})
			require.ErrorIs(t, err, tc.want)
			assert.Equal(t, int64(3), b.calls.Load(), "attempts sent")
			assert.False(t, c.Waits().Down.IsZero(), "the server is still taken as down")
			assert.Zero(t, c.Waits().ForServer, "no call waits any more")
		})
	}
}

// TestClientAuthLatch: the first 401 or 403 is kept, and every later call
// returns it (errors.Is ErrAuth, with the server's message) unsent.
func TestClientAuthLatch(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]struct {
		err  error
		want string
	}{
		"401": {&StatusError{Code: 401, Message: "Incorrect API key provided"}, "status 401: Incorrect API key provided"},
		"403": {&StatusError{Code: 403, Message: "unsupported region"}, "status 403: unsupported region"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &stubBackend{errs: []error{tc.err}}
			c := New(Config{Backend: b, Retry: fast})
			for i := range 5 {
				_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: fmt.Sprint("call ", i)}}})
				require.ErrorIs(t, err, ErrAuth, "call %d", i)
				assert.ErrorContains(t, err, tc.want)
				assert.ErrorContains(t, err, "check the API key")
			}
			_, _, err := c.Embed(context.Background(), []string{"x"})
			assert.ErrorIs(t, err, ErrAuth)
			assert.Equal(t, int64(1), b.calls.Load(), "only the first call was sent")
			se, ok := errors.AsType[*StatusError](c.AuthErr())
			require.True(t, ok)
			want, ok := errors.AsType[*StatusError](tc.err)
			require.True(t, ok)
			assert.Equal(t, want.Code, se.Code)
		})
	}
}

// TestClientBudgetNeedsAPrice: under a budget, a model without a price
// is refused unsent, with an error naming it, rather than costing $0.
func TestClientBudgetNeedsAPrice(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]struct {
		prices Prices
		budget float64
		want   error
		sent   int64
	}{
		"unknown price under a budget is refused": {prices: Prices{"other": {In: 1}}, budget: 1, want: ErrBudget},
		"unknown price without a budget is sent":  {prices: Prices{"other": {In: 1}}, sent: 1},
		"a known price of zero is a price":        {prices: Prices{"gpt-4o-mini": {}}, budget: 1, sent: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &stubBackend{}
			c := New(Config{Backend: b, Prices: tc.prices, MaxCostUSD: tc.budget})
			_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: "x"}}})
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				assert.ErrorContains(t, err, "model gpt-4o-mini is not in the price table")
				assert.Equal(t, 1, c.BudgetStops())
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.sent, b.calls.Load())
		})
	}
}

func TestPricesKnown(t *testing.T) {
	t.Parallel()
	p := Prices{"gpt-4o": {In: 2.5, Out: 10}, "qwen2.5:7b": {}}
	tests := map[string]bool{
		"openai:gpt-4o":           true,
		"gpt-4o":                  true,
		"ollama:qwen2.5:7b":       true,
		"openai:judge-model":      false,
		"langchain:anthropic:foo": false,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, want, p.Known(name))
		})
	}
}

// brokenCache fails every read and write, as a cache on a full or failing
// disk does.
type brokenCache struct{}

func (brokenCache) Get(context.Context, string) (Response, bool, error) {
	return Response{}, false, errors.New("llm cache: get: disk I/O error")
}

func (brokenCache) Put(context.Context, string, Response) error {
	return errors.New("llm cache: put: database or disk is full")
}

// TestClientCountsCacheErrors: a cache that fails does not fail the call;
// each failed read and write is counted in Usage.CacheErrors and reported
// as a "cache_error" event.
func TestClientCountsCacheErrors(t *testing.T) {
	defer goleak.VerifyNone(t)
	var mu sync.Mutex
	var reported []string
	b := &stubBackend{}
	c := New(Config{Backend: b, Cache: brokenCache{}, OnEvent: func(e Event) {
		if e.Kind == "cache_error" {
			mu.Lock()
			reported = append(reported, e.Err.Error())
			mu.Unlock()
		}
	}})
	for i := range 3 {
		_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: fmt.Sprint(i)}}})
		require.NoError(t, err)
	}
	assert.Equal(t, int64(3), b.calls.Load())
	assert.Equal(t, 6, c.Usage().CacheErrors, "a read and a write per call")
	assert.Len(t, reported, 6)
	assert.Contains(t, reported, "llm cache: get: disk I/O error")
	assert.Contains(t, reported, "llm cache: put: database or disk is full")
}

// gatedBackend answers each call when the test lets it, with one output
// token.
type gatedBackend struct {
	calls   atomic.Int64
	arrived chan struct{} // a value per call received
	gate    chan struct{}
}

func (b *gatedBackend) Name() string { return "stub:gated" }

func (b *gatedBackend) Chat(ctx context.Context, _ Request) (Response, error) {
	b.calls.Add(1)
	b.arrived <- struct{}{}
	select {
	case <-b.gate:
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	return Response{Content: "{}", Usage: eval.Usage{TokensOut: 1}}, nil
}

func (b *gatedBackend) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, ErrNoEmbeddings
}

// TestClientBudgetWaitsForCallsInFlight: a call that would pass the
// budget only with the estimates in flight waits for them to settle at
// their real cost, rather than being refused; a call that would pass it
// with nothing in flight is refused.
func TestClientBudgetWaitsForCallsInFlight(t *testing.T) {
	defer goleak.VerifyNone(t)
	// $1 an output token; no charge for input. Each call is estimated at
	// its cap of 3 tokens ($3) and costs $1.
	b := &gatedBackend{gate: make(chan struct{}), arrived: make(chan struct{}, 10)}
	waiting := make(chan struct{}, 1)
	c := New(Config{Backend: b, Concurrency: 2, MaxCostUSD: 5, Prices: Prices{"gated": {Out: 1e6}}, OnEvent: func(e Event) {
		if e.Kind == "budget_wait" {
			waiting <- struct{}{}
		}
	}})
	req := func(i int) Request {
		return Request{Tag: "verify", MaxTokens: 3, Messages: []Message{{Role: User, Content: fmt.Sprint(i)}}}
	}
	errs := make(chan error, 2)
	go func() { _, err := c.Chat(context.Background(), req(1)); errs <- err }()
	<-b.arrived
	go func() { _, err := c.Chat(context.Background(), req(2)); errs <- err }()
	<-waiting // $0 spent + $3 in flight + $3 > $5, but $0 + $3 fits
	assert.Equal(t, int64(1), b.calls.Load(), "the second call waits unsent")
	b.gate <- struct{}{} // the first settles at $1
	b.gate <- struct{}{}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	assert.Equal(t, int64(2), b.calls.Load())
	assert.Equal(t, 0, c.BudgetStops())
	assert.InDelta(t, 2.0, c.Usage().CostUSD, 1e-9)

	// The estimate is now the mean real reply, 1 token ($1): three more
	// fit ($5), the sixth would pass the budget with nothing in flight.
	close(b.gate)
	for i := range 3 {
		_, err := c.Chat(context.Background(), req(10+i))
		require.NoError(t, err)
	}
	_, err := c.Chat(context.Background(), req(20))
	require.ErrorIs(t, err, ErrBudget)
	assert.Equal(t, 1, c.BudgetStops())
	assert.InDelta(t, 5.0, c.Usage().CostUSD, 1e-9)
}

// TestClientOutputEstimate: the reply length a call is estimated at is
// the mean of its tag's real replies so far, else a modest default,
// never past the call's cap.
func TestClientOutputEstimate(t *testing.T) {
	t.Parallel()
	c := New(Config{Backend: &stubBackend{}})
	c.noteOut("verify", 30)
	c.noteOut("verify", 41)
	tests := map[string]struct {
		req  Request
		want int
	}{
		"a tag seen: the mean, rounded up":    {Request{Tag: "verify"}, 36},
		"a tag seen, capped by MaxTokens":     {Request{Tag: "verify", MaxTokens: 20}, 20},
		"a tag not seen: the default":         {Request{Tag: "extract"}, defaultOutTokens},
		"a tag not seen, capped by MaxTokens": {Request{Tag: "extract", MaxTokens: 100}, 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, c.outEstimate(tc.req))
		})
	}
}

// hangOnce answers every call after delay, but for the first request of
// the call "hang", which it holds until its context ends.
type hangOnce struct {
	stubBackend
	hung, cancelled atomic.Int64
	slow            atomic.Int64 // the client's slow attempts when the hedge came
	c               *Client
}

func (h *hangOnce) Chat(ctx context.Context, req Request) (Response, error) {
	if req.Messages[0].Content == "hang" {
		if h.hung.Add(1) == 1 {
			h.calls.Add(1)
			<-ctx.Done()
			h.cancelled.Add(1)
			return Response{}, ctx.Err()
		}
		h.slow.Store(int64(h.c.Waits().Slow))
	}
	return h.stubBackend.Chat(ctx, req)
}

// TestClientHedgesAHungAttempt: once a tag's latency is known, an attempt
// that outlives a multiple of it is hedged: a second request goes out, its
// answer wins and the hung one is cancelled, both counted; with no hedge
// to spare the attempt is cut and retried; before the latency is known the
// attempt waits CallTimeout.
func TestClientHedgesAHungAttempt(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]struct {
		hedges  int
		warm    int // calls answered before the hung one
		calls   int // requests the hung call made
		retries int
		hedged  int
	}{
		"the hedge answers":                   {warm: 10, calls: 2, hedged: 1},
		"no hedge to spare: cut and retried":  {warm: 10, hedges: -1, calls: 2, retries: 1},
		"latency unknown: cut at CallTimeout": {warm: 3, calls: 2, retries: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &hangOnce{stubBackend: stubBackend{delay: time.Millisecond}}
			// The deadline is the floor (200 ms), far above the 1 ms
			// replies even on a loaded machine; CallTimeout is above that.
			c := New(Config{Backend: b, Retry: fast, CallTimeout: time.Second,
				Deadline: DeadlinePolicy{Floor: 200 * time.Millisecond, Hedges: tc.hedges}})
			b.c = c
			for i := range tc.warm {
				_, err := c.Chat(context.Background(), Request{Tag: "t", Messages: []Message{{Role: User, Content: fmt.Sprint("warm ", i)}}})
				require.NoError(t, err)
			}
			r, err := c.Chat(context.Background(), Request{Tag: "t", Messages: []Message{{Role: User, Content: "hang"}}})
			require.NoError(t, err)
			assert.Equal(t, tc.calls, r.Usage.Calls, "requests")
			assert.Equal(t, tc.retries, r.Usage.Retries, "retries")
			assert.Equal(t, tc.hedged, r.Usage.Hedges, "hedges")
			require.Eventually(t, func() bool { return b.cancelled.Load() == 1 }, 5*time.Second, time.Millisecond, "the hung request is cancelled")
			assert.Equal(t, int64(tc.warm+tc.calls), b.calls.Load(), "requests the server saw")
			assert.Equal(t, int64(tc.hedged), b.slow.Load(), "the hedged attempt was counted slow while it waited")
			assert.Equal(t, tc.warm+tc.calls, c.Usage().Calls)
			assert.Equal(t, tc.hedged, c.Usage().Hedges)
			assert.Zero(t, c.Waits().Slow)
		})
	}
}

// TestClientWaitsLongerForASlowerServer: a server that becomes slower than
// the deadline its earlier replies set is waited for longer at each retry
// (the deadline doubles), so its calls are answered, not failed.
func TestClientWaitsLongerForASlowerServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := &stubBackend{delay: time.Millisecond}
	c := New(Config{Backend: b, Retry: RetryPolicy{Initial: time.Millisecond, Max: time.Millisecond, MaxRetries: 8},
		Deadline: DeadlinePolicy{Floor: 20 * time.Millisecond}, Breaker: BreakerPolicy{Failures: 100}})
	for i := range 10 {
		_, err := c.Chat(context.Background(), Request{Tag: "t", Messages: []Message{{Role: User, Content: fmt.Sprint("warm ", i)}}})
		require.NoError(t, err)
	}
	b.mu.Lock()
	b.delay = 150 * time.Millisecond // past 20, 40 and 80 ms
	b.mu.Unlock()
	r, err := c.Chat(context.Background(), Request{Tag: "t", Messages: []Message{{Role: User, Content: "slow"}}})
	require.NoError(t, err)
	assert.Positive(t, r.Usage.Retries)
	assert.Positive(t, r.Usage.Hedges)
}

// TestClientCapsReplies: a reply over MaxReply from any backend is an
// invalid reply (errors.Is ErrReplyTooLarge and ErrInvalidOutput), not
// retried, its content dropped.
func TestClientCapsReplies(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := map[string]struct {
		size int
		err  error
	}{
		"at the cap":       {size: MaxReply},
		"one byte over it": {size: MaxReply + 1, err: ErrReplyTooLarge},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &stubBackend{content: strings.Repeat("a", tc.size)}
			c := New(Config{Backend: b, Retry: fast})
			r, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: "x"}}})
			assert.Equal(t, int64(1), b.calls.Load(), "not retried")
			if tc.err == nil {
				require.NoError(t, err)
				assert.Len(t, r.Content, tc.size)
				return
			}
			require.ErrorIs(t, err, tc.err)
			require.ErrorIs(t, err, ErrInvalidOutput)
			assert.Empty(t, r.Content)
			assert.Equal(t, 1, r.Usage.Calls)
		})
	}
}

// laggingCache is a map cache whose first read of each key is held
// until release is closed and then misses, as a read that started just
// before an identical call stored its reply.
type laggingCache struct {
	mu      sync.Mutex
	m       map[string]Response
	looked  map[string]bool
	waiting chan struct{} // closed when a held read starts
	release chan struct{}
}

func (c *laggingCache) Get(_ context.Context, key string) (Response, bool, error) {
	c.mu.Lock()
	first := !c.looked[key]
	c.looked[key] = true
	r, ok := c.m[key]
	c.mu.Unlock()
	if first {
		close(c.waiting)
		<-c.release
		return Response{}, false, nil
	}
	return r, ok, nil
}

func (c *laggingCache) Put(_ context.Context, key string, r Response) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = r
	return nil
}

// TestIdenticalCallsAfterAStoredReplyAreOneCall: a call whose look at
// the cache missed while an identical call was in flight, and that
// reaches the flight only once that call has stored its reply and left,
// takes the stored reply: one request to the server, not two.
func TestIdenticalCallsAfterAStoredReplyAreOneCall(t *testing.T) {
	b := &stubBackend{}
	cache := &laggingCache{m: map[string]Response{}, looked: map[string]bool{}, waiting: make(chan struct{}), release: make(chan struct{})}
	c := New(Config{Backend: b, Cache: cache})
	req := Request{Tag: "t", Messages: []Message{{Role: User, Content: "same"}}}

	late := make(chan Response, 1)
	go func() {
		r, err := c.Chat(context.Background(), req) // its look is held, then misses
		assert.NoError(t, err)
		late <- r
	}()
	<-cache.waiting
	first, err := c.Chat(context.Background(), req) // sends, stores, leaves the flight
	require.NoError(t, err)
	close(cache.release)
	second := <-late

	assert.Equal(t, int64(1), b.calls.Load(), "requests to the server")
	assert.False(t, first.Cached)
	assert.True(t, second.Cached, "the late call took the stored reply")
	assert.Equal(t, first.Content, second.Content)
	assert.Equal(t, 1, c.Usage().CacheHits)
}
