package judges

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// sourceRelevanceMetric is the registry entry of source relevance.
func sourceRelevanceMetric() metric.Entry {
	return metric.Entry{
		Name: MetricSourceRelevance, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsContexts,
		Build:  func(m Model) eval.Scorer { return SourceRelevance{Model: m} },
		DryRun: gradeStandIn,
	}
}

// SourceRelevance grades each source 1-5 for the query with seed 004's
// rubric, all sources in parallel (the model client bounds concurrency).
// A source whose grading fails keeps grade 3 ("when in doubt, keep it") and
// is counted. The score's value is the mean of (grade-1)/4, so a single
// source is relevant (grade 3 or more) exactly when the value is 0.5 or
// more.
type SourceRelevance struct {
	Model Model
	// Cutoff is the least grade kept by the gate (default 3).
	Cutoff int
}

var _ eval.Scorer = SourceRelevance{}

// SourceGrade is one source's grade.
type SourceGrade struct {
	Grade     int
	Reason    string
	Defaulted bool
	Err       error
	Usage     eval.Usage
}

// Grade rates one source for the query.
func (r SourceRelevance) Grade(ctx context.Context, query string, src eval.Source) (SourceGrade, error) {
	if Offline(r.Model) {
		text := src.Text
		if src.Title != "" {
			text = src.Title + ". " + text
		}
		rel := heuristics.Explain(query, text)
		return SourceGrade{Grade: heuristics.GradeOfRelevance(rel.Value), Reason: fmt.Sprintf("lexical relevance %.2f: %s", rel.Value, rel)}, nil
	}
	var g grade
	u, err := ask(ctx, r.Model, "source.relevance", prompts.SourceQuery{
		Question: query, Source: prompts.Passage{ID: src.ID, Title: src.Title, Text: src.Text},
	}, &g, gradeSchema())
	if err != nil {
		if err := Stops(ctx, err); err != nil {
			return SourceGrade{}, err
		}
		return SourceGrade{Grade: 3, Reason: "grading failed, kept at 3: " + err.Error(), Defaulted: true, Err: err, Usage: u}, nil
	}
	return SourceGrade{Grade: g.Grade, Reason: g.Reason, Usage: u}, nil
}

var _ Checker = SourceRelevance{}

// Check implements Checker: source relevance needs sources (or contexts).
func (r SourceRelevance) Check(s eval.Sample) error {
	if len(sourcesOf(s)) == 0 {
		return fmt.Errorf("%s: %w", MetricSourceRelevance, ErrNoContexts)
	}
	return nil
}

// sourcesOf returns the sources of s, or its context as one source.
func sourcesOf(s eval.Sample) []eval.Source {
	if len(s.Sources) == 0 && s.Context != nil {
		return []eval.Source{{ID: "c1", Text: s.Context.Text}}
	}
	return s.Sources
}

// gradeAll grades each source for query, at once; a single source is
// graded on the caller's goroutine, which a run's worker has grown the
// stack of already.
func (r SourceRelevance) gradeAll(ctx context.Context, query string, srcs []eval.Source) ([]SourceGrade, error) {
	grades := make([]SourceGrade, len(srcs))
	if len(srcs) == 1 {
		sg, err := r.Grade(ctx, query, srcs[0])
		grades[0] = sg
		return grades, err
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, src := range srcs {
		g.Go(func() error {
			sg, err := r.Grade(gctx, query, src)
			grades[i] = sg
			return err
		})
	}
	return grades, g.Wait()
}

// Score implements eval.Scorer.
func (r SourceRelevance) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := r.Check(s); err != nil {
		return eval.Score{}, err
	}
	if blank(s.Query) {
		return skip(MetricSourceRelevance, Method(r.Model), 5, eval.ErrNoQuestion, eval.Usage{}), nil
	}
	srcs := sourcesOf(s)
	grades, err := r.gradeAll(ctx, s.Query, srcs)
	if err != nil {
		return eval.Score{}, err
	}
	cutoff := r.Cutoff
	if cutoff == 0 {
		cutoff = 3
	}
	sc := eval.Score{Metric: MetricSourceRelevance, Max: 5, Method: Method(r.Model)}
	var u eval.Usage
	var errs []error
	sum, kept, defaulted := 0, 0, 0
	for i, sg := range grades {
		u = u.Add(sg.Usage)
		sum += sg.Grade
		if sg.Grade >= cutoff {
			kept++
		}
		if sg.Defaulted {
			defaulted++
			errs = append(errs, fmt.Errorf("source %d: %w", i+1, sg.Err))
		}
		id := srcs[i].URL
		if id == "" {
			id = srcs[i].ID
		}
		sc.Evidence.Sources = append(sc.Evidence.Sources, eval.SourceRating{URL: id, Rating: float64(sg.Grade), Basis: sg.Reason})
	}
	mean := float64(sum) / float64(len(grades))
	sc.Points, sc.Value = mean, (mean-1)/4
	sc.Usage = u.Recorded()
	sc.Evidence.Counts = map[string]float64{"sources": float64(len(grades)), "kept": float64(kept), "defaulted": float64(defaulted)}
	sc.Reason = fmt.Sprintf("mean grade %.1f of 5; %d of %s at or above %d", mean, kept, plural.Count(len(grades), "source"), cutoff)
	if defaulted > 0 {
		sc.Defaulted, sc.Err = true, errors.Join(errs...)
		sc.Reason += fmt.Sprintf("; %d defaulted to 3 after errors", defaulted)
	}
	return sc, nil
}
