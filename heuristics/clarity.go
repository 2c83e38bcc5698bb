package heuristics

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/reportdoc"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/textseg"
)

// Readability thresholds of Clarity's zero value.
const (
	DefaultMaxAvgSentenceWords = 25  // average words per sentence
	DefaultMaxSentenceWords    = 50  // any one sentence
	DefaultNearDuplicate       = 0.8 // Jaccard similarity of two paragraphs' word sets
	nearDuplicateMinWords      = 8   // paragraphs shorter than this are not compared
)

// Required sections and the headings accepted for each (compared after
// normalizeHeading; a heading matches when it contains one of the phrases).
// Thai headings follow the same rule: Thai has no spaces between words,
// so a heading contains a phrase when the phrase occurs anywhere in it
// ("บทสรุปผู้บริหาร", executive summary, contains "ผู้บริหาร"). Summary is
// tried before conclusion, so "สรุปสำหรับผู้บริหาร" is a summary and "บทสรุป"
// a conclusion.
var (
	summaryHeadings = []string{"executive summary", "summary", "overview", "abstract", "tl dr", "tldr", "key takeaways", "at a glance", "introduction",
		// for executives, introduction, overview, abstract, key points, in brief
		"ผู้บริหาร", "บทนำ", "ความนำ", "ภาพรวม", "บทคัดย่อ", "สาระสำคัญ", "โดยย่อ", "โดยสังเขป"}
	findingsHeadings = []string{"finding", "result", "analysis", "discussion", "comparison", "evidence", "details", "key points", "body",
		// findings, results, analysis, discussion, comparison, details, evidence
		"ข้อค้นพบ", "สิ่งที่พบ", "ผลการ", "ผลลัพธ์", "วิเคราะห์", "อภิปราย", "เปรียบเทียบ", "รายละเอียด", "หลักฐาน", "ประเด็นสำคัญ"}
	conclusionHeadings = []string{"conclusion", "concluding", "final thoughts", "recommendation", "verdict", "bottom line", "outlook", "closing",
		// conclusion, summing up, recommendations, closing words, outlook
		"สรุป", "ข้อเสนอแนะ", "บทส่งท้าย", "ส่งท้าย", "แนวโน้ม", "คำแนะนำ"}
)

// Clarity checks structure and readability (seed 000/001): the report has an
// executive summary, main findings, a conclusion and a sources section
// (common synonyms accepted; findings are either a heading naming them or at
// least two other topical sections); the average sentence is at most
// MaxAvgSentenceWords words and none exceeds MaxSentenceWords; no sentence
// is repeated and no two paragraphs are near-duplicates (Jaccard similarity
// of their word sets at least NearDuplicate). No issue earns Max; any issue
// earns 0 and is listed.
//
// It reads Sample.Answer. The zero value uses the Default thresholds and a
// maximum of 1.
type Clarity struct {
	MaxAvgSentenceWords float64
	MaxSentenceWords    int
	NearDuplicate       float64
	Max                 float64
}

var _ ReportScorer = Clarity{}

// Score implements eval.Scorer: it parses Sample.Answer and calls
// ScoreReport.
func (c Clarity) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return c.ScoreReport(ctx, ParseReport([]byte(s.Answer)), s)
}

// ScoreReport implements ReportScorer: r is Sample.Answer parsed.
func (c Clarity) ScoreReport(ctx context.Context, r *Report, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	return c.score(r), nil
}

func (c Clarity) score(r *Report) eval.Score {
	maxPts := orDefault(c.Max, 1)
	avgMax := orDefault(c.MaxAvgSentenceWords, DefaultMaxAvgSentenceWords)
	longMax := c.MaxSentenceWords
	if longMax == 0 {
		longMax = DefaultMaxSentenceWords
	}
	dup := orDefault(c.NearDuplicate, DefaultNearDuplicate)

	issues := structureIssues(r)

	total, long, prose := 0, 0, 0
	for _, s := range r.Sentences {
		if s.Row {
			continue // a table row is no sentence to read
		}
		prose++
		n := lexicon().WordCount(s.Prose) // citation markers are no words
		total += n
		if n > longMax {
			long++
		}
	}
	avg := 0.0
	if prose > 0 {
		avg = float64(total) / float64(prose)
	}
	if avg > avgMax {
		issues = append(issues, fmt.Sprintf("sentences too long on average (%.1f words; at most %g)", avg, avgMax))
	}
	if long > 0 {
		issues = append(issues, fmt.Sprintf("%s over %d words", plural.Count(long, "sentence"), longMax))
	}
	issues = append(issues, repetitionIssues(r, dup)...)

	sc := eval.Score{Metric: "clarity", Max: maxPts, Method: "heuristic", Evidence: eval.Evidence{
		Issues: issues,
		Counts: map[string]float64{"sentences": float64(prose), "avg_sentence_words": round2(avg), "sections": float64(len(r.Sections))},
	}}
	if len(issues) == 0 {
		sc.Points, sc.Value = maxPts, 1
		sc.Reason = "well structured and readable"
	} else {
		sc.Reason = fmt.Sprintf("%d clarity issue(s): %s", len(issues), strings.Join(issues, "; "))
	}
	return sc
}

