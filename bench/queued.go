package bench

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/loopback"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/backend"
	"github.com/assaylabs/assay/llm/setup"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

// Queue says how a run's work items, one per (sample, unit) pair (a
// unit is one metric, or a profile's card), go through NATS JetStream
// instead of being judged by this process alone. The zero value is off.
type Queue struct {
	// Workers judge the tasks in this process (--workers N), with the
	// run's model client; remote workers (`assay worker`) may join them.
	Workers int
	// Cluster, when set, is the HOST:PORT the embedded NATS server
	// listens on for remote workers (--cluster; 127.0.0.1:4222 by
	// default). A server that listens beyond this machine needs Token.
	Cluster string
	// URL is an existing NATS server or cluster (--queue nats://HOST:4222)
	// to use instead of the embedded one.
	URL string
	// Token is the NATS token workers and coordinator give (--token).
	Token string
	// MaxDeliver bounds a task's deliveries (0: 5); then its pair is
	// recorded as undelivered, a neutral default that fails the run.
	MaxDeliver int
	// AckWait is how long a task goes without word from a worker before
	// it goes to another; 0 is a quarter over the model call timeout.
	AckWait time.Duration
	// StallTimeout ends a run that gets no reply for this long
	// (--stall-timeout): it exits 3 as an interrupted run, saying what
	// is missing, what the queue holds and the command that resumes it
	// (StalledError). 0 waits for ever.
	StallTimeout time.Duration
	// After is the stall bound's timer; nil is time.After. A test's own
	// fires when the test says.
	After func(time.Duration) <-chan time.Time
}

// DefaultClusterAddr is where --cluster listens when given no address.
const DefaultClusterAddr = "127.0.0.1:4222"

// On reports whether the run goes through a queue.
func (q Queue) On() bool { return q.Workers > 0 || q.Cluster != "" || q.URL != "" }

// check checks the settings before anything is read.
func (q Queue) check() error {
	switch {
	case q.Workers < 0:
		return eval.FlagError("--workers", "want 0 or more in-process workers, got %d", q.Workers)
	case q.Cluster != "" && q.URL != "":
		return eval.FlagError("--cluster", "embeds a NATS server, --queue uses another: give one")
	case q.MaxDeliver < 0:
		return eval.FlagError("--max-deliver", "want 1 or more, got %d", q.MaxDeliver)
	case q.StallTimeout < 0:
		return eval.FlagError("--stall-timeout", "want 0 (wait for ever) or a positive duration such as 5m, got %v", q.StallTimeout)
	case q.URL != "" && !strings.HasPrefix(q.URL, "nats://") && !strings.HasPrefix(q.URL, "tls://"):
		return eval.FlagError("--queue", "want a NATS URL such as nats://HOST:4222, got %q", q.URL)
	}
	if q.Cluster != "" {
		host, _, err := net.SplitHostPort(q.Cluster)
		if err != nil {
			return eval.FlagError("--cluster", "want HOST:PORT (%s), got %q", DefaultClusterAddr, q.Cluster)
		}
		if !loopback.Is(host) && q.Token == "" {
			return eval.FlagError("--token", "--cluster %s takes workers from other machines: give a --token they must present", q.Cluster)
		}
	}
	return nil
}

// FileNATS is the folder of a run's embedded NATS server's store.
const FileNATS = "nats"

// taskBody is a task's message: the unit of the run's plan to judge the
// sample with, the unit's metrics and the judges' version, which the
// worker checks against its own plan.
type taskBody struct {
	Unit    int         `json:"unit"`
	Metrics []string    `json:"metrics"`
	Version string      `json:"version"`
	Sample  eval.Sample `json:"sample"`
	// Tag, when set, is the publisher's (a service's) data about the
	// task, returned with its results (TaggedResults).
	Tag json.RawMessage `json:"tag,omitempty"`
}

