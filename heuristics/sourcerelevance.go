package heuristics

import (
	"strings"

	"github.com/assaylabs/assay/heuristics/reportdoc"
)

// relWindow is how many sentences in a row SourceRelevance reads at once:
// an answer is usually stated within a few sentences, and a long page that
// names each query term somewhere, far apart, is not thereby relevant.
const relWindow = 3

// SourceRelevance scores, in [0, 1], how well a retrieved passage serves
// the query as a source on its own: the per-source relevance judge's
// offline grade (GradeOfRelevance maps it to 1-5). Its rules, each one
// sentence in docs/judging.md's "Offline judges" section:
//
//   - Coverage: the score is the share of the query's content terms found
//     in the passage's best window of relWindow sentences, each term
//     weighted by its rarity (a rare word such as "Arno" counts for more
//     than a common one such as "pass"; wordfreq.go), terms compared by
//     stem, and Chinese, Japanese and Thai by characters and pairs of
//     characters.
//   - Measures: a question asking for a measure ("how long", "how tall",
//     "how heavy", "how far", "how much", and their Chinese, Japanese and
//     Thai forms) has one more term, of weight 1, found when the window
//     holds a number with a unit of a kind that answers it (a length or a
//     duration for "how long", a weight for "how heavy", money, a weight
//     or a volume for "how much"); the wording itself is not a term.
//   - People: a "who" question has one more term, of weight 1, found
//     when the window names someone the query does not (a capitalised
//     word that does not open the sentence): "Who wrote Pride and
//     Prejudice?" is answered by "...a novel by Jane Austen".
//   - Names are not enough: a window whose terms found make up a single
//     phrase of the query (one keyword, or neighbours in the query that
//     are neighbours in the window too, as a name such as "Berlin Wall" or
//     熊猫 is), while other terms of the query or its measure are missing,
//     scores below grade 3: it names the subject, perhaps in another sense
//     (a club, a brand, a shop), but says nothing of what is asked.
//
// A query with no content terms, or an empty passage, scores 0.
func SourceRelevance(query, passage string) float64 {
	return relevance(query, passage).Value
}

// Relevance is SourceRelevance's judgement with its reasons: the score, the
// query terms found and missed in the passage's best window, and whether
// the window holds the measure the query asks for.
type Relevance struct {
	// Value is SourceRelevance's score in [0, 1].
	Value float64
	// Found and Missing are the query's terms, lower-cased, found and not
	// found in the best window.
	Found, Missing []string
	// Measure is "" when the query asks for no measure, else "found" or
	// "missing".
	Measure string
	// NameOnly is true when the "names are not enough" rule lowered the
	// score: the window shares a single phrase of the query and misses
	// the rest.
	NameOnly bool
}

// Explain returns SourceRelevance's judgement of the passage for the query
// with its reasons, for a score card's reason.
func Explain(query, passage string) Relevance { return relevance(query, passage) }

// String is the judgement in one line: "found arno; missing city, pass;
// measure found".
func (r Relevance) String() string {
	var b strings.Builder
	b.WriteString("found " + listOrNone(r.Found) + "; missing " + listOrNone(r.Missing))
	if r.Measure != "" {
		b.WriteString("; measure " + r.Measure)
	}
	if r.NameOnly {
		b.WriteString("; only one phrase of the query, so below grade 3")
	}
	return b.String()
}

func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}

// relQuery is a query read for relevance: its content terms in order,
// with their stems and rarity weights, and the measure it asks for.
type relQuery struct {
	words, stems []string
	weights      []float64
	measure      measureKind
	total        float64
	// lower holds the query's words, lower-cased, so that a name the
	// query already gives does not count as the person it asks for.
	lower map[string]bool
}

func readQuery(query string) relQuery {
	kinds, rest := measureAsked(query)
	q := relQuery{measure: kinds, lower: map[string]bool{}}
	for _, w := range lexicon().LowerWords(query) {
		q.lower[w] = true
	}
	seen := map[string]bool{}
	for _, w := range lexicon().Terms(rest) {
		s := lexicon().Stem(w)
		if seen[s] {
			continue
		}
		seen[s] = true
		wt := rarity(w)
		q.words, q.stems, q.weights = append(q.words, w), append(q.stems, s), append(q.weights, wt)
		q.total += wt
	}
	if kinds != 0 {
		q.total++ // the measure, of weight 1
	}
	return q
}

// relSentence is what one sentence of a passage holds of the query.
type relSentence struct {
	found   []bool // by query term
	joined  []bool // by query term: it and the next are neighbours here
	measure bool
}

func relevance(query, passage string) Relevance {
	q := readQuery(query)
	p := strings.TrimSpace(passage)
	if len(q.stems) == 0 || p == "" {
		return Relevance{}
	}
	bounds := reportdoc.SplitSentences(p)
	sents := make([]relSentence, len(bounds))
	for i, start := range bounds {
		end := len(p)
		if i+1 < len(bounds) {
			end = bounds[i+1]
		}
		text := p[start:end]
		set, seq := passageTerms(lexicon().LowerWords(text))
		pairs := make(map[[2]string]bool, len(seq))
		for k := 1; k < len(seq); k++ {
			pairs[[2]string{seq[k-1], seq[k]}] = true
		}
		f, joined := make([]bool, len(q.stems)), make([]bool, len(q.stems))
		for j, s := range q.stems {
			f[j] = set[s] || set[q.words[j]]
			if j+1 < len(q.stems) {
				next := q.stems[j+1]
				joined[j] = pairs[[2]string{s, next}] || pairs[[2]string{next, s}]
			}
		}
		sents[i] = relSentence{found: f, joined: joined, measure: holdsMeasure(text, q.measure, q.lower)}
	}
	var best Relevance
	bestSet := false
	for i := range sents {
		r := q.judgeWindow(sents[i:min(i+relWindow, len(sents))])
		if !bestSet || r.Value > best.Value {
			best, bestSet = r, true
		}
		if i+relWindow >= len(sents) {
			break
		}
	}
	return best
}

// judgeWindow scores a window of sentences by the rules of SourceRelevance.
func (q relQuery) judgeWindow(win []relSentence) Relevance {
	var r Relevance
	// A run is a phrase of the query found as a phrase in the window:
	// terms next to each other in the query (stop words aside) and in one
	// sentence of the window, such as "Berlin Wall" or 熊猫.
	hit, runs, joined, missing := 0.0, 0, false, false
	for j := range q.stems {
		found := false
		for _, s := range win {
			found = found || s.found[j]
		}
		switch {
		case !found:
			r.Missing = append(r.Missing, q.words[j])
			missing = true
		case !joined:
			runs++
			fallthrough
		default:
			hit += q.weights[j]
			r.Found = append(r.Found, q.words[j])
		}
		joined = false
		for _, s := range win {
			joined = joined || (found && s.joined[j])
		}
	}
	if q.measure != 0 {
		r.Measure = "missing"
		for _, s := range win {
			if s.measure {
				r.Measure = "found"
			}
		}
		if r.Measure == "found" {
			hit++
			runs++
		} else {
			missing = true
		}
	}
	r.Value = hit / q.total
	if runs == 1 && missing && r.Value > nameOnlyCap {
		r.NameOnly = true
		r.Value = nameOnlyCap
	}
	r.Value = min(max(r.Value, 0), 1)
	return r
}

// nameOnlyCap is the most a window sharing a single run of the query's
// terms scores: grade 2, just under the grade-3 cut.
const nameOnlyCap = RelevanceGrade3 - 0.01
