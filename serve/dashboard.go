package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/dashboard"
)

// recentJudged is how many of the last trace judgements the dashboard's
// lowest and slowest samples are picked from.
const recentJudged = 1000

// dashboardSource is the dashboard's data: the monitor's metrics and
// alerts, the run store's runs (newest first) and the lowest and slowest
// of the last trace judgements, with their evidence.
func (s *Server) dashboardSource() dashboard.Source {
	return dashboard.Sources{
		Live: s.live,
		Runs: func(ctx context.Context) ([]runstore.RunRow, []error, error) {
			rows, unreadable, err := s.runStore.ListReadable(ctx)
			slices.Reverse(rows)
			return rows, unreadable, err
		},
		Judged: func(ctx context.Context) ([]dashboard.Judged, error) {
			if s.shared != nil {
				return s.shared.judged(), nil
			}
			return s.store.judged(ctx, recentJudged, dashboard.DefaultTop)
		},
		Now: s.cfg.Now,
	}
}

// judged are the top lowest scored and the top slowest of the last
// recent trace judgements, each with its sample's question and answer.
func (s *store) judged(ctx context.Context, recent, top int) ([]dashboard.Judged, error) {
	rows, err := s.db.QueryContext(ctx, `WITH recent AS (
			SELECT * FROM trace_scores ORDER BY judged DESC LIMIT ?1),
		picked AS (
			SELECT * FROM (SELECT * FROM recent WHERE outcome = 'scored' ORDER BY value, judged DESC LIMIT ?2)
			UNION
			SELECT * FROM (SELECT * FROM recent WHERE outcome != 'skipped' AND latency_ms > 0 ORDER BY latency_ms DESC, judged DESC LIMIT ?2))
		SELECT p.trace_id, p.metric, p.judged, p.outcome, p.value, p.points, p.max, p.reason, p.method, p.error, p.latency_ms, p.evidence,
			COALESCE(json_extract(t.sample, '$.query'), ''), COALESCE(json_extract(t.sample, '$.answer'), '')
		FROM picked p JOIN trace_samples t ON t.trace_id = p.trace_id`, recent, top)
	if err != nil {
		return nil, fmt.Errorf("trace scores %s: %w", s.path, err)
	}
	defer func() { _ = rows.Close() }() // read only
	var out []dashboard.Judged
	for rows.Next() {
		var j dashboard.Judged
		var judged, oc, ev string
		var latencyMS float64
		r := &j.Result
		if err := rows.Scan(&j.SampleID, &r.Metric, &judged, &oc, &r.Value, &r.Points, &r.Max, &r.Reason, &r.Method, &r.Error, &latencyMS, &ev,
			&j.Question, &j.Answer); err != nil {
			return nil, err
		}
		r.ID = j.SampleID
		r.Defaulted, r.Skipped = oc == OutcomeDefaulted, oc == OutcomeSkipped
		r.Usage.Latency = time.Duration(latencyMS * float64(time.Millisecond))
		j.At, _ = time.Parse(storeTime, judged)     // written by record
		_ = json.Unmarshal([]byte(ev), &r.Evidence) // written by record
		out = append(out, j)
	}
	return out, rows.Err()
}

// handler runs an http.Handler as a route's handler.
func handler(h http.Handler) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		h.ServeHTTP(w, r)
		return nil
	}
}
