package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

// Planner builds the plan a worker judges a run's tasks with from the
// run's configuration (config.json, its specification in the queue's
// bucket): the units, and what of a configuration the worker's own judges
// decide (model, prompt versions, settings), which the worker compares
// with the run's.
type Planner func(cfg run.Config) (units []Unit, mine run.Config, err error)

// Worker judges a queue's tasks: it builds each run's plan with its
// Planner, checks that its judges are the run's, and judges each task's
// sample with its unit (JudgeUnit, as an in-process run does).
type Worker struct {
	conn *queue.Conn
	plan Planner

	mu   sync.Mutex
	runs map[string]*workerRun
}

// NewWorker is a worker of the tasks of conn, planning with plan.
func NewWorker(conn *queue.Conn, plan Planner) *Worker {
	return &Worker{conn: conn, plan: plan, runs: map[string]*workerRun{}}
}

// workerRun is a run's plan as a worker built it, or why it could not.
type workerRun struct {
	units   []Unit
	version string
	err     error
}

// Handle judges task t: the queue's Handler.
func (w *Worker) Handle(ctx context.Context, t queue.Task) ([]byte, error) {
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
	results, err := JudgeUnit(ctx, wr.units[b.Unit], b.Sample, func(scores []eval.Score) error {
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

// Accept refuses a run whose plan this worker cannot build or whose
// judges are not its own (an error that wraps queue.ErrRefused), from the
// run's specification alone, before it takes any of its tasks: the
// queue's WorkerConfig.Accept. A run whose specification is not stored
// yet is not refused.
func (w *Worker) Accept(ctx context.Context, run string) error {
	if _, err := w.run(ctx, run); errors.Is(err, queue.ErrRefused) {
		return err
	}
	return nil
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

// run is the plan of run folder, built once.
func (w *Worker) run(ctx context.Context, folder string) (*workerRun, error) {
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
	wr.units, wr.version, wr.err = w.planOf(spec)
	if wr.err != nil {
		wr.err = fmt.Errorf("run %s: %w: %w", folder, wr.err, queue.ErrRefused)
	}
	w.runs[folder] = wr
	return wr, wr.err
}

// planOf builds the units of the run spec (its config.json), and refuses
// a run whose judges differ from the worker's (another model, prompt
// version or setting), naming each difference.
func (w *Worker) planOf(spec []byte) ([]Unit, string, error) {
	var cfg run.Config
	if err := json.Unmarshal(spec, &cfg); err != nil {
		return nil, "", fmt.Errorf("not a run's configuration: %w", err)
	}
	units, mine, err := w.plan(cfg)
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
	return units, JudgeVersion(cfg), nil
}
