package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm/setup"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/internal/httpjson"
	"github.com/assaylabs/assay/serve/live"
)

// newMonitor builds the live monitor of cfg: its baseline (a stored run's
// means, or each metric's first full window), its window, its stall time
// (two call timeouts unless set), its sink (the store's alert_events) and
// its webhook, and with a shared queue its claims (each event delivered by
// one replica).
func newMonitor(cfg Config, runs *runstore.Store, st *store, callTimeout time.Duration, claim live.Claimer) (*live.Monitor, error) {
	lc := live.Config{
		Claim:      claim,
		Window:     cfg.AlertWindow,
		Metrics:    cfg.TraceMetrics,
		StallAfter: cfg.StallAfter,
		Announced:  true,
		Sink:       live.SinkFunc(st.recordAlert),
		Webhook:    live.Webhook{URL: cfg.Webhook},
		// The claim reads the result's sequence: it is kept whatever the
		// sample's metadata holds besides.
		MetaFirst: []string{"trace_id", "source", MetaResultSeq},
		Now:       cfg.Now,
	}
	if lc.StallAfter == 0 {
		lc.StallAfter = 2 * cmp.Or(callTimeout, setup.DefaultConfig().CallTimeout)
	}
	// The rule needs as many scores as the window holds, at most.
	lc.MinScores = min(live.DefaultMinScores, cmp.Or(cfg.AlertWindow, live.DefaultWindow))
	if cfg.Baseline != "" {
		base, from, err := baselineOf(runs, cfg.Baseline)
		if err != nil {
			return nil, err
		}
		lc.Baseline, lc.BaselineFrom = base, from
	}
	m, err := live.New(lc)
	if err != nil {
		return nil, eval.AsInputError("", err) // it names the field
	}
	return m, nil
}

// baselineOf reads the means of the run ref names (a run folder, or a run
// id or id prefix in the run store) for the monitor's baseline.
func baselineOf(runs *runstore.Store, ref string) (map[string]float64, string, error) {
	if ref == "latest" {
		return nil, "", eval.FlagError("--baseline", "latest means the last run of a dataset, and live traffic has none: give a run id (assay runs list) or a run folder")
	}
	dir, err := runstore.ResolveBaseline(runs, ref, run.Config{})
	if err != nil {
		return nil, "", eval.AsInputError("", err) // it names --baseline
	}
	folder, err := run.ReadFolder(dir)
	if err != nil {
		return nil, "", eval.FlagError("--baseline", "%v", err)
	}
	if folder.Summary == nil {
		return nil, "", eval.FlagError("--baseline", "run %s has no %s: it did not finish; give a finished run", dir, run.FileSummary)
	}
	base := live.BaselineOf(*folder.Summary)
	if len(base) == 0 {
		return nil, "", eval.FlagError("--baseline", "run %s scored no metric (every judgement defaulted or skipped): it has no mean to compare with", dir)
	}
	from := "run " + cmp.Or(folder.Summary.RunID, folder.Config.RunID, dir)
	return base, from, nil
}

// liveObserver feeds the monitor every score the server makes, and tells
// it when a judgement begins, so that a judge that stops answering is
// seen while it keeps a judgement waiting.
type liveObserver struct{ m *live.Monitor }

var _ Starter = liveObserver{}

// Observe implements Observer. A skipped score (nothing to judge)
// measures nothing and is left out; a default counts in the default rate,
// never in the mean.
func (o liveObserver) Observe(metric string, s eval.Score, meta map[string]string, at time.Time) {
	if s.Skipped {
		return
	}
	o.m.Observe(metric, s.Value, s.Defaulted, meta, at)
}

// Begin implements Starter.
func (o liveObserver) Begin(metric string) func() { return o.m.Begin(metric) }

// recordAlert is the monitor's sink: it writes an event to alert_events.
// It runs on the monitor's goroutine, never on a request's path.
func (s *store) recordAlert(ctx context.Context, e live.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("alert event: %w", err)
	}
	err = s.exec(ctx, `INSERT INTO alert_events (at, kind, metric, severity, message, event) VALUES (?, ?, ?, ?, ?, ?)`,
		e.At.UTC().Format(storeTime), e.Kind, e.Metric, e.Severity, e.Message, string(b))
	if err != nil {
		return fmt.Errorf("alert events %s: %w", s.path, err)
	}
	return nil
}

