package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/web"
)

// Status is the outcome of a research run (Run.Status).
type Status string

// Statuses of a research run. The first three are a run that ended with a
// verdict; StatusRunning is a run still going; the last four are failures:
// the run did not get to a verdict it can stand by, and Run returns an
// error with them.
const (
	// StatusPass: the report's card passed (eval.StatusPass).
	StatusPass Status = eval.StatusPass
	// StatusRejected: the card still did not pass after the repairs
	// (eval.StatusRejected).
	StatusRejected Status = eval.StatusRejected
	// StatusInsufficient: too few sources passed the relevance gate for a
	// short report; the report is an explanation (seed 004).
	StatusInsufficient Status = "insufficient_data"
	// StatusRunning is the status of a run's files written while it still
	// runs (RunFolder); a run that ends never has it.
	StatusRunning Status = "running"
	// StatusInterrupted: the context was cancelled or its deadline passed.
	StatusInterrupted Status = "interrupted"
	// StatusModelFailed: every model call of the run failed (*ModelError).
	StatusModelFailed Status = "model_failed"
	// StatusSearchFailed: the search backend could not be reached
	// (*web.UnreachableError).
	StatusSearchFailed Status = "search_failed"
	// StatusFailed: any other error stopped the run.
	StatusFailed Status = "failed"
)

// ModelError is a research run whose every model step failed: summaries,
// gate grades, the synthesis and the judges that score the report all fell
// back to their defaults, so nothing the run reports comes from the model
// it names. Test for it with errors.As.
type ModelError struct {
	// Model is the model's name ("openai:gpt-4o-mini").
	Model string
	// Steps is how many model steps the run took; every one failed.
	Steps int
	// Last is the last step's error.
	Last error
}

func (e *ModelError) Error() string {
	return fmt.Sprintf("model %s failed all %d of the run's model steps (summaries, gate grades, synthesis, judges fell back to their defaults): last error: %v",
		e.Model, e.Steps, e.Last)
}

func (e *ModelError) Unwrap() error { return e.Last }

var _ error = (*ModelError)(nil)

// statusOf is the status of a run that err stopped.
func statusOf(err error) Status {
	var me *ModelError
	var ue *web.UnreachableError
	switch {
	case errors.As(err, &me):
		return StatusModelFailed
	case errors.As(err, &ue):
		return StatusSearchFailed
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return StatusInterrupted
	}
	return StatusFailed
}

// modelSteps tallies the run's model steps and how many failed, so that a
// run whose model never answered is not reported as if it had. It is safe
// for concurrent use (the gate grades sources in parallel).
type modelSteps struct {
	mu     sync.Mutex
	steps  int
	failed int
	last   error
}

// note records one model step; err is nil when it succeeded.
func (m *modelSteps) note(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.steps++
	if err != nil {
		m.failed++
		m.last = err
	}
}

// noteCard records the card's model-judged scores: a defaulted score is a
// failed step.
func (m *modelSteps) noteCard(c eval.Card) {
	for _, s := range c.Scores {
		if !strings.HasPrefix(s.Method, "llm:") {
			continue
		}
		var err error
		if s.Defaulted {
			err = s.Err
			if err == nil {
				err = errors.New(s.Reason)
			}
		}
		m.note(err)
	}
}

// failure is a *ModelError when the run took model steps and all of them
// failed; nil otherwise.
func (m *modelSteps) failure(model string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.steps == 0 || m.failed < m.steps {
		return nil
	}
	return &ModelError{Model: model, Steps: m.steps, Last: m.last}
}

// usageSource is a model that keeps its own account of every call
// (*llm.Client): what a run spent is read from it, so calls whose judges
// were cancelled are counted too.
type usageSource interface {
	Usage() eval.Usage
}

// holdDefaults keeps a card that passes only with the help of defaulted
// scores from passing: a neutral default is no evidence, so a card with
// any defaulted score is "iterate", with a reason naming the defaulted
// metrics, and the profile's fixes for its scores below their maximum
// (the repair re-runs the judges). Other cards are returned unchanged.
func (p *Profile) holdDefaults(c eval.Card) eval.Card {
	if c.Status != eval.StatusPass || c.Defaulted == 0 {
		return c
	}
	var names []string
	for _, s := range c.Scores {
		if s.Defaulted {
			names = append(names, strings.ReplaceAll(s.Metric, "_", " "))
		}
	}
	c.Status = eval.StatusIterate
	c.Reason = fmt.Sprintf("Not a pass: the %s judge(s) fell back to the neutral default after errors, and a defaulted score cannot carry a card to pass (total %s/%s with the default counted).",
		strings.Join(names, ", "), num(c.Total), num(c.Max))
	c.Fixes = p.fixes(c)
	return c
}
