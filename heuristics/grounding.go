package heuristics

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
)

// Band is one row of a coverage-to-points table: coverage (in percent) at or
// above Min earns From points, rising linearly to To just below the next
// band's Min.
type Band struct {
	Min  float64 `yaml:"min" json:"min"`
	From float64 `yaml:"from" json:"from"`
	To   float64 `yaml:"to" json:"to"`
}

// defaultGroundingBands is seed 001's coverage table, read as linear inside
// each band: 100% is 5; 95-99.99% is 4.0-4.9; 85-94.99% is 3.0-3.9;
// 70-84.99% is 2.0-2.9; 50-69.99% is 1.0-1.9; below 50% is 0.
//
// This overrides seed 000's "round to the nearest 0.5": rounding would turn
// 97.5% coverage into 5 points and let a report with uncited claims pass,
// which both seeds forbid ("grounding must be 5/5").
var defaultGroundingBands = []Band{
	{Min: 100, From: 5, To: 5},
	{Min: 95, From: 4, To: 4.9},
	{Min: 85, From: 3, To: 3.9},
	{Min: 70, From: 2, To: 2.9},
	{Min: 50, From: 1, To: 1.9},
}

// defaultGroundingMax is the top of defaultGroundingBands.
const defaultGroundingMax = 5

// scaledBands returns bands with their points times k (bands itself when
// k is 1).
func scaledBands(bands []Band, k float64) []Band {
	if k == 1 {
		return bands
	}
	out := make([]Band, len(bands))
	for i, b := range bands {
		out[i] = Band{Min: b.Min, From: b.From * k, To: b.To * k}
	}
	return out
}

// Grounding scores citation coverage: the share of the report's claims
// (see the claim rule in package reportdoc) that carry a citation, mapped to
// points by Bands. A report with no claims scores 0: nothing in it can be
// checked, so it cannot pass.
//
// A claim cited only by links without their quote ([text](url), an
// autolink) is counted apart (KeyCitedWithoutQuote, verdict "cited without
// quote") and, as seed 000 counts citations ([text](url "quote")), is not
// cited unless AcceptUnquoted is set.
//
// It reads Sample.Answer. The zero value uses defaultGroundingBands, a
// maximum of 5 and seed 000's count. A Max other than 5 without Bands
// scales seed 001's table to it (100% coverage earns Max).
type Grounding struct {
	Bands []Band
	Max   float64
	// AcceptUnquoted counts a claim cited by a link without its quote as
	// cited.
	AcceptUnquoted bool
}

var _ ReportScorer = Grounding{}

// Score implements eval.Scorer: it parses Sample.Answer and calls
// ScoreReport.
func (g Grounding) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return g.ScoreReport(ctx, ParseReport([]byte(s.Answer)), s)
}

// ScoreReport implements ReportScorer: r is Sample.Answer parsed.
func (g Grounding) ScoreReport(ctx context.Context, r *Report, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return g.score(r), nil
}