func headingHas(title string, phrases []string) bool {
	t := reportdoc.NormalizeHeading(title)
	for _, p := range phrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

func structureIssues(r *Report) []string {
	var summary, findings, conclusion, sources bool
	other := 0
	for _, s := range r.Sections {
		switch {
		case s.Sources:
			sources = true
		case headingHas(s.Title, summaryHeadings):
			summary = true
		case headingHas(s.Title, conclusionHeadings):
			conclusion = true
		case headingHas(s.Title, findingsHeadings):
			findings = true
		case s.Level > 1:
			other++
		}
	}
	if other >= 2 {
		findings = true
	}
	var issues []string
	if !summary {
		issues = append(issues, "missing executive summary section")
	}
	if !findings {
		issues = append(issues, "missing main findings section")
	}
	if !conclusion {
		issues = append(issues, "missing conclusion section")
	}
	if !sources {
		issues = append(issues, "missing sources section")
	}
	return issues
}

func repetitionIssues(r *Report, threshold float64) []string {
	var issues []string
	seen := map[string]int{}
	for _, s := range r.Sentences {
		ws := lexicon().Words(s.Prose) // the same words cited apart are still repeated
		if s.Row || len(ws) < reportdoc.MinClaimWords {
			continue
		}
		// "๑๐" and "10" are one number: the sentence is repeated.
		k := textseg.ASCIIDigits(strings.ToLower(strings.Join(ws, " ")))
		seen[k]++
		if seen[k] == 2 {
			issues = append(issues, fmt.Sprintf("repeated sentence at line %d: %q", s.Line, truncate(s.Text, 60)))
		}
	}
	sets := make([][]string, len(r.Paragraphs))
	for i, p := range r.Paragraphs {
		ws := lexicon().Words(p.Text)
		if len(ws) < nearDuplicateMinWords {
			continue
		}
		sets[i] = make([]string, len(ws))
		for k, w := range ws {
			sets[i][k] = textseg.ASCIIDigits(strings.ToLower(w))
		}
	}
	pairs, _ := nearDuplicates(sets, threshold)
	for _, pr := range pairs {
		issues = append(issues, fmt.Sprintf("paragraphs at lines %d and %d are near-duplicates", r.Paragraphs[pr[0]].Line, r.Paragraphs[pr[1]].Line))
	}
	return slices.Compact(issues)
}

// nearDuplicates returns the pairs (i < j, in order) of word sets whose
// Jaccard similarity is at least t; nil sets are left out. It also returns
// how many pairs it compared word by word. It sorts each set in place.
//
// Comparing every pair is quadratic, and a large report has thousands of
// paragraphs, so it filters by prefix (as in the AllPairs algorithm): with
// each set's words sorted rarest first, two sets with similarity at least
// t share a word among the first |x| - ceil(t*|x|) + 1 of either.
func nearDuplicates(sets [][]string, t float64) (pairs [][2]int, compared int) {
	// Word ids, rarest first, ties by the word, so the order is the same
	// for every set.
	df := map[string]int{}
	uniq := make([][]string, len(sets))
	for i, s := range sets {
		if s == nil {
			continue
		}
		slices.Sort(s)
		u := slices.Compact(s)
		uniq[i] = u
		for _, w := range u {
			df[w]++
		}
	}
	vocab := slices.Collect(maps.Keys(df))
	slices.SortFunc(vocab, func(a, b string) int {
		if c := df[a] - df[b]; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	id := make(map[string]int, len(vocab))
	for i, w := range vocab {
		id[w] = i
	}
	ids := make([][]int, len(sets))
	for i, u := range uniq {
		if u == nil {
			continue
		}
		ids[i] = make([]int, len(u))
		for k, w := range u {
			ids[i][k] = id[w]
		}
		slices.Sort(ids[i])
	}

	index := map[int][]int{} // word id -> sets with it in their prefix
	for j, y := range ids {
		if y == nil {
			continue
		}
		var cands []int
		if t <= 0 {
			// Every pair qualifies, disjoint ones included: no filter.
			for i := range j {
				if ids[i] != nil {
					cands = append(cands, i)
				}
			}
		} else {
			prefix := len(y) - int(math.Ceil(t*float64(len(y))-1e-9)) + 1
			prefix = max(1, min(prefix, len(y)))
			for _, w := range y[:prefix] {
				cands = append(cands, index[w]...)
				index[w] = append(index[w], j)
			}
			slices.Sort(cands)
			cands = slices.Compact(cands)
		}
		for _, i := range cands {
			compared++
			if jaccardSorted(ids[i], y) >= t {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return pairs, compared
}

// jaccardSorted is the Jaccard similarity of two sorted sets of ids.
func jaccardSorted(a, b []int) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
