package run

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/atomicfile"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
)

// ErrExists is returned (wrapped) by Create for a folder that holds
// a run already. Test with errors.Is.
var ErrExists = errors.New("a run is already there")

// ErrNoRun is returned (wrapped) by Resume for a folder without a run
// to resume. Test with errors.Is.
var ErrNoRun = errors.New("no run to resume")

// NewID returns a run id that sorts by time, then four random hex
// digits so that runs started in the same second differ:
// "20261124T221500Z-3f9a".
func NewID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Run is an evaluation run's folder (`assay bench --out DIR`) open for
// writing: config.json written, results.jsonl open for appending. Its
// results are keyed by (sample, metric): Append writes each pair's line
// with one Write, so a run killed at any point (kill -9 included) leaves
// whole lines and at most one torn last line, which Resume drops.
//
// Append and Done are safe for concurrent use.
type Run struct {
	dir string
	cfg Config

	mu       sync.Mutex
	f        *os.File
	lock     *flock.Flock
	aside    int
	repeated int
	done     map[Key]struct{}
	stats    Stats
	defaults judging.Defaults
	// earlier are the results earlier attempts wrote, in file order, kept
	// of them as done. again maps the pair of each other one (a neutral
	// default or an error) to what it had spent, until this attempt writes
	// the pair anew; superseded sums what those written anew had spent.
	earlier    []Result
	lines      []int
	again      map[Key]eval.Usage
	tries      map[Key]int
	kept       int
	superseded eval.Usage
	// held are the results this attempt wrote, in the order of their
	// lines, while holding (see Bounded); written is the bytes it wrote.
	held    []Result
	holding bool
	written int64
	// synced is true when Sync synced results.jsonl and nothing was
	// appended since.
	synced bool
	// configSynced is true once config.json is synced to disk. Create
	// writes it without a sync, and Sync or Close syncs it with
	// results.jsonl: before then a result line is no more durable than
	// the configuration, and the run's first call need not wait for the
	// disk.
	configSynced bool
	// OnResult, when set before the run starts, is called with each result
	// appended, one at a time, after its line is written.
	OnResult func(Result)
}

// Create makes the folder dir (and its parents) for a new run of cfg:
// it writes config.json and an empty results.jsonl. A folder that holds a
// run already is refused (ErrExists), so that a run is never mixed into
// another: resume it with Resume, or choose another folder.
//
// The folder is locked while the Run is open (LockedError for a
// second writer); Close releases it.
func Create(dir string, cfg Config) (*Run, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("run folder %s: %w", dir, err)
	}
	lock, err := lockRun(dir)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{FileConfig, FileResults} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			_ = lock.Unlock()
			return nil, fmt.Errorf("%s: %w (%s): resume it with --resume, or choose another --out", dir, ErrExists, name)
		}
	}
	// Whole or not at all, synced with results.jsonl (configSynced).
	if err := atomicfile.WriteJSONView(filepath.Join(dir, FileConfig), cfg); err != nil {
		_ = lock.Unlock()
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, FileResults), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		_ = lock.Unlock()
		return nil, fmt.Errorf("run folder %s: %w", dir, err)
	}
	return &Run{dir: dir, cfg: cfg, f: f, lock: lock, done: map[Key]struct{}{}, again: map[Key]eval.Usage{}, holding: true}, nil
}

