package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/assaylabs/assay/eval"
)

// Config builds a Client. Zero fields take the documented defaults.
type Config struct {
	Backend Backend
	// Concurrency is the most calls in flight at once (default 8): the
	// ceiling of the limit Adaptive moves.
	Concurrency int
	// Adaptive sets how the limit on calls in flight follows the server's
	// 429s, timeouts and rate-limit headers; see AdaptivePolicy.
	Adaptive AdaptivePolicy
	// RPM and TPM limit requests and tokens per minute; zero is unlimited.
	// A call takes its estimated tokens before it starts and is settled at
	// its real usage: the extra is charged, the unused given back.
	RPM, TPM int
	// Retry sets the retry policy; see RetryPolicy for defaults.
	Retry RetryPolicy
	// Breaker sets when the server is taken as down, calls wait for it
	// to come back, and they stop waiting; see BreakerPolicy for defaults.
	Breaker BreakerPolicy
	// CallTimeout bounds each attempt of a call, so a server that accepts
	// and never answers costs a retry, not the whole retry time (0: the
	// backend's own bound). It is the cap of the deadlines Deadline
	// derives from the latency the server shows.
	CallTimeout time.Duration
	// Deadline sets how long an attempt waits before it is hedged, then
	// ended, from the latency the server shows; see DeadlinePolicy.
	Deadline DeadlinePolicy
	// Cache stores replies; nil disables caching.
	Cache Cache
	// Prices gives the cost per million tokens; nil uses DefaultPrices.
	Prices Prices
	// MaxCostUSD is the budget; zero is unlimited. A call holds its
	// estimate (its prompt, and the mean reply of its Tag so far) while in
	// flight and is settled at its real cost; a call whose estimate would
	// pass the budget with what is in flight waits for those to settle,
	// and is refused (ErrBudget) only when it would pass it with nothing
	// in flight.
	MaxCostUSD float64
	// Budget, when set, is a budget the client shares with others, in
	// place of one of its own of MaxCostUSD (see Budget).
	Budget *Budget
	// Counter counts tokens for estimates; nil uses a 4-bytes-a-token rule.
	Counter TokenCounter
	// OnEvent, when set, receives retries, cache hits and budget stops. It
	// is called from many goroutines.
	OnEvent func(Event)
	// Now is the clock for latency and the rate limits (default time.Now).
	Now func() time.Time
	// Batch, when set, makes the client a batch run's: a chat call the
	// cache cannot answer is answered from the batch's replies, priced at
	// the batch price (Prices.BatchCost), or recorded for the next batch
	// and refused with ErrBatchPending; a call no batch answered goes the
	// normal way. Embeddings are not batched. See Batch.
	Batch *Batch
}

// Event reports something the Client did, for logs and traces.
type Event struct {
	// Kind is "retry", "cache_hit", "cache_error", "budget_stop",
	// "budget_wait" (a call waits for calls in flight to settle before the
	// budget can take it), "limit_wait" (a rate limit starts holding calls
	// back: Limit, PerMinute, Wait until the next opening; once a spell of
	// waits), "unpriced" (the first call to Model, a model with no price:
	// its cost is unknown; once a model) or "call".
	Kind      string
	Model     string // "unpriced": the model, without its backend
	Tag       string
	Attempt   int
	Wait      time.Duration
	Err       error
	Usage     eval.Usage
	Limit     string // "rpm" or "tpm"
	PerMinute int
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
	lim     *limiter
	rpm     *bucket
	tpm     *bucket
	sleep   func(context.Context, time.Duration) error
	flight  singleflight.Group
	counter TokenCounter
	prices  Prices
	now     func() time.Time

	// breaker holds calls back while the server is taken as down.
	breaker *breaker
	// deadlines, lat and hedges cut and hedge attempts that outlive the
	// latency the server shows; slow counts the attempts past their
	// deadline now.
	deadlines DeadlinePolicy
	lat       latencies
	hedges    chan struct{}
	slow      atomic.Int64

	// budget is the cost budget the client spends from.
	budget *Budget

	mu       sync.Mutex
	auth     error // the first refusal of the credentials, ErrAuth
	outs     map[string]outStats
	total    eval.Usage
	downed   int             // calls that gave up on a server down, ErrUnreachable
	unpriced map[string]bool // models called with no price, said once

	// unpricedModel: the model is not offline and has no price.
	unpricedModel bool

	// keys computes the cache keys of requests.
	keys *keyer
}

