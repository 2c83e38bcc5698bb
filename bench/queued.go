package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/loopback"
	"github.com/assaylabs/assay/judging"
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
	// (dispatch.StalledError). 0 waits for ever.
	StallTimeout time.Duration
	// After is the stall bound's timer; nil is time.After. A test's own
	// fires when the test says.
	After func(time.Duration) <-chan time.Time
}

// DefaultClusterAddr is where --cluster listens when given no address.
const DefaultClusterAddr = "127.0.0.1:4222"

// MaxWorkers is the most in-process workers a run starts (--workers):
// each opens a model client of its own, and together they keep at most
// setup.MaxConcurrency calls in flight, as one client would.
const MaxWorkers = 256

// On reports whether the run goes through a queue.
func (q Queue) On() bool { return q.Workers > 0 || q.Cluster != "" || q.URL != "" }

// check checks the settings before anything is read.
func (q Queue) check() error {
	switch {
	case q.Workers < 0 || q.Workers > MaxWorkers:
		return eval.FlagError("--workers", "want 0 to %d in-process workers, got %d", MaxWorkers, q.Workers)
	case q.Cluster != "" && q.URL != "":
		return eval.FlagError("--cluster", "embeds a NATS server, --queue uses another: give one")
	case q.MaxDeliver < 0:
		return eval.FlagError("--max-deliver", "want 1 or more, got %d", q.MaxDeliver)
	case q.StallTimeout < 0:
		return eval.FlagError("--stall-timeout", "want 0 (wait for ever) or a positive duration such as 5m, got %v", q.StallTimeout)
	case q.URL != "" && !strings.HasPrefix(q.URL, "nats://") && !strings.HasPrefix(q.URL, "tls://"):
		return eval.FlagError("--queue", "want a NATS URL such as nats://HOST:4222, got %q", q.URL)
	}
	if q.URL != "" {
		if err := queue.CheckURL(q.URL); err != nil {
			return eval.FlagError("--queue", "%v", err)
		}
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
		w := dispatch.NewWorker(conn, planner(job.Registry, ss.open))
		cfg := job.Queue.workerConfig(Endpoint(ss.base, j, job.Env), ss.base.Limit(), j, w)
		cfg.Log, cfg.Probe = job.Log, probe(j, job.Env)
		cfg.Peers = job.Queue.Workers // they start together: none begins a conversation alone
		cfgs = append(cfgs, cfg)
	}
	return cfgs, closeAll, nil
}

// workerConfig is the queue's settings of a worker of endpoint doing
// concurrency tasks at once with w, which refuses a run it would judge
// otherwise before taking any of its tasks.
func (q Queue) workerConfig(endpoint string, concurrency int, j judging.Config, w *dispatch.Worker) queue.WorkerConfig {
	wait := q.AckWait
	if wait == 0 {
		wait = cmp.Or(j.LLM.CallTimeout, setup.DefaultConfig().CallTimeout) * 5 / 4
	}
	return queue.WorkerConfig{Endpoint: endpoint, Concurrency: concurrency, AckWait: wait, MaxDeliver: q.MaxDeliver, Handle: w.Handle, Accept: w.Accept}
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

// queued is the dispatcher of job's run in folder through its queue.
func queued(job Job, s *judging.Session, folder *run.Run, units []dispatch.Unit) *dispatch.NATS {
	q := job.Queue
	llmSpec := s.Judge()
	if spec, err := backend.Resolve(job.Judging.LLM.Spec, job.Env); err == nil && job.Judging.Model == nil {
		llmSpec = spec.Name()
	}
	return &dispatch.NATS{Config: folder.Config(), Dir: folder.Dir(), Units: units, URL: q.URL, Cluster: q.Cluster, Token: q.Token,
		StallTimeout: q.StallTimeout, After: q.After, Resume: ResumeCommand(folder.Config().Command, folder.Dir()),
		WorkerLLM: llmSpec, Log: job.Log, Workers: func(conn *queue.Conn) ([]queue.WorkerConfig, func(), error) {
			return inProcessWorkers(job, s, conn)
		}}
}

// planner builds the plan of a run a worker is handed (its
// configuration) with the worker's session asking each judgement as
// often as the run does (--samples).
func planner(reg *metric.Registry, session func(k int) (*judging.Session, error)) dispatch.Planner {
	return func(cfg run.Config) ([]dispatch.Unit, run.Config, error) {
		k := 1
		if v := cfg.Settings["--samples"]; v != "" {
			k, _ = strconv.Atoi(v)
		}
		s, err := session(k)
		if err != nil {
			return nil, run.Config{}, err
		}
		job := Job{Profile: cfg.Profile, Min: cfg.Settings["--min"], Registry: s.Registry(reg), Judging: s.Config()}
		if cfg.Profile == "" {
			job.Metrics = cfg.Metrics
		}
		p, mine, err := judgesConfig(job, s)
		return p.units, mine, err
	}
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
	// and as many of a service's (queue.Items), and as many of each of
	// the conversations it owns (queue.WorkerConfig); 0 is
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
	if err := queue.CheckURL(job.URL); err != nil {
		return &eval.InputError{Field: "URL", Msg: err.Error()} // the worker's argument
	}
	if job.Concurrency < 0 || job.Concurrency > judging.TasksPerCall*setup.MaxConcurrency {
		return eval.FlagError("--tasks", "want 0 to %d tasks at once, got %d", judging.TasksPerCall*setup.MaxConcurrency, job.Concurrency)
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
	w := dispatch.NewWorker(conn, planner(job.Registry, ss.open))
	cfg := job.Queue.workerConfig(Endpoint(ss.base, job.Judging, job.Env), cmp.Or(job.Concurrency, ss.base.Limit()), job.Judging, w)
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
