package agent

import (
	"context"
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
// value is usable: default tiers, no clock (no recency adjustments), one
// goroutine per CPU.
type Options struct {
	// Now is the clock for time-dependent rules (source recency). Nil
	// leaves recency out, so a run is reproducible by default.
	Now func() time.Time
	// Tiers overrides the embedded credibility tiers.
	Tiers *heuristics.Tiers
	// Concurrency bounds the scorers run at once; 0 means GOMAXPROCS.
	Concurrency int
	// Model, when set, judges the dimensions that have an LLM judge
	// (completeness in the research profile); nil keeps them offline.
	Model judges.Model
}

// judge names what judges the model-based dimensions.
func (o Options) judge() string { return judges.Method(o.Model) }

// Scorers builds the profile's scorers, in profile order.
func (p *Profile) Scorers(opt Options) []eval.Scorer {
	out := make([]eval.Scorer, 0, len(p.Specs))
	for _, s := range p.Specs {
		out = append(out, s.build(opt))
	}
	return out
}

// Score runs every scorer of the profile on the sample in parallel and
// returns the card. Scores keep profile order. A scorer that panics is
// reported as an error naming it; only a cancelled context or such an error
// stops the run.
func Score(ctx context.Context, p *Profile, s eval.Sample, opt Options) (eval.Card, error) {
	scorers := p.Scorers(opt)
	scores := make([]eval.Score, len(scorers))
	g, gctx := errgroup.WithContext(ctx)
	limit := opt.Concurrency
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(limit)
	for i, sc := range scorers {
		g.Go(func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("agent: scorer %s panicked: %v\n%s", p.Specs[i].Metric, r, debug.Stack())
				}
			}()
			res, err := sc.Score(gctx, s)
			if err != nil {
				return fmt.Errorf("agent: %s: %w", p.Specs[i].Metric, err)
			}
			scores[i] = res
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return eval.Card{}, err
	}
	// A neutral default is no evidence: it never carries a card to pass.
	card := p.holdDefaults(p.Verdict(scores))
	card.Judge = opt.judge()
	return card, nil
}
