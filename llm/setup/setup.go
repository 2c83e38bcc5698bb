// Package setup builds the model client the assay command builds, from a
// Config (the command line's model flags) and the environment, in one
// call: the backend (see llm/backend), the price table, the token counter,
// the limits, the retry policy, the response cache and the notices a user
// must see while a run goes on.
//
//	cfg := setup.DefaultConfig()
//	cfg.Spec = "openai:gpt-4o-mini"
//	client, closer, err := setup.Open(cfg, os.Getenv)
//	if err != nil { ... }
//	defer closer.Close()
package setup

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/backend"
	"github.com/assaylabs/assay/telemetry"
)

// Config says how to build the client. Each field is one of the command
// line's flags, named in its comment; errors name the flag too. Start from
// DefaultConfig: the zero value's Concurrency and timeouts are refused.
type Config struct {
	// Spec is the backend as backend:model (--llm); empty reads
	// $ASSAY_LLM, else openai:gpt-4o-mini when $OPENAI_API_KEY is set, else
	// offline. See llm/backend.
	Spec string
	// NoCache leaves the response cache off (--no-cache; a dry run too).
	// The offline backend never has one.
	NoCache bool
	// CachePath is the cache file; empty is $ASSAY_CACHE_DIR/llm-cache.db
	// when that is set, else llm.DefaultCachePath.
	CachePath string
	// Concurrency is the number of model calls in flight at most, at
	// least 1 (--concurrency).
	Concurrency int
	// RPM and TPM limit requests and tokens per minute; 0 is no limit
	// (--rpm, --tpm).
	RPM, TPM int
	// MaxCostUSD stops starting calls once spending would pass it; 0 is no
	// limit (--max-cost). The model must then have a price.
	MaxCostUSD float64
	// Budget, when set, is a budget the client shares with another (a
	// fact checker's with its judging model's), in place of one of its
	// own of MaxCostUSD: --max-cost bounds what both spend.
	Budget *llm.Budget
	// PricesFile is a YAML file of prices per million tokens over the
	// built-in table (--prices); empty is the built-in table alone.
	PricesFile string
	// MaxRetryTime bounds the retries of one call (--max-retry-time), and
	// CallTimeout one attempt (--call-timeout); both must be positive.
	MaxRetryTime, CallTimeout time.Duration
	// Batch sends the chat calls through the backend's batch endpoint
	// (--batch; llm.Batch), polled as BatchPolicy says: the backend must
	// have one (llm.BatchAPI: an OpenAI-compatible server), and the
	// caller runs the batches' rounds.
	Batch       bool
	BatchPolicy llm.BatchPolicy
	// Notices receives, a line each, what the client reports that the
	// user must know while a run goes on: a rate limit that starts
	// holding calls back, the first cache error, a corrupt cache set
	// aside, a cache that could not be opened, a model called with no
	// price (its cost is unknown). Nil discards them.
	Notices io.Writer
}

// DefaultConfig is the command line's defaults: the backend from the
// environment, the cache on, 8 calls in flight, no limits, the built-in
// prices, two minutes of retries and one minute an attempt.
func DefaultConfig() Config {
	return Config{Concurrency: 8, MaxRetryTime: 2 * time.Minute, CallTimeout: time.Minute}
}

// MaxConcurrency is the most model calls in flight one client allows
// (--concurrency): a run sizes its queues of work to it, so a figure far
// past any model server's capacity would only take the machine's memory.
const MaxConcurrency = 4096

// Check checks the settings Open checks before it builds anything: the
// calls in flight and the limits (checkLimits), the first one out of
// range named by its flag. A run that opens no client (its values were
// judged already) checks them too, so that a value out of range is
// refused, not ignored.
func (cfg Config) Check() error {
	if cfg.Concurrency < 1 || cfg.Concurrency > MaxConcurrency {
		return fmt.Errorf("--concurrency: want 1 to %d calls in flight, got %d", MaxConcurrency, cfg.Concurrency)
	}
	if cfg.Budget != nil {
		cfg.MaxCostUSD = cfg.Budget.Max()
	}
	return cfg.checkLimits()
}

// checkLimits names the first limit of cfg that cannot work, with the
// value given: a budget that is negative or not a finite number (NaN
// would compare false with every spending and stop nothing), a negative
// rate, a call or retry time that is not positive.
func (cfg Config) checkLimits() error {
	switch {
	case !(cfg.MaxCostUSD >= 0) || math.IsInf(cfg.MaxCostUSD, 0): // NaN too
		return fmt.Errorf("--max-cost: want US dollars, 0 or more (0: no limit), got %g", cfg.MaxCostUSD)
	case cfg.RPM < 0:
		return fmt.Errorf("--rpm: must not be negative (0: no limit), got %d", cfg.RPM)
	case cfg.TPM < 0:
		return fmt.Errorf("--tpm: must not be negative (0: no limit), got %d", cfg.TPM)
	case cfg.CallTimeout <= 0:
		return fmt.Errorf("--call-timeout: must be positive, got %v", cfg.CallTimeout)
	case cfg.MaxRetryTime <= 0:
		return fmt.Errorf("--max-retry-time: must be positive, got %v", cfg.MaxRetryTime)
	}
	return nil
}