// New returns a Client for cfg.Backend.
func New(cfg Config) *Client {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 8
	}
	c := &Client{
		cfg:      cfg,
		keys:     newKeyer(cfg.Backend),
		counter:  cfg.Counter,
		prices:   cfg.Prices,
		now:      cfg.Now,
		breaker:  newBreaker(cfg.Breaker, cfg.Retry),
		sleep:    sleep,
		outs:     map[string]outStats{},
		budget:   cfg.Budget,
		unpriced: map[string]bool{},
	}
	if c.budget == nil {
		c.budget = NewBudget(cfg.MaxCostUSD)
	}
	c.deadlines = cfg.Deadline.withDefaults(cfg.Concurrency)
	if c.deadlines.Hedges > 0 {
		c.hedges = make(chan struct{}, c.deadlines.Hedges)
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
	c.lim = newLimiter(cfg.Concurrency, cfg.Adaptive, cfg.Retry.withDefaults().MaxRetryAfter, c.now)
	c.unpricedModel = !c.Offline() && !c.prices.Known(c.Name())
	if cfg.RPM > 0 {
		c.rpm = newBucket(cfg.RPM, max(1, cfg.RPM/60), c.now)
	}
	if cfg.TPM > 0 {
		c.tpm = newBucket(cfg.TPM, cfg.TPM, c.now)
	}
	return c
}

// Name is the backend's "backend:model".
func (c *Client) Name() string { return c.cfg.Backend.Name() }

// Offline reports whether the backend has no chat model (it implements
// Offliner and says so), as the offline backend: judges then run their
// lexical counterparts, and no call costs anything.
func (c *Client) Offline() bool { return IsOffline(c.cfg.Backend) }

// Embeds reports whether the backend has an embedding model: false when
// it says it has none (EmbedReporter), true otherwise. A dry run embeds
// only for a client that embeds, as the judges fall back when it cannot.
func (c *Client) Embeds() bool {
	e, ok := c.cfg.Backend.(EmbedReporter)
	return !ok || e.Embeds()
}

// EmbedReporter is a Backend that can say whether it has an embedding
// model (whether Embed can succeed rather than return ErrNoEmbeddings).
type EmbedReporter interface {
	Embeds() bool
}

// IsOffline reports whether b says it has no chat model (Offliner).
func IsOffline(b Backend) bool {
	o, ok := b.(Offliner)
	return ok && o.Offline()
}

// Offliner is a Backend that can say it has no chat model; a Backend that
// does not implement it is taken to have one.
type Offliner interface {
	Offline() bool
}

// Usage is the sum of every call made so far. Its cost is unknown
// (CostUnknown) when the model has no price, calls made or not, as a run
// on it cannot say what it costs; or when a call went to another model
// with none, as an embedding model.
func (c *Client) Usage() eval.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.total
	u.CostUnknown = u.CostUnknown || c.unpricedModel
	return u
}

// MaxCost is the cost budget in US dollars; 0 means none.
func (c *Client) MaxCost() float64 { return c.budget.Max() }

// Budget is the cost budget the client spends from: its own, or the one
// Config.Budget shares.
func (c *Client) Budget() *Budget { return c.budget }

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
// were refused, or the server has been down for longer than the call may
// wait for it (until, its retry time). It is permanent, so a call waiting
// to retry stops. While the server is down and the call may still wait,
// refuse waits for it to come back.
func (c *Client) refuse(ctx context.Context, until time.Time) error {
	if err := c.AuthErr(); err != nil {
		return permanent(err)
	}
	return c.breaker.await(ctx, until)
}

// Waits is what the calls in flight are waiting on, for a progress line
// to say why a run has stopped moving.
type Waits struct {
	// Down is since when the model server has been taken as down (zero
	// while it is up), and ForServer how many calls wait for it.
	Down      time.Time
	ForServer int
	// Slow counts the attempts that outlived their deadline and still
	// wait for a reply (DeadlinePolicy).
	Slow int
}

