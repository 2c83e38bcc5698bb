package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

var nan = math.NaN()

// Defaults of Config's zero values.
const (
	DefaultWindow        = 100
	DefaultMinScores     = 10
	DefaultStallDefaults = 5
	DefaultDays          = 30
	DefaultEvents        = 50
	DefaultQueue         = 256
	DefaultReps          = 1000
)

// MaxWindow is the most observations Config.Window may hold: the window
// of every metric is allocated whole on its first observation, and its
// mean's interval is bootstrapped from all of it.
const MaxWindow = 10_000

// BaselineFirstWindow is the BaselineFrom of a metric whose baseline is
// the mean of its first full window.
const BaselineFirstWindow = "first window"

// Config sets up a Monitor. Its zero value watches a window of the last
// DefaultWindow observations per metric with seed 002's numbers, against
// each metric's first full window.
type Config struct {
	// Window is how many recent observations of a metric (defaulted ones
	// too) its window holds; 0 means DefaultWindow.
	Window int
	// MaxAge, when above 0, also evicts observations older than MaxAge
	// (by the time given to Observe, against Now).
	MaxAge time.Duration
	// MinScores is how many scored (not defaulted) values the window must
	// hold for the rule to be applied; with fewer an alert keeps its
	// state. 0 means DefaultMinScores.
	MinScores int
	// ClearAfter is how many observations in a row must each leave the
	// rule's verdict under an open alert's level before the alert is
	// lowered (resolved, or critical back to warning); an alert is
	// opened or raised at once. A mean that hovers at a limit, over it
	// with one score and under it with the next, then opens one alert,
	// not an open and a resolve for every score. 0 means MinScores; 1
	// lowers at once.
	ClearAfter int
	// WarnRatio and Critical are the rule's numbers: warning under
	// WarnRatio x the baseline mean, critical under Critical. 0 means
	// seed 002's, bench.DegradationRatio (0.85) and bench.CriticalQuality
	// (0.4).
	WarnRatio, Critical float64
	// Baseline maps a metric to its baseline mean (BaselineOf gives a
	// stored run's). A metric without one takes the mean of its first
	// full window: the first time the window holds Window observations
	// (or, with MaxAge, MaxAge after the metric's first observation) and
	// at least MinScores of them scored.
	Baseline map[string]float64
	// BaselineFrom says where Baseline came from ("run 20260105-1200-ab"),
	// for snapshots and events.
	BaselineFrom string
	// Metrics are metrics expected to be observed besides Baseline's:
	// listed in every Snapshot from the start, so that a judge that never
	// answers is seen stalled.
	Metrics []string
	// StallAfter: a metric with no successful (not defaulted) observation
	// for longer than this is stalled (counted from the monitor's start
	// for an expected metric, from its first observation otherwise).
	// 0 turns this check off.
	StallAfter time.Duration
	// Announced says the caller announces each judgement with Begin.
	// StallAfter then counts only while a judgement of the metric is under
	// way, from its beginning or the last success, whichever is later: an
	// idle metric is not a stalled one, a stalled metric with nothing
	// under way stays stalled until its judge answers, and a metric never
	// begun (a score no model makes) never stalls by time.
	Announced bool
	// StallDefaults: a metric whose last StallDefaults observations all
	// defaulted is stalled. 0 means DefaultStallDefaults; below 0 turns
	// this check off.
	StallDefaults int
	// Days is how many days of trend a metric keeps; 0 means DefaultDays.
	// Location is the days' time zone; nil means UTC.
	Days     int
	Location *time.Location
	// Events is how many recent events a Snapshot lists; 0 means
	// DefaultEvents.
	Events int
	// Reps and Seed set the bootstrap of the mean's interval; 0 Reps
	// means DefaultReps.
	Reps int
	Seed uint64
	// Sink, when not nil, receives every event, from a queue of SinkQueue
	// events (0 means DefaultQueue).
	Sink      Sink
	SinkQueue int
	// Webhook, when its URL is set, is posted every event.
	Webhook Webhook
	// Claim, when not nil, is asked of each event, from a queue of
	// SinkQueue events, before it goes to the sink and the webhook, which
	// get only the events it says are this monitor's (Claimer).
	Claim Claimer
	// MetaFirst are the keys of an observation's metadata an event keeps
	// before any other (MaxMetaKeys): those a Claimer reads, say. nil
	// means trace_id, then source.
	MetaFirst []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// BaselineOf returns the means of the metrics a run scored, from its
// summary (a stored run's RunRow.Summary), for Config.Baseline.
func BaselineOf(s run.Summary) map[string]float64 {
	out := map[string]float64{}
	for _, m := range s.Metrics {
		if v := float64(m.Mean); m.Scored > 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[m.Metric] = v
		}
	}
	return out
}

