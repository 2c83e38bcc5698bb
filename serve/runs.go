package serve

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// RunRequest is the body of POST /v1/runs: a dataset, given as samples or
// as a dataset file's text, and what judges it (Metrics or a Profile).
type RunRequest struct {
	// Metrics are the judges to run; or Profile names a card whose
	// metrics are judged instead: context, research, daily, or a profile
	// of the server's folder (Config.Profiles) by its name; never a path.
	Metrics []string `json:"metrics,omitempty"`
	Profile string   `json:"profile,omitempty" jsonschema:"research, daily or context, or the name of a profile in the server's --profiles folder (never a path)"`
	// Samples are the records, each as a dataset line has it; or Dataset
	// is a dataset file's text in Format (jsonl, the default; json; csv; tsv).
	Samples []json.RawMessage `json:"samples,omitempty"`
	Dataset string            `json:"dataset,omitempty"`
	Format  string            `json:"format,omitempty"`
	// Min and Gates are `assay bench`'s --min and --gate.
	Min   string   `json:"min,omitempty"`
	Gates []string `json:"gates,omitempty"`
}

// Run states.
const (
	RunQueued  = "queued"  // waiting for a place (Config.MaxRuns)
	RunRunning = "running" // being judged (or interrupted, to resume)
	RunDone    = "done"    // finished: see Passed and Failures
	RunFailed  = "failed"  // could not run: see Error
)

// RunStatus is the answer of POST /v1/runs (202) and GET /v1/runs/{id}.
type RunStatus struct {
	// ID is the run's id in the run store (assay runs show ID).
	ID      string    `json:"id"`
	State   string    `json:"state"`
	Created time.Time `json:"created"`
	// Dir is the run folder.
	Dir string `json:"dir"`
	// Records are the dataset's; Total the (record, metric) pairs to
	// judge, once the run has begun; Judged the results written so far.
	Records int      `json:"records"`
	Metrics []string `json:"metrics,omitempty"`
	Total   int      `json:"total"`
	Judged  int      `json:"judged"`
	// Passed and Failures are a finished run's verdict, Summary its
	// summary.json; Error why a failed run could not run.
	Passed   *bool        `json:"passed,omitempty"`
	Failures []string     `json:"failures,omitempty"`
	Summary  *run.Summary `json:"summary,omitempty"`
	Error    string       `json:"error,omitempty"`
}

// RunList is the answer of GET /v1/runs.
type RunList struct {
	Runs []RunStatus `json:"runs"`
}

// runOutcome is what the store keeps of a finished run.
type runOutcome struct {
	Passed   *bool    `json:"passed,omitempty"`
	Failures []string `json:"failures,omitempty"`
}

