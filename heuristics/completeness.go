package heuristics

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
)

// comparisonPatterns find the two sides of a comparison query. They are
// compiled on first use, not at start-up.
var comparisonPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(?:.*?\b(?:between)\s+)(.+?)\s+and\s+(.+)$`),
		regexp.MustCompile(`(?i)^(?:.*?\bcompar(?:e|ing|ison of)\s+)(.+?)\s+(?:and|with|to|against|vs\.?|versus)\s+(.+)$`),
		regexp.MustCompile(`(?i)^(.+?)\s+(?:vs\.?|versus)\s+(.+)$`),
		regexp.MustCompile(`(?i)^(?:(?:how|in what ways?|why)\s+(?:does|do|did|is|are)\s+)?(.+?)\s+(?:differs?|different)\s+from\s+(.+)$`),
	}
})

// Aspects returns the key aspects of a research query: for a comparison
// ("X vs Y", "compare X and Y", "difference between X and Y", "how does X
// differ from Y") the two sides;
// otherwise each content term of the query.
func Aspects(query string) []string {
	q := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(query), "?.!"))
	for _, re := range comparisonPatterns() {
		if m := re.FindStringSubmatch(q); m != nil {
			var sides []string
			for _, side := range m[1:] {
				if t := lexicon.Terms(side); len(t) > 0 {
					sides = append(sides, strings.Join(t, " "))
				}
			}
			if len(sides) == 2 {
				return sides
			}
		}
	}
	return lexicon.Terms(q)
}

// Completeness is the heuristic completeness check of seed 000: every key
// aspect of the query (see Aspects) must appear in the report's body or
// headings other than its title (which usually restates the query),
// compared by Snowball stem. All covered earns Max; any gap earns
// 0 and is named in the evidence. An aspect of several words is covered
// when each of its words is.
//
// It reads Sample.Query, falling back to the report's level-1 title when
// the query is empty. With neither, it earns 0 and says why. The zero value
// has Max 1. An LLM judge replaces it when a model is configured.
type Completeness struct {
	Max float64
}

var _ ReportScorer = Completeness{}

// Score implements eval.Scorer: it parses Sample.Answer and calls
// ScoreReport.
func (c Completeness) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return c.ScoreReport(ctx, ParseReport([]byte(s.Answer)), s)
}

// ScoreReport implements ReportScorer: r is Sample.Answer parsed.
func (c Completeness) ScoreReport(ctx context.Context, r *Report, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return c.score(r, s.Query), nil
}

func (c Completeness) score(r *Report, query string) eval.Score {
	maxPts := orDefault(c.Max, 1)
	sc := eval.Score{Metric: "completeness", Max: maxPts, Method: "heuristic"}
	if strings.TrimSpace(query) == "" {
		query = r.Title
	}
	aspects := Aspects(query)
	if len(aspects) == 0 {
		sc.Reason = "no query aspects to check: pass --query"
		sc.Evidence.Gaps = []string{"query unknown"}
		return sc
	}
	var texts []string
	for _, s := range r.Sentences {
		texts = append(texts, s.Text)
	}
	title := true
	for _, sec := range r.Sections {
		// The title usually restates the query: it covers nothing.
		if title && sec.Level == 1 && sec.Title == r.Title {
			title = false
			continue
		}
		if !sec.Sources {
			texts = append(texts, sec.Title)
		}
	}
	have := lexicon.StemSet(texts...)
	covered := 0
	for _, a := range aspects {
		ok := true
		for _, w := range strings.Fields(a) {
			if !have[w] && !have[lexicon.Stem(w)] {
				ok = false
				break
			}
		}
		if ok {
			covered++
		} else {
			sc.Evidence.Gaps = append(sc.Evidence.Gaps, fmt.Sprintf("%q not covered", a))
		}
	}
	sc.Evidence.Counts = map[string]float64{"aspects": float64(len(aspects)), "covered_aspects": float64(covered)}
	if covered == len(aspects) {
		sc.Points, sc.Value = maxPts, 1
		sc.Reason = fmt.Sprintf("all %d key aspects of the query covered", len(aspects))
	} else {
		sc.Reason = fmt.Sprintf("%d of %d key aspects covered", covered, len(aspects))
	}
	return sc
}
