package runstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// Runs reads the recorded runs, for `assay runs`: the rows of the run
// store and the run folders they name, or run folders given as such. The
// store is opened only when a call needs it, and closed before it
// returns. Errors about what the caller asked for (an unknown run, a
// folder that is no run, a metric never judged) are *eval.InputError;
// the others (the store does not open or read) are not.
type Runs struct {
	// Store is the run store's file; empty is DefaultStorePath(Env).
	Store string
	// Env reads the environment; nil is os.Getenv.
	Env func(string) string
}

// open opens the run store.
func (r Runs) open() (*Store, error) {
	path := r.Store
	if path == "" {
		env := r.Env
		if env == nil {
			env = os.Getenv
		}
		var err error
		if path, err = DefaultStorePath(env); err != nil {
			return nil, &eval.InputError{Msg: err.Error(), Err: err}
		}
	}
	return OpenStore(path)
}

// RunList is `assay runs list`: the recorded runs, oldest first.
type RunList struct {
	// Store is the run store's file.
	Store string
	Runs  []RunListing
	// Unreadable says of each row of the store that does not read back
	// what is wrong with it; the other runs are listed all the same.
	// UnreadableRuns are the same rows, as the JSON, YAML and JSON Lines
	// listings give them, after the runs.
	Unreadable     []string
	UnreadableRuns []UnreadableRun
}

// UnreadableRun is a row of the run store that does not read back, in a
// machine-readable listing of runs: its id and, under "unreadable", what
// is wrong with it. It has none of a RunListing's other keys, so a
// reader tells the two apart by "unreadable".
type UnreadableRun struct {
	ID         string `json:"id"`
	Unreadable string `json:"unreadable"`
}

// RunListing is one run of a RunList.
type RunListing struct {
	ID            string    `json:"id"`
	Started       time.Time `json:"started"`
	Finished      time.Time `json:"finished"`
	Dataset       string    `json:"dataset"`
	DatasetSHA256 string    `json:"dataset_sha256"`
	Model         string    `json:"model"`
	// Metrics are the run's means in the order its metrics were given.
	Metrics []MetricMean `json:"metrics"`
	// Status is RunStatus's.
	Status string `json:"status"`
	Dir    string `json:"dir"`
}

// MetricMean is a metric's mean in a run, NaN when it scored nothing.
type MetricMean struct {
	Metric string  `json:"metric"`
	Mean   run.Num `json:"mean"`
}

// List lists the recorded runs, oldest first.
func (r Runs) List(ctx context.Context) (*RunList, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	st, err := r.open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = st.Close() }() // read only
	rows, bad, err := st.ListReadable(ctx)
	if err != nil {
		return nil, err
	}
	l := &RunList{Store: st.Path(), Runs: []RunListing{}, Unreadable: errorTexts(bad)}
	for _, err := range bad {
		if u, ok := errors.AsType[*UnreadableRunError](err); ok {
			l.UnreadableRuns = append(l.UnreadableRuns, UnreadableRun{ID: u.ID, Unreadable: u.Reason()})
		}
	}
	for _, row := range rows {
		ms := make([]MetricMean, len(row.Summary.Metrics))
		for i, m := range row.Summary.Metrics {
			ms[i] = MetricMean{Metric: m.Metric, Mean: m.Mean}
		}
		l.Runs = append(l.Runs, RunListing{ID: row.ID, Started: row.Started, Finished: row.Finished, Dataset: row.Dataset,
			DatasetSHA256: row.DatasetSHA256, Model: row.Config.Model, Metrics: ms, Status: RunStatus(row.Summary), Dir: row.Dir})
	}
	return l, nil
}

// RunView is `assay runs show`: one run's configuration and summary.
type RunView struct {
	ID string
	// Dir is the run folder.
	Dir     string
	Config  run.Config
	Summary run.Summary
}

// Show finds the run ref names: a run folder, else a run id or the
// beginning of one in the run store.
func (r Runs) Show(ctx context.Context, ref string) (*RunView, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	return r.load(ctx, ref, false)
}

