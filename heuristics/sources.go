package heuristics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
)

// citedSources returns the distinct sources the report cites, in order of
// first citation: two URLs with one PageKey are one source. Metadata comes
// from the Sample's Sources when one has the same PageKey; otherwise only
// the URL is known. Citations whose URL cannot be normalised are returned
// as invalid.
func citedSources(r *Report, known []eval.Source) (srcs []eval.Source, invalid []string) {
	srcs, invalid, _ = citedPages(r, known)
	return srcs, invalid
}

// citedPages is citedSources, and also the URLs cited that are another
// spelling of a page already counted, once each.
func citedPages(r *Report, known []eval.Source) (srcs []eval.Source, invalid, respelt []string) {
	byURL := map[string]eval.Source{}
	for _, s := range known {
		if n, err := PageKey(s.URL); err == nil {
			byURL[n] = s
		}
	}
	seen := map[string]string{} // page key -> the URL first cited for it
	spelt := map[string]bool{}
	for _, u := range r.CitedURLs() {
		n, err := PageKey(u)
		if err != nil {
			invalid = append(invalid, u)
			continue
		}
		if first, ok := seen[n]; ok {
			if u != first && !spelt[u] {
				spelt[u] = true
				respelt = append(respelt, u)
			}
			continue
		}
		seen[n] = u
		s, ok := byURL[n]
		if !ok {
			s = eval.Source{URL: u}
		}
		srcs = append(srcs, s)
	}
	return srcs, invalid, respelt
}

// SourceQuality rates every distinct cited source with Credibility and
// turns the average rating into points with Table (seed 001: an average of
// 9 or more earns 2, 7 or more 1.5, 5 or more 1, else 0).
//
// It reads Sample.Answer for the cited URLs and Sample.Sources for their
// metadata (published date, author, references) and for credibility scores
// the user gave, which take precedence. A report that cites no source
// earns 0. The zero value uses the default tiers, no clock (no recency
// adjustment), defaultSourceQualityTable and a maximum of 2. A Max other
// than 2 without a Table scales seed 001's table to it (an average of 9
// or more earns Max).
type SourceQuality struct {
	Credibility Credibility
	Table       []PointStep
	Max         float64
}

var _ ReportScorer = SourceQuality{}

// Score implements eval.Scorer: it parses Sample.Answer and calls
// ScoreReport.
func (q SourceQuality) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return q.ScoreReport(ctx, ParseReport([]byte(s.Answer)), s)
}

// ScoreReport implements ReportScorer: r is Sample.Answer parsed.
func (q SourceQuality) ScoreReport(ctx context.Context, r *Report, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return q.score(r, s.Sources), nil
}

func (q SourceQuality) score(r *Report, known []eval.Source) eval.Score {
	maxPts := orDefault(q.Max, defaultSourceQualityMax)
	table := q.Table
	if len(table) == 0 {
		table = scaledSteps(defaultSourceQualityTable, maxPts/defaultSourceQualityMax)
	}
	srcs, _ := citedSources(r, known)
	sc := eval.Score{Metric: "source_quality", Max: maxPts, Method: "heuristic",
		Evidence: eval.Evidence{Counts: map[string]float64{"rated_sources": float64(len(srcs))}}}
	if len(srcs) == 0 {
		sc.Reason = "no cited source to rate"
		sc.Evidence.Counts[KeyAvgCredibility] = 0
		return sc
	}
	sum := 0.0
	for _, src := range srcs {
		rt := q.Credibility.Rate(src)
		sc.Evidence.Sources = append(sc.Evidence.Sources, rt)
		sum += rt.Rating
	}
	avg := sum / float64(len(srcs))
	sc.Points = SourceQualityPoints(avg, table)
	sc.Value = sc.Points / maxPts
	sc.Evidence.Counts[KeyAvgCredibility] = shownAt(avg, 100)
	var low []string
	for _, rt := range sc.Evidence.Sources {
		if rt.Rating < 7 {
			low = append(low, fmt.Sprintf("%s (%g)", rt.URL, rt.Rating))
		}
	}
	sc.Reason = fmt.Sprintf("average credibility %.2f over %s", shownAt(avg, 100), plural.Count(len(srcs), "source"))
	if len(low) > 0 {
		sc.Reason += fmt.Sprintf("; %d below 7: %v", len(low), low)
	}
	return sc
}

// Diversity counts the distinct pages cited (PageKey: http or https, "www."
// or not, host case, default ports, a trailing slash, fragments and
// tracking parameters do not make a page new) and earns Max when there are
// at least MinUnique of them (seed 000: 5). Distinct registrable domains
// are reported beside it, and each cited page spelt more than one way is
// named in the evidence.
//
// It reads Sample.Answer. The zero value uses MinUnique 5 and Max 1.
type Diversity struct {
	MinUnique int
	Max       float64
}

var _ ReportScorer = Diversity{}

// Score implements eval.Scorer: it parses Sample.Answer and calls
// ScoreReport.
func (d Diversity) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return d.ScoreReport(ctx, ParseReport([]byte(s.Answer)), s)
}

// ScoreReport implements ReportScorer: r is Sample.Answer parsed.
func (d Diversity) ScoreReport(ctx context.Context, r *Report, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return d.score(r), nil
}

func (d Diversity) score(r *Report) eval.Score {
	maxPts := orDefault(d.Max, 1)
	minUnique := d.MinUnique
	if minUnique == 0 {
		minUnique = 5
	}
	srcs, invalid, respelt := citedPages(r, nil)
	domains := map[string]bool{}
	for _, s := range srcs {
		domains[Domain(s.URL)] = true
	}
	sc := eval.Score{Metric: "source_diversity", Max: maxPts, Method: "heuristic",
		Evidence: eval.Evidence{Counts: map[string]float64{
			KeyUniqueSources: float64(len(srcs)), KeyUniqueDomains: float64(len(domains)),
		}}}
	for _, u := range invalid {
		sc.Evidence.Issues = append(sc.Evidence.Issues, "cited URL not usable: "+u)
	}
	if len(srcs) >= minUnique {
		sc.Points, sc.Value = maxPts, 1
		sc.Reason = fmt.Sprintf("%s from %s (need %d)", plural.Count(len(srcs), "distinct source"), plural.Count(len(domains), "domain"), minUnique)
	} else {
		sc.Reason = fmt.Sprintf("only %s from %s; need %d", plural.Count(len(srcs), "distinct source"), plural.Count(len(domains), "domain"), minUnique)
	}
	if len(respelt) > 0 {
		shown := respelt[:min(len(respelt), 3)]
		more := ""
		if n := len(respelt) - len(shown); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		are := plural.Verb(len(respelt), "is another spelling of a page", "are other spellings of pages")
		sc.Reason += fmt.Sprintf("; %s %s counted once: %s%s", plural.Count(len(respelt), "cited URL"), are, strings.Join(shown, ", "), more)
	}
	return sc
}

// FixedClock returns a clock that always reads t, for reproducible runs.
func FixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }
