package live

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// IntervalMethod names how a Snapshot's interval of a mean is computed.
const IntervalMethod = "percentile bootstrap 95% (stats.BootstrapMean)"

// Snapshot is the monitor's state at one moment.
type Snapshot struct {
	At   time.Time `json:"at"`
	Rule Rule      `json:"rule"`
	// Metrics are in name order.
	Metrics []MetricSnapshot `json:"metrics"`
	// Open are the open alerts, critical first, then by metric.
	Open []Alert `json:"open_alerts"`
	// Events are the most recent events, oldest first.
	Events  []Event  `json:"events"`
	Sink    Delivery `json:"sink"`
	Webhook Delivery `json:"webhook"`
	// Claims count the events asked of Config.Claim (not Enabled
	// without one).
	Claims Delivery `json:"claims"`
}

// Rule is the rule and window a monitor applies.
type Rule struct {
	WarnRatio float64       `json:"warn_ratio"`
	Critical  float64       `json:"critical"`
	Window    int           `json:"window"`
	MaxAge    time.Duration `json:"max_age_ns,omitempty"`
	MinScores int           `json:"min_scores"`
	// ClearAfter is how many observations in a row lower an open alert.
	ClearAfter int           `json:"clear_after"`
	StallAfter time.Duration `json:"stall_after_ns,omitempty"`
	// StallDefaults is 0 when that check is off.
	StallDefaults int    `json:"stall_defaults,omitempty"`
	Interval      string `json:"interval"`
}

// MetricSnapshot is one metric's state.
type MetricSnapshot struct {
	Metric string `json:"metric"`
	// N observations are in the window: Scored scored and Defaulted
	// defaulted; DefaultRate is Defaulted / N (null when N is 0).
	N           int     `json:"n"`
	Scored      int     `json:"scored"`
	Defaulted   int     `json:"defaulted"`
	DefaultRate run.Num `json:"default_rate"`
	// Mean is the mean of the window's scored values, Low and High its
	// 95% interval (IntervalMethod); null when nothing is scored.
	Mean run.Num `json:"mean"`
	Low  run.Num `json:"ci95_low"`
	High run.Num `json:"ci95_high"`
	// Baseline is the mean the rule compares with (null until known) and
	// BaselineFrom where it came from (BaselineFirstWindow, a run).
	Baseline     run.Num `json:"baseline"`
	BaselineFrom string  `json:"baseline_from,omitempty"`
	// Alert is the metric's open alert, nil when none.
	Alert *Alert `json:"alert,omitempty"`
	// Observed, TotalDefaulted and Rejected count every observation since
	// the start (Rejected: a value that was not a number in [0, 1]).
	Observed       int `json:"observed"`
	TotalDefaulted int `json:"total_defaulted"`
	Rejected       int `json:"rejected"`
	// LastObserved and LastSuccess are the times of the last observation
	// and of the last one not defaulted (zero when none).
	LastObserved time.Time `json:"last_observed,omitzero"`
	LastSuccess  time.Time `json:"last_success,omitzero"`
	// Judging is how many judgements of the metric are under way
	// (announced with Begin and not ended).
	Judging int `json:"judging"`
	// Stalled says the judge seems to have stopped answering, and
	// StallReason why.
	Stalled     bool   `json:"stalled"`
	StallReason string `json:"stall_reason,omitempty"`
	// Days is the trend: one entry per day observed, oldest first.
	Days []Day `json:"days"`
}

// Day is one day of a metric's trend.
type Day struct {
	// Day is the date, 2006-01-02, in the monitor's Location.
	Day       string `json:"day"`
	N         int    `json:"n"`
	Scored    int    `json:"scored"`
	Defaulted int    `json:"defaulted"`
	// Mean is over the day's scored values; null when none.
	Mean run.Num `json:"mean"`
}

// Alert is an open alert.
type Alert struct {
	Metric   string `json:"metric"`
	Severity string `json:"severity"`
	// Since is when the alert opened.
	Since    time.Time `json:"since"`
	Mean     run.Num   `json:"mean"`
	Baseline run.Num   `json:"baseline"`
	// Alerts are seed 002's alerts that hold now.
	Alerts []run.QualityAlert `json:"alerts"`
}