// Resume opens the unfinished run in dir to judge the pairs it lacks.
// cfg is the configuration asked for now: it must be the run's (the same
// dataset bytes, profile, metrics, model and settings), or the error is a
// *ConfigMismatchError naming each difference. The run keeps its id and
// start time (Config returns them). A torn last line of results.jsonl is
// cut off, so its pair is judged again; a whole result saved without its
// newline (by hand) is kept, and ended with one. Of the results before it, the
// final ones (Result.Final) count as done and enter the summary; a neutral
// default or an error (an outage, a budget that stopped calls) is judged
// again, and the line this attempt writes for its pair supersedes it
// wherever results.jsonl is read. Until then it counts as it was, so a
// resume cut short loses nothing. Kept says how many are which.
//
// Whole lines in the middle of results.jsonl that are not result lines
// (another writer tore them) are set aside in FileBad, their pairs judged
// again (SetAside says how many), and so are the lines of a pair after
// its final result, which the run never writes (a line copied or edited
// in), the pair keeping that result (Repeated says how many); temporary files an attempt killed
// between write and rename left are removed. The folder is locked while
// the Run is open (LockedError for a second writer). A lock file,
// results.jsonl or results.bad.jsonl that is there and not a plain file
// (a symbolic link) is refused as bad input before anything is written.
func Resume(dir string, cfg Config) (run *Run, err error) {
	path := filepath.Join(dir, FileConfig)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (no %s): start it without --resume", dir, ErrNoRun, FileConfig)
	}
	if err != nil {
		return nil, fmt.Errorf("run folder %s: %w", dir, err)
	}
	var was Config
	if err := json.Unmarshal(data, &was); err != nil {
		ie := fileJSONError(path, data, err)
		ie.Msg += " If not, start a new run in another --out."
		return nil, ie
	}
	if diffs := DiffConfig(was, cfg); len(diffs) > 0 {
		return nil, &ConfigMismatchError{Dir: dir, Diffs: diffs}
	}
	cfg.RunID, cfg.Started, cfg.Judges = was.RunID, was.Started, was.Judges
	lock, err := lockRun(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = lock.Unlock()
		}
	}()
	removeStale(dir)
	results := filepath.Join(dir, FileResults)
	for _, path := range []string{results, filepath.Join(dir, FileBad)} {
		if err := plainOrAbsent(path); err != nil {
			return nil, err
		}
	}
	aside, repeated := 0, 0
	if _, serr := os.Stat(results); serr == nil {
		if aside, repeated, err = setAside(results); err != nil {
			return nil, fmt.Errorf("%s: setting aside unreadable lines: %w", results, err)
		}
	}
	rf, err := ReadResults(results)
	if err != nil {
		return nil, err
	}
	// Appending resumes after the last whole line: the torn last line is
	// cut off, and every write appends (O_APPEND), never at an offset.
	if err := os.Truncate(rf.Path, rf.Size); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: cutting off the torn last line: %w", rf.Path, err)
	}
	f, err := os.OpenFile(rf.Path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run folder %s: %w", dir, err)
	}
	if rf.Unterminated { // a whole last line saved by hand without its newline is ended, not cut off
		if _, err := f.Write([]byte{'\n'}); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("%s: ending its last line: %w", rf.Path, err)
		}
	}
	r := &Run{dir: dir, cfg: cfg, f: f, lock: lock, aside: aside, repeated: repeated, done: make(map[Key]struct{}, len(rf.Results)), again: map[Key]eval.Usage{}, earlier: rf.Results,
		lines: rf.lines, superseded: rf.Superseded, tries: map[Key]int{}}
	for res := range rf.All() {
		if !res.Final() {
			r.again[res.Key()] = Spent(res.Usage)
			r.tries[res.Key()] = 1 + rf.replaced[res.Key()]
			continue
		}
		r.done[res.Key()] = struct{}{}
		r.kept++
		r.count(res)
	}
	return r, nil
}

// ConfigDiff is one setting in which a run asked for differs from the run
// to resume.
type ConfigDiff struct {
	Field    string
	Was, Now string
}

// ConfigMismatchError refuses to resume a run with another dataset or
// another configuration.
type ConfigMismatchError struct {
	Dir   string
	Diffs []ConfigDiff
}

func (e *ConfigMismatchError) Error() string {
	parts := make([]string, len(e.Diffs))
	for i, d := range e.Diffs {
		parts[i] = fmt.Sprintf("%s was %s, now %s", d.Field, d.Was, d.Now)
	}
	return fmt.Sprintf("cannot resume the run in %s with another dataset or configuration: %s; resume it as it was started, or start a new run in another --out",
		e.Dir, strings.Join(parts, "; "))
}

// DiffConfig lists what differs between two runs' configurations in what
// changes results: the dataset's bytes, the profile, the metrics, the
// model, the prompt versions, the settings and the prices of the models
// (when both runs kept them). The run id, start time,
// command line, version and the dataset's path may differ (a resume is
// another command, perhaps from a later build or another folder).
func DiffConfig(was, now Config) []ConfigDiff {
	var out []ConfigDiff
	add := func(field, a, b string) {
		if a != b {
			out = append(out, ConfigDiff{Field: field, Was: quoteOrNone(a), Now: quoteOrNone(b)})
		}
	}
	add("dataset sha256", was.DatasetSHA256, now.DatasetSHA256)
	add("profile", was.Profile, now.Profile)
	add("metrics", strings.Join(was.Metrics, ","), strings.Join(now.Metrics, ","))
	add("model", was.Model, now.Model)
	for _, k := range slices.Sorted(maps.Keys(union(was.Prompts, now.Prompts))) {
		add("prompt "+k, was.Prompts[k], now.Prompts[k])
	}
	for _, k := range slices.Sorted(maps.Keys(union(was.Settings, now.Settings))) {
		add(k, was.Settings[k], now.Settings[k])
	}
	if was.Prices != nil && now.Prices != nil { // a run written before prices were kept resumes at any
		for _, k := range slices.Sorted(maps.Keys(union(was.Prices, now.Prices))) {
			add("price of "+k, was.Prices[k], now.Prices[k])
		}
	}
	return out
}

func union(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}

func quoteOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", s)
}

// Dir is the run's folder.
func (r *Run) Dir() string { return r.dir }

// Config is the run's configuration (a resumed run's id and start time).
func (r *Run) Config() Config { return r.cfg }

// Resumed is how many results earlier attempts of the run had written
// (one per pair): the kept and the judged again (see Kept).
func (r *Run) Resumed() int { return len(r.earlier) }

// Kept is how many results of earlier attempts the run keeps as done, and
// how many more (neutral defaults and errors) it judges again; both 0 for
// a new run.
func (r *Run) Kept() (kept, again int) { return r.kept, len(r.earlier) - r.kept }

// Earlier yields the results of earlier attempts the run keeps (see
// Kept), in file order, for checks over the whole run (a floor gate);
// none for a new run. Those it judges again come through Append.
func (r *Run) Earlier() iter.Seq[Result] {
	return func(yield func(Result) bool) {
		for _, res := range r.earlier {
			if res.Final() && !yield(res) {
				return
			}
		}
	}
}

// CheckPairs refuses the results of earlier attempts whose pair is not
// one of pairs (the dataset's records by the run's metrics): a line
// edited by hand or brought from another run, whose sample the dataset
// lacks or whose metric the run does not judge. Counted, it would enter
// the figures as a sample of its own and leave the run never complete.
// The error is an *eval.InputError naming results.jsonl, the first such
// line and its field, and how many there are. Nothing is read or held
// beyond the earlier results, which the Run holds already.
func (r *Run) CheckPairs(pairs iter.Seq[Key]) error {
	if len(r.earlier) == 0 {
		return nil
	}
	left := make(map[Key]int, len(r.earlier))
	unseen := map[string]struct{}{}
	for i, res := range r.earlier {
		left[res.Key()] = i
		unseen[res.ID] = struct{}{}
	}
	for k := range pairs {
		delete(left, k)
		delete(unseen, k.ID)
	}
	if len(left) == 0 {
		return nil
	}
	first := -1
	for _, i := range left {
		if first < 0 || r.lines[i] < r.lines[first] {
			first = i
		}
	}
	res := r.earlier[first]
	field, msg := "metric", fmt.Sprintf("metric %q is not one of the run's (%s)", res.Metric, strings.Join(r.cfg.Metrics, ", "))
	if _, ok := unseen[res.ID]; ok {
		field, msg = "id", fmt.Sprintf("sample %q is not a record of the dataset", res.ID)
	}
	if more := len(left) - 1; more > 0 {
		msg += fmt.Sprintf(" (nor are %d more result line(s))", more)
	}
	return &eval.InputError{File: filepath.Join(r.dir, FileResults), Line: r.lines[first], Field: field,
		Msg: msg + ": a line edited by hand or from another run; remove it, or start a new run in another --out"}
}

// Tries is how many lines of results.jsonl an earlier attempt wrote for
// a pair it left defaulted or failed (the pair is judged again); 0 for a
// pair it did not write, or wrote final.
func (r *Run) Tries(k Key) int { return r.tries[k] }

// Done reports whether an earlier attempt of the run wrote the pair's
// final result (see Append and Kept).
func (r *Run) Done(k Key) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.done[k]
	return ok
}