// withDefaults checks c and fills in its zero values.
func (c Config) withDefaults() (Config, error) {
	if err := c.check(); err != nil {
		return c, err
	}
	return c.filled(), nil
}

// check reports every field of c out of its range, joined.
func (c Config) check() error {
	var errs []error
	bad := func(field string, v any, want string) {
		errs = append(errs, fmt.Errorf("live: %s %v: %s", field, v, want))
	}
	if c.Window < 0 {
		bad("Window", c.Window, "must be 0 (the default) or more")
	}
	if c.Window > MaxWindow {
		bad("Window", c.Window, fmt.Sprintf("must be at most %d", MaxWindow))
	}
	if c.MaxAge < 0 {
		bad("MaxAge", c.MaxAge, "must be 0 (none) or more")
	}
	if c.MinScores < 0 {
		bad("MinScores", c.MinScores, "must be 0 (the default) or more")
	}
	if c.ClearAfter < 0 {
		bad("ClearAfter", c.ClearAfter, "must be 0 (MinScores) or more")
	}
	if !(c.WarnRatio >= 0 && c.WarnRatio <= 1) {
		bad("WarnRatio", c.WarnRatio, "must be in [0, 1]")
	}
	if !(c.Critical >= 0 && c.Critical <= 1) {
		bad("Critical", c.Critical, "must be in [0, 1]")
	}
	for m, v := range c.Baseline {
		if !(v >= 0 && v <= 1) {
			bad("Baseline["+m+"]", v, "must be a mean in [0, 1]")
		}
	}
	if c.StallAfter < 0 {
		bad("StallAfter", c.StallAfter, "must be 0 (off) or more")
	}
	if c.Days < 0 || c.Events < 0 || c.Reps < 0 || c.SinkQueue < 0 || c.Webhook.Queue < 0 {
		errs = append(errs, errors.New("live: Days, Events, Reps, SinkQueue and Webhook.Queue must be 0 (the default) or more"))
	}
	if c.Webhook.URL != "" {
		if u, err := url.Parse(c.Webhook.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("Webhook.URL", c.Webhook.URL, "must be an http or https URL")
		}
	}
	return errors.Join(errs...)
}