// Open builds the backend cfg names, reading keys and URLs from env
// (usually os.Getenv), and wraps it in a Client with the limits, prices
// and cache. The Closer closes the client's idle connections and the
// cache. An error says which setting is wrong; a cache that cannot be
// opened is not one (the client goes on without it and Notices says so).
func Open(cfg Config, env func(string) string) (*llm.Client, io.Closer, error) {
	if err := cfg.Check(); err != nil {
		return nil, nil, err
	}
	if cfg.Budget != nil {
		cfg.MaxCostUSD = cfg.Budget.Max()
	}
	b, err := backend.Open(cfg.Spec, env)
	if err != nil {
		return nil, nil, fmt.Errorf("--llm: %w", err)
	}
	var batch *llm.Batch
	if cfg.Batch {
		api, ok := b.(llm.BatchAPI)
		if !ok {
			return nil, nil, fmt.Errorf("--batch: %s has no batch endpoint; batches go to an OpenAI-compatible server (--llm openai:MODEL, $OPENAI_BASE_URL)", b.Name())
		}
		batch = llm.NewBatch(api, cfg.BatchPolicy)
	}
	b = telemetry.Backend(b) // a span per request, a no-op while tracing is off
	lc := llm.Config{
		Backend: b, Concurrency: cfg.Concurrency, RPM: cfg.RPM, TPM: cfg.TPM, MaxCostUSD: cfg.MaxCostUSD, Budget: cfg.Budget,
		Counter:     llm.TokenizerFor(backend.ModelName(b.Name())),
		Retry:       llm.RetryPolicy{MaxElapsed: cfg.MaxRetryTime},
		CallTimeout: cfg.CallTimeout,
		Batch:       batch,
	}
	if cfg.PricesFile != "" {
		if lc.Prices, err = llm.LoadPrices(cfg.PricesFile); err != nil {
			return nil, nil, fmt.Errorf("--prices: %w", err)
		}
	}
	prices := lc.Prices
	if prices == nil {
		prices = llm.DefaultPrices()
	}
	offline := llm.IsOffline(b)
	if cfg.MaxCostUSD > 0 && !offline && !prices.Known(b.Name()) {
		m := backend.ModelName(b.Name())
		return nil, nil, fmt.Errorf("--max-cost: model %s is not in the price table, so its spending cannot be counted; give --prices FILE with its price per million tokens ({%s: {in: 0.15, out: 0.6}})", m, m)
	}
	n := &notices{w: cfg.Notices}
	if n.w == nil {
		n.w = io.Discard
	}
	var cache *llm.SQLiteCache
	if !cfg.NoCache && !offline {
		cache = openCache(cfg.CachePath, cfg.Concurrency, env, n)
		if cache != nil {
			lc.Cache = cache
		}
	}
	lc.OnEvent = n.event
	c := llm.New(lc)
	return c, closer{c, cache}, nil
}

// openCache opens the response cache at path, or where env says, with a
// connection for each of conns calls in flight; nil when it cannot, said
// on n.
func openCache(path string, conns int, env func(string) string, n *notices) *llm.SQLiteCache {
	var err error
	if path == "" {
		path, err = llm.DefaultCachePath()
		if dir := env("ASSAY_CACHE_DIR"); dir != "" {
			path, err = filepath.Join(dir, "llm-cache.db"), nil
		}
	}
	var c *llm.SQLiteCache
	if err == nil {
		c, err = llm.OpenCache(path, conns)
	}
	if err != nil {
		n.printf("response cache off: %v", err)
		return nil
	}
	if aside := c.SetAside(); aside != nil {
		n.printf("%v", aside)
	}
	return c
}

// closer closes the client, then the cache.
type closer struct {
	c     *llm.Client
	cache *llm.SQLiteCache
}

func (c closer) Close() error {
	err := c.c.Close()
	if c.cache != nil {
		err = errors.Join(err, c.cache.Close())
	}
	return err
}

// notices says what the model client reports that the user must know
// while the run goes on: a rate limit that starts holding calls back, the
// first cache error (the rest are counted in the usage), a corrupt cache
// set aside, and a model called with no price. It is safe for concurrent use.
type notices struct {
	mu         sync.Mutex
	w          io.Writer
	cacheError bool
}

// printf says one notice, one line: what its arguments bring (a model
// named by a flag, an error naming a path) is shown escaped
// (termtext.Visible), never obeyed by the terminal.
func (n *notices) printf(format string, args ...any) {
	fmt.Fprintln(n.w, "assay: "+termtext.Visible(fmt.Sprintf(format, args...)))
}

func (n *notices) event(e llm.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case e.Kind == "limit_wait":
		// Once a spell of waits: the client reports the first wait only.
		next := e.Wait.Round(time.Second)
		if e.Wait < time.Second {
			next = e.Wait.Round(time.Millisecond)
		}
		n.printf("--%s %d is holding calls back (next in %v)", e.Limit, e.PerMinute, next)
	case e.Kind == "unpriced":
		// Once a model: the client reports its first call only.
		n.printf("model %s is not in the price table, so the cost of its calls is unknown; give --prices FILE with its price per million tokens ({%s: {in: 0.15, out: 0.6}})", e.Model, e.Model)
	case e.Kind != "cache_error":
	case errors.As(e.Err, new(*llm.CacheCorruptError)):
		n.printf("%v", e.Err)
	case n.cacheError:
	case errors.Is(e.Err, llm.ErrStaleReply):
		n.cacheError = true
		n.printf("response cache: %v (later cache errors are counted in the summary)", e.Err)
	default:
		n.cacheError = true
		n.printf("response cache: %v (the calls go on without it; later cache errors are counted in the summary)", e.Err)
	}
}
