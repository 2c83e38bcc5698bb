package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// Config builds a Client. Zero fields take the documented defaults.
type Config struct {
	Backend Backend
	// Concurrency is the global limit on calls in flight (default 8).
	Concurrency int
	// RPM and TPM limit requests and tokens per minute; zero is unlimited.
	RPM, TPM int
	// Retry sets the retry policy; see RetryPolicy for defaults.
	Retry RetryPolicy
	// Breaker sets when the server is taken as down and calls fail at
	// once; see BreakerPolicy for defaults.
	Breaker BreakerPolicy
	// CallTimeout bounds each attempt of a call, so a server that accepts
	// and never answers costs a retry, not the whole retry time (0: the
	// backend's own bound).
	CallTimeout time.Duration
	// Cache stores replies; nil disables caching.
	Cache Cache
	// Prices gives the cost per million tokens; nil uses DefaultPrices.
	Prices Prices
	// MaxCostUSD stops new calls once spent plus in-flight estimates would
	// pass it; zero is unlimited.
	MaxCostUSD float64
	// Counter counts tokens for estimates; nil uses a 4-bytes-a-token rule.
	Counter TokenCounter
	// OnEvent, when set, receives retries, cache hits and budget stops. It
	// is called from many goroutines.
	OnEvent func(Event)
	// Now is the clock for latency (default time.Now).
	Now func() time.Time
}

// Event reports something the Client did, for logs and traces.
type Event struct {
	Kind    string // "retry", "cache_hit", "cache_error", "budget_stop", "call"
	Tag     string
	Attempt int
	Wait    time.Duration
	Err     error
	Usage   Usage
}

// TokenCounter counts the tokens of a text.
type TokenCounter interface {
	Count(text string) int
}

type byteCounter struct{}

func (byteCounter) Count(s string) int { return (len(s) + 3) / 4 }

// Cache stores replies by key. Implementations must be safe for concurrent
// use. Get's second result is false on a miss.
type Cache interface {
	Get(ctx context.Context, key string) (Response, bool, error)
	Put(ctx context.Context, key string, r Response) error
}

// Client is a Backend with caching, deduplication, budget, limits, retries
// and usage accounting. It is safe for concurrent use.
type Client struct {
	cfg     Config
	sem     chan struct{}
	rpm     *rate.Limiter
	tpm     *rate.Limiter
	flight  singleflight.Group
	counter TokenCounter
	prices  Prices
	now     func() time.Time

	// breaker fails calls at once while the server is taken as down.
	breaker *breaker

	mu       sync.Mutex
	auth     error // the first refusal of the credentials, ErrAuth
	total    Usage
	spent    float64
	inflight float64
	stopped  int // calls refused by the budget
}

// New returns a Client for cfg.Backend.
func New(cfg Config) *Client {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 8
	}
	c := &Client{
		cfg:     cfg,
		sem:     make(chan struct{}, cfg.Concurrency),
		counter: cfg.Counter,
		prices:  cfg.Prices,
		now:     cfg.Now,
		breaker: newBreaker(cfg.Breaker),
	}
	if c.counter == nil {
		c.counter = byteCounter{}
	}
	if c.prices == nil {
		c.prices = DefaultPrices()
	}
	if c.now == nil {
		c.now = time.Now
	}
	if cfg.RPM > 0 {
		c.rpm = rate.NewLimiter(rate.Limit(float64(cfg.RPM)/60), max(1, cfg.RPM/60))
	}
	if cfg.TPM > 0 {
		c.tpm = rate.NewLimiter(rate.Limit(float64(cfg.TPM)/60), cfg.TPM)
	}
	return c
}

// Name is the backend's "backend:model".
func (c *Client) Name() string { return c.cfg.Backend.Name() }

// Usage is the sum of every call made so far.
func (c *Client) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// MaxCost is the cost budget in US dollars; 0 means none.
func (c *Client) MaxCost() float64 { return c.cfg.MaxCostUSD }

// AuthErr is the first refusal of the credentials (errors.Is ErrAuth),
// with the server's message, or nil. Once it is set no call is sent.
func (c *Client) AuthErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.auth
}

