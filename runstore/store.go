package runstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/sqlitedb"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// Store is the run store: a row per recorded run (`assay bench`) in one
// SQLite file, for `assay runs`, `--baseline latest` and trends. It is
// safe for concurrent use, and several processes may share the file (WAL
// journal, busy timeout). Close it when done.
type Store struct {
	path string
	db   *sql.DB
}

// RunRow is one recorded run.
type RunRow struct {
	ID string
	// Started is when the run began, Finished when it was recorded.
	Started, Finished time.Time
	Dataset           string
	DatasetSHA256     string
	// Metrics are the run's metrics in the order of its config; so are
	// Summary.Metrics, whatever order the row was recorded in.
	Metrics []string
	Config  run.Config
	Summary run.Summary
	// Dir is the run folder, absolute.
	Dir string
}

// TrendPoint is one run's figures of one metric, for Trend.
type TrendPoint struct {
	RunID   string    `json:"run_id"`
	Started time.Time `json:"started"`
	// Mean is NaN when the run scored nothing of the metric.
	Mean   run.Num `json:"mean"`
	N      int     `json:"n"`
	Scored int     `json:"scored"`
	// Model is the run's judge (run.Config.Model).
	Model string `json:"model"`
	// Judged says how the run was judged otherwise than the point before
	// it (JudgedOtherwise): its change measures the judge as well.
	Judged []string `json:"judged_otherwise,omitempty"`
}

// RunNotFoundError is a run id (or prefix) that names no recorded run, or
// more than one.
type RunNotFoundError struct {
	Ref  string
	Path string
	// Candidates are the ids the prefix matched, when it matched several.
	Candidates []string
}

func (e *RunNotFoundError) Error() string {
	if len(e.Candidates) > 1 {
		return fmt.Sprintf("run %q is ambiguous: it begins %s; give more of the id", e.Ref, strings.Join(e.Candidates, ", "))
	}
	return fmt.Sprintf("no run %q in the run store %s: see assay runs list", e.Ref, e.Path)
}

const storeSchema = `CREATE TABLE IF NOT EXISTS runs (
	id             TEXT PRIMARY KEY,
	started        TEXT NOT NULL,
	finished       TEXT NOT NULL,
	dataset        TEXT NOT NULL,
	dataset_sha256 TEXT NOT NULL,
	metrics_key    TEXT NOT NULL,
	config         JSON NOT NULL,
	summary        JSON NOT NULL,
	dir            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_dataset ON runs (dataset_sha256, started)`

// storeTime is how times are stored: UTC and fixed width, so that text
// order is time order.
const storeTime = "2006-01-02T15:04:05.000000000Z"

// DefaultStorePath is where the run store lives unless told otherwise:
// $ASSAY_DATA_DIR/runs.db when that is set, else in the user's data
// directory: $XDG_DATA_HOME/assay (default ~/.local/share/assay) on Linux
// and other Unix systems, ~/Library/Application Support/assay on macOS,
// %LOCALAPPDATA%\assay on Windows. env reads the environment (os.Getenv).
func DefaultStorePath(env func(string) string) (string, error) {
	if d := env("ASSAY_DATA_DIR"); d != "" {
		return filepath.Join(d, "runs.db"), nil
	}
	dir, err := dataDir(runtime.GOOS, env)
	if err != nil {
		return "", fmt.Errorf("run store: %w (or set ASSAY_DATA_DIR to a folder for it)", err)
	}
	return filepath.Join(dir, "assay", "runs.db"), nil
}

// dataDir is the user data directory on goos.
func dataDir(goos string, env func(string) string) (string, error) {
	switch goos {
	case "windows":
		if d := cmp.Or(env("LOCALAPPDATA"), env("APPDATA")); d != "" {
			return d, nil
		}
		return "", errors.New("neither %LOCALAPPDATA% nor %APPDATA% is set")
	case "darwin", "ios":
		if h := env("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support"), nil
		}
		return "", errors.New("$HOME is not set")
	case "plan9":
		if h := env("home"); h != "" {
			return filepath.Join(h, "lib"), nil
		}
		return "", errors.New("$home is not set")
	}
	// The XDG base directory spec: a relative $XDG_DATA_HOME is invalid
	// and ignored.
	if d := env("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	if h := env("HOME"); h != "" {
		return filepath.Join(h, ".local", "share"), nil
	}
	return "", errors.New("neither $XDG_DATA_HOME nor $HOME is set")
}

