package live

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/assaylabs/assay/run"
)

// Alert levels, in order of severity.
const (
	levelNone = iota
	levelWarning
	levelCritical
)

var severities = [...]string{levelNone: "", levelWarning: run.SeverityWarning, levelCritical: run.SeverityCritical}

// series is one metric's state. Its fields are guarded by mu.
type series struct {
	mu   sync.Mutex
	name string
	win  window

	baseline     float64 // NaN until known
	baselineFrom string

	// lo and hi are the interval of the window's mean as of window
	// version ciVersion (ciOK when computed).
	lo, hi    float64
	ciVersion uint64
	ciOK      bool

	level      int
	alertSince time.Time
	// clearing counts the observations in a row whose verdict was under
	// level (Config.ClearAfter), the last at window version clearedAt.
	clearing  int
	clearedAt uint64

	days []dayStat // oldest first, at most Config.Days
	// dayFrom and dayTo bound the day of the last observation, whose
	// entry in days is dayAt: the next one on that day needs no
	// formatting.
	dayFrom, dayTo time.Time
	dayAt          int

	observed, defaulted, rejected int
	// since is when the metric began to be watched: the monitor's start
	// for an expected metric, its first observation otherwise.
	since, first, lastObserved, lastSuccess time.Time
	streak                                  int // observations defaulted in a row, up to now
	// busy judgements are under way (Monitor.Begin), since busySince;
	// begun once any was.
	busy        int
	busySince   time.Time
	begun       bool
	stalled     bool
	stallReason string
}

// dayStat is one day of a metric's trend.
type dayStat struct {
	day                  string // 2006-01-02 in Config.Location
	n, scored, defaulted int
	sum                  float64
}

func (s *series) observe(cfg Config, value float64, defaulted bool, at time.Time) {
	s.win.add(entry{at: at, value: value, defaulted: defaulted})
	s.observed++
	if s.first.IsZero() {
		s.first = at
	}
	if at.After(s.lastObserved) {
		s.lastObserved = at
	}
	if defaulted {
		s.defaulted++
		s.streak++
	} else {
		s.streak = 0
		if at.After(s.lastSuccess) {
			s.lastSuccess = at
		}
	}
	s.addDay(cfg, value, defaulted, at)
}

// addDay counts the observation in its day. Observations come in time
// order, mostly into the last day, which is looked at first.
func (s *series) addDay(cfg Config, value float64, defaulted bool, at time.Time) {
	if !at.Before(s.dayFrom) && at.Before(s.dayTo) && s.dayAt < len(s.days) {
		s.days[s.dayAt].count(value, defaulted)
		return
	}
	local := at.In(cfg.Location)
	day := local.Format(time.DateOnly)
	i := len(s.days) - 1
	for i >= 0 && s.days[i].day > day {
		i--
	}
	if i < 0 || s.days[i].day != day {
		if i < 0 && len(s.days) == cfg.Days {
			return // older than every day kept
		}
		s.days = append(s.days, dayStat{})
		copy(s.days[i+2:], s.days[i+1:])
		s.days[i+1] = dayStat{day: day}
		i++
		if len(s.days) > cfg.Days {
			s.days = s.days[1:]
			i--
		}
	}
	s.days[i].count(value, defaulted)
	y, mo, d := local.Date()
	s.dayFrom = time.Date(y, mo, d, 0, 0, 0, 0, cfg.Location)
	s.dayTo, s.dayAt = s.dayFrom.AddDate(0, 0, 1), i
}

func (d *dayStat) count(value float64, defaulted bool) {
	d.n++
	if defaulted {
		d.defaulted++
	} else {
		d.scored++
		d.sum += value
	}
}

// takeBaseline sets the baseline from the first full window, when the
// metric has none yet.
func (s *series) takeBaseline(cfg Config) {
	if !math.IsNaN(s.baseline) || s.win.scored < cfg.MinScores {
		return
	}
	full := s.win.n == cfg.Window || (cfg.MaxAge > 0 && !s.first.IsZero() && s.lastObserved.Sub(s.first) >= cfg.MaxAge)
	if full {
		s.baseline, s.baselineFrom = s.win.mean(), BaselineFirstWindow
	}
}

// ruleLevel is the rule's verdict on the window's mean: critical under
// the floor, else warning under the baseline's share, else none; a mean
// equal to a limit, but for floating-point noise, is not under it
// (run.Under).
func ruleLevel(cfg Config, mean, baseline float64) int {
	switch {
	case run.Under(mean, cfg.Critical):
		return levelCritical
	case run.Under(mean, cfg.WarnRatio*baseline): // false while baseline is NaN
		return levelWarning
	}
	return levelNone
}