// Snapshot returns the state of every metric. Time passes in it too: the
// windows drop what is older than MaxAge, and stalls are seen (with their
// events) though no observation came. Its intervals are computed here,
// never in Observe.
func (m *Monitor) Snapshot() Snapshot {
	now := m.cfg.Now()
	m.mu.RLock()
	all := make([]*series, 0, len(m.series))
	for _, s := range m.series {
		all = append(all, s)
	}
	m.mu.RUnlock()
	slices.SortFunc(all, func(a, b *series) int { return cmp.Compare(a.name, b.name) })

	snap := Snapshot{
		At: now,
		Rule: Rule{
			WarnRatio: m.cfg.WarnRatio, Critical: m.cfg.Critical, Window: m.cfg.Window, MaxAge: m.cfg.MaxAge,
			MinScores: m.cfg.MinScores, ClearAfter: m.cfg.ClearAfter, StallAfter: m.cfg.StallAfter, StallDefaults: max(m.cfg.StallDefaults, 0),
			Interval: IntervalMethod,
		},
		Metrics: make([]MetricSnapshot, 0, len(all)),
		Open:    []Alert{},
	}
	for _, s := range all {
		ms := m.metricSnapshot(s, now)
		if ms.Alert != nil {
			snap.Open = append(snap.Open, *ms.Alert)
		}
		snap.Metrics = append(snap.Metrics, ms)
	}
	slices.SortStableFunc(snap.Open, func(a, b Alert) int {
		return cmp.Compare(slices.Index(severities[:], b.Severity), slices.Index(severities[:], a.Severity))
	})
	m.evMu.Lock()
	snap.Events = slices.Clone(m.events)
	m.evMu.Unlock()
	if snap.Events == nil {
		snap.Events = []Event{}
	}
	snap.Sink, snap.Webhook, snap.Claims = m.sink.stats(), m.hook.stats(), m.claim.stats()
	return snap
}

// metricSnapshot settles s at now and copies its state out.
func (m *Monitor) metricSnapshot(s *series, now time.Time) MetricSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.cfg.MaxAge > 0 {
		s.win.evictBefore(now.Add(-m.cfg.MaxAge))
	}
	m.settle(s, now, nil)
	mean := s.win.mean()
	ms := MetricSnapshot{
		Metric: s.name, N: s.win.n, Scored: s.win.scored, Defaulted: s.win.defaulted,
		DefaultRate: run.Num(nan), Mean: run.Num(mean),
		Baseline: run.Num(s.baseline), BaselineFrom: s.baselineFrom,
		Observed: s.observed, TotalDefaulted: s.defaulted, Rejected: s.rejected,
		LastObserved: s.lastObserved, LastSuccess: s.lastSuccess,
		Judging: s.busy, Stalled: s.stalled, StallReason: s.stallReason,
		Days: make([]Day, len(s.days)),
	}
	if s.win.n > 0 {
		ms.DefaultRate = run.Num(float64(s.win.defaulted) / float64(s.win.n))
	}
	for i, d := range s.days {
		ms.Days[i] = Day{Day: d.day, N: d.n, Scored: d.scored, Defaulted: d.defaulted, Mean: run.Num(nan)}
		if d.scored > 0 {
			ms.Days[i].Mean = run.Num(d.sum / float64(d.scored))
		}
	}
	if s.level != levelNone {
		ms.Alert = &Alert{
			Metric: s.name, Severity: severities[s.level], Since: s.alertSince,
			Mean: run.Num(mean), Baseline: run.Num(s.baseline),
			Alerts: seedAlerts(m.cfg, s.name, mean, s.baseline),
		}
		if math.IsNaN(mean) {
			ms.Alert.Alerts = []run.QualityAlert{}
		}
	}
	ms.Low, ms.High = m.interval(s)
	return ms
}

// interval is the 95% interval of s's window mean, bootstrapped again
// only when the window changed since the last time. s.mu is held.
func (m *Monitor) interval(s *series) (lo, hi run.Num) {
	if s.win.scored == 0 {
		return run.Num(nan), run.Num(nan)
	}
	if !s.ciOK || s.ciVersion != s.win.version {
		values := s.win.values()
		slices.Sort(values) // the interval then depends on the values alone
		s.lo, s.hi = stats.BootstrapMean(values, m.cfg.Reps, m.cfg.Seed)
		s.ciVersion, s.ciOK = s.win.version, true
	}
	return run.Num(s.lo), run.Num(s.hi)
}