// runManager runs the runs the server was given, at most MaxRuns at once,
// each through bench.Execute into a run folder under the data folder.
type runManager struct {
	s      *Server
	slots  chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newRunManager(s *Server) *runManager {
	m := &runManager{s: s, slots: make(chan struct{}, s.cfg.MaxRuns)}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// close interrupts the runs under way (bench.Execute stops, keeping what
// it judged) and waits for them; they stay running in the store, resumed
// by the next Start.
func (m *runManager) close() {
	m.cancel()
	m.wg.Wait()
}

// resume starts again the runs the store says are queued or running.
func (m *runManager) resume(ctx context.Context) error {
	rows, err := m.s.store.db.QueryContext(ctx, `SELECT id, dir, data, request FROM serve_runs WHERE state IN (?, ?) ORDER BY created, id`, RunQueued, RunRunning)
	if err != nil {
		return fmt.Errorf("serve: reading the runs: %w", err)
	}
	type todo struct {
		id, dir, data string
		req           RunRequest
	}
	var runs []todo
	for rows.Next() {
		var t todo
		var rj string
		if err := rows.Scan(&t.id, &t.dir, &t.data, &rj); err != nil {
			_ = rows.Close()
			return err
		}
		if err := json.Unmarshal([]byte(rj), &t.req); err != nil {
			_ = rows.Close()
			return fmt.Errorf("serve: run %s: its request: %w", t.id, err)
		}
		runs = append(runs, t)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, t := range runs {
		fmt.Fprintf(m.s.cfg.Log, "assay serve: resuming run %s\n", t.id)
		m.launch(t.id, t.dir, t.data, t.req, spanRef{}) // its request is gone: a trace of its own
	}
	return nil
}

// job is the bench job of a run; its profile is the one the request
// names (profileSet.resolve), never a path the request gives.
func (m *runManager) job(id, dir, data string, req RunRequest) (bench.Job, error) {
	c := m.s.cfg
	profile, err := m.s.profiles.resolve("profile", req.Profile)
	if err != nil {
		return bench.Job{}, err
	}
	_, err = os.Stat(filepath.Join(dir, run.FileConfig))
	return bench.Job{Data: data, Metrics: req.Metrics, Profile: profile, Registry: c.Registry, Out: dir,
		Resume: err == nil, Min: req.Min, Gates: req.Gates, Judging: c.Judging, Store: c.Store, Env: c.Env,
		Log: c.Log, Quiet: true, Command: []string{"assay", "serve", "POST /v1/runs"}, Version: c.Version, Now: c.Now, RunID: id}, nil
}

// launch runs a run in the background, when a place is free; its spans
// are parent's children (the request's that started it).
func (m *runManager) launch(id, dir, data string, req RunRequest, parent spanRef) {
	m.wg.Go(func() {
		select {
		case m.slots <- struct{}{}:
		case <-m.ctx.Done():
			return // still queued: the next start runs it
		}
		defer func() { <-m.slots }()
		m.setState(id, RunRunning, nil, "")
		job, err := m.job(id, dir, data, req)
		if err != nil { // its profile left the folder since it was started
			m.setState(id, RunFailed, nil, err.Error())
			return
		}
		out, err := bench.Execute(under(m.ctx, parent), job)
		if m.ctx.Err() != nil {
			return // interrupted by the shutdown: resumed by the next start
		}
		if err != nil {
			m.setState(id, RunFailed, nil, err.Error())
			return
		}
		oc := runOutcome{Passed: new(out.Passed())}
		for _, f := range out.Failures {
			oc.Failures = append(oc.Failures, f.Error())
		}
		if out.StoreErr != nil {
			fmt.Fprintf(m.s.cfg.Log, "assay serve: run %s: %v\n", id, out.StoreErr)
		}
		m.setState(id, RunDone, &oc, "")
	})
}

func (m *runManager) setState(id, state string, oc *runOutcome, errText string) {
	oj := []byte("{}")
	if oc != nil {
		oj, _ = json.Marshal(oc) // strings and a bool
	}
	err := m.s.store.exec(context.Background(), `UPDATE serve_runs SET state = ?, outcome = ?, error = ? WHERE id = ?`, state, string(oj), errText, id)
	if err != nil {
		fmt.Fprintf(m.s.cfg.Log, "assay serve: run %s: recording its state %s: %v\n", id, state, err)
	}
}

// postRun is POST /v1/runs: it checks the request and the dataset as
// `assay bench --dry-run` would (bench.Execute, no model call), keeps the
// dataset in the data folder, and starts the run in the background.
func (s *Server) postRun(w http.ResponseWriter, r *http.Request) error {
	var req RunRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	if _, err := s.profiles.resolve("profile", req.Profile); err != nil {
		return err
	}
	data, ext, n, err := runData(req)
	if err != nil {
		return err
	}
	now := s.cfg.Now()
	id := run.NewID(now)
	path := pathIn(s.cfg.DataDir, "inputs", id+ext)
	dir := pathIn(s.cfg.DataDir, "runs", id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	// The checks of a run, before any model call: a dry run.
	check, err := s.runs.job(id, dir, path, req)
	if err != nil {
		_ = os.Remove(path)
		return err
	}
	check.Judging.DryRun, check.Out, check.Resume, check.NoStore = true, "", false, true
	if _, err := bench.Execute(r.Context(), check); err != nil {
		_ = os.Remove(path)
		return runInputError(err, req)
	}
	rj, _ := json.Marshal(req) // it was decoded from JSON
	err = s.store.exec(r.Context(), `INSERT INTO serve_runs (id, created, state, dir, data, records, request) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, now.UTC().Format(storeTime), RunQueued, dir, path, n, string(rj))
	if err != nil {
		_ = os.Remove(path)
		return err
	}
	s.runs.launch(id, dir, path, req, spanOf(r))
	st, err := s.runStatus(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/runs/"+id)
	httpjson.Write(w, http.StatusAccepted, st)
	return nil
}

// runData is the dataset of a request as a file's bytes, its extension
// and its record count; its records are checked here, so an error names
// the request's field.
func runData(req RunRequest) ([]byte, string, int, error) {
	switch {
	case len(req.Samples) > 0 && req.Dataset != "":
		return nil, "", 0, badRequest("dataset", "samples and dataset: give one")
	case len(req.Samples) > 0:
		if req.Format != "" {
			return nil, "", 0, badRequest("format", "format: is the format of dataset; samples are JSON")
		}
		var b bytes.Buffer
		for i, raw := range req.Samples {
			at := "samples[" + itoa(i) + "]"
			if _, err := dataset.DecodeRecord(at, raw); err != nil {
				return nil, "", 0, sampleError(at, err)
			}
			if err := json.Compact(&b, raw); err != nil {
				return nil, "", 0, badRequest(at, "%s: %v", at, err)
			}
			b.WriteByte('\n')
		}
		return b.Bytes(), ".jsonl", len(req.Samples), nil
	case req.Dataset != "":
		f := req.Format
		if f == "" {
			f = string(dataset.FormatJSONL)
		}
		if !slices.Contains([]string{string(dataset.FormatJSONL), string(dataset.FormatJSON), string(dataset.FormatCSV), string(dataset.FormatTSV)}, f) {
			return nil, "", 0, badRequest("format", "format: want jsonl, json, csv or tsv, got %s", httpjson.Echo(req.Format))
		}
		n := 0
		for _, err := range dataset.Format(f).Records("dataset", bytes.NewReader([]byte(req.Dataset))) {
			if err != nil {
				return nil, "", 0, sampleError("", err)
			}
			n++
		}
		return []byte(req.Dataset), "." + f, n, nil
	}
	return nil, "", 0, badRequest("samples", "samples or dataset: give the records to judge")
}

// runInputError is an error of the dry run as the request's: the flags
// bench names are its fields, and a dataset line is samples[line-1].
func runInputError(err error, req RunRequest) error {
	ie, ok := errors.AsType[*eval.InputError](err)
	if !ok {
		return err
	}
	e := *ie
	field := map[string]string{"--metric": "metrics", "--profile": "profile", "--min": "min", "--gate": "gates"}[e.Field]
	if field != "" {
		e.Field = ""
		return inputError(field, &e)
	}
	if len(req.Samples) > 0 && e.Line > 0 {
		at := "samples[" + itoa(e.Line-1) + "]"
		e.File, e.Line, e.Col = "", 0, 0
		return inputError(at, &e)
	}
	if req.Dataset != "" {
		e.File = ""
		return inputError("dataset", &e)
	}
	return inputError("", &e)
}

// getRun is GET /v1/runs/{id}.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) error {
	st, err := s.runStatus(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, st)
	return nil
}

// getRuns is GET /v1/runs: the runs the server was given, newest first.
func (s *Server) getRuns(w http.ResponseWriter, r *http.Request) error {
	rows, err := s.store.db.QueryContext(r.Context(), `SELECT id FROM serve_runs ORDER BY created DESC, id DESC LIMIT 100`)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			_ = rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	out := RunList{Runs: []RunStatus{}}
	for _, id := range ids {
		st, err := s.runStatus(r.Context(), id)
		if err != nil {
			return err
		}
		out.Runs = append(out.Runs, *st)
	}
	httpjson.Write(w, http.StatusOK, out)
	return nil
}

// runStatus reads a run's state from the store and its folder.
func (s *Server) runStatus(ctx context.Context, id string) (*RunStatus, error) {
	st := &RunStatus{ID: id}
	var created, oj string
	err := s.store.db.QueryRowContext(ctx, `SELECT created, state, dir, records, outcome, error FROM serve_runs WHERE id = ?`, id).
		Scan(&created, &st.State, &st.Dir, &st.Records, &oj, &st.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &httpError{Status: http.StatusNotFound, Body: ErrorBody{Error: fmt.Sprintf("no run %s was started by this server (see GET /v1/runs)", httpjson.Echo(id))}}
	}
	if err != nil {
		return nil, err
	}
	st.Created, _ = time.Parse(storeTime, created) // written by postRun
	var oc runOutcome
	_ = json.Unmarshal([]byte(oj), &oc) // written by setState
	st.Passed, st.Failures = oc.Passed, oc.Failures
	if cj, err := os.ReadFile(filepath.Join(st.Dir, run.FileConfig)); err == nil {
		var cfg run.Config
		if json.Unmarshal(cj, &cfg) == nil {
			st.Metrics = cfg.Metrics
			st.Total = st.Records * len(cfg.Metrics)
		}
	}
	if rj, err := os.ReadFile(filepath.Join(st.Dir, run.FileResults)); err == nil {
		st.Judged = bytes.Count(rj, []byte{'\n'})
	}
	if st.State == RunDone {
		if sj, err := os.ReadFile(filepath.Join(st.Dir, run.FileSummary)); err == nil {
			var sum run.Summary
			if json.Unmarshal(sj, &sum) == nil {
				st.Summary = &sum
			}
		}
	}
	return st, nil
}