// OpenStore opens the run store at path, creating its folder, the file and
// its table as needed.
func OpenStore(path string) (*Store, error) {
	db, err := sqlitedb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("run store %s: %w", path, err)
	}
	ctx := context.Background()
	if err := sqlitedb.Setup(ctx, func() error { return sqlitedb.Exec(ctx, db, storeSchema) }); err != nil {
		_ = db.Close()
		return nil, setupError(path, err)
	}
	return &Store{path: path, db: db}, nil
}

// setupError is the error of a run store at path whose setup failed with
// err. Only a file that is no run store is to be moved away: one that
// another process holds, or that this one may not write, is sound, and
// its runs are lost to the user who starts a new one instead.
func setupError(path string, err error) error {
	switch {
	case sqlitedb.Busy(err):
		return fmt.Errorf("run store %s: another process kept it locked for over 5 s (an assay bench recording a run, assay serve, or a program reading it): try again once it is done: %w", path, err)
	case sqlitedb.ReadOnly(err):
		return fmt.Errorf("run store %s: it cannot be written (the file, its folder or its disk is read-only to this user), and assay writes to it even to read it: make them writable, or copy the file to a folder that is and set ASSAY_DATA_DIR to that folder: %w", path, err)
	}
	return fmt.Errorf("run store %s: not a usable run store (move it away to start a new one): %w", path, err)
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Record records a run, its config, its summary and its folder dir; a run
// recorded again (resumed) replaces its row.
func (s *Store) Record(cfg run.Config, sum run.Summary, dir string) error {
	id := cmp.Or(cfg.RunID, sum.RunID)
	if id == "" {
		return errors.New("run store: record: the run has no id (run.Config.RunID)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("run store: record %s: %w", id, err)
	}
	started := cfg.Started
	if started.IsZero() {
		started = sum.Started
	}
	finished := sum.Finished
	if finished.IsZero() {
		finished = started
	}
	cj, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("run store: record %s: config: %w", id, err)
	}
	sj, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("run store: record %s: summary: %w", id, err)
	}
	err = sqlitedb.Exec(context.Background(), s.db,
		`INSERT INTO runs (id, started, finished, dataset, dataset_sha256, metrics_key, config, summary, dir)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT(id) DO UPDATE SET started = excluded.started, finished = excluded.finished,
		   dataset = excluded.dataset, dataset_sha256 = excluded.dataset_sha256, metrics_key = excluded.metrics_key,
		   config = excluded.config, summary = excluded.summary, dir = excluded.dir`,
		id, started.UTC().Format(storeTime), finished.UTC().Format(storeTime), cfg.Dataset, cfg.DatasetSHA256,
		metricsKey(cfg.Metrics), string(cj), string(sj), abs)
	if err != nil {
		return fmt.Errorf("run store %s: record %s: %w", s.path, id, err)
	}
	return nil
}

// metricsKey is a set of metrics as one string: sorted, comma separated.
func metricsKey(metrics []string) string {
	return strings.Join(slices.Compact(slices.Sorted(slices.Values(metrics))), ",")
}

const runColumns = `id, started, finished, dataset, dataset_sha256, config, summary, dir`

// List is every recorded run, oldest first; an error when one of them
// does not read back.
func (s *Store) List(ctx context.Context) ([]RunRow, error) {
	return s.query(ctx, nil, `SELECT `+runColumns+` FROM runs ORDER BY started, id`)
}

// ListReadable is every recorded run that reads back, oldest first, and
// what is wrong with each that does not (a row damaged in the file, or
// written by a version whose rows this one cannot read): one such row
// hides none of the others.
func (s *Store) ListReadable(ctx context.Context) ([]RunRow, []error, error) {
	var bad []error
	rows, err := s.query(ctx, &bad, `SELECT `+runColumns+` FROM runs ORDER BY started, id`)
	return rows, bad, err
}

// Get is the run with id, or with the one id that begins with it; a
// *RunNotFoundError when none does, or several.
func (s *Store) Get(ctx context.Context, id string) (RunRow, error) {
	if id == "" {
		return RunRow{}, &RunNotFoundError{Ref: id, Path: s.path}
	}
	rows, err := s.query(ctx, nil, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id)
	if err != nil {
		return RunRow{}, err
	}
	if len(rows) == 0 {
		if rows, err = s.query(ctx, nil, `SELECT `+runColumns+` FROM runs WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id`, id); err != nil {
			return RunRow{}, err
		}
	}
	if len(rows) != 1 {
		e := &RunNotFoundError{Ref: id, Path: s.path}
		for _, r := range rows {
			e.Candidates = append(e.Candidates, r.ID)
		}
		return RunRow{}, e
	}
	return rows[0], nil
}