// Waits is what the calls in flight wait on now.
func (c *Client) Waits() Waits {
	since, n := c.breaker.down()
	return Waits{Down: since, ForServer: n, Slow: int(c.slow.Load())}
}

// until is the end of the retry time of a call that starts now.
func (c *Client) until() time.Time {
	return time.Now().Add(c.cfg.Retry.withDefaults().MaxElapsed)
}

// Unreachable is how many calls ended because the model server was down
// longer than they could wait for it (ErrUnreachable).
func (c *Client) Unreachable() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.downed
}

// gaveUp counts a call that ended in err when the server was down.
func (c *Client) gaveUp(err error) {
	if errors.Is(err, ErrUnreachable) {
		c.mu.Lock()
		c.downed++
		c.mu.Unlock()
	}
}

// BudgetStops is how many calls the cost budget refused: of every client
// that spends from it, when it is shared.
func (c *Client) BudgetStops() int { return c.budget.Stops() }

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

// Spent is the US dollars the calls made so far cost, and whether that
// is their whole cost: false when the model has no price (see Usage).
func (c *Client) Spent() (usd float64, known bool) {
	u := c.Usage()
	return u.CostUSD, !u.CostUnknown
}

// price is the cost of a call of name, a model ("backend:model"), with
// in and out tokens, at the batch price when batch, or unknown when name
// has no price (the first such call of name is reported, Event
// "unpriced"). The offline backend costs nothing.
func (c *Client) price(name string, in, out int, batch bool) (usd float64, unknown bool) {
	usd = c.prices.Cost(name, in, out)
	if batch {
		usd = c.prices.BatchCost(name, in, out)
	}
	if c.Offline() || c.prices.Known(name) {
		return usd, false
	}
	c.mu.Lock()
	first := !c.unpriced[name]
	c.unpriced[name] = true
	c.mu.Unlock()
	if first {
		c.emit(Event{Kind: "unpriced", Model: modelOf(name)})
	}
	return usd, true
}

// Counter is the token counter used for estimates.
func (c *Client) Counter() TokenCounter { return c.counter }

// Chat sends req, or answers it from the cache. Identical calls in flight
// share one request; each caller still returns when its own ctx ends, and
// one whose shared request failed because its sender's ctx ended sends it
// again.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	r, err := c.chatKeyed(ctx, req)
	return stamped(r, req), err
}

// stamped is r with the build that answered (r.Fingerprint) and the seed
// req asked for recorded in its usage, when there was a reply.
func stamped(r Response, req Request) Response {
	if r.Content == "" {
		return r
	}
	r.Usage.Fingerprints = eval.MergeSet(r.Usage.Fingerprints, r.Fingerprint)
	seed := r.Seed
	if seed == nil {
		seed = req.Seed
	}
	if seed != nil {
		r.Usage.Seeds = eval.MergeSet(r.Usage.Seeds, strconv.Itoa(*seed))
	}
	return r
}

// chatKeyed is Chat without the stamp.
func (c *Client) chatKeyed(ctx context.Context, req Request) (Response, error) {
	if req.Key == "" {
		// The messages are the key: they must be there to compute it.
		var err error
		if req, err = req.Built(); err != nil {
			return Response{}, err
		}
	}
	key := c.key(req)
	b := c.cfg.Batch
	// A reply the batch run's book holds is answered from the book, not
	// from the cache it was also put in: the judgement that asked for it
	// pays for it each time it runs (see fromBatch), so that its results
	// carry what the run paid rather than a cache hit.
	switch {
	case b != nil && b.holds(key):
	case req.Stale != nil:
		if c.cfg.Cache != nil {
			c.unserved(req.Stale)
			c.cacheErr(req.Tag, fmt.Errorf("%w (%w): the model is asked again, and its reply stored in its place", ErrStaleReply, req.Stale))
		}
	default:
		if r, ok := c.cached(ctx, key, req.Tag, true); ok {
			return r, nil
		}
	}
	// Not cached: the call needs its messages (to count, batch and send).
	req, err := req.Built()
	if err != nil {
		return Response{}, err
	}
	if b == nil {
		return c.chatSent(ctx, key, req)
	}
	r, ok, err := c.fromBatch(ctx, b, key, req)
	if ok {
		return r, err
	}
	billed := r.Usage // of the batch's reply that was no answer
	r, err = c.chatSent(ctx, key, req)
	r.Usage = r.Usage.Add(billed)
	if err == nil && r.Usage.Calls > 0 {
		// Kept, so that a judge run again after the next batch does not
		// pay for it again, with the cache off too.
		b.keep(key, r, owner(ctx))
	}
	return r, err
}

