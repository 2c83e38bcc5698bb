package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/sqlitedb"
	"github.com/assaylabs/assay/serve/annotate"
)

// store is the server's SQLite file (serve.db in its data folder): the
// trace journal (trace_samples, written before a trace is answered 202),
// the traces' scores (trace_scores, one row per trace and metric, written
// once: the key makes a second write of a pair a no-op, with its
// evidence), the runs the server started (serve_runs), the live
// alerts' events (alert_events, written by the monitor's sink, never on
// a request's path) and the annotation queue's labels (labels, one per
// queue, metric and item, with who gave it and when; a new label of an
// item replaces its last). Every commit is synced to disk.
//
// This process writes through one writer at a time (write): its writers
// queue in Go, in order, instead of polling SQLite's file lock against
// each other, where under load the unlucky ones outwaited the busy
// timeout and answered 500 ("database is locked"). The busy timeout is
// left for other processes. A write that had to queue is counted
// (assay_store_write_waits_total).
type store struct {
	path string
	db   *sql.DB
	// writer holds the one write slot: a write sends to take it and
	// receives to give it back.
	writer chan struct{}
	waits  atomic.Int64
}

const storeSchema = `CREATE TABLE IF NOT EXISTS trace_samples (
	trace_id TEXT PRIMARY KEY,
	received TEXT NOT NULL,
	day      TEXT NOT NULL,
	metrics  JSON NOT NULL,
	sample   JSON NOT NULL,
	metadata JSON NOT NULL,
	done     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS trace_samples_pending ON trace_samples (done, received);
CREATE TABLE IF NOT EXISTS trace_scores (
	trace_id   TEXT NOT NULL,
	metric     TEXT NOT NULL,
	day        TEXT NOT NULL,
	judged     TEXT NOT NULL,
	outcome    TEXT NOT NULL,
	value      REAL NOT NULL,
	points     REAL NOT NULL,
	max        REAL NOT NULL,
	reason     TEXT NOT NULL,
	method     TEXT NOT NULL,
	error      TEXT NOT NULL,
	cost_usd   REAL NOT NULL,
	latency_ms REAL NOT NULL,
	metadata   JSON NOT NULL,
	evidence   JSON NOT NULL DEFAULT '{}',
	PRIMARY KEY (trace_id, metric)
);
CREATE INDEX IF NOT EXISTS trace_scores_by_day ON trace_scores (day, metric);
CREATE TABLE IF NOT EXISTS alert_events (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	at       TEXT NOT NULL,
	kind     TEXT NOT NULL,
	metric   TEXT NOT NULL,
	severity TEXT NOT NULL,
	message  TEXT NOT NULL,
	event    JSON NOT NULL
);
CREATE TABLE IF NOT EXISTS serve_runs (
	id       TEXT PRIMARY KEY,
	created  TEXT NOT NULL,
	state    TEXT NOT NULL,
	dir      TEXT NOT NULL,
	data     TEXT NOT NULL,
	records  INTEGER NOT NULL,
	request  JSON NOT NULL,
	outcome  JSON NOT NULL DEFAULT '{}',
	error    TEXT NOT NULL DEFAULT ''
);
` + annotate.LabelsSchema

// storeTime is how times are stored: UTC, fixed width, so text order is
// time order.
const storeTime = "2006-01-02T15:04:05.000000000Z"

func openStore(path string) (*store, error) {
	db, err := sqlitedb.OpenSynced(path)
	if err != nil {
		return nil, fmt.Errorf("serve store %s: %w", path, err)
	}
	ctx := context.Background()
	if err := sqlitedb.Setup(ctx, func() error { return migrate(ctx, db) }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("serve store %s: not usable (move it away to start anew): %w", path, err)
	}
	return &store{path: path, db: db, writer: make(chan struct{}, 1)}, nil
}

// write runs fn as this process's only writer, waiting for the one
// before it (counted) or for ctx.
func (s *store) write(ctx context.Context, fn func() error) error {
	select {
	case s.writer <- struct{}{}:
	default:
		s.waits.Add(1)
		select {
		case s.writer <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-s.writer }()
	return fn()
}

// inTx is sqlitedb.InTx as the store's writer.
func (s *store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.write(ctx, func() error { return sqlitedb.InTx(ctx, s.db, fn) })
}

// exec runs one writing statement as the store's writer.
func (s *store) exec(ctx context.Context, query string, args ...any) error {
	return s.write(ctx, func() error { return sqlitedb.Exec(ctx, s.db, query, args...) })
}

func (s *store) Close() error { return s.db.Close() }

// InTx, QueryContext and Path are the store as the annotation queue's
// labels use it (annotate.DB).
func (s *store) InTx(ctx context.Context, fn func(*sql.Tx) error) error { return s.inTx(ctx, fn) }

func (s *store) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, query, args...)
}