// TaskID is the id of the task judging sample with metrics in run, by
// judges of version, tries being how often results.jsonl has judged the
// pair already (Run.Tries): the message id that drops a second publish
// of it, and its reply's key.
func TaskID(folder, sample string, metrics []string, version string, tries int) string {
	h := sha256.New()
	for _, s := range []string{folder, sample, strings.Join(metrics, ","), version, strconv.Itoa(tries)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// JudgeVersion is the version of what judges a run: its model, prompt
// versions and the settings that change a judgement (not --strict or
// --max-default-rate, which judge the run).
func JudgeVersion(cfg run.Config) string {
	h := sha256.New()
	fmt.Fprintf(h, "model=%s\n", cfg.Model)
	for _, k := range slices.Sorted(maps.Keys(cfg.Prompts)) {
		fmt.Fprintf(h, "prompt %s=%s\n", k, cfg.Prompts[k])
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Settings)) {
		if k == "--strict" || k == "--max-default-rate" {
			continue
		}
		fmt.Fprintf(h, "%s=%s\n", k, cfg.Settings[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// queued is a task the coordinator waits for.
type queued struct {
	rec  string
	unit int
}

// evaluateQueued judges the pairs run lacks through the queue q: it
// publishes a task per (record, unit) pair not replied to yet, starts
// q.Workers in-process workers, and appends each reply to results.jsonl
// as it is stored, the only writer of it, until every task has its reply
// (or ctx is done). onRecord is called as each record's last reply is
// appended.
func evaluateQueued(ctx context.Context, job Job, s *judging.Session, folder *run.Run, records iter.Seq2[dataset.Record, error], units []Unit, onRecord func(), undelivered func(run.Result)) error {
	q := job.Queue
	cfg := folder.Config()
	var nc *nats.Conn
	var err error
	if q.URL != "" {
		if nc, err = queue.Dial(q.URL, q.Token, "assay bench "+cfg.RunID); err != nil {
			return err
		}
	} else {
		srv, err := queue.StartServer(queue.ServerConfig{StoreDir: filepath.Join(folder.Dir(), FileNATS), Listen: q.Cluster, Token: q.Token})
		if err != nil {
			return err
		}
		defer srv.Close()
		if nc, err = srv.Connect("assay bench " + cfg.RunID); err != nil {
			return err
		}
		if u := srv.URL(); u != "" {
			tok := ""
			if q.Token != "" {
				tok = " --token " + q.Token
			}
			llmSpec := s.Judge()
			if spec, err := backend.Resolve(job.Judging.LLM.Spec, job.Env); err == nil && job.Judging.Model == nil {
				llmSpec = spec.Name()
			}
			fmt.Fprintf(job.Log, "bench: NATS listening on %s; on each machine with a model, run: assay worker %s%s --llm %s\n", u, u, tok, llmSpec)
		}
	}
	defer nc.Close()
	conn, err := queue.Open(ctx, nc, queue.Options{})
	if err != nil {
		return err
	}
	spec, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	if err := conn.PutSpec(ctx, cfg.RunID, spec); err != nil {
		return err
	}
	pending, left, err := publishTasks(ctx, conn, folder, records, units)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return nil
	}
	workers, closeWorkers, err := inProcessWorkers(job, s, conn)
	if err != nil {
		return err
	}
	defer closeWorkers() // after they stopped: wg.Wait, deferred later, runs first
	wctx, stop := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop(nil)
	wg.Go(func() {
		if err := conn.RecordUndelivered(wctx, cfg.RunID); err != nil {
			stop(err)
		}
	})
	for _, wcfg := range workers {
		wg.Go(func() {
			if err := conn.Work(wctx, wcfg); err != nil {
				stop(fmt.Errorf("in-process worker: %w", err))
			}
		})
	}
	replies, err := conn.Watch(wctx, cfg.RunID)
	if err != nil {
		return err
	}
	stalled := q.stallTimer()
	for len(pending) > 0 {
		var r queue.Reply
		select {
		case <-wctx.Done():
			if err := context.Cause(wctx); ctx.Err() == nil && err != nil {
				return err
			}
			return nil // interrupted: the run says so, and a resume goes on
		case <-stalled:
			return stallError(ctx, q, conn, folder, pending, units, len(left))
		case r = <-replies:
		}
		t, ok := pending[r.Task]
		if !ok {
			continue // an earlier attempt's, in results.jsonl already
		}
		delete(pending, r.Task)
		stalled = q.stallTimer()
		results := replyResults(r, t, units[t.unit])
		if _, err := folder.AppendNew(results); err != nil {
			return err
		}
		for _, res := range results {
			if res.Undelivered > 0 {
				undelivered(res)
			}
		}
		if left[t.rec]--; left[t.rec] == 0 {
			delete(left, t.rec)
			onRecord()
		}
	}
	return nil
}

// stallTimer fires when a run has waited q.StallTimeout for its next
// reply; nil (never) without a bound.
func (q Queue) stallTimer() <-chan time.Time {
	if q.StallTimeout <= 0 {
		return nil
	}
	if q.After != nil {
		return q.After(q.StallTimeout)
	}
	return time.After(q.StallTimeout)
}

// StalledError is a queued run that got no reply for Queue.StallTimeout
// (--stall-timeout): what it lacks, what the queue held then, and the
// command that resumes it. The run ends as an interrupted one (exit 3),
// its results so far summarized.
type StalledError struct {
	Timeout time.Duration
	// Tasks, Pairs and Records have no reply yet.
	Tasks, Pairs, Records int
	// Backlog is the queue's state then; nil when it could not be read.
	Backlog *queue.Backlog
	// Resume is the command that resumes the run.
	Resume string
}

func (e *StalledError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no reply from the queue's workers for %v (--stall-timeout): %d task(s) without one, %d pair(s) of %d record(s)",
		e.Timeout, e.Tasks, e.Pairs, e.Records)
	if bl := e.Backlog; bl != nil {
		fmt.Fprintf(&b, "; the queue holds %d task(s) no worker has taken and %d in workers' hands, %d worker fetch(es) waiting", bl.Waiting, bl.InHand, bl.Idle)
		if !bl.Joined {
			b.WriteString("; no worker has ever joined the queue: start one (assay worker NATS_URL)")
		} else if bl.InHand == 0 && bl.Idle == 0 {
			b.WriteString("; no worker is taking tasks now: are the workers running, and their model servers up?")
		}
	}
	fmt.Fprintf(&b, "; resume with: %s", e.Resume)
	return b.String()
}

// stallError is the StalledError of a run that waits for pending.
func stallError(ctx context.Context, q Queue, conn *queue.Conn, folder *run.Run, pending map[string]queued, units []Unit, records int) error {
	e := &StalledError{Timeout: q.StallTimeout, Tasks: len(pending), Records: records, Resume: ResumeCommand(folder.Config().Command, folder.Dir())}
	for _, t := range pending {
		e.Pairs += len(units[t.unit].Metrics)
	}
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if bl, err := conn.Backlog(bctx); err == nil {
		e.Backlog = &bl
	}
	return e
}

// ResumeCommand is the command that resumes the run in dir started by
// command (its arguments, config.json's command): the same, with
// --resume --out DIR in place of any --resume or --out, quoted for a
// POSIX shell. Without a command it names the flags to add.
func ResumeCommand(command []string, dir string) string {
	if len(command) == 0 {
		return "assay bench --resume --out " + shellQuote(dir) + " with the run's DATA and flags"
	}
	args := []string{shellQuote(command[0])}
	for i := 1; i < len(command); i++ {
		a := command[i]
		switch {
		case a == "--resume" || strings.HasPrefix(a, "--resume=") || strings.HasPrefix(a, "--out="):
			continue
		case a == "--out":
			i++ // and its value
			continue
		}
		args = append(args, shellQuote(a))
	}
	return strings.Join(append(args, "--resume", "--out", shellQuote(dir)), " ")
}

// shellQuote is a as one word of a POSIX shell: as it is when it holds
// nothing the shell reads, else in single quotes.
func shellQuote(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,@%+") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// inProcessWorkers are the settings of job's in-process workers
// (--workers), each with a model client of its own and so its own
// --concurrency, as a remote worker has; they share the run's budget.
// closeAll closes their clients once they stopped.
func inProcessWorkers(job Job, s *judging.Session, conn *queue.Conn) (cfgs []queue.WorkerConfig, closeAll func(), err error) {
	j := job.Judging
	j.LLM.Budget = s.Client().Budget()
	var open []*sessions
	closeAll = func() {
		for _, ss := range open {
			ss.close()
		}
	}
	for range job.Queue.Workers {
		ss, err := openSessions(j, job.Log, job.Env)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		open = append(open, ss)
		w := &worker{conn: conn, reg: job.Registry, session: ss.open, runs: map[string]*workerRun{}}
		cfg := job.Queue.workerConfig(Endpoint(ss.base, j, job.Env), ss.base.Limit(), j, w.handle)
		cfg.Log, cfg.Probe = job.Log, probe(j, job.Env)
		cfgs = append(cfgs, cfg)
	}
	return cfgs, closeAll, nil
}

// workerConfig is the queue's settings of a worker of endpoint doing
// concurrency tasks at once with handle.
func (q Queue) workerConfig(endpoint string, concurrency int, j judging.Config, handle queue.Handler) queue.WorkerConfig {
	wait := q.AckWait
	if wait == 0 {
		wait = cmp.Or(j.LLM.CallTimeout, setup.DefaultConfig().CallTimeout) * 5 / 4
	}
	return queue.WorkerConfig{Endpoint: endpoint, Concurrency: concurrency, AckWait: wait, MaxDeliver: q.MaxDeliver, Handle: handle}
}

// publishTasks publishes a task for each (record, unit) pair run lacks
// whose reply is not stored yet, and returns every such task (stored or
// not) by id, with how many each record has.
func publishTasks(ctx context.Context, conn *queue.Conn, folder *run.Run, records iter.Seq2[dataset.Record, error], units []Unit) (map[string]queued, map[string]int, error) {
	cfg := folder.Config()
	version := JudgeVersion(cfg)
	replied, err := conn.Replied(ctx, cfg.RunID)
	if err != nil {
		return nil, nil, err
	}
	pending, left := map[string]queued{}, map[string]int{}
	var ids []string
	var bodies [][]byte
	flush := func() error {
		err := conn.Publish(ctx, cfg.RunID, ids, bodies)
		ids, bodies = ids[:0], bodies[:0]
		return err
	}
	for rec, err := range records {
		if err != nil {
			return nil, nil, err
		}
		for i, u := range units {
			tries := -1
			for _, m := range u.Metrics {
				if !folder.Done(run.Key{ID: rec.ID, Metric: m}) {
					tries = max(tries, folder.Tries(run.Key{ID: rec.ID, Metric: m}))
				}
			}
			if tries < 0 {
				continue // every metric of the unit is done
			}
			id := TaskID(cfg.RunID, rec.ID, u.Metrics, version, tries)
			pending[id] = queued{rec: rec.ID, unit: i}
			left[rec.ID]++
			if replied[id] {
				continue
			}
			b, err := json.Marshal(taskBody{Unit: i, Metrics: u.Metrics, Version: version, Sample: rec.Sample})
			if err != nil {
				return nil, nil, fmt.Errorf("record %s (line %d): %w", rec.ID, rec.Line, err)
			}
			ids, bodies = append(ids, id), append(bodies, b)
			if len(ids) == 512 {
				if err := flush(); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, nil, err
	}
	return pending, left, nil
}

// replyResults are the results reply r brings for task t of unit u: a
// worker's, checked to be the unit's on t's sample, or neutral defaults
// saying why there are none (its deliveries ran out, or the reply was
// not one).
func replyResults(r queue.Reply, t queued, u Unit) []run.Result {
	var results []run.Result
	why := r.Err
	if r.Undelivered == 0 {
		err := json.Unmarshal(r.Results, &results)
		switch {
		case err != nil:
			why = "a worker's reply did not read: " + err.Error()
		case !slices.EqualFunc(results, u.Metrics, func(res run.Result, m string) bool { return res.ID == t.rec && res.Metric == m }):
			why = fmt.Sprintf("a worker's reply is not the results of %s on sample %s", strings.Join(u.Metrics, ", "), t.rec)
		default:
			return results
		}
	}
	out := make([]run.Result, len(u.Metrics))
	for i, m := range u.Metrics {
		out[i] = run.Result{ID: t.rec, Metric: m, Value: 0.5, Method: "queue", Defaulted: true, Undelivered: max(r.Undelivered, 1),
			Reason: "not judged: the queue gave up on its task", Error: eval.Clip("undelivered: "+why, eval.MaxText)}
	}
	return out
}

// Endpoint names the model endpoint a session calls, for what a worker
// logs: its judge and the server's URL. Workers of every endpoint share
// the queue's consumer; whether a worker may judge a run is decided by its
// judges (model name, prompt versions, settings: JudgeVersion), not by
// the URL, so two model servers of the same model both serve one run.
func Endpoint(s *judging.Session, j judging.Config, env func(string) string) string {
	if j.Model == nil {
		if spec, err := backend.Resolve(j.LLM.Spec, env); err == nil && spec.BaseURL != "" {
			return s.Judge() + " at " + spec.BaseURL
		}
	}
	return s.Judge()
}

// worker judges a queue's tasks: it rebuilds each run's plan from the
// run's configuration with its own model session, checks that its judges
// are the run's, and judges each task's sample with its unit (judgeUnit,
// as an in-process run does).
type worker struct {
	conn *queue.Conn
	reg  *metric.Registry
	// session is the worker's model session asking each judgement k
	// times (--samples).
	session func(k int) (*judging.Session, error)

	mu   sync.Mutex
	runs map[string]*workerRun
}

// workerRun is a run's plan as a worker built it, or why it could not.
type workerRun struct {
	units   []Unit
	version string
	err     error
}

func (w *worker) handle(ctx context.Context, t queue.Task) ([]byte, error) {
	wr, err := w.run(ctx, t.Run)
	if err != nil {
		return nil, err
	}
	var b taskBody
	if err := json.Unmarshal(t.Body, &b); err != nil {
		return nil, fmt.Errorf("task %s of run %s: not a task: %w", t.ID, t.Run, err)
	}
	if b.Version != wr.version {
		return nil, fmt.Errorf("task %s of run %s: its judges are version %s, this worker's %s: %w", t.ID, t.Run, b.Version, wr.version, queue.ErrRefused)
	}
	if b.Unit < 0 || b.Unit >= len(wr.units) || !slices.Equal(wr.units[b.Unit].Metrics, b.Metrics) {
		return nil, fmt.Errorf("task %s of run %s: this worker's plan has no unit %d of %s: %w", t.ID, t.Run, b.Unit, strings.Join(b.Metrics, ","), queue.ErrRefused)
	}
	results, err := judgeUnit(ctx, wr.units[b.Unit], b.Sample, func(scores []eval.Score) error {
		if err := unreachable(scores); err != nil {
			return fmt.Errorf("%w: %w", queue.ErrUnavailable, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(b.Tag) > 0 {
		return json.Marshal(TaggedResults{Tag: b.Tag, Results: results})
	}
	return json.Marshal(results)
}

// unreachable is the error of the first of scores that fell back to the
// neutral default because the model server gave no answer
// (llm.IsUnreachable), or nil: such a task goes back to the queue for a
// worker whose server answers, rather than count a default that is no
// judge's.
func unreachable(scores []eval.Score) error {
	for _, sc := range scores {
		if sc.Defaulted && llm.IsUnreachable(sc.Err) {
			return fmt.Errorf("%s: %w", sc.Metric, sc.Err)
		}
	}
	return nil
}

// probe is a worker's probe of its model server once a task found it
// unreachable: a GET of the OpenAI-compatible API root's /models, for
// which any HTTP answer, even a refusal, says the server is there again.
// It is nil for a model with no such root (a test's own, another
// provider): the worker then waits its backoff and tries a task.
func probe(j judging.Config, env func(string) string) func(context.Context) error {
	if j.Model != nil {
		return nil
	}
	spec, err := backend.Resolve(j.LLM.Spec, env)
	if err != nil || spec.BaseURL == "" {
		return nil
	}
	url := spec.BaseURL + "/models"
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close() // the answer is all a probe needs
		return nil
	}
}

// run is run's plan, built once.
func (w *worker) run(ctx context.Context, folder string) (*workerRun, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wr, ok := w.runs[folder]; ok {
		return wr, wr.err
	}
	spec, err := w.conn.Spec(ctx, folder)
	if err != nil {
		return nil, err // the coordinator may not have put it yet: delivered again
	}
	wr := &workerRun{}
	wr.units, wr.version, wr.err = w.plan(spec)
	if wr.err != nil {
		wr.err = fmt.Errorf("run %s: %w: %w", folder, wr.err, queue.ErrRefused)
	}
	w.runs[folder] = wr
	return wr, wr.err
}

// plan builds the units of the run spec (its config.json) with the
// worker's session, and refuses a run whose judges differ from the
// worker's (another model, prompt version or setting), naming each
// difference.
func (w *worker) plan(spec []byte) ([]Unit, string, error) {
	var cfg run.Config
	if err := json.Unmarshal(spec, &cfg); err != nil {
		return nil, "", fmt.Errorf("not a run's configuration: %w", err)
	}
	k := 1
	if v := cfg.Settings["--samples"]; v != "" {
		k, _ = strconv.Atoi(v)
	}
	s, err := w.session(k)
	if err != nil {
		return nil, "", err
	}
	job := Job{Profile: cfg.Profile, Min: cfg.Settings["--min"], Registry: s.Registry(w.reg), Judging: s.Config()}
	if cfg.Profile == "" {
		job.Metrics = cfg.Metrics
	}
	p, mine, err := judgesConfig(job, s)
	if err != nil {
		return nil, "", err
	}
	if v := JudgeVersion(cfg); JudgeVersion(mine) != v {
		var diffs []string
		for _, d := range run.DiffConfig(run.Config{Model: cfg.Model, Prompts: cfg.Prompts, Settings: cfg.Settings, Metrics: cfg.Metrics, Profile: cfg.Profile, DatasetSHA256: cfg.DatasetSHA256},
			run.Config{Model: mine.Model, Prompts: mine.Prompts, Settings: mine.Settings, Metrics: cfg.Metrics, Profile: cfg.Profile, DatasetSHA256: cfg.DatasetSHA256}) {
			if d.Field != "--strict" && d.Field != "--max-default-rate" {
				diffs = append(diffs, fmt.Sprintf("%s is %s for the run, %s here", d.Field, d.Was, d.Now))
			}
		}
		return nil, "", fmt.Errorf("this worker judges otherwise than the run: %s", strings.Join(diffs, "; "))
	}
	return p.units, JudgeVersion(cfg), nil
}

// judgesConfig is the plan of job with s, and what of a run's
// configuration its judges decide (model, prompt versions, settings).
func judgesConfig(job Job, s *judging.Session) (plan, run.Config, error) {
	floors, err := run.ParseMinGate(job.Min)
	if err != nil {
		return plan{}, run.Config{}, err
	}
	p, err := planJob(job, s, floors)
	if err != nil {
		return plan{}, run.Config{}, err
	}
	return p, run.Config{Model: modelOf(s, p), Prompts: promptVersions(job.Registry, p.metrics),
		Settings: settings(job, p.metrics, thresholds(job.Registry, p, floors, s))}, nil
}

// WorkerJob is what `assay worker` is asked: the queue to take a run's
// tasks from, and the worker's own model endpoint and limits.
type WorkerJob struct {
	// URL is the NATS server (nats://HOST:4222); Token its token.
	URL, Token string
	// Judging is the worker's model client (--llm, --concurrency...); its
	// Samples is the runs'.
	Judging judging.Config
	// Registry holds the metrics the runs may name (--judges included);
	// nil is the built-in ones.
	Registry *metric.Registry
	// Concurrency is how many tasks the worker does at once, of runs
	// and as many of a service's (queue.Items); 0 is
	// judging.TasksPerCall x the client's concurrency.
	Concurrency int
	// MaxInFlight caps the tasks handed out and not done yet across all
	// workers of the queue, whatever their endpoint (the shared
	// consumer's MaxAckPending); 0 keeps the one set. What this worker
	// sends its own endpoint is capped by Concurrency and its model
	// client's limits.
	MaxInFlight int
	// Queue's MaxDeliver and AckWait (0: a quarter over the call timeout).
	Queue Queue
	// Env reads the environment; Log gets what the worker did (nil
	// discards it).
	Env func(string) string
	Log io.Writer
}

// Work runs a worker until ctx is done: it takes tasks from the queue at
// job.URL and judges them with its own model session, as an in-process
// run judges them. A task of a run it judges otherwise (another model,
// prompt version or setting) stops it with an error naming the
// differences, the task left to other workers.
func Work(ctx context.Context, job WorkerJob) error {
	job.Env, job.Log = judging.Env(job.Env), judging.Writer(job.Log)
	if job.Registry == nil {
		job.Registry = agent.Builtins()
	}
	if job.Judging.Samples == 0 {
		job.Judging.Samples = 1
	}
	if err := job.Judging.Check(); err != nil {
		return err
	}
	if err := job.Queue.check(); err != nil {
		return err
	}
	if job.Concurrency < 0 {
		return eval.FlagError("--tasks", "want 0 or more tasks at once, got %d", job.Concurrency)
	}
	if job.MaxInFlight < 0 {
		return eval.FlagError("--max-in-flight", "want 0 or more tasks in flight across the workers, got %d", job.MaxInFlight)
	}
	ss, err := openSessions(job.Judging, job.Log, job.Env)
	if err != nil {
		return err
	}
	defer ss.close()
	nc, err := queue.DialRetry(job.URL, job.Token, "assay worker", job.Log)
	if err != nil {
		return err
	}
	defer nc.Close()
	conn, err := queue.Open(ctx, nc, queue.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while it waited for its server
		}
		return err
	}
	w := &worker{conn: conn, reg: job.Registry, session: ss.open, runs: map[string]*workerRun{}}
	cfg := job.Queue.workerConfig(Endpoint(ss.base, job.Judging, job.Env), cmp.Or(job.Concurrency, ss.base.Limit()), job.Judging, w.handle)
	cfg.MaxInFlight, cfg.Log, cfg.Probe = job.MaxInFlight, job.Log, probe(job.Judging, job.Env)
	fmt.Fprintf(job.Log, "worker: taking tasks from %s for %s, %d at once\n", job.URL, cfg.Endpoint, cfg.Concurrency)
	return conn.Work(ctx, cfg)
}

// sessions are a worker's model sessions: its base one (the runs'
// --samples as the worker was started), and one per other --samples a
// run asks, each opened at its first task. They share nothing but the
// settings, so each has its own --concurrency.
type sessions struct {
	j    judging.Config
	log  io.Writer
	env  func(string) string
	base *judging.Session

	mu  sync.Mutex
	byK map[int]*judging.Session
}

func openSessions(j judging.Config, log io.Writer, env func(string) string) (*sessions, error) {
	base, err := j.Open(log, env)
	if err != nil {
		return nil, err
	}
	return &sessions{j: j, log: log, env: env, base: base, byK: map[int]*judging.Session{j.Samples: base}}, nil
}

// open is the session asking each judgement k times.
func (ss *sessions) open(k int) (*judging.Session, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s, ok := ss.byK[k]; ok {
		return s, nil
	}
	j := ss.j
	j.Samples = k
	s, err := j.Open(ss.log, ss.env)
	if err != nil {
		return nil, err
	}
	ss.byK[k] = s
	return s, nil
}

// close closes every session: idle connections and the cache.
func (ss *sessions) close() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, s := range ss.byK {
		_ = s.Close()
	}
}