// latchAuth keeps err, a 401 or 403, as the client's refusal of the
// credentials unless one is kept already, and returns the one kept.
func (c *Client) latchAuth(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.auth == nil {
		c.auth = authErr(err)
	}
	return c.auth
}

// refuse is the error of a call that must not be sent: the credentials
// were refused, or the server is taken as down. It is permanent, so a
// call waiting to retry stops.
func (c *Client) refuse() error {
	if err := c.AuthErr(); err != nil {
		return permanent(err)
	}
	return c.breaker.check()
}

// BudgetStops is how many calls the cost budget refused.
func (c *Client) BudgetStops() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

// Close releases what the backend keeps open between calls, such as idle
// connections, when it is an io.Closer; the cache is its owner's to close.
func (c *Client) Close() error {
	if cl, ok := c.cfg.Backend.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// Prices is the price table used for costs.
func (c *Client) Prices() Prices { return c.prices }

// Counter is the token counter used for estimates.
func (c *Client) Counter() TokenCounter { return c.counter }

// Chat sends req, or answers it from the cache. Identical calls in flight
// share one request; each caller still returns when its own ctx ends, and
// one whose shared request failed because its sender's ctx ended sends it
// again.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	key := c.key(req)
	if c.cfg.Cache != nil {
		r, ok, err := c.cfg.Cache.Get(ctx, key)
		if err != nil && ctx.Err() == nil {
			c.cacheErr(req.Tag, err)
		}
		if err == nil && ok {
			r.Cached = true
			r.Usage = Usage{TokensIn: r.Usage.TokensIn, TokensOut: r.Usage.TokensOut, CacheHits: 1}
			c.mu.Lock()
			c.total.CacheHits++
			c.mu.Unlock()
			c.emit(Event{Kind: "cache_hit", Tag: req.Tag})
			return r, nil
		}
	}
	for {
		var led atomic.Bool
		ch := c.flight.DoChan(key, func() (any, error) {
			led.Store(true)
			r, err := c.send(ctx, req)
			if err == nil && c.cfg.Cache != nil && (req.Check == nil || req.Check(r.Content) == nil) {
				// A cache that cannot write is not worth failing a judge
				// for: the error is counted and reported, and the call goes on.
				if err := c.cfg.Cache.Put(context.WithoutCancel(ctx), key, r); err != nil {
					c.cacheErr(req.Tag, err)
				}
			}
			return shared{r, ctx.Err() != nil}, err
		})
		// A caller that shares another's call waits only as long as its
		// own context allows. The sender waits for its call, which ends
		// with its context, to say what the server last answered.
		var res singleflight.Result
		select {
		case res = <-ch:
		case <-ctx.Done():
			if !led.Load() {
				return Response{}, ctx.Err()
			}
			res = <-ch
		}
		v, _ := res.Val.(shared)
		if led.Load() {
			return v.r, res.Err
		}
		if res.Err != nil && v.senderGone && ctx.Err() == nil {
			// The call failed because its sender went away, not because of
			// the model: send it again.
			continue
		}
		// The call was shared with an identical one in flight: only the
		// caller that sent it pays for it.
		v.r.Usage = Usage{}
		return v.r, res.Err
	}
}

// cacheErr counts a failed read or write of the cache and reports it
// (Event "cache_error"); the call goes on without the cache.
func (c *Client) cacheErr(tag string, err error) {
	c.mu.Lock()
	c.total.CacheErrors++
	c.mu.Unlock()
	c.emit(Event{Kind: "cache_error", Tag: tag, Err: err})
}

// shared is the result of a call that identical calls in flight share:
// the reply, and whether the caller that sent it had gone away by the end.
type shared struct {
	r          Response
	senderGone bool
}

