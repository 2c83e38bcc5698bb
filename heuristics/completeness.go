package heuristics

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/internal/lex"
	"github.com/assaylabs/assay/heuristics/internal/thai"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/textseg"
)

// comparisonPatterns find the two sides of a comparison query. They are
// compiled on first use, not at start-up.
var comparisonPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(?:.*?\b(?:between)\s+)(.+?)\s+and\s+(.+)$`),
		regexp.MustCompile(`(?i)^(?:.*?\bcompar(?:e|ing|ison of)\s+)(.+?)\s+(?:and|with|to|against|vs\.?|versus)\s+(.+)$`),
		regexp.MustCompile(`(?i)^(.+?)\s+(?:vs\.?|versus)\s+(.+)$`),
		regexp.MustCompile(`(?i)^(?:(?:how|in what ways?|why)\s+(?:does|do|did|is|are)\s+)?(.+?)\s+(?:differs?|different)\s+from\s+(.+)$`),
		// Thai, written without spaces: "ความแตกต่างระหว่าง X และ Y"
		// (the difference between), "เปรียบเทียบ X กับ Y" (compare X
		// with Y), "X เทียบกับ Y" (X against Y), "X และ/กับ Y ต่างกัน"
		// (X and Y differ).
		regexp.MustCompile(`^.*?ระหว่าง\s*(.+?)\s*(?:และ|กับ)\s*(.+)$`),
		regexp.MustCompile(`^.*?เปรียบเทียบ\s*(.+?)\s*(?:เทียบกับ|กับ|และ)\s*(.+)$`),
		regexp.MustCompile(`^(.+?)\s*(?:เทียบกับ|ปะทะ)\s*(.+)$`),
		regexp.MustCompile(`^(.+?)\s*(?:และ|กับ)\s*(.+?)\s*(?:แตกต่างกัน|ต่างกัน)`),
	}
})

// Aspects returns the key aspects of a research query: for a comparison
// ("X vs Y", "compare X and Y", "difference between X and Y", "how does X
// differ from Y") the two sides;
// otherwise each content term of the query (see aspectTerms).
func Aspects(query string) []string {
	q := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(query), "?.!"))
	for _, re := range comparisonPatterns() {
		if m := re.FindStringSubmatch(q); m != nil {
			var sides []string
			for _, side := range m[1:] {
				if t := aspectTerms(side, true); len(t) > 0 {
					sides = append(sides, strings.Join(t, " "))
				}
			}
			if len(sides) == 2 {
				return sides
			}
		}
	}
	return aspectTerms(q, false)
}

// aspectTerms returns the key terms of a query or one side of a
// comparison, once each, in order: the query's key terms (lex Terms: words
// of three letters or more, or with a digit, or Thai words; stop words
// left out) without the words that frame the question rather than name
// its topic (lex.Inquiry: "discovered", "known"), and with the short names
// Terms would drop: a word of one or two letters written with a capital
// ("Go", "C", "R", "Qt"), kept as written, which in a plain query must not
// be its first word (capitalised as any first word is). A short name is
// matched by its exact spelling (see Completeness).
func aspectTerms(phrase string, side bool) []string {
	var out []string
	seen := map[string]bool{}
	for i, w := range lexicon().Words(phrase) {
		lw := strings.ToLower(w)
		if lexicon().IsStop(lw) || lex.Inquiry(lw) {
			continue
		}
		term := lw
		switch {
		case isShortName(w):
			if !side && i == 0 {
				continue
			}
			term = w
		case utf8.RuneCountInString(lw) < 3 && !strings.ContainsFunc(lw, unicode.IsDigit) && !lex.IsGram(lw):
			continue
		}
		if !seen[term] {
			seen[term] = true
			out = append(out, term)
		}
	}
	return out
}

// isShortName reports whether w is a word of one or two letters that
// starts with a capital: a name, as Go, C, R or Qt.
func isShortName(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return utf8.RuneCountInString(w) <= 2 && unicode.IsUpper(r) && !strings.ContainsFunc(w, unicode.IsDigit)
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
	// Thai digits are the same numbers as ASCII ones: "๒๕๖๖" covers "2566".
	var texts []string
	for _, s := range r.Sentences {
		texts = append(texts, textseg.ASCIIDigits(s.Text))
	}
	title := true
	for _, sec := range r.Sections {
		// The title usually restates the query: it covers nothing.
		if title && sec.Level == 1 && sec.Title == r.Title {
			title = false
			continue
		}
		if !sec.Sources {
			texts = append(texts, textseg.ASCIIDigits(sec.Title))
		}
	}
	have := lexicon().StemSet(texts...)
	exact := map[string]bool{} // words as written, for short names
	for _, t := range texts {
		for _, w := range lexicon().Words(t) {
			exact[w] = true
		}
	}
	joined := strings.Join(texts, "\n")
	covered := 0
	for _, a := range aspects {
		ok := true
		for _, w := range strings.Fields(a) {
			w = textseg.ASCIIDigits(w)
			var found bool
			switch {
			case isShortName(w):
				found = exact[w]
			case thai.HasThai(w):
				// Thai runs on without spaces: the word anywhere in the
				// text, whatever words the dictionary cut around it.
				found = strings.Contains(joined, w)
			default:
				found = have[w] || have[lexicon().Stem(w)]
			}
			if !found {
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
		sc.Reason = fmt.Sprintf("%s of the query covered", plural.Count(len(aspects), "key aspect"))
		if len(aspects) > 1 {
			sc.Reason = "all " + sc.Reason
		}
	} else {
		sc.Reason = fmt.Sprintf("%d of %s covered", covered, plural.Count(len(aspects), "key aspect"))
	}
	return sc
}
