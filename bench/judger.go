package bench

import (
	"context"
	"io"
	"strings"
	"sync"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
)

// Judger judges one sample at a time with a model session it keeps open:
// [Judge]'s path for one record (the same judges, threshold, sampling and
// checks of what a metric needs), for a caller that gets samples one by
// one, as a service does. Its methods are safe for concurrent use.
type Judger struct {
	s     *judging.Session
	reg   *metric.Registry
	floor *MinGate // none: each metric's default threshold

	mu      sync.Mutex
	scorers map[string][]eval.Scorer // by metrics, comma joined
}

// OpenJudger opens the model session of cfg (notices on log, keys and URLs
// read from env) for judging with the metrics of reg (nil: the built-in
// ones). Close it when done. A dry run is refused: a judger judges.
func OpenJudger(cfg judging.Config, reg *metric.Registry, log io.Writer, env func(string) string) (*Judger, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.DryRun {
		return nil, eval.FlagError("--dry-run", "a judger judges; a dry run is for assay judge and assay bench")
	}
	if reg == nil {
		reg = agent.Builtins()
	}
	s, err := cfg.Open(judging.Writer(log), judging.Env(env))
	if err != nil {
		return nil, err
	}
	floor, _ := ParseMinGate("") // no floor parses always
	return &Judger{s: s, reg: s.Registry(reg), floor: floor, scorers: map[string][]eval.Scorer{}}, nil
}

// Session is the judger's model session: its client counts calls, tokens
// and cost.
func (j *Judger) Session() *judging.Session { return j.s }

// Registry is the metrics the judger knows.
func (j *Judger) Registry() *metric.Registry { return j.reg }

// Close closes the session.
func (j *Judger) Close() error { return j.s.Close() }

// judgesFor are the judges of metrics, built once per set of metrics after
// the checks Judge makes of them.
func (j *Judger) judgesFor(metrics []string) ([]eval.Scorer, error) {
	key := strings.Join(metrics, ",")
	j.mu.Lock()
	sc, ok := j.scorers[key]
	j.mu.Unlock()
	if ok {
		return sc, nil
	}
	if len(metrics) == 0 {
		return nil, eval.FlagError("--metric", "name at least one metric (have %s)", metricList(j.reg))
	}
	if err := checkMetrics(j.reg, metrics); err != nil {
		return nil, err
	}
	if err := j.s.Config().CheckChecker(metrics); err != nil {
		return nil, err
	}
	if err := j.reg.CheckModel(metrics, j.s.Model()); err != nil {
		return nil, err
	}
	_, build := judgesOf(j.reg, metrics, j.floor, j.s)
	sc = build(j.s.Model())
	j.mu.Lock()
	j.scorers[key] = sc
	j.mu.Unlock()
	return sc, nil
}

// Check checks, without a model call, that metrics are known and that
// sample has what each needs (dataset.CheckNeeds): the error is an
// *eval.InputError naming the metric or the sample's field.
func (j *Judger) Check(sample eval.Sample, metrics []string) error {
	sc, err := j.judgesFor(metrics)
	if err != nil {
		return err
	}
	return dataset.CheckNeeds("", dataset.Record{ID: sample.ID, Sample: sample}, sc)
}

// Judge judges sample with each of metrics, in their order, after Check.
// A judge's failure is a Defaulted score, counted in the session; the
// error is Check's, a cancelled ctx, or a scorer that could not score at
// all (a panic, named).
func (j *Judger) Judge(ctx context.Context, sample eval.Sample, metrics []string) ([]eval.Score, error) {
	if err := j.Check(sample, metrics); err != nil {
		return nil, err
	}
	sc, _ := j.judgesFor(metrics) // built by Check
	scores, err := ScoreAll(ctx, []dataset.Record{{ID: sample.ID, Sample: sample}}, sc, j.s.Limit())
	if err != nil {
		return nil, err
	}
	for _, s := range scores[0] {
		j.s.Observe(s)
	}
	return scores[0], nil
}