// Append writes res as one line of results.jsonl, in one Write, and
// counts it. A pair whose final result an earlier attempt wrote is an
// error: a run holds each once. A pair an earlier attempt left defaulted or
// failed is written again, and the new line supersedes the old one.
// (The caller writes each pair of this attempt once, as Evaluate does.)
func (r *Run) Append(res Result) error {
	enc := lineEncoders.Get().(*lineEncoder)
	defer enc.release()
	enc.buf.Reset()
	// Encode writes what json.Marshal gives, and the newline.
	if err := enc.enc.Encode(res); err != nil {
		return fmt.Errorf("result %s %s: %w", res.ID, res.Metric, err)
	}
	line := enc.buf.Bytes()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.done[res.Key()]; ok {
		return fmt.Errorf("result %s %s: written already (a run holds each (sample, metric) once)", res.ID, res.Metric)
	}
	if _, err := r.f.Write(line); err != nil {
		return fmt.Errorf("%s: %w", r.f.Name(), err)
	}
	r.written += int64(len(line))
	r.synced = false
	if u, ok := r.again[res.Key()]; ok {
		delete(r.again, res.Key())
		r.superseded = r.superseded.Add(u)
	}
	// The pairs of this attempt are not kept past MaxHeld (see hold): a
	// dataset's ids are unique and Evaluate runs each metric once a
	// record, so memory stays flat in the dataset's size; only an earlier
	// attempt's pairs are held.
	if r.holding {
		r.hold(res, line)
	}
	r.count(res)
	if r.OnResult != nil {
		r.OnResult(res)
	}
	return nil
}

// lineEncoder is a buffer Append encodes a line of results.jsonl in,
// kept from one line to the next (lineEncoders): a line is written
// (and, while the run holds its results, read) before Append returns, so
// its bytes need no copy of their own.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var lineEncoders = sync.Pool{New: func() any {
	e := &lineEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

// maxPooledLine is the largest buffer kept for the next line: one grown
// by a rare long line (a judge's whole evidence) is left to the
// collector rather than held for the run's life.
const maxPooledLine = 64 << 10

// release gives e back to lineEncoders, unless a long line grew it.
func (e *lineEncoder) release() {
	if e.buf.Cap() <= maxPooledLine {
		lineEncoders.Put(e)
	}
}

func (r *Run) count(res Result) {
	r.stats.Add(res)
	r.defaults.Add(scoreOf(res))
}

// scoreOf is what Defaults counts of a result.
func scoreOf(res Result) eval.Score {
	sc := eval.Score{Metric: res.Metric, Defaulted: res.Defaulted}
	if res.Error != "" {
		err := errors.New(res.Error)
		switch {
		case res.cause != nil:
			err = resultErr{text: res.Error, err: res.cause}
		case res.FailedChecker != "":
			err = resultErr{text: res.Error, err: &judges.CheckerError{Checker: res.FailedChecker, Err: err}}
		}
		sc.Err = fmt.Errorf("record %s: %s: %w", res.ID, res.Metric, err)
	}
	return sc
}

// resultErr is a result's error text with what caused it: the error it
// was written from (judged in this process), or a fact checker's failed
// check (read back); it reads as written and unwraps to the cause.
type resultErr struct {
	text string
	err  error
}

func (e resultErr) Error() string { return e.text }
func (e resultErr) Unwrap() error { return e.err }

// pending yields the results of earlier attempts to judge again that this
// attempt has not written anew: they count as they were.
func (r *Run) pending() iter.Seq[Result] {
	return func(yield func(Result) bool) {
		if len(r.again) == 0 {
			return
		}
		for _, res := range r.earlier {
			if _, ok := r.again[res.Key()]; ok && !yield(res) {
				return
			}
		}
	}
}

// Defaults counts the run's neutral defaults, earlier attempts included
// (a default judged again counts once, as judged last).
func (r *Run) Defaults() judging.Defaults {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.defaults
	for res := range r.pending() {
		d.Add(scoreOf(res))
	}
	return d
}

// Summary is the run's summary.json as of now, over the last result of
// every pair written (earlier attempts included), for a dataset of samples
// records, its metrics in the order of the run's config. Complete says
// whether every (sample, metric) pair has its result. threshold, when not
// nil, gives each metric's pass threshold (0.5 otherwise). Usage is what
// every attempt spent, the results judged again included.
func (r *Run) Summary(samples int, finished time.Time, threshold func(string) float64) Summary {
	// The figures are computed from a copy, outside the lock: a bootstrap
	// interval a metric takes a while, and neither Sync nor an append
	// waits for it.
	r.mu.Lock()
	st := r.stats.clone()
	if len(r.again) > 0 {
		for res := range r.pending() {
			st.Add(res)
		}
	}
	cfg, usage := r.cfg, r.superseded.Add(r.cfg.StepsUsage)
	r.mu.Unlock()
	st.Threshold = threshold
	ms := st.Metrics(cfg.Metrics...)
	s := Summary{RunID: cfg.RunID, Started: cfg.Started, Finished: finished, Samples: samples, Metrics: ms, Complete: true, Usage: usage}
	for _, m := range ms {
		s.Usage = s.Usage.Add(m.usage())
		if m.N != samples {
			s.Complete = false
		}
		s.Undelivered += m.Undelivered
	}
	return s
}

