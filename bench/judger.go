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
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/telemetry"
)

// Judger judges one sample at a time with a model session it keeps open:
// [Judge]'s path for one record (the same judges, threshold, sampling and
// checks of what a metric needs), for a caller that gets samples one by
// one, as a service does. Its methods are safe for concurrent use.
type Judger struct {
	s     *judging.Session
	reg   *metric.Registry
	floor *run.MinGate // none: each metric's default threshold

	mu   sync.Mutex
	sets map[string]judgeSet // by metrics, comma joined
}

// judgeSet are the judges of a set of metrics: as built (for the checks of
// what they need), as judged with (each score an evaluation event on its
// sample's span), and the thresholds their events are labelled by.
type judgeSet struct {
	scorers, traced []eval.Scorer
	threshold       func(string) float64
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
	floor, _ := run.ParseMinGate("") // no floor parses always
	return &Judger{s: s, reg: s.Registry(reg), floor: floor, sets: map[string]judgeSet{}}, nil
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
func (j *Judger) judgesFor(metrics []string) (judgeSet, error) {
	key := strings.Join(metrics, ",")
	j.mu.Lock()
	js, ok := j.sets[key]
	j.mu.Unlock()
	if ok {
		return js, nil
	}
	if len(metrics) == 0 {
		return js, eval.FlagError("--metric", "name at least one metric (have %s)", metricList(j.reg))
	}
	if err := checkMetrics(j.reg, metrics); err != nil {
		return js, err
	}
	if err := j.s.Config().CheckChecker(metrics); err != nil {
		return js, err
	}
	if err := j.reg.CheckModel(metrics, j.s.Model()); err != nil {
		return js, err
	}
	threshold, build := judgesOf(j.reg, metrics, j.floor, j.s)
	js.scorers, js.threshold = build(j.s.Model()), threshold
	js.traced = telemetry.Scorers(js.scorers)
	j.mu.Lock()
	j.sets[key] = js
	j.mu.Unlock()
	return js, nil
}

// Check checks, without a model call, that metrics are known and that
// sample has what each needs (dataset.CheckNeeds): the error is an
// *eval.InputError naming the metric or the sample's field.
func (j *Judger) Check(sample eval.Sample, metrics []string) error {
	js, err := j.judgesFor(metrics)
	if err != nil {
		return err
	}
	return dataset.CheckNeeds("", dataset.Record{ID: sample.ID, Sample: sample}, js.scorers)
}

// Judge judges sample with each of metrics, in their order, after Check.
// A judge's failure is a Defaulted score, counted in the session; the
// error is Check's, a cancelled ctx, or a scorer that could not score at
// all (a panic, named).
//
// The sample is a span (telemetry.StartSample) in ctx's trace, its model
// calls its children, and each score a gen_ai.evaluation.result event on
// it, labelled pass or fail by the metric's threshold, as Judge's are.
func (j *Judger) Judge(ctx context.Context, sample eval.Sample, metrics []string) ([]eval.Score, error) {
	if err := j.Check(sample, metrics); err != nil {
		return nil, err
	}
	js, _ := j.judgesFor(metrics) // built by Check
	ctx = telemetry.WithThreshold(ctx, js.threshold)
	scores, err := ScoreAll(ctx, []dataset.Record{{ID: sample.ID, Sample: sample}}, js.traced, j.s.Limit())
	if err != nil {
		return nil, err
	}
	for _, s := range scores[0] {
		j.s.Observe(s)
	}
	return scores[0], nil
}