// filled returns c with its zero values set to their defaults.
func (c Config) filled() Config {
	def := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	def(&c.Window, DefaultWindow)
	def(&c.MinScores, DefaultMinScores)
	def(&c.ClearAfter, c.MinScores)
	def(&c.StallDefaults, DefaultStallDefaults)
	def(&c.Days, DefaultDays)
	def(&c.Events, DefaultEvents)
	def(&c.Reps, DefaultReps)
	def(&c.SinkQueue, DefaultQueue)
	def(&c.Webhook.Queue, DefaultQueue)
	if c.WarnRatio == 0 {
		c.WarnRatio = run.DegradationRatio
	}
	if c.Critical == 0 {
		c.Critical = run.CriticalQuality
	}
	if c.MetaFirst == nil {
		c.MetaFirst = []string{"trace_id", "source"}
	}
	if c.Location == nil {
		c.Location = time.UTC
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Monitor watches judged scores per metric. Build one with New: the zero
// value is not ready. It is safe for concurrent use. Close it when done.
type Monitor struct {
	cfg     Config
	started time.Time

	mu     sync.RWMutex
	series map[string]*series

	evMu   sync.Mutex
	events []Event // the last cfg.Events, oldest first

	sink, hook *outbox
	// claim, with Config.Claim, takes every event first and hands the
	// monitor's own to sink and hook.
	claim *outbox
}

// New starts a Monitor: the goroutines of its sink and webhook, when it
// has them. The error names a Config field that is out of range.
func New(cfg Config) (*Monitor, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Monitor{cfg: cfg, started: cfg.Now(), series: map[string]*series{}}
	for name := range cfg.Baseline {
		m.series[name] = m.newSeries(name, m.started)
	}
	for _, name := range cfg.Metrics {
		if m.series[name] == nil {
			m.series[name] = m.newSeries(name, m.started)
		}
	}
	if cfg.Sink != nil {
		sink := cfg.Sink
		m.sink = newOutbox(cfg.SinkQueue, func(ctx context.Context, e Event) (int, error) {
			return 0, sink.Alert(ctx, e)
		})
	}
	if cfg.Webhook.URL != "" {
		m.hook = newOutbox(cfg.Webhook.Queue, cfg.Webhook.poster())
	}
	if cfg.Claim != nil {
		claim := cfg.Claim
		m.claim = newOutbox(cfg.SinkQueue, func(ctx context.Context, e Event) (int, error) {
			mine, err := claim.Claim(ctx, e)
			if err != nil {
				return 0, err
			}
			if !mine {
				return 0, errElsewhere
			}
			m.deliver(e)
			return 0, nil
		})
	}
	return m, nil
}

func (m *Monitor) newSeries(name string, since time.Time) *series {
	s := &series{name: name, win: newWindow(m.cfg.Window), baseline: nan, since: since}
	if b, ok := m.cfg.Baseline[name]; ok {
		s.baseline, s.baselineFrom = b, m.cfg.BaselineFrom
		if s.baselineFrom == "" {
			s.baselineFrom = "given"
		}
	}
	return s
}

// Observe records one judged score of metric: its value in [0, 1],
// whether the judge defaulted (a default counts in the default rate, never
// in the mean), the observation's metadata (kept on the events it causes;
// not retained otherwise) and when it was judged (the zero time means
// now). A value that is not a number in [0, 1] is counted as rejected
// and otherwise ignored. Observe applies the rule and emits the events
// that follow; it never waits on the sink or the webhook.
func (m *Monitor) Observe(metric string, value float64, defaulted bool, meta map[string]string, at time.Time) {
	now := m.cfg.Now()
	if at.IsZero() {
		at = now
	}
	s := m.get(metric, at)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !defaulted && !(value >= 0 && value <= 1) {
		s.rejected++
		return
	}
	s.observe(m.cfg, value, defaulted, at)
	if m.cfg.MaxAge > 0 {
		s.win.evictBefore(now.Add(-m.cfg.MaxAge))
	}
	m.settle(s, now, meta)
}

// get returns metric's series, making it on first sight.
func (m *Monitor) get(metric string, at time.Time) *series {
	m.mu.RLock()
	s := m.series[metric]
	m.mu.RUnlock()
	if s != nil {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s = m.series[metric]; s == nil {
		s = m.newSeries(metric, at)
		m.series[metric] = s
	}
	return s
}

// Begin announces that a judgement of metric is under way (see
// Config.Announced); call end once it is over, after its Observe if it
// made a score. end may be called more than once. It does no I/O.
func (m *Monitor) Begin(metric string) (end func()) {
	now := m.cfg.Now()
	s := m.get(metric, now)
	s.mu.Lock()
	if s.busy == 0 {
		s.busySince = now
	}
	s.busy++
	s.begun = true
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.busy--
			s.mu.Unlock()
		})
	}
}

