package judges

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/textseg"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// completenessMetric is the registry entry of completeness.
func completenessMetric() metric.Entry {
	return metric.Entry{
		Name: MetricCompleteness, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
		// The research profile scores completeness too, on its own scale.
		Profiles: []string{"report"},
		Build:    func(m Model) eval.Scorer { return Completeness{Model: m} },
		DryRun:   completenessStandIn,
	}
}

// completenessStandIn lists two aspects, the first covered.
func completenessStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if !asks(req, aspectSchema()) {
		return "", 0, false
	}
	return `{"aspects":[{"aspect":"the main question","covered":true,"evidence":"the answer"},{"aspect":"the reasons","covered":false,"evidence":""}]}`, 200, true
}

// Completeness lists the aspects the query asks for and checks which the
// answer covers; the gaps are named in the evidence. Its points are on the
// research card's scale (Max, default 1), so it can replace the heuristic
// completeness there. Offline it is heuristics.Completeness.
//
// A missing or blank answer is Skipped (eval.ErrNoAnswer), not scored. The
// reply must list at least one aspect. An aspect the model lists twice
// (ignoring case, spacing and punctuation) counts once, the worse of its
// two verdicts (not covered) kept, counted in the evidence as
// "repeated_aspects".
type Completeness struct {
	Model Model
	// Max is the points a complete answer earns (default 1).
	Max float64
}

var _ eval.Scorer = Completeness{}

type aspect struct {
	Aspect   string `json:"aspect"`
	Covered  bool   `json:"covered"`
	Evidence string `json:"evidence"`
}

type aspectList struct {
	Aspects []aspect `json:"aspects"`
}

// Validate implements llm.Validator: a reply with no aspect judges nothing.
func (a aspectList) Validate() error {
	if len(a.Aspects) == 0 {
		return errors.New("aspects is empty")
	}
	return nil
}

// completenessQuestion is the question the answer is judged against: the
// query, or, like the heuristic, the report's level-1 title when the query
// is blank; "" when there is neither.
func completenessQuestion(s eval.Sample) string {
	if q := strings.TrimSpace(s.Query); q != "" {
		return q
	}
	return strings.TrimSpace(heuristics.ParseReport([]byte(s.Answer)).Title)
}

var aspectSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[aspectList]("aspects") })

// Score implements eval.Scorer.
func (c Completeness) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	maxPts := c.Max
	if maxPts == 0 {
		maxPts = 1
	}
	if blank(s.Answer) {
		return skip(MetricCompleteness, Method(c.Model), maxPts, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	if Offline(c.Model) {
		sc, err := heuristics.Completeness{Max: maxPts}.Score(ctx, s)
		sc.Method = MethodOffline
		return sc, err
	}
	q := completenessQuestion(s)
	if q == "" {
		// Nothing to ask about: the heuristic says to pass --query.
		return heuristics.Completeness{Max: maxPts}.Score(ctx, s)
	}
	var al aspectList
	u, err := ask(ctx, c.Model, "completeness", prompts.QA{Question: q, Answer: s.Answer}, &al, aspectSchema())
	if err != nil {
		return fail(ctx, MetricCompleteness, c.Model, maxPts, err, u)
	}
	aspects, repeated := dedupeAspects(al.Aspects)
	covered := 0
	var gaps, have []string
	for _, a := range aspects {
		if a.Covered {
			covered++
			have = append(have, a.Aspect)
		} else {
			gaps = append(gaps, a.Aspect)
		}
	}
	v := float64(covered) / float64(len(aspects))
	sc := eval.Score{
		Metric: MetricCompleteness, Value: v, Points: v * maxPts, Max: maxPts, Method: Method(c.Model), Usage: u.Recorded(),
		Evidence: eval.Evidence{Gaps: gaps, Counts: map[string]float64{"aspects": float64(len(aspects)), "covered": float64(covered)}},
		Reason:   fmt.Sprintf("covers %d of %s", covered, plural.Count(len(aspects), "aspect")),
	}
	if len(have) > 0 {
		sc.Reason += " (" + strings.Join(have, "; ") + ")"
	}
	if len(gaps) > 0 {
		sc.Reason += "; missing: " + strings.Join(gaps, "; ")
	}
	if len(repeated) > 0 {
		sc.Evidence.Counts["repeated_aspects"] = float64(len(repeated))
		sc.Evidence.Issues = repeated
		sc.Reason += fmt.Sprintf("; %s listed more than once, counted once", plural.Count(len(repeated), "aspect"))
	}
	return sc, nil
}

// dedupeAspects keeps one entry per aspect, comparing names without case,
// spacing or punctuation; a repeated aspect keeps the worse verdict (not
// covered). It returns a note per repeated aspect.
func dedupeAspects(as []aspect) ([]aspect, []string) {
	at := map[string]int{}
	times := map[string]int{}
	var out []aspect
	var keys []string
	for _, a := range as {
		k := aspectKey(a.Aspect)
		times[k]++
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			out = append(out, a)
			keys = append(keys, k)
			continue
		}
		if out[i].Covered && !a.Covered {
			out[i] = a
		}
	}
	var notes []string
	for i, k := range keys {
		if times[k] > 1 {
			kept := "covered"
			if !out[i].Covered {
				kept = "not covered"
			}
			notes = append(notes, fmt.Sprintf("aspect %q listed %d times: the worse, %s, kept", out[i].Aspect, times[k], kept))
		}
	}
	return out, notes
}

// aspectKey is an aspect's name in lower case, letters and digits only,
// words separated by one space, read in Unicode NFC (textseg.Normalize).
func aspectKey(name string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(textseg.Normalize(name)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}), " ")
}