func (s *store) Path() string { return s.path }

// migrate creates the schema, and brings a file of an earlier version up
// to it: trace_scores gained its evidence column (the dashboard's), and
// an index by judging time (the recent judgements it reads).
func migrate(ctx context.Context, db *sql.DB) error {
	if err := sqlitedb.Exec(ctx, db, storeSchema); err != nil {
		return err
	}
	var has int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('trace_scores') WHERE name = 'evidence'`).Scan(&has); err != nil {
		return err
	}
	if has == 0 {
		if err := sqlitedb.Exec(ctx, db, `ALTER TABLE trace_scores ADD COLUMN evidence JSON NOT NULL DEFAULT '{}'`); err != nil {
			return err
		}
	}
	return sqlitedb.Exec(ctx, db, `CREATE INDEX IF NOT EXISTS trace_scores_by_judged ON trace_scores (judged)`)
}

// journal writes the traces in one transaction, each unless its trace id
// is there already, and returns which were new. Committed (and synced)
// when it returns nil.
func (s *store) journal(ctx context.Context, items []traceItem) ([]bool, error) {
	fresh := make([]bool, len(items))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO trace_samples (trace_id, received, day, metrics, sample, metadata)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(trace_id) DO NOTHING`)
		if err != nil {
			return err
		}
		defer func() { _ = stmt.Close() }() // closed with the transaction
		for i, it := range items {
			mj, _ := json.Marshal(it.metrics) // strings marshal always
			sj, err := json.Marshal(it.sample)
			if err != nil {
				return fmt.Errorf("trace %q: %w", it.id, err)
			}
			meta, err := json.Marshal(orEmpty(it.sample.Metadata))
			if err != nil {
				return fmt.Errorf("trace %q: metadata: %w", it.id, err)
			}
			if fresh[i], err = inserted(stmt.ExecContext(ctx, it.id, it.received.UTC().Format(storeTime), day(it.received), string(mj), string(sj), string(meta))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("trace journal %s: %w", s.path, err)
	}
	return fresh, nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// day is the UTC day of t, the day traces are grouped by.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// pending yields the journaled traces not yet judged whole, oldest
// first.
func (s *store) pending(ctx context.Context) ([]traceItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT trace_id, received, metrics, sample FROM trace_samples WHERE done = 0 ORDER BY received, trace_id`)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	var out []traceItem
	for rows.Next() {
		var it traceItem
		var received, mj, sj string
		if err := rows.Scan(&it.id, &received, &mj, &sj); err != nil {
			return nil, err
		}
		if it.received, err = time.Parse(storeTime, received); err != nil {
			return nil, fmt.Errorf("trace %q: received %q: %w", it.id, received, err)
		}
		if err := json.Unmarshal([]byte(mj), &it.metrics); err != nil {
			return nil, fmt.Errorf("trace %q: metrics: %w", it.id, err)
		}
		if err := json.Unmarshal([]byte(sj), &it.sample); err != nil {
			return nil, fmt.Errorf("trace %q: sample: %w", it.id, err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// scored are the metrics of a trace that have their score already.
func (s *store) scored(ctx context.Context, id string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT metric FROM trace_scores WHERE trace_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[string]bool{}
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		out[m] = true
	}
	return out, rows.Err()
}

// record writes a trace's scores, each unless its (trace, metric) is
// there already, and marks the trace judged, in one transaction. It
// returns which scores were new: those to count.
func (s *store) record(ctx context.Context, it traceItem, scores []eval.Score, at time.Time) ([]bool, error) {
	fresh := make([]bool, len(scores))
	meta, err := json.Marshal(orEmpty(it.sample.Metadata))
	if err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		for i, sc := range scores {
			errText := ""
			if sc.Err != nil {
				errText = sc.Err.Error()
			}
			oc := outcome(sc)
			if sc.Err != nil && !sc.Defaulted && !sc.Skipped {
				oc = OutcomeError
			}
			ev, err := json.Marshal(sc.Evidence.Bounded(eval.MaxText))
			if err != nil {
				return fmt.Errorf("%s: evidence: %w", sc.Metric, err)
			}
			fresh[i], err = inserted(tx.ExecContext(ctx, `INSERT INTO trace_scores (trace_id, metric, day, judged, outcome, value, points, max, reason, method, error, cost_usd, latency_ms, metadata, evidence)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(trace_id, metric) DO NOTHING`,
				it.id, sc.Metric, day(it.received), at.UTC().Format(storeTime), oc, finite(sc.Value), finite(sc.Points), finite(sc.Max),
				sc.Reason, sc.Method, errText, sc.Usage.CostUSD, float64(sc.Usage.Latency)/float64(time.Millisecond), string(meta), string(ev)))
			if err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE trace_samples SET done = 1 WHERE trace_id = ?`, it.id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("trace scores %s: trace %q: %w", s.path, it.id, err)
	}
	return fresh, nil
}