// load is Show; withFolder checks that the folder of a stored run still
// exists, and takes the run's config from it.
func (r Runs) load(ctx context.Context, ref string, withFolder bool) (*RunView, error) {
	if isRunFolder(ref) {
		f, err := run.ReadHead(ref)
		if err != nil {
			return nil, &eval.InputError{Msg: err.Error(), Err: err}
		}
		if f.Summary == nil {
			return nil, &eval.InputError{Msg: fmt.Sprintf("run folder %s has no %s: the run never finished; resume it with assay bench --resume --out %s", ref, run.FileSummary, ref)}
		}
		return &RunView{ID: f.Config.RunID, Dir: ref, Config: f.Config, Summary: *f.Summary}, nil
	}
	st, err := r.open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = st.Close() }() // read only
	row, err := st.Get(ctx, ref)
	if _, ok := errors.AsType[*RunNotFoundError](err); ok {
		return nil, &eval.InputError{Msg: fmt.Sprintf("%v (nor is %s a run folder)", err, termtext.Visible(ref)), Err: err}
	}
	if err != nil {
		return nil, err
	}
	v := &RunView{ID: row.ID, Dir: row.Dir, Config: row.Config, Summary: row.Summary}
	if withFolder {
		f, err := run.ReadHead(row.Dir)
		if err != nil {
			return nil, &eval.InputError{Msg: fmt.Sprintf("run %s: its folder: %v", row.ID, err), Err: err}
		}
		v.Config = f.Config
	}
	return v, nil
}

// RunDiff is `assay runs diff`: run B (the current run, the treatment)
// against run A (the baseline, the control).
type RunDiff struct {
	Baseline string `json:"baseline"`
	Current  string `json:"current"`
	// Comparison is Compare's, metric by metric; its Judged says when B
	// was judged otherwise than A (another model, other prompt versions).
	Comparison *run.Comparison `json:"comparison"`
	// Alerts are seed 002's alerts: any is a regression.
	Alerts []run.QualityAlert `json:"alerts"`
	AB     []ABRow            `json:"ab"`
	// Fingerprints, when both runs name the model builds that answered
	// them (OpenAI's system_fingerprint) and the sets differ, are A's and
	// B's; nil otherwise. A change of build is a change of the judge.
	Fingerprints *FingerprintChange `json:"fingerprints,omitempty"`

	base, cur *RunView
}

// ABRow is seed 002's A/B analysis of one metric with the paired test
// beside it. A change shown as +0.0% (under 0.05% either way, or none
// to measure) is never significant: Analysis.IsSignificant, the seed's
// sample-size rule, is false then, and so is Significant, the paired
// test's verdict (p < 0.05), which a few moved samples among many ties
// can give to a difference too small to show.
type ABRow struct {
	Metric      string             `json:"metric"`
	Analysis    run.ABTestAnalysis `json:"analysis"`
	Test        string             `json:"test,omitempty"`
	P           run.Num            `json:"p_value"`
	Significant bool               `json:"significant"`
}

// FingerprintChange is the model builds of two runs that were served by
// different ones: each a set as eval.MergeSet keeps it.
type FingerprintChange struct {
	Baseline string `json:"baseline"`
	Current  string `json:"current"`
}

// fingerprintChange is the change of model build from the run whose
// usage is a to the one whose usage is b: nil when the sets are the same
// or either run names none (a run before fingerprints were recorded, a
// server that sends none).
func fingerprintChange(a, b eval.Usage) *FingerprintChange {
	if a.Fingerprints == "" || b.Fingerprints == "" || a.Fingerprints == b.Fingerprints {
		return nil
	}
	return &FingerprintChange{Baseline: a.Fingerprints, Current: b.Fingerprints}
}

// MinABChange is the smallest relative change of an A/B row that can be
// significant: a change the row shows as +0.0% is none.
const MinABChange = 0.0005

// newABRow is the A/B row of metric, its seed analysis an and its paired
// test's p-value p.
func newABRow(metric string, an run.ABTestAnalysis, test string, p run.Num) ABRow {
	changed := math.Abs(an.QualityImprovement) >= MinABChange // false for NaN
	an.IsSignificant = an.IsSignificant && changed
	return ABRow{Metric: metric, Analysis: an, Test: test, P: p, Significant: changed && float64(p) < 0.05}
}