// Spent is what the run's attempts have paid so far, as summary.json's
// usage counts it: every result written, those judged again included, and
// the evaluation steps its judges wrote.
func (r *Run) Spent() eval.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.superseded.Add(r.cfg.StepsUsage)
	for _, m := range r.stats.by {
		u = u.Add(eval.Usage{Calls: m.calls, TokensIn: m.tokensIn, TokensOut: m.tokensOut, CostUSD: m.cost, CostUnknown: m.costUnknown})
	}
	for res := range r.pending() {
		u = u.Add(res.Usage)
	}
	return u
}

// WriteSummary writes s as the run's summary.json, replacing any earlier
// one whole (a new file renamed over it).
func (r *Run) WriteSummary(s Summary) error {
	return atomicfile.WriteJSON(filepath.Join(r.dir, FileSummary), s)
}

// Sync syncs results.jsonl to disk now: a run that appends no more
// syncs it while it writes its other files, and Close then has nothing
// left to sync. The lock is not held while the disk syncs: Summary and
// Bounded go on meanwhile.
func (r *Run) Sync() error {
	r.mu.Lock()
	f, size, config := r.f, r.written, r.configSynced
	r.mu.Unlock()
	if f == nil {
		return nil
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", f.Name(), err)
	}
	if !config {
		if err := syncFile(filepath.Join(r.dir, FileConfig)); err != nil {
			return fmt.Errorf("run folder %s: %w", r.dir, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.configSynced = true
	if r.f == f && r.written == size {
		r.synced = true // nothing was appended while it synced
	}
	return nil
}

// syncConfig syncs config.json to disk, once.
func (r *Run) syncConfig() error {
	if r.configSynced {
		return nil
	}
	if err := syncFile(filepath.Join(r.dir, FileConfig)); err != nil {
		return fmt.Errorf("run folder %s: %w", r.dir, err)
	}
	r.configSynced = true
	return nil
}

// syncFile syncs the file at path to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	_ = f.Close() // opened to sync; nothing written through it
	return err
}

// Close closes results.jsonl.
//
// The file is synced to disk first (unless Sync synced it since the last
// line), and the folder's lock released, so a crash after Close loses no
// result. Close may be called more than once.
func (r *Run) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	var err error
	if !r.synced {
		err = r.f.Sync()
	}
	err = errors.Join(err, r.syncConfig(), r.f.Close())
	r.f = nil
	if r.lock != nil {
		err = errors.Join(err, r.lock.Unlock())
		r.lock = nil
	}
	return err
}

// SetAside is how many unreadable lines of results.jsonl the resume set
// aside in FileBad (their pairs are judged again).
func (r *Run) SetAside() int { return r.aside }

// Repeated is how many lines of results.jsonl the resume set aside in
// FileBad because an earlier line held their pair's final result (a line
// copied or edited in): those pairs keep the earlier result.
func (r *Run) Repeated() int { return r.repeated }

// AppendNew appends the results whose pairs the run lacks, and says how
// many it wrote.
func (r *Run) AppendNew(results []Result) (int, error) {
	written := 0
	for _, res := range results {
		if r.Done(res.Key()) {
			continue
		}
		if err := r.Append(res); err != nil {
			return written, err
		}
		written++
	}
	return written, nil
}

// SetJudges keeps recs, the steps the run's judges follow, in its
// config.json, and adds used, what writing them spent, to the run's
// Config.StepsUsage.
func (r *Run) SetJudges(recs []judges.StepsRecord, used eval.Usage) error {
	r.mu.Lock()
	r.cfg.Judges, r.cfg.StepsUsage = recs, r.cfg.StepsUsage.Add(used)
	cfg := r.cfg
	r.mu.Unlock()
	return atomicfile.WriteJSON(filepath.Join(r.dir, FileConfig), cfg)
}