// seedAlerts are seed 002's alerts that hold for mean: a degradation
// warning, a threshold critical, both or none, in that order.
func seedAlerts(cfg Config, metric string, mean, baseline float64) []run.QualityAlert {
	out := []run.QualityAlert{}
	if limit := cfg.WarnRatio * baseline; run.Under(mean, limit) {
		out = append(out, run.QualityAlert{
			Type: run.AlertDegradation, Severity: run.SeverityWarning,
			Message: metric + " degraded from baseline", Metric: metric,
			CurrentValue: mean, Threshold: limit,
		})
	}
	if run.Under(mean, cfg.Critical) {
		out = append(out, run.QualityAlert{
			Type: run.AlertThreshold, Severity: run.SeverityCritical,
			Message: "Average " + metric + " critically low", Metric: metric,
			CurrentValue: mean, Threshold: cfg.Critical,
		})
	}
	return out
}

// rule applies the rule to the window and returns the event of a change
// of alert state. With fewer than MinScores scored values nothing changes.
func (s *series) rule(cfg Config, now time.Time) (Event, bool) {
	if s.win.scored < cfg.MinScores {
		return Event{}, false
	}
	mean := s.win.mean()
	level := ruleLevel(cfg, mean, s.baseline)
	if !s.settled(cfg, level) {
		return Event{}, false
	}
	prev := s.level
	s.level = level
	var kind, msg string
	switch {
	case prev == levelNone:
		kind, s.alertSince = EventOpen, now
		msg = fmt.Sprintf("%s %s: recent mean %.3f", s.name, severities[level], mean)
	case level == levelNone:
		kind, s.alertSince = EventResolve, time.Time{}
		msg = fmt.Sprintf("%s recovered: recent mean %.3f", s.name, mean)
	case level > prev:
		kind = EventEscalate
		msg = fmt.Sprintf("%s escalated to critical: recent mean %.3f under %.2f", s.name, mean, cfg.Critical)
	default:
		kind = EventDeescalate
		msg = fmt.Sprintf("%s back to warning: recent mean %.3f over %.2f, under %.2f x baseline", s.name, mean, cfg.Critical, cfg.WarnRatio)
	}
	if !math.IsNaN(s.baseline) {
		msg += fmt.Sprintf(" (baseline %.3f, %s)", s.baseline, s.baselineFrom)
	}
	return Event{
		Kind: kind, Metric: s.name, Severity: severities[level], Previous: severities[prev],
		Message: msg, Mean: run.Num(mean), Baseline: run.Num(s.baseline), Scored: s.win.scored,
		Alerts: seedAlerts(cfg, s.name, mean, s.baseline), At: now,
	}, true
}

// settled reports whether the alert's level changes to level, the
// rule's verdict on the window as it is: at once when level is higher,
// once ClearAfter observations in a row have each given a lower one when
// it is lower. A verdict on a window seen already (a Snapshot's) counts
// once.
func (s *series) settled(cfg Config, level int) bool {
	switch {
	case level == s.level:
		s.clearing = 0
		return false
	case level > s.level:
		s.clearing = 0
		return true
	}
	if s.clearing == 0 || s.clearedAt != s.win.version {
		s.clearing++
		s.clearedAt = s.win.version
	}
	if s.clearing < cfg.ClearAfter {
		return false
	}
	s.clearing = 0
	return true
}

// stallState says whether the metric's judge has stopped answering, and
// why.
func (s *series) stallState(cfg Config, now time.Time) (bool, string) {
	if cfg.StallDefaults > 0 && s.streak >= cfg.StallDefaults {
		return true, fmt.Sprintf("the last %d judgements defaulted", s.streak)
	}
	if cfg.StallAfter <= 0 {
		return false, ""
	}
	ref := s.lastSuccess
	if ref.IsZero() {
		ref = s.since
	}
	if cfg.Announced {
		switch {
		case !s.begun:
			return false, ""
		case s.busy == 0:
			return s.stalled, s.stallReason // idle: as it was
		case s.busySince.After(ref):
			if waited := now.Sub(s.busySince); waited > cfg.StallAfter {
				return true, fmt.Sprintf("a judgement has waited %v for an answer", waited.Round(time.Second))
			}
			return false, ""
		}
	}
	if quiet := now.Sub(ref); quiet > cfg.StallAfter {
		switch {
		case s.observed == 0:
			return true, fmt.Sprintf("no judgement for %v", quiet.Round(time.Second))
		case s.lastSuccess.IsZero():
			return true, fmt.Sprintf("no successful judgement in %v (%d defaulted)", quiet.Round(time.Second), s.defaulted)
		}
		return true, fmt.Sprintf("no successful judgement for %v", quiet.Round(time.Second))
	}
	return false, ""
}

// stall updates the stall flag and returns the event of a change.
func (s *series) stall(cfg Config, now time.Time) (Event, bool) {
	stalled, reason := s.stallState(cfg, now)
	s.stallReason = reason
	if stalled == s.stalled {
		return Event{}, false
	}
	s.stalled = stalled
	e := Event{
		Kind: EventStalled, Metric: s.name, Message: s.name + " judge stalled: " + reason,
		Mean: run.Num(s.win.mean()), Baseline: run.Num(s.baseline), Scored: s.win.scored,
		Alerts: []run.QualityAlert{}, At: now,
	}
	if !stalled {
		e.Kind, e.Message = EventRecovered, s.name+" judge answered again"
	}
	return e, true
}
