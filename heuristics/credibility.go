package heuristics

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/assaylabs/assay/eval"
)

// Credibility rates sources from 1 to 10 by seed 001's algorithm: a base
// score from the site's tier, then adjustments for what is known about the
// source itself.
//
// The zero value is ready to use: built-in tiers, recency not rated.
// Credibility is a value with no mutable state; Rate is safe for concurrent
// use as long as Now is.
type Credibility struct {
	// Tiers gives the base score of a site; nil means DefaultTiers().
	Tiers *Tiers
	// Now is the clock the age of a source is measured against. When nil,
	// recency is not rated at all (neither +1 nor -1), so that a rating
	// never depends on when it was computed unless the caller asks.
	Now func() time.Time
}

// Adjustments of seed 001, applied by Rate.
const (
	recentBonus     = 1  // published less than 6 months before Now
	oldPenalty      = -1 // published more than 2 years before Now
	referencesBonus = 1  // cites 2 or more references
	noRefsPenalty   = -2 // cites no reference at all
	verifiedBonus   = 1  // author's credentials verified
	noAuthorPenalty = -1 // known to name no author

	// futureSlack is how far past Now a publication date may lie and still
	// count: date-only metadata read as midnight UTC can be ahead of a
	// clock in an earlier time zone.
	futureSlack = 24 * time.Hour
)

// Rate returns the credibility of one source, with the URL, its registrable
// domain and a Basis that lists every step:
//
//	official_docs 9; +1 recent (2026-09-01); -2 no references → 8
//
// A credibility given with the source (eval.Source.Credibility, seed 000's
// validated_citations) wins over everything else and is only capped to
// 1..10; a NaN given value is ignored.
//
// Otherwise the base is the tier score of the URL's host, or the tiers'
// default score for an unlisted host or a URL that cannot be normalised
// (the basis says which). Then each adjustment applies only when the fact
// behind it is known:
//
//   - +1 published less than 6 calendar months before Now, -1 more than 2
//     years before (Now set and Published not zero; exactly 6 months or 2
//     years old gets nothing; a date more than a day after Now is ignored
//     and noted);
//   - +1 References >= 2, -2 References == 0; a single reference changes
//     nothing, and nil or negative means unknown;
//   - +1 AuthorVerified is true;
//   - -1 AuthorKnown with an empty Author, except in a tier with a
//     with_author score, whose base already depends on a named author.
//
// The sum is capped to 1..10. Rate never fails and never returns NaN.
func (c Credibility) Rate(src eval.Source) eval.SourceRating {
	r := eval.SourceRating{URL: src.URL, Domain: Domain(src.URL)}
	if src.Credibility != nil && !math.IsNaN(*src.Credibility) {
		given := *src.Credibility
		r.Rating = clampRating(given)
		r.Basis = "given by user"
		if r.Rating != given {
			r.Basis += " (" + scoreText(given) + ", capped to " + scoreText(r.Rating) + ")"
		}
		return r
	}

	tiers := c.Tiers
	if tiers == nil {
		tiers = DefaultTiers()
	}
	named := strings.TrimSpace(src.Author) != ""
	base, label, authorPriced := c.base(tiers, src.URL, named)

	var steps []string
	total := base
	adjust := func(delta float64, what string) {
		total += delta
		sign := "+"
		if delta < 0 {
			sign = "-"
		}
		steps = append(steps, sign+scoreText(math.Abs(delta))+" "+what)
	}
	if c.Now != nil && !src.Published.IsZero() {
		now := c.Now()
		date := src.Published.UTC().Format(time.DateOnly)
		switch {
		case src.Published.After(now.Add(futureSlack)):
			steps = append(steps, "recency not rated: published "+date+" is after now")
		case src.Published.After(now.AddDate(0, -6, 0)):
			adjust(recentBonus, "recent ("+date+")")
		case src.Published.Before(now.AddDate(-2, 0, 0)):
			adjust(oldPenalty, "old ("+date+")")
		}
	}
	if n := src.References; n != nil {
		switch {
		case *n >= 2:
			adjust(referencesBonus, strconv.Itoa(*n)+" references")
		case *n == 0:
			adjust(noRefsPenalty, "no references")
		}
	}
	if v := src.AuthorVerified; v != nil && *v {
		adjust(verifiedBonus, "verified author")
	}
	if src.AuthorKnown && !named && !authorPriced {
		adjust(noAuthorPenalty, "no author")
	}

	r.Rating = clampRating(total)
	r.Basis = label
	if len(steps) > 0 {
		r.Basis += "; " + strings.Join(steps, "; ") + " → " + scoreText(r.Rating)
	}
	if r.Rating != total {
		r.Basis += " (capped from " + scoreText(total) + ")"
	}
	return r
}

// base returns the base score of a URL, the label that opens the basis, and
// whether the score already accounts for a named author.
func (c Credibility) base(tiers *Tiers, rawURL string, named bool) (float64, string, bool) {
	def := tiers.DefaultScore()
	if strings.TrimSpace(rawURL) == "" {
		return def, "default " + scoreText(def) + " (no URL)", false
	}
	norm, err := normalizeURL(rawURL)
	if err != nil {
		return def, "default " + scoreText(def) + " (unusable URL: " + err.Error() + ")", false
	}
	tr, ok := tiers.match(hostOf(norm))
	if !ok {
		return def, "unlisted site " + scoreText(def), false
	}
	if tr.withAuthor == 0 {
		return tr.score, tr.name + " " + scoreText(tr.score), false
	}
	if named {
		return tr.withAuthor, tr.name + " " + scoreText(tr.withAuthor) + " (named author)", true
	}
	return tr.score, tr.name + " " + scoreText(tr.score) + " (no named author)", true
}

// clampRating caps a rating to 1..10; NaN becomes 1.
func clampRating(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 1:
		return 1
	case v > 10:
		return 10
	}
	return v
}

// scoreText formats a score without trailing zeros: 9, 9.5.
func scoreText(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// PointStep is one row of a points table: an average credibility of at least
// Min earns Points.
type PointStep struct {
	Min, Points float64
}

// defaultSourceQualityTable is seed 001's source-quality table: an average
// credibility of 9 or more earns 2 points, 7 or more 1.5, 5 or more 1, and
// anything lower 0.
var defaultSourceQualityTable = []PointStep{{Min: 9, Points: 2}, {Min: 7, Points: 1.5}, {Min: 5, Points: 1}}

// defaultSourceQualityMax is the top of defaultSourceQualityTable.
const defaultSourceQualityMax = 2

// scaledSteps returns table with its points times k (table itself when k
// is 1).
func scaledSteps(table []PointStep, k float64) []PointStep {
	if k == 1 {
		return table
	}
	out := make([]PointStep, len(table))
	for i, s := range table {
		out[i] = PointStep{Min: s.Min, Points: s.Points * k}
	}
	return out
}

// SourceQualityPoints returns the points an average credibility earns: those
// of the step with the highest Min that avg reaches, in any order of table,
// or 0 when it reaches none. A NaN average (as from no sources at all) earns
// 0. A nil table means defaultSourceQualityTable.
func SourceQualityPoints(avg float64, table []PointStep) float64 {
	if table == nil {
		table = defaultSourceQualityTable
	}
	if math.IsNaN(avg) {
		return 0
	}
	best, points := math.Inf(-1), 0.0
	for _, s := range table {
		if avg >= s.Min && s.Min > best {
			best, points = s.Min, s.Points
		}
	}
	return points
}