// alertEvents are the last n events stored, newest first.
func (s *store) alertEvents(ctx context.Context, n int) ([]live.Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT event FROM alert_events ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	out := []live.Event{}
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		var e live.Event
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			return nil, fmt.Errorf("alert event: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// AlertsResponse is the answer of GET /v1/alerts.
type AlertsResponse struct {
	// Open are the open alerts, critical first.
	Open []live.Alert `json:"open"`
	// Events are the last events stored (alerts opened, escalated,
	// resolved; judges stalled, recovered), newest first.
	Events []live.Event `json:"events"`
	// Stalled are the metrics whose judge seems to have stopped
	// answering.
	Stalled []string `json:"stalled"`
	// Store and Webhook count what became of the events sent to each;
	// Claims, with a shared queue, the events this replica claimed
	// (delivered) and those another claimed (elsewhere).
	Store   live.Delivery `json:"store"`
	Webhook live.Delivery `json:"webhook"`
	Claims  live.Delivery `json:"claims"`
}

// Limits of GET /v1/alerts?limit=N.
const (
	defaultAlertEvents = 50
	maxAlertEvents     = 1000
)

// getAlerts is GET /v1/alerts.
func (s *Server) getAlerts(w http.ResponseWriter, r *http.Request) error {
	n := defaultAlertEvents
	if v := r.URL.Query().Get("limit"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > maxAlertEvents {
			return badRequest("limit", "limit: want a number of events from 1 to %d, got %s", maxAlertEvents, httpjson.Echo(v))
		}
	}
	snap := s.live.Snapshot()
	events, err := s.store.alertEvents(r.Context(), n)
	if err != nil {
		return err
	}
	resp := AlertsResponse{Open: snap.Open, Events: events, Stalled: []string{}, Store: snap.Sink, Webhook: snap.Webhook, Claims: snap.Claims}
	for _, m := range snap.Metrics {
		if m.Stalled {
			resp.Stalled = append(resp.Stalled, m.Metric)
		}
	}
	httpjson.Write(w, http.StatusOK, resp)
	return nil
}

// liveCollector exposes the monitor's state in /metrics, read from a
// snapshot when scraped: never on a request's path.
type liveCollector struct {
	m                                              *live.Monitor
	severity, mean, baseline, defaultRate, stalled *prometheus.Desc
	judging, deliveries, queued                    *prometheus.Desc
}

func newLiveCollector(m *live.Monitor) *liveCollector {
	metric := []string{"metric"}
	return &liveCollector{
		m: m,
		severity: prometheus.NewDesc("assay_alert_severity",
			"The metric's open alert: 0 none, 1 warning (recent mean under 0.85 x baseline), 2 critical (under 0.4).", metric, nil),
		mean: prometheus.NewDesc("assay_live_mean",
			"Mean of the metric's recent scores (its alert window, defaults left out); absent while none is scored.", metric, nil),
		baseline: prometheus.NewDesc("assay_live_baseline",
			"The mean the metric's recent mean is compared with (a stored run's, or its first full window); absent until known.", metric, nil),
		defaultRate: prometheus.NewDesc("assay_live_default_rate",
			"Share of the metric's recent judgements that fell back to the neutral default; absent while there are none.", metric, nil),
		stalled: prometheus.NewDesc("assay_judge_stalled",
			"1 when the metric's judge seems to have stopped answering (a judgement waiting, or none successful, for the stall time; or the last defaults in a row), else 0.", metric, nil),
		judging: prometheus.NewDesc("assay_live_judging",
			"Judgements of the metric under way.", metric, nil),
		deliveries: prometheus.NewDesc("assay_alert_deliveries_total",
			"Alert events sent to each target (store, webhook; claim, with a shared queue), by outcome: delivered (claimed by this replica, for claim), elsewhere (claimed by another replica), failed (retries spent or refused), dropped (pushed out of a full queue), abandoned (at shutdown).", []string{"target", "outcome"}, nil),
		queued: prometheus.NewDesc("assay_alert_queued",
			"Alert events waiting to be delivered, by target.", []string{"target"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *liveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.severity, c.mean, c.baseline, c.defaultRate, c.stalled, c.judging, c.deliveries, c.queued} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *liveCollector) Collect(ch chan<- prometheus.Metric) {
	snap := c.m.Snapshot()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		if !math.IsNaN(v) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
		}
	}
	for _, m := range snap.Metrics {
		sev := 0.0
		if m.Alert != nil {
			sev = map[string]float64{run.SeverityWarning: 1, run.SeverityCritical: 2}[m.Alert.Severity]
		}
		gauge(c.severity, sev, m.Metric)
		gauge(c.mean, float64(m.Mean), m.Metric)
		gauge(c.baseline, float64(m.Baseline), m.Metric)
		gauge(c.defaultRate, float64(m.DefaultRate), m.Metric)
		gauge(c.stalled, map[bool]float64{false: 0, true: 1}[m.Stalled], m.Metric)
		gauge(c.judging, float64(m.Judging), m.Metric)
	}
	for target, d := range map[string]live.Delivery{"store": snap.Sink, "webhook": snap.Webhook, "claim": snap.Claims} {
		if !d.Enabled {
			continue
		}
		outcomes := map[string]int64{"delivered": d.Delivered, "failed": d.Failed, "dropped": d.Dropped, "abandoned": d.Abandoned}
		if target == "claim" {
			outcomes["elsewhere"] = d.Elsewhere
		}
		for outcome, n := range outcomes {
			ch <- prometheus.MustNewConstMetric(c.deliveries, prometheus.CounterValue, float64(n), target, outcome)
		}
		ch <- prometheus.MustNewConstMetric(c.queued, prometheus.GaugeValue, float64(d.Queued), target)
	}
}