// finite is v, or 0 for NaN and infinities, which SQLite stores as NULL.
func finite(v float64) float64 {
	if v != v || v > 1e308 || v < -1e308 {
		return 0
	}
	return v
}

// TraceScore is one stored judgement of a trace.
type TraceScore struct {
	Metric  string  `json:"metric"`
	Outcome string  `json:"outcome"`
	Value   float64 `json:"value"`
	Points  float64 `json:"points"`
	Max     float64 `json:"max"`
	Reason  string  `json:"reason,omitempty"`
	Method  string  `json:"method,omitempty"`
	Error   string  `json:"error,omitempty"`
	CostUSD float64 `json:"cost_usd,omitempty"`
	Judged  string  `json:"judged"`
}

// Trace is a journaled trace and its scores so far.
type Trace struct {
	TraceID  string         `json:"trace_id"`
	Received string         `json:"received"`
	Day      string         `json:"day"`
	Metrics  []string       `json:"metrics"`
	Judged   bool           `json:"judged"`
	Metadata map[string]any `json:"metadata,omitempty"`
	Scores   []TraceScore   `json:"scores"`
}

// errNoTrace is a trace id the journal does not hold.
var errNoTrace = errors.New("no such trace")

// trace reads one trace and its scores.
func (s *store) trace(ctx context.Context, id string) (*Trace, error) {
	t := &Trace{TraceID: id, Scores: []TraceScore{}}
	var mj, meta string
	var done int
	err := s.db.QueryRowContext(ctx, `SELECT received, day, metrics, metadata, done FROM trace_samples WHERE trace_id = ?`, id).Scan(&t.Received, &t.Day, &mj, &meta, &done)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoTrace
	}
	if err != nil {
		return nil, err
	}
	t.Judged = done == 1
	_ = json.Unmarshal([]byte(mj), &t.Metrics) // written by journal
	_ = json.Unmarshal([]byte(meta), &t.Metadata)
	rows, err := s.db.QueryContext(ctx, `SELECT metric, outcome, value, points, max, reason, method, error, cost_usd, judged FROM trace_scores WHERE trace_id = ? ORDER BY metric`, id)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		var sc TraceScore
		if err := rows.Scan(&sc.Metric, &sc.Outcome, &sc.Value, &sc.Points, &sc.Max, &sc.Reason, &sc.Method, &sc.Error, &sc.CostUSD, &sc.Judged); err != nil {
			return nil, err
		}
		t.Scores = append(t.Scores, sc)
	}
	return t, rows.Err()
}

// SummaryQuery selects and groups trace scores: by day and metric, and
// by the value of the metadata field By when set; Metric, From and To
// (days, YYYY-MM-DD, inclusive) narrow them.
type SummaryQuery struct {
	By, Metric, From, To string
}

// SummaryGroup is the scores of one day, metric and group.
type SummaryGroup struct {
	Day    string `json:"day"`
	Metric string `json:"metric"`
	// Group is the metadata field's value (JSON text for an object or an
	// array); nil when the trace has no such field, or By is not set.
	Group *string `json:"group,omitempty"`
	// N is the judgements; Scored those that measured (neither defaulted
	// nor skipped nor failed), Mean their mean value.
	N         int      `json:"n"`
	Scored    int      `json:"scored"`
	Mean      *float64 `json:"mean"`
	Defaulted int      `json:"defaulted"`
	Skipped   int      `json:"skipped"`
	// NotEvaluable counts, of Skipped, the conversations that could not
	// be judged: spans without message content (not_evaluable).
	NotEvaluable int     `json:"not_evaluable"`
	Errors       int     `json:"errors"`
	CostUSD      float64 `json:"cost_usd"`
}