// Diff compares run b with run a (each a run folder, or a run id or
// the beginning of one in the run store): each metric's means and delta,
// the paired test, the samples that fell most, seed 002's alerts and A/B
// analysis, and how b was judged otherwise than a.
func (r Runs) Diff(ctx context.Context, a, b string) (*RunDiff, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	base, err := r.load(ctx, a, true)
	if err != nil {
		return nil, err
	}
	cur, err := r.load(ctx, b, true)
	if err != nil {
		return nil, err
	}
	c, alerts, p, err := run.ComparePaired(base.Dir, filepath.Join(cur.Dir, run.FileResults), cur.Summary, &cur.Config)
	if err != nil {
		return nil, eval.AsInputError("", err)
	}
	d := &RunDiff{Baseline: base.ID, Current: cur.ID, Comparison: c, Alerts: alerts, AB: []ABRow{}, base: base, cur: cur,
		Fingerprints: fingerprintChange(base.Summary.Usage, cur.Summary.Usage)}
	for _, m := range c.Metrics {
		d.AB = append(d.AB, newABRow(m.Metric, p.AB(m.Metric), m.Test, m.P))
	}
	return d, nil
}

// Trend is `assay runs trend`: a metric's mean in the runs of one
// dataset, oldest first. A point judged otherwise than the one before it
// says so (TrendPoint.Judged): its change is the judge's as well.
type Trend struct {
	Metric string       `json:"metric"`
	Points []TrendPoint `json:"points"`
	// Unreadable says of each run of the dataset the store holds but
	// cannot read back what is wrong with it: it is not a point.
	Unreadable []string `json:"unreadable,omitempty"`
}

// errorTexts is each error's text.
func errorTexts(errs []error) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

// Trend is metric's trend over the runs of one dataset: dataset is its
// file (hashed) or its sha256, or empty for the dataset of the last run
// that judged the metric.
func (r Runs) Trend(ctx context.Context, metric, dataset string) (*Trend, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	sha, err := datasetSHA(dataset)
	if err != nil {
		return nil, err
	}
	st, err := r.open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = st.Close() }() // read only
	pts, bad, err := st.Trend(ctx, metric, sha)
	if nf, ok := errors.AsType[*RunNotFoundError](err); ok {
		return nil, &eval.InputError{Msg: fmt.Sprintf("no recorded run judged %s (run store %s): see assay runs list", termtext.Visible(metric), nf.Path), Err: err}
	}
	if err != nil {
		return nil, err
	}
	if len(pts) == 0 {
		msg := fmt.Sprintf("no recorded run of dataset %s judged %s: see assay runs list", sha, termtext.Visible(metric))
		if len(bad) > 0 {
			msg += "; " + errors.Join(bad...).Error()
		}
		return nil, &eval.InputError{Msg: msg}
	}
	return &Trend{Metric: metric, Points: pts, Unreadable: errorTexts(bad)}, nil
}

// datasetSHA is the sha256 that a trend's dataset names: a file's,
// hashed, or the hash as given.
func datasetSHA(ds string) (string, error) {
	if ds == "" {
		return "", nil
	}
	sha, err := dataset.FileSHA256(ds)
	if errors.Is(err, os.ErrNotExist) {
		if len(ds) == 64 && strings.Trim(strings.ToLower(ds), "0123456789abcdef") == "" {
			return strings.ToLower(ds), nil
		}
		return "", &eval.InputError{Msg: fmt.Sprintf("--dataset %s: neither a file nor a sha256 (64 hex digits)", termtext.Visible(ds))}
	}
	if err != nil {
		return "", &eval.InputError{Field: "--dataset", Msg: err.Error(), Err: err}
	}
	return sha, nil
}

// shortDataset is a dataset as a table shows it: its file's name and the
// beginning of its hash.
func shortDataset(path, sha string) string {
	if len(sha) > 8 {
		sha = sha[:8]
	}
	return filepath.Base(path) + " (" + sha + ")"
}