// chatSent sends req, whose key is key, sharing it with identical calls
// in flight, and caches its reply.
func (c *Client) chatSent(ctx context.Context, key string, req Request) (Response, error) {
	for {
		var led atomic.Bool
		ch := c.flight.DoChan(key, func() (any, error) {
			led.Store(true)
			// An identical call may have ended, its reply stored, between
			// the look above and this one's start: that reply is the answer.
			// (A cache that failed the first look is not counted twice.)
			if req.Stale == nil {
				if r, ok := c.cached(ctx, key, req.Tag, false); ok {
					return shared{r, false}, nil
				}
			}
			r, err := c.send(ctx, req)
			if err == nil && c.cfg.Cache != nil && vet(req, &r) {
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
		v.r.Usage = eval.Usage{}
		return v.r, res.Err
	}
}

// vet reports whether r passes req's Check (true when it has none), and
// keeps what the check read in r.Checked.
func vet(req Request, r *Response) bool {
	if req.Check == nil {
		return true
	}
	checked, err := req.Check(r.Content)
	if err != nil {
		return false
	}
	r.Checked = checked
	return true
}

// cached is the reply the cache holds for key, counted as a cache hit;
// false when there is none (or no cache, or it cannot be read: an error
// counted when count is set).
func (c *Client) cached(ctx context.Context, key, tag string, count bool) (Response, bool) {
	if c.cfg.Cache == nil {
		return Response{}, false
	}
	r, ok, err := c.cfg.Cache.Get(ctx, key)
	if err != nil && count && ctx.Err() == nil {
		c.cacheErr(tag, err)
	}
	if err != nil || !ok {
		return Response{}, false
	}
	r.Cached = true
	r.Usage = cacheHit(r.Usage)
	c.mu.Lock()
	c.total = c.total.Add(r.Usage)
	c.mu.Unlock()
	c.emit(Event{Kind: "cache_hit", Tag: tag})
	return r, true
}

// cacheHit is the usage of a reply served again, whose first call used u:
// one cache hit, its tokens counted as served from the cache, not paid.
func cacheHit(u eval.Usage) eval.Usage {
	return eval.Usage{CacheHits: 1, CachedTokensIn: u.TokensIn, CachedTokensOut: u.TokensOut}
}

// fromBatch answers the call of key from the batch b, or ErrBatchPending
// with the call recorded for the next batch and counted on ctx's
// Pending; ok is false for a call no batch answered, which goes the
// normal way. A reply is counted once in the client's usage, at the
// batch price, when first handed out, and as a cache hit each time it
// is handed to another judgement than the one that asked for it; the
// judgement that asked for it (ctx's WatchPending owner) gets its usage
// each time it is run, so that the results it writes carry what it cost.
func (c *Client) fromBatch(ctx context.Context, b *Batch, key string, req Request) (r Response, ok bool, err error) {
	got, st, mine := b.take(key, req, owner(ctx), func(r Response, err error) eval.Usage {
		u := r.Usage
		u.Calls, u.BatchCalls = 1, 1
		if err == nil && u.TokensIn == 0 && u.TokensOut == 0 {
			u.TokensIn, u.TokensOut, u.Estimated = c.countIn(req), c.counter.Count(r.Content), true
		}
		u.CostUSD, u.CostUnknown = c.price(c.Name(), u.TokensIn, u.TokensOut, true)
		return u
	})
	switch st {
	case batchDirect:
		if u := got.r.Usage; u.TokensIn > 0 || u.TokensOut > 0 {
			// Billed by the batch, though no answer: paid once, at the
			// batch price, by the call sent again.
			u.Calls, u.BatchCalls = 1, 1
			u.CostUSD, u.CostUnknown = c.price(c.Name(), u.TokensIn, u.TokensOut, true)
			c.settle(0, u)
			c.emit(Event{Kind: "call", Tag: req.Tag, Usage: u, Err: ErrEmpty})
			return Response{Usage: u}, false, nil
		}
		return Response{}, false, nil
	case batchMissing:
		missed(ctx)
		return Response{}, true, ErrBatchPending
	}
	r = got.r
	if st == batchFirst {
		u := got.usage
		if got.err == nil {
			c.noteOut(req.Tag, u.TokensOut)
		}
		c.settle(0, u)
		c.emit(Event{Kind: "call", Tag: req.Tag, Usage: u, Err: got.err})
		if got.err == nil && c.cfg.Cache != nil && vet(req, &r) {
			// Kept as a sent reply is, so that no later run pays for it again.
			if err := c.cfg.Cache.Put(context.WithoutCancel(ctx), key, r); err != nil {
				c.cacheErr(req.Tag, err)
			}
		}
	}
	// A reply handed to another judgement than its owner is served to it
	// as from the cache; the owner run again is not (its results carry
	// the reply's cost), so the usage line counts what the results do.
	if !mine {
		c.mu.Lock()
		c.total = c.total.Add(cacheHit(r.Usage))
		c.mu.Unlock()
		c.emit(Event{Kind: "cache_hit", Tag: req.Tag})
	}
	if mine {
		r.Usage = got.usage
	} else {
		r.Cached = true
		r.Usage = cacheHit(r.Usage)
	}
	if got.err != nil {
		return Response{Usage: r.Usage}, true, got.err
	}
	return r, true, nil
}

// countIn is the estimated prompt tokens of req.
func (c *Client) countIn(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += c.counter.Count(m.Content) + 4
	}
	return n
}

// Batch is the client's batch (Config.Batch), nil when it sends each
// call as it is made.
func (c *Client) Batch() *Batch { return c.cfg.Batch }

// unserved takes back from the client's count the cache hit of a reply
// ChatJSON found stale (a *staleReply), which the judgement did not use.
func (c *Client) unserved(stale error) {
	sr, ok := errors.AsType[*staleReply](stale)
	if !ok {
		return
	}
	u := sr.served
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total.CacheHits = max(0, c.total.CacheHits-u.CacheHits)
	c.total.CachedTokensIn = max(0, c.total.CachedTokensIn-u.CachedTokensIn)
	c.total.CachedTokensOut = max(0, c.total.CachedTokensOut-u.CachedTokensOut)
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
	h := callHold{inTok: -1}
	var resp Response
	var st callStats
	start, until, try := c.now(), c.until(), 0
	_, err := c.cfg.Retry.do(ctx, func() error {
		// A call waiting to start, or to retry, is not sent once the
		// credentials were refused, and waits while the server is down.
		if err := c.refuse(ctx, until); err != nil {
			return err
		}
		if err := c.takeTokens(ctx, req, &h); err != nil {
			return err
		}
		sl, err := c.acquire(ctx, req.Tag)
		if err != nil {
			return err
		}
		estimate := func() float64 { return c.prices.Cost(c.Name(), h.in(c, req), c.outEstimate(req)) }
		if sl, err = c.holdBudget(ctx, c.Name(), req.Tag, estimate, sl, &h); err != nil {
			return err
		}
		resp, err = sendHeld(ctx, c, sl, until, req.Tag, try, &st, func(actx context.Context) (Response, error) {
			return c.chat(actx, req)
		})
		try++
		return err
	}, func(attempt int, err error, wait time.Duration) {
		c.emit(Event{Kind: "retry", Tag: req.Tag, Attempt: attempt, Wait: wait, Err: err})
	})
	c.gaveUp(err)
	if st.requests == 0 {
		// Refused (budget, bad key, server down), or cancelled while
		// waiting: no call was made, and what it held is given back.
		if h.reserved {
			c.settle(h.est, eval.Usage{})
		}
		if c.tpm != nil {
			c.tpm.settle(-h.tokens)
		}
		if errors.Is(err, ErrBudget) {
			c.emit(Event{Kind: "budget_stop", Tag: req.Tag, Err: err})
		}
		return Response{}, err
	}
	u := c.callUsage(req, &h, resp, st, c.now().Sub(start), err)
	resp.Usage = u
	if c.tpm != nil {
		c.tpm.settle(u.TokensIn + u.TokensOut - h.tokens)
	}
	if err == nil {
		c.noteOut(req.Tag, u.TokensOut)
	}
	c.settle(h.est, u)
	c.emit(Event{Kind: "call", Tag: req.Tag, Usage: u, Err: err})
	if err != nil {
		return Response{Usage: u}, err
	}
	return resp, nil
}

// callHold is what one call of send holds across its attempts: the
// budget's estimate and the tokens taken from the tokens-per-minute limit.
type callHold struct {
	// inTok is the prompt's token count, -1 until counted: it is counted
	// only when a budget or a tokens-per-minute limit needs the estimate
	// before the call; otherwise the server's usage is used, and counting
	// is left for replies that lack it.
	inTok int
	// est is the cost the budget holds for the call once reserved.
	est                             float64
	reserved, toldWait, tokensTaken bool
	tokens                          int // taken from the tokens-per-minute limit
}

// in returns the prompt's token count of req, counting it once.
func (h *callHold) in(c *Client, req Request) int {
	if h.inTok < 0 {
		h.inTok = c.countIn(req)
	}
	return h.inTok
}

// takeTokens takes the call's tokens from the tokens-per-minute limit
// once, before its first attempt; send settles them at its real usage
// when it ends.
func (c *Client) takeTokens(ctx context.Context, req Request, h *callHold) error {
	if h.tokensTaken || c.tpm == nil {
		return nil
	}
	h.tokensTaken, h.tokens = true, h.in(c, req)+c.outEstimate(req)
	if err := c.wait(ctx, c.tpm, h.tokens, c.holding("tpm", c.cfg.TPM, req.Tag)); err != nil {
		h.tokens = 0
		return limitErr(ctx, err)
	}
	return nil
}

// holdBudget reserves the estimate of a call of tag to model in the
// budget, once, and returns the slot the call then holds. The budget
// holds the estimate from when the call can start, not while it waits
// for a slot, so that only calls really in flight hold one; a call that
// must wait for those to settle gives its slot back meanwhile, as they
// may need it to retry.
func (c *Client) holdBudget(ctx context.Context, model, tag string, estimate func() float64, sl slot, h *callHold) (slot, error) {
	for !h.reserved {
		// Estimated now, not when the call was made: the calls that
		// settled meanwhile tell the tag's reply length.
		if c.budget.Max() > 0 {
			h.est = estimate()
		}
		settled, err := c.budget.reserve(model, c.prices.Known(model), h.est)
		if err != nil {
			c.release(sl, unused, nil, 0)
			return sl, err
		}
		if settled == nil {
			h.reserved = true
			break
		}
		c.release(sl, unused, nil, 0)
		if !h.toldWait {
			h.toldWait = true
			c.emit(Event{Kind: "budget_wait", Tag: tag})
		}
		select {
		case <-settled:
		case <-ctx.Done():
			return sl, ctx.Err()
		}
		if sl, err = c.acquire(ctx, tag); err != nil {
			return sl, err
		}
	}
	return sl, nil
}

// chat makes one request of req to the backend and refuses a reply over
// MaxReply or an empty one.
func (c *Client) chat(ctx context.Context, req Request) (Response, error) {
	r, err := c.cfg.Backend.Chat(ctx, req)
	switch {
	case err != nil:
	case len(r.Content) > MaxReply:
		err = &ReplyTooLargeError{Size: int64(len(r.Content))}
		r.Content = ""
	case r.Content == "":
		err = ErrEmpty
	}
	return r, err
}

// callUsage is the usage of a call that made requests (st), which took
// latency and ended with resp and err: the server's counts, or estimates
// where the reply lacks them, and their price.
func (c *Client) callUsage(req Request, h *callHold, resp Response, st callStats, latency time.Duration, err error) eval.Usage {
	u := resp.Usage
	u.Calls, u.Retries, u.Hedges = st.requests, st.attempts-1, st.hedges
	u.Latency = latency
	if u.TokensIn < 0 || u.TokensOut < 0 {
		// A negative count (a backend or its library that got the usage
		// wrong) is no count: taken as none, it cannot take tokens and
		// cost off a run's totals or its budget.
		u.TokensIn, u.TokensOut = 0, 0
	}
	if err == nil && u.TokensIn == 0 && u.TokensOut == 0 {
		u.TokensIn, u.TokensOut, u.Estimated = h.in(c, req), c.counter.Count(resp.Content), true
	}
	if big, ok := errors.AsType[*ReplyTooLargeError](err); ok && u.TokensOut == 0 {
		// A reply over the cap was not read whole, and it cost its
		// tokens all the same: at least those of what was read.
		u.TokensIn, u.TokensOut, u.Estimated = h.in(c, req), int(big.Size/4), true
	}
	u.CostUSD, u.CostUnknown = c.price(c.Name(), u.TokensIn, u.TokensOut, false)
	return u
}

// sendHeld makes attempt try of a call (Chat or Embed) of tag that holds
// slot sl, and releases it when it returns, with what became of the
// attempt for the adaptive limit (AdaptivePolicy). The call is refused at
// once when the credentials were refused while it waited; else send runs
// under the breaker (waiting while the server is down, until until), cut
// and hedged as the deadline policy says, and counted in st. A refusal of
// the credentials is latched, and permanent: no retry.
func sendHeld[T any](ctx context.Context, c *Client, sl slot, until time.Time, tag string, try int, st *callStats, send func(ctx context.Context) (T, error)) (T, error) {
	var v T
	if err := c.AuthErr(); err != nil {
		c.release(sl, unused, nil, 0)
		return v, permanent(err)
	}
	sent := false
	err := c.breaker.run(ctx, until, func() error {
		var err error
		sent = true
		v, err = hedged(ctx, c, tag, try, st, send)
		return err
	})
	o := unused
	if sent {
		o = attemptOutcome(ctx, err, try)
	}
	var rl *RateLimits
	if r, ok := any(v).(Response); ok && err == nil {
		rl = r.RateLimits
	}
	// A refusal of the credentials is latched before the slot is freed,
	// so that the call waiting for it is not sent.
	if isAuth(err) {
		err = permanent(c.latchAuth(err))
	}
	c.release(sl, o, rl, retryAfter(err))
	return v, err
}

// defaultOutTokens is the reply length assumed for a tag with no reply
// seen yet (capped by the request's MaxTokens): judges' JSON verdicts are
// short, and the estimate is settled at the real length.
const defaultOutTokens = 256

// outEstimate is the reply length expected for req: the mean of the
// real reply lengths of its tag so far, else defaultOutTokens, never past
// its MaxTokens.
func (c *Client) outEstimate(req Request) int {
	c.mu.Lock()
	st := c.outs[req.Tag]
	c.mu.Unlock()
	n := defaultOutTokens
	if st.n > 0 {
		n = int(math.Ceil(float64(st.sum) / float64(st.n)))
	}
	if req.MaxTokens > 0 {
		n = min(n, req.MaxTokens)
	}
	return n
}

// noteOut records the real reply length of a call of tag.
func (c *Client) noteOut(tag string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.outs[tag]
	st.n++
	st.sum += n
	c.outs[tag] = st
}

// outStats is the running sum of reply lengths of one tag.
type outStats struct{ n, sum int }

// holding returns the report of a limit that starts holding calls back
// (Event "limit_wait", Limit "rpm" or "tpm", Wait until the next opening).
func (c *Client) holding(limit string, perMinute int, tag string) func(time.Duration) {
	return func(d time.Duration) {
		c.emit(Event{Kind: "limit_wait", Tag: tag, Limit: limit, PerMinute: perMinute, Wait: d})
	}
}

// acquire takes a request from the requests-per-minute limit, then a
// slot among the calls in flight.
func (c *Client) acquire(ctx context.Context, tag string) (slot, error) {
	if c.rpm != nil {
		if err := c.wait(ctx, c.rpm, 1, c.holding("rpm", c.cfg.RPM, tag)); err != nil {
			return slot{}, limitErr(ctx, err)
		}
	}
	return c.lim.acquire(ctx)
}

// release frees the call slot that acquire took, telling the adaptive
// limit what became of its attempt (o), what the server's rate-limit
// headers said (rl, nil if nothing) and its Retry-After hint; then yields so that a
// call waiting for the slot goes out before this one's reply is handled.
// Freeing the slot makes its waiter the next goroutine to run on this P,
// but whatever this goroutine readies next (the judge waiting for the
// reply) would take that place and push the waiter to the back of the
// queue, behind the judges' work: a fan-out then loses about 0.3 ms per
// call in each slot (BENCHMARKS.md).
func (c *Client) release(sl slot, o outcome, rl *RateLimits, hint time.Duration) {
	c.lim.release(sl, o, rl, hint)
	runtime.Gosched()
}

// Limit is what the adaptive limit on calls in flight did so far.
func (c *Client) Limit() LimitReport { return c.lim.report() }

// limitErr is the error of a rate limit's wait: ctx's error when ctx
// ended, else err (a wait that would end past ctx's deadline, refused at
// once: it wraps context.DeadlineExceeded, as the wait itself would have,
// and is permanent: a later attempt would be refused the same way).
func limitErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// errLimitWait marks a call refused by our own rate limiter, which says
// nothing about whether the server is reachable.
var errLimitWait = errors.New("rate limit wait")

// settle ends a call's reservation est at its real usage u, and wakes the
// calls waiting for the budget.
func (c *Client) settle(est float64, u eval.Usage) {
	c.mu.Lock()
	c.total = c.total.Add(u)
	c.mu.Unlock()
	c.budget.settle(est, u.CostUSD)
}

// Embed returns one vector per text. Embeddings are not cached. They
// spend from the budget as chat calls do, at the embedding model's price:
// their estimate is held while in flight, and a call past the budget, or
// to an embedding model with no price under one, is refused (ErrBudget).
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error) {
	tok := 0
	for _, t := range texts {
		tok += c.counter.Count(t)
	}
	// Embeddings are priced by the embedding model, when the backend names
	// it, not by the chat model.
	name := c.Name()
	if e, ok := c.cfg.Backend.(interface{ EmbeddingName() string }); ok {
		name = e.EmbeddingName()
	}
	h := callHold{inTok: tok}
	estimate := func() float64 { return c.prices.Cost(name, tok, 0) }
	var got embedded
	var st callStats
	start, until, try := c.now(), c.until(), 0
	_, err := c.cfg.Retry.do(ctx, func() error {
		if err := c.refuse(ctx, until); err != nil {
			return err
		}
		sl, err := c.acquire(ctx, "embed")
		if err != nil {
			return err
		}
		if sl, err = c.holdBudget(ctx, name, "embed", estimate, sl, &h); err != nil {
			return err
		}
		got, err = sendHeld(ctx, c, sl, until, "embed", try, &st, func(actx context.Context) (embedded, error) {
			vecs, u, err := c.cfg.Backend.Embed(actx, texts)
			return embedded{vecs, u}, err
		})
		try++
		if errors.Is(err, ErrNoEmbeddings) {
			return permanent(err)
		}
		return err
	}, func(attempt int, err error, wait time.Duration) {
		c.emit(Event{Kind: "retry", Tag: "embed", Attempt: attempt, Wait: wait, Err: err})
	})
	c.gaveUp(err)
	if errors.Is(err, ErrNoEmbeddings) || st.requests == 0 {
		// No request was made: what the call held is given back.
		if h.reserved {
			c.settle(h.est, eval.Usage{})
		}
		if errors.Is(err, ErrBudget) {
			c.emit(Event{Kind: "budget_stop", Tag: "embed", Err: err})
		}
		return nil, eval.Usage{}, err
	}
	vecs, u := got.vecs, got.u
	u.Calls, u.Retries, u.Hedges, u.Latency = st.requests, st.attempts-1, st.hedges, c.now().Sub(start)
	if u.TokensIn <= 0 { // none counted, or a negative count, which is none
		u.TokensIn, u.Estimated = tok, true
	}
	u.CostUSD, u.CostUnknown = c.price(name, u.TokensIn, 0, false)
	c.settle(h.est, u)
	return vecs, u, err
}

// embedded is what one embedding request returned.
type embedded struct {
	vecs [][]float32
	u    eval.Usage
}

func (c *Client) emit(e Event) {
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(e)
	}
}
