package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
)

// Options are what a run needs besides the profile and the sample. The zero
// value is usable: default tiers, the system clock, one goroutine per CPU,
// offline judges.
type Options struct {
	// Now is the clock: the "today" source recency is rated against, and
	// the time of each stage of a research run. Nil is time.Now. A card that
	// must not depend on the day it is computed sets NoRecency, or a fixed
	// clock (heuristics.FixedClock).
	Now func() time.Time
	// NoRecency leaves source recency unrated (neither the +1 for a recent
	// source nor the -1 for an old one).
	NoRecency bool
	// Tiers overrides the embedded credibility tiers.
	Tiers *heuristics.Tiers
	// Concurrency bounds the scorers run at once; 0 means GOMAXPROCS.
	Concurrency int
	// Model, when set, judges the dimensions that have an LLM judge
	// (completeness in the research profile); nil keeps them offline.
	Model judges.Model
}

// clock is Now, or time.Now when Now is nil.
func (o Options) clock() func() time.Time {
	if o.Now == nil {
		return time.Now
	}
	return o.Now
}

// recency is the clock source recency is rated against: nil, which leaves
// it unrated, under NoRecency.
func (o Options) recency() func() time.Time {
	if o.NoRecency {
		return nil
	}
	return o.clock()
}

// ClockFrom is a clock that reads start when it is made and runs forward
// from there at the pace of the system clock: a run "as of" another day
// (--now) whose stages still take the time they take.
func ClockFrom(start time.Time) func() time.Time {
	t0 := time.Now()
	return func() time.Time { return start.Add(time.Since(t0)) }
}

// judge names what judges the model-based dimensions.
func (o Options) judge() string { return judges.Method(o.Model) }

// Scorers builds the profile's scorers, in profile order.
func (p *Profile) Scorers(opt Options) []eval.Scorer {
	out := make([]eval.Scorer, 0, len(p.Specs))
	reg := p.Metrics()
	for _, s := range p.Specs {
		out = append(out, s.build(reg, opt, p.Kind))
	}
	return out
}

// Max is the card's maximum: the sum of its scorers' maxima.
func (p *Profile) Max() float64 {
	total := 0.0
	for _, s := range p.Specs {
		total += s.Max
	}
	return total
}

// ModelScorers are the profile's metrics whose scorers call a model when
// one is set (metric.Entry.CallsModel), and the builder of those scorers
// with a model, in the same order: what a dry run counts the calls of.
func (p *Profile) ModelScorers(opt Options) ([]string, func(judges.Model) []eval.Scorer) {
	var metrics []string
	var idx []int
	for i, s := range p.Specs {
		if m, ok := p.Metrics().Lookup(s.Metric); ok && m.CallsModel() {
			metrics, idx = append(metrics, s.Metric), append(idx, i)
		}
	}
	return metrics, func(m judges.Model) []eval.Scorer {
		opt.Model = m
		all := p.Scorers(opt)
		out := make([]eval.Scorer, len(idx))
		for j, i := range idx {
			out[j] = all[i]
		}
		return out
	}
}

// scoreable is why Score cannot score a card of p, or nil.
func (p *Profile) scoreable() error {
	switch {
	case p == nil:
		return &eval.InputError{Field: "profile", Msg: "no profile: load one with LoadProfile"}
	case p.Kind == KindDaily:
		return &eval.InputError{Field: "profile", Msg: fmt.Sprintf("profile %q is of kind daily, scored against its ground truth: use ScoreFile with a Truth file", p.Name)}
	}
	// Checked on every call, a profile Parse read too: a Go program may
	// have changed its fields since (a threshold, a scorer added).
	if err := p.check(p.Metrics()); err != nil {
		var ie *eval.InputError
		if errors.As(err, &ie) && p.Name != "" {
			ie.Msg += fmt.Sprintf(" (profile %q)", p.Name)
		}
		return err
	}
	return nil
}

// scoreOne runs one scorer on the sample, handing a report scorer the
// card's parsed report.
func scoreOne(ctx context.Context, sc eval.Scorer, s eval.Sample, report func() *heuristics.Report) (eval.Score, error) {
	if rs, ok := sc.(heuristics.ReportScorer); ok {
		return rs.ScoreReport(ctx, report(), s)
	}
	return sc.Score(ctx, s)
}

// Score runs every scorer of the profile on the sample in parallel and
// returns the card. Scores keep profile order. A scorer that panics is
// reported as an error naming it; only a cancelled context or such an error
// stops the run.
//
// p is a profile of kind report or context, as LoadProfile returns it or
// as a Go program builds it, checked as a profile file is; a nil profile,
// one that fails that check and one of kind daily (scored against its
// ground truth by ScoreFile) are an *eval.InputError, and nothing is scored.
func Score(ctx context.Context, p *Profile, s eval.Sample, opt Options) (eval.Card, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return eval.Card{}, err
	}
	if err := p.scoreable(); err != nil {
		return eval.Card{}, err
	}
	scorers := p.Scorers(opt)
	scores := make([]eval.Score, len(scorers))
	limit := opt.Concurrency
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	// The report is parsed once for the card, by the first report scorer
	// that needs it, and shared by all of them (none in a context card).
	var report func() *heuristics.Report
	for _, sc := range scorers {
		if _, ok := sc.(heuristics.ReportScorer); ok {
			report = heuristics.ParseOnce(s)
			break
		}
	}
	one := func(ctx context.Context, i int) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("agent: scorer %s panicked: %v\n%s", p.Specs[i].Metric, r, debug.Stack())
			}
		}()
		res, err := scoreOne(ctx, scorers[i], s, report)
		if err != nil {
			return fmt.Errorf("agent: %s: %w", p.Specs[i].Metric, err)
		}
		scores[i] = res
		return nil
	}
	if limit == 1 || len(scorers) == 1 {
		// One at a time: in this goroutine, as the group would, without one
		// of its own for each (a service's context score is one scorer).
		for i := range scorers {
			if err := one(ctx, i); err != nil {
				return eval.Card{}, err
			}
		}
	} else {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(limit)
		for i := range scorers {
			g.Go(func() error { return one(gctx, i) })
		}
		if err := g.Wait(); err != nil {
			return eval.Card{}, err
		}
	}
	// A neutral default is no evidence: it never carries a card to pass.
	card := p.holdDefaults(p.Verdict(scores))
	card.Judge = opt.judge()
	return card, nil
}