// Latest is the last run (by start) of the dataset with the hash given
// and the same set of metrics; a *RunNotFoundError when there is none.
func (s *Store) Latest(ctx context.Context, datasetSHA256 string, metrics []string) (RunRow, error) {
	return s.latest(ctx, datasetSHA256, metrics, "")
}

func (s *Store) latest(ctx context.Context, sha string, metrics []string, except string) (RunRow, error) {
	rows, err := s.query(ctx, nil, `SELECT `+runColumns+` FROM runs
		WHERE dataset_sha256 = ? AND metrics_key = ? AND id != ? ORDER BY started DESC, id DESC LIMIT 1`,
		sha, metricsKey(metrics), except)
	if err != nil {
		return RunRow{}, err
	}
	if len(rows) == 0 {
		return RunRow{}, &RunNotFoundError{Ref: fmt.Sprintf("latest of dataset %s with metrics %s", shortSHA(sha), metricsKey(metrics)), Path: s.path}
	}
	return rows[0], nil
}

// Trend is the mean of metric over time in the runs of one dataset, oldest
// first; runs without the metric are left out. Each point after the first
// says how it was judged otherwise than the one before it. With datasetSHA256 empty
// the dataset is that of the last run that judged the metric. The runs
// that do not read back are left out, and the errors say which.
func (s *Store) Trend(ctx context.Context, metric string, datasetSHA256 string) ([]TrendPoint, []error, error) {
	has := `instr(',' || metrics_key || ',', ',' || ? || ',') > 0`
	if datasetSHA256 == "" {
		if err := s.db.QueryRowContext(ctx, `SELECT dataset_sha256 FROM runs WHERE `+has+` ORDER BY started DESC, id DESC LIMIT 1`, metric).
			Scan(&datasetSHA256); errors.Is(err, sql.ErrNoRows) {
			return nil, nil, &RunNotFoundError{Ref: "with metric " + metric, Path: s.path}
		} else if err != nil {
			return nil, nil, fmt.Errorf("run store %s: trend: %w", s.path, err)
		}
	}
	var bad []error
	rows, err := s.query(ctx, &bad, `SELECT `+runColumns+` FROM runs WHERE dataset_sha256 = ? AND `+has+` ORDER BY started, id`, datasetSHA256, metric)
	if err != nil {
		return nil, nil, err
	}
	out := []TrendPoint{}
	var prev *run.Config
	for _, r := range rows {
		for _, m := range r.Summary.Metrics {
			if m.Metric != metric {
				continue
			}
			p := TrendPoint{RunID: r.ID, Started: r.Started, Mean: m.Mean, N: m.N, Scored: m.Scored, Model: r.Config.Model}
			if prev != nil {
				p.Judged = run.JudgedOtherwise(*prev, r.Config)
			}
			prev = &r.Config
			out = append(out, p)
		}
	}
	return out, bad, nil
}

// query is the runs q selects. A row that does not read back is an
// error, or, with bad not nil, left out and its error added to bad.
func (s *Store) query(ctx context.Context, bad *[]error, q string, args ...any) ([]RunRow, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("run store %s: %w", s.path, err)
	}
	defer func() { _ = rows.Close() }()
	var out []RunRow
	for rows.Next() {
		var r RunRow
		var started, finished, cj, sj string
		if err := rows.Scan(&r.ID, &started, &finished, &r.Dataset, &r.DatasetSHA256, &cj, &sj, &r.Dir); err != nil {
			return nil, fmt.Errorf("run store %s: %w", s.path, err)
		}
		var perr error
		r.Started, perr = time.Parse(time.RFC3339Nano, started)
		if perr == nil {
			r.Finished, perr = time.Parse(time.RFC3339Nano, finished)
		}
		if perr == nil {
			perr = json.Unmarshal([]byte(cj), &r.Config)
		}
		if perr == nil {
			perr = json.Unmarshal([]byte(sj), &r.Summary)
		}
		if perr != nil {
			err := &UnreadableRunError{Path: s.path, ID: r.ID, Err: perr}
			if bad == nil {
				return nil, err
			}
			*bad = append(*bad, err)
			continue
		}
		r.Metrics = r.Config.Metrics
		r.Summary.Metrics = run.InConfigOrder(r.Summary.Metrics, r.Metrics)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("run store %s: %w", s.path, err)
	}
	return out, nil
}