// Bounds of the metadata an event keeps: the observation's metadata is
// a request's (a trace's sample metadata, up to the request's size), and
// an event is kept among the recent ones, queued for the sink and the
// webhook, stored and posted.
const (
	// MaxMetaKeys is the most keys an event's Meta keeps: those of
	// Config.MetaFirst first, then the others in name order. MetaOmitted
	// then says how many were left out.
	MaxMetaKeys = 16
	// MaxMetaKey and MaxMetaValue bound each key and value in bytes
	// (eval.Clip marks a cut).
	MaxMetaKey   = 64
	MaxMetaValue = 256
)

// MetaOmitted is the key of an event's Meta that counts the keys left out
// past MaxMetaKeys.
const MetaOmitted = "assay.meta_omitted"

// boundedMeta is meta within MaxMetaKeys, MaxMetaKey and MaxMetaValue,
// the keys of first kept first: meta itself when it is, else a copy.
func boundedMeta(meta map[string]string, first []string) map[string]string {
	small := len(meta) <= MaxMetaKeys
	for k, v := range meta {
		small = small && len(k) <= MaxMetaKey && len(v) <= MaxMetaValue
	}
	if small {
		return meta
	}
	rank := func(k string) int {
		if i := slices.Index(first, k); i >= 0 {
			return i
		}
		return len(first)
	}
	keys := slices.SortedFunc(maps.Keys(meta), func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
	})
	out := make(map[string]string, min(len(keys), MaxMetaKeys)+1)
	for _, k := range keys[:min(len(keys), MaxMetaKeys)] {
		out[eval.Clip(k, MaxMetaKey)] = eval.Clip(meta[k], MaxMetaValue)
	}
	if len(keys) > MaxMetaKeys {
		out[MetaOmitted] = strconv.Itoa(len(keys) - MaxMetaKeys)
	}
	return out
}

// settle brings s's baseline, alert and stall state up to date and emits
// the events of what changed. s.mu is held.
func (m *Monitor) settle(s *series, now time.Time, meta map[string]string) {
	s.takeBaseline(m.cfg)
	if e, ok := s.rule(m.cfg, now); ok {
		e.Meta = boundedMeta(meta, m.cfg.MetaFirst)
		m.emit(e)
	}
	if e, ok := s.stall(m.cfg, now); ok {
		e.Meta = boundedMeta(meta, m.cfg.MetaFirst)
		m.emit(e)
	}
}

// emit keeps e among the recent events and queues it for the sink and the
// webhook (for the claim first, with Config.Claim).
func (m *Monitor) emit(e Event) {
	m.evMu.Lock()
	if len(m.events) == m.cfg.Events {
		m.events = slices.Delete(m.events, 0, 1)
	}
	m.events = append(m.events, e)
	m.evMu.Unlock()
	if m.claim != nil {
		m.claim.push(e)
		return
	}
	m.deliver(e)
}

// deliver queues e for the sink and the webhook.
func (m *Monitor) deliver(e Event) {
	if m.sink != nil {
		m.sink.push(e)
	}
	if m.hook != nil {
		m.hook.push(e)
	}
}

// Flush waits until every queued event has been delivered to the sink and
// the webhook (or given up on), or ctx ends: call it before Close for a
// shutdown that loses no alert.
func (m *Monitor) Flush(ctx context.Context) error {
	for _, o := range []*outbox{m.claim, m.sink, m.hook} { // the claims queue the others' events
		if o == nil {
			continue
		}
		if err := o.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the sink's and the webhook's goroutines, cancelling a post
// in flight; events still queued are counted as abandoned. Observe and
// Snapshot still work after Close, but their events go nowhere. It always
// returns nil.
func (m *Monitor) Close() error {
	for _, o := range []*outbox{m.claim, m.sink, m.hook} {
		if o != nil {
			o.close()
		}
	}
	return nil
}