// TraceSummary is the answer of GET /v1/traces/summary.
type TraceSummary struct {
	By     string         `json:"by,omitempty"`
	Groups []SummaryGroup `json:"groups"`
}

// validField is a metadata field name By may give: letters, digits, _,
// - and . (taken as one name, not a path).
func validField(f string) bool {
	if f == "" || len(f) > 128 {
		return false
	}
	for _, c := range f {
		if !(c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// summary groups the trace scores as q asks.
func (s *store) summary(ctx context.Context, q SummaryQuery) (*TraceSummary, error) {
	group := "NULL"
	var args []any
	if q.By != "" {
		group = "json_extract(metadata, ?)"
		args = append(args, `$."`+q.By+`"`)
	}
	args = append(args, eval.NotEvaluable) // the error of the skipped not evaluable
	var where []string
	for _, c := range []struct{ col, op, v string }{{"metric", "=", q.Metric}, {"day", ">=", q.From}, {"day", "<=", q.To}} {
		if c.v != "" {
			where = append(where, c.col+" "+c.op+" ?")
			args = append(args, c.v)
		}
	}
	w := ""
	if len(where) > 0 {
		w = "WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.db.QueryContext(ctx, `SELECT day, metric, `+group+` AS grp, COUNT(*),
		SUM(outcome = 'scored'), AVG(CASE WHEN outcome = 'scored' THEN value END),
		SUM(outcome = 'defaulted'), SUM(outcome = 'skipped'), SUM(outcome = 'skipped' AND error = ?), SUM(outcome = 'error'), SUM(cost_usd)
		FROM trace_scores `+w+` GROUP BY day, metric, grp ORDER BY day, metric, grp`, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	out := &TraceSummary{By: q.By, Groups: []SummaryGroup{}}
	for rows.Next() {
		var g SummaryGroup
		var grp sql.NullString
		var mean sql.NullFloat64
		if err := rows.Scan(&g.Day, &g.Metric, &grp, &g.N, &g.Scored, &mean, &g.Defaulted, &g.Skipped, &g.NotEvaluable, &g.Errors, &g.CostUSD); err != nil {
			return nil, err
		}
		if grp.Valid {
			g.Group = &grp.String
		}
		if mean.Valid {
			g.Mean = &mean.Float64
		}
		out.Groups = append(out.Groups, g)
	}
	return out, rows.Err()
}

// inserted says whether an INSERT ... ON CONFLICT DO NOTHING wrote its row.
func inserted(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ScoredMetrics are the metrics the stored trace scores have.
func (s *store) ScoredMetrics(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT metric FROM trace_scores ORDER BY metric`)
	if err != nil {
		return nil, fmt.Errorf("trace scores %s: %w", s.path, err)
	}
	defer func() { _ = rows.Close() }() // read only
	var out []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// TraceEntries are the judged traces of metric with their samples, the
// last judged first, at most limit; the second result says there were
// more.
func (s *store) TraceEntries(ctx context.Context, metric string, limit int) ([]annotate.Entry, bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.trace_id, t.sample, s.outcome, s.value, s.points, s.max, s.reason, s.method, s.error, s.evidence
		FROM trace_scores s JOIN trace_samples t ON t.trace_id = s.trace_id
		WHERE s.metric = ? ORDER BY s.judged DESC, s.trace_id LIMIT ?`, metric, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("trace scores %s: %w", s.path, err)
	}
	defer func() { _ = rows.Close() }() // read only
	var out []annotate.Entry
	for rows.Next() {
		var e annotate.Entry
		var sj, oc, ev string
		r := &e.Result
		if err := rows.Scan(&r.ID, &sj, &oc, &r.Value, &r.Points, &r.Max, &r.Reason, &r.Method, &r.Error, &ev); err != nil {
			return nil, false, err
		}
		r.Metric = metric
		r.Defaulted, r.Skipped = oc == OutcomeDefaulted, oc == OutcomeSkipped
		_ = json.Unmarshal([]byte(sj), &e.Sample) // written by journal
		_ = json.Unmarshal([]byte(ev), &r.Evidence)
		e.Sample.ID = r.ID
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}