// shortSHA is the first 12 hex digits of a hash, for messages and tables.
func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// ResolveBaseline finds the baseline run folder that ref names: a run
// folder (a directory with config.json), a run id or unique id prefix in
// store, or "latest": the last stored run of cfg's dataset hash and
// metrics other than cfg's run itself. store may be nil when ref is a
// folder.
func ResolveBaseline(store *Store, ref string, cfg run.Config) (string, error) {
	if ref == "" {
		return "", errors.New("--baseline: empty: give a run folder, a run id or latest")
	}
	shown := termtext.Visible(ref) // as typed, its control characters escaped
	if isRunFolder(ref) {
		return ref, hasResults(shown, ref)
	}
	if store == nil {
		return "", fmt.Errorf("--baseline %s: not a run folder (no %s in it), and there is no run store to look it up as a run id", shown, run.FileConfig)
	}
	ctx := context.Background()
	var row RunRow
	var err error
	if ref == "latest" {
		row, err = store.latest(ctx, cfg.DatasetSHA256, cfg.Metrics, cfg.RunID)
		if nf, ok := errors.AsType[*RunNotFoundError](err); ok {
			return "", &NoBaselineError{Dataset: shortSHA(cfg.DatasetSHA256), Metrics: metricsKey(cfg.Metrics), Store: nf.Path}
		}
	} else {
		row, err = store.Get(ctx, ref)
		if nf, ok := errors.AsType[*RunNotFoundError](err); ok && len(nf.Candidates) == 0 {
			// err says the same: it is kept to test for, not repeated.
			return "", &eval.InputError{Msg: fmt.Sprintf("--baseline %s: not a run folder (no %s in it) nor a run id in the run store %s: see assay runs list", shown, run.FileConfig, nf.Path), Err: err}
		}
	}
	if err != nil {
		return "", fmt.Errorf("--baseline %s: %w", shown, err)
	}
	if !isRunFolder(row.Dir) {
		return "", fmt.Errorf("--baseline %s: run %s was recorded in %s, which no longer holds a run (%s missing): give another baseline", shown, row.ID, row.Dir, run.FileConfig)
	}
	return row.Dir, hasResults(shown, row.Dir)
}

// hasResults refuses a baseline, --baseline shown, whose run folder dir
// has lost its results.jsonl: compared on no sample, it would raise no
// alert, and the run would pass unchecked. It is said before anything
// is judged.
func hasResults(shown, dir string) error {
	path := filepath.Join(dir, run.FileResults)
	if _, err := os.Stat(path); err != nil {
		return &eval.InputError{Msg: fmt.Sprintf("--baseline %s: %s: %v: the baseline's scores are gone; give another baseline", shown, termtext.Visible(path), errors.Unwrap(err)), Err: err}
	}
	return nil
}

// UnreadableRunError is a row of the run store that does not read back
// (damaged in the file, or written by a version whose rows this one
// cannot read): Store.ListReadable gives one per such row.
type UnreadableRunError struct {
	// Path is the store's file, ID the run's id as stored (unescaped).
	Path, ID string
	Err      error
}

func (e *UnreadableRunError) Error() string {
	return fmt.Sprintf("run store %s: run %s %s", e.Path, termtext.Visible(e.ID), e.Reason())
}

// Reason is what is wrong with the row, and what to do about it.
func (e *UnreadableRunError) Reason() string {
	return fmt.Sprintf("does not read back (%v): record it again or delete its row", e.Err)
}

func (e *UnreadableRunError) Unwrap() error { return e.Err }

// NoBaselineError is ResolveBaseline's error for "latest" when the store
// holds no earlier run of the dataset and metrics: a first run, which
// compares with nothing and goes on. Test with errors.As.
type NoBaselineError struct {
	Dataset, Metrics, Store string
}

func (e *NoBaselineError) Error() string {
	return fmt.Sprintf("--baseline latest: no earlier run of dataset %s with metrics %s in %s: this run compares with nothing and becomes the baseline of the next",
		e.Dataset, e.Metrics, e.Store)
}

// isRunFolder reports whether dir holds a run's config.json.
func isRunFolder(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, run.FileConfig))
	return err == nil && fi.Mode().IsRegular()
}

// RunStatus is a run's state in a word or two, for `assay runs`:
// "incomplete" when it stopped before judging every pair, else the kind
// of its first failure that its summary keeps (run.Summary.Failed: "too
// many defaults", "below floor", ...), else "gate failed" when a gate
// failed, else "alert" when it raised a quality alert against its
// baseline, else "ok".
func RunStatus(s run.Summary) string {
	switch {
	case !s.Complete:
		return "incomplete"
	case len(s.Failed) > 0:
		return s.Failed[0].Kind
	case slices.ContainsFunc(s.Gates, func(g run.GateResult) bool { return !g.Passed }):
		return "gate failed"
	case len(s.Alerts) > 0:
		return "alert"
	}
	return "ok"
}