func (g Grounding) score(r *Report) eval.Score {
	maxPts := orDefault(g.Max, defaultGroundingMax)
	bands := g.Bands
	if len(bands) == 0 {
		bands = scaledBands(defaultGroundingBands, maxPts/defaultGroundingMax)
	}
	claims := r.Claims()
	cited := 0
	var uncited, unquoted []string
	for _, c := range claims {
		at := fmt.Sprintf("line %d: %q", c.Line, truncate(c.Text, 80))
		switch c.Verdict {
		case eval.VerdictCited:
			cited++
		case eval.VerdictCitedNoQuote:
			unquoted = append(unquoted, at)
			if g.AcceptUnquoted {
				cited++
			}
		default:
			uncited = append(uncited, at)
		}
	}
	sc := eval.Score{
		Metric: "grounding", Max: maxPts, Method: "heuristic",
		Evidence: eval.Evidence{
			Claims: claims,
			Counts: map[string]float64{KeyTotalClaims: float64(len(claims)), KeyCitedClaims: float64(cited),
				KeyCitedWithoutQuote: float64(len(unquoted))},
		},
	}
	for _, d := range r.Dangling {
		sc.Evidence.Issues = append(sc.Evidence.Issues, "citation "+d+" names no entry of the Sources list")
	}
	if len(claims) == 0 {
		sc.Err = eval.ErrNoClaims
		sc.Reason = "no verifiable claims found: a report must state cited facts to pass"
		sc.Evidence.Counts[KeyCitationCoveragePct] = 0
		return sc
	}
	cov := 100 * float64(cited) / float64(len(claims))
	sc.Evidence.Counts[KeyCitationCoveragePct] = shownAt(cov, 100)
	sc.Points = pointsWithin(bands, cov, maxPts)
	sc.Value = sc.Points / maxPts
	switch {
	case cited == 1 && len(claims) == 1:
		sc.Reason = "the 1 claim is cited"
	case cited == len(claims):
		sc.Reason = fmt.Sprintf("all %d claims are cited", len(claims))
	default:
		sc.Reason = fmt.Sprintf("%d of %s cited (%.1f%%)", cited, plural.Count(len(claims), "claim"), shownAt(cov, 10))
		if len(uncited) > 0 {
			sc.Reason += "; uncited: " + strings.Join(uncited, "; ")
		}
	}
	if len(unquoted) > 0 {
		counted := "not counted: seed 000 cites with [text](url \"quote\")"
		if g.AcceptUnquoted {
			counted = "counted as cited"
		}
		sc.Reason += fmt.Sprintf("; cited without quote (%s): %s", counted, strings.Join(unquoted, "; "))
	}
	return sc
}

// pointsWithin is bandPoints held to max: a figure the bands put at max
// is max itself, not its rounding to 0.01, and no rounding goes past it.
// So a max of more than two decimals (4.125, 4.124, or 7.777 scaled from
// seed 001's table) earns a fully cited report exactly its max, neither a
// card beyond its maximum nor a require_full failure.
func pointsWithin(bands []Band, cov, max float64) float64 {
	x := rawBandPoints(bands, cov)
	if math.Abs(x-max) <= 1e-9*max {
		return max
	}
	return min(round2(x), max)
}

// bandPoints maps a coverage percentage to points, rounded to 0.01.
func bandPoints(bands []Band, cov float64) float64 { return round2(rawBandPoints(bands, cov)) }

// rawBandPoints maps a coverage percentage to points: From at a band's
// Min, rising linearly to To at the next band's Min; 0 below every band.
func rawBandPoints(bands []Band, cov float64) float64 {
	upper := math.Inf(1)
	best := -1
	for i, b := range bands {
		if cov >= b.Min && (best < 0 || b.Min > bands[best].Min) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	b := bands[best]
	for _, o := range bands {
		if o.Min > b.Min && o.Min < upper {
			upper = o.Min
		}
	}
	if math.IsInf(upper, 1) || upper == b.Min {
		return b.From
	}
	return b.From + (b.To-b.From)*(cov-b.Min)/(upper-b.Min)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// shownAt is x, a figure a rule compares with a threshold, rounded to
// hundredths (per 100) or tenths (per 10) to be shown, except that a figure the
// rounding would carry up onto a whole number is rounded down: the rules'
// thresholds are whole (credibility 9, coverage 100%), so 8.995 is shown
// as 8.99, not the 9 it missed, and 99.95% as 99.9%, while 2 of 3 is
// 66.67% as anyone rounds it. (A tiny allowance keeps 0.29 from showing
// as 0.28 through float error.)
func shownAt(x, per float64) float64 {
	r := math.Round(x*per) / per
	if r > x && r == math.Trunc(r) {
		return math.Floor(x*per+1e-9) / per
	}
	return r
}

func orDefault(x, d float64) float64 {
	if x == 0 {
		return d
	}
	return x
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