// send runs one call through the budget, the limits and the retry loop.
func (c *Client) send(ctx context.Context, req Request) (Response, error) {
	// Count the prompt's tokens only when a budget or a tokens-per-minute
	// limit needs the estimate before the call; otherwise the server's
	// usage is used, and counting is left for replies that lack it.
	inTok, est := -1, 0.0
	countIn := func() int {
		if inTok < 0 {
			inTok = 0
			for _, m := range req.Messages {
				inTok += c.counter.Count(m.Content) + 4
			}
		}
		return inTok
	}
	outTok := req.MaxTokens
	if outTok == 0 {
		outTok = 512
	}
	if c.cfg.MaxCostUSD > 0 {
		est = c.prices.Cost(c.Name(), countIn(), outTok)
	}
	reserved := false
	tokens := 0
	if c.tpm != nil {
		tokens = countIn() + outTok
	}
	var resp Response
	sent := 0
	start := c.now()
	_, err := c.cfg.Retry.do(ctx, func() error {
		// A call waiting to start, or to retry, is not sent once the
		// credentials were refused or the server is taken as down.
		if err := c.refuse(); err != nil {
			return err
		}
		if err := c.acquire(ctx, tokens); err != nil {
			return err
		}
		defer c.release()
		if err := c.refuse(); err != nil {
			return err
		}
		// The budget is checked when the call can start, not while it
		// waits for a slot, so only calls really in flight hold an
		// estimate and the budget is not used up by a queue.
		if !reserved {
			if err := c.reserve(est); err != nil {
				return err
			}
			reserved = true
		}
		err := c.breaker.run(ctx, func() error {
			actx, cancel := c.attempt(ctx)
			defer cancel()
			sent++
			var err error
			resp, err = c.cfg.Backend.Chat(actx, req)
			if err == nil && resp.Content == "" {
				err = ErrEmpty
			}
			return err
		})
		if isAuth(err) {
			return permanent(c.latchAuth(err))
		}
		return err
	}, func(attempt int, err error, wait time.Duration) {
		c.emit(Event{Kind: "retry", Tag: req.Tag, Attempt: attempt, Wait: wait, Err: err})
	})
	if sent == 0 {
		// Refused (budget, bad key, server down), or cancelled while
		// waiting for a slot: no call was made.
		if reserved {
			c.settle(est, Usage{})
		}
		if errors.Is(err, ErrBudget) {
			c.emit(Event{Kind: "budget_stop", Tag: req.Tag, Err: err})
		}
		return Response{}, err
	}
	u := resp.Usage
	u.Calls = sent
	u.Retries = sent - 1
	u.Latency = c.now().Sub(start)
	if err == nil && u.TokensIn == 0 && u.TokensOut == 0 {
		u.TokensIn, u.TokensOut, u.Estimated = countIn(), c.counter.Count(resp.Content), true
	}
	u.CostUSD = c.prices.Cost(c.Name(), u.TokensIn, u.TokensOut)
	resp.Usage = u
	c.settle(est, u)
	c.emit(Event{Kind: "call", Tag: req.Tag, Usage: u, Err: err})
	if err != nil {
		return Response{Usage: u}, err
	}
	return resp, nil
}

// attempt returns the context of one attempt of a call: ctx cut at
// CallTimeout when one is set.
func (c *Client) attempt(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.cfg.CallTimeout > 0 {
		return context.WithTimeout(ctx, c.cfg.CallTimeout)
	}
	return ctx, func() {}
}

// acquire takes a concurrency slot and the rate limits' tokens.
func (c *Client) acquire(ctx context.Context, tokens int) error {
	if c.rpm != nil {
		if err := c.rpm.Wait(ctx); err != nil {
			return limitErr(ctx, err)
		}
	}
	if c.tpm != nil {
		if err := c.tpm.WaitN(ctx, min(tokens, c.tpm.Burst())); err != nil {
			return limitErr(ctx, err)
		}
	}
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release frees the call slot that acquire took, then yields so that a
// call waiting for the slot goes out before this one's reply is handled.
// Freeing the slot makes its waiter the next goroutine to run on this P,
// but whatever this goroutine readies next (the judge waiting for the
// reply) would take that place and push the waiter to the back of the
// queue, behind the judges' work: a fan-out then loses about 0.3 ms per
// call in each slot (BENCHMARKS.md).
func (c *Client) release() {
	<-c.sem
	runtime.Gosched()
}

// limitErr is the error of a rate limiter's wait. The limiter refuses at
// once a wait that would end past ctx's deadline, with an error of its
// own; that is the deadline's doing, so it wraps
// context.DeadlineExceeded, as the wait itself would have, and ends the
// retries: a later attempt would be refused the same way.
func limitErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if _, ok := ctx.Deadline(); ok {
		return permanent(fmt.Errorf("%w: %w: %v", context.DeadlineExceeded, errLimitWait, err))
	}
	return err
}

// errLimitWait marks a call refused by our own rate limiter, which says
// nothing about whether the server is reachable.
var errLimitWait = errors.New("rate limit wait")

func (c *Client) reserve(est float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.MaxCostUSD > 0 && !c.prices.Known(c.Name()) {
		c.stopped++
		return fmt.Errorf("%w: model %s is not in the price table, so no spending can be counted against the limit $%g; give its price (Config.Prices)",
			ErrBudget, modelOf(c.Name()), c.cfg.MaxCostUSD)
	}
	if c.cfg.MaxCostUSD > 0 && c.spent+c.inflight+est > c.cfg.MaxCostUSD {
		c.stopped++
		return fmt.Errorf("%w: spent $%.4f, in flight $%.4f, next call about $%.4f, limit $%.4f",
			ErrBudget, c.spent, c.inflight, est, c.cfg.MaxCostUSD)
	}
	c.inflight += est
	return nil
}

func (c *Client) settle(est float64, u Usage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight -= est
	c.spent += u.CostUSD
	c.total = c.total.Add(u)
}

// Embed returns one vector per text. Embeddings are not cached.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	tok := 0
	for _, t := range texts {
		tok += c.counter.Count(t)
	}
	var vecs [][]float32
	var u Usage
	sent := 0
	start := c.now()
	_, err := c.cfg.Retry.do(ctx, func() error {
		if err := c.refuse(); err != nil {
			return err
		}
		if err := c.acquire(ctx, tok); err != nil {
			return err
		}
		defer c.release()
		if err := c.refuse(); err != nil {
			return err
		}
		err := c.breaker.run(ctx, func() error {
			actx, cancel := c.attempt(ctx)
			defer cancel()
			sent++
			var err error
			vecs, u, err = c.cfg.Backend.Embed(actx, texts)
			return err
		})
		switch {
		case errors.Is(err, ErrNoEmbeddings):
			return permanent(err)
		case isAuth(err):
			return permanent(c.latchAuth(err))
		}
		return err
	}, func(attempt int, err error, wait time.Duration) {
		c.emit(Event{Kind: "retry", Tag: "embed", Attempt: attempt, Wait: wait, Err: err})
	})
	if errors.Is(err, ErrNoEmbeddings) || sent == 0 {
		return nil, Usage{}, err
	}
	u.Calls, u.Retries, u.Latency = sent, sent-1, c.now().Sub(start)
	if u.TokensIn == 0 {
		u.TokensIn, u.Estimated = tok, true
	}
	// Embeddings are priced by the embedding model, when the backend names
	// it, not by the chat model.
	name := c.Name()
	if e, ok := c.cfg.Backend.(interface{ EmbeddingName() string }); ok {
		name = e.EmbeddingName()
	}
	u.CostUSD = c.prices.Cost(name, u.TokensIn, 0)
	c.settle(0, u)
	return vecs, u, err
}

func (c *Client) emit(e Event) {
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(e)
	}
}

// key is the content address of a request: backend, model, prompt key (or
// messages) and parameters.
func (c *Client) key(req Request) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	scope := c.Name()
	if s, ok := c.cfg.Backend.(interface{ CacheScope() string }); ok {
		scope = s.CacheScope()
	}
	_ = enc.Encode(scope)
	if req.Key != "" {
		_ = enc.Encode(req.Key)
	} else {
		_ = enc.Encode(req.Messages)
	}
	_ = enc.Encode(struct {
		S    *Schema
		T    float64
		M    int
		Seed *int
	}{req.Schema, req.Temperature, req.MaxTokens, req.Seed})
	return hex.EncodeToString(h.Sum(nil))
}
