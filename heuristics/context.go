package heuristics

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/internal/lex"
	"github.com/assaylabs/assay/internal/jsstr"
)

// Seed 002's composite weights: overall = 0.3 retrieval confidence +
// 0.3 context sufficiency + 0.15 diversity + 0.25 estimated faithfulness.
const (
	WeightRetrievalConfidence   = 0.3
	WeightContextSufficiency    = 0.3
	WeightDiversity             = 0.15
	WeightEstimatedFaithfulness = 0.25
)

// Thresholds of seed 002's warnings, checked in this order: overall below
// ContextVeryLowBelow, overall below ContextModerateBelow, diversity below
// ContextLowDiversityBelow. Only the first that applies is given.
const (
	ContextVeryLowBelow      = 0.3
	ContextModerateBelow     = 0.5
	ContextLowDiversityBelow = 0.2
)

// The warnings of seed 002, word for word.
const (
	WarnVeryLowConfidence  = "Very low retrieval confidence. Consider rephrasing your query or adding more documents."
	WarnModerateConfidence = "Moderate retrieval confidence. Results may be incomplete."
	WarnLowDiversity       = "Low source diversity. Results are heavily concentrated in a single document."
)

// The fixed constants inside seed 002's four sub-scores.
const (
	retrievalAvgWeight     = 0.7 // average of the chunk scores
	retrievalSpreadWeight  = 0.3 // last score / first score
	sufficiencyCoverage    = 0.6 // share of query terms found in the context
	sufficiencyDensity     = 0.4 // tokens against query complexity
	sufficiencyNeutral     = 0.5 // a query with no key terms
	tokensPerQueryTerm     = 50
	diversityDocWeight     = 0.6 // distinct documentId / chunks
	diversitySectionWeight = 0.4 // distinct sectionTitle (or documentId) / chunks
	faithDensityWeight     = 0.4 // numbers, dates and proper nouns per 100 words
	faithScoreWeight       = 0.6 // first chunk's retrieval score
	faithDensityScale      = 0.1
	faithScoreScale        = 1.5
	queryTermMinLen        = 2 // a query term is longer than this (UTF-16 units)
)

// ContextWeights are the weights of the four sub-scores in the overall
// context quality. They need not sum to 1.
type ContextWeights struct {
	RetrievalConfidence   float64 `yaml:"retrieval_confidence" json:"retrieval_confidence"`
	ContextSufficiency    float64 `yaml:"context_sufficiency" json:"context_sufficiency"`
	Diversity             float64 `yaml:"diversity_score" json:"diversity_score"`
	EstimatedFaithfulness float64 `yaml:"estimated_faithfulness" json:"estimated_faithfulness"`
}

// defaultContextWeights are seed 002's weights (0.3, 0.3, 0.15, 0.25).
var defaultContextWeights = ContextWeights{
	RetrievalConfidence:   WeightRetrievalConfidence,
	ContextSufficiency:    WeightContextSufficiency,
	Diversity:             WeightDiversity,
	EstimatedFaithfulness: WeightEstimatedFaithfulness,
}

// ContextAssessment is seed 002's ContextQualityScore: the overall context
// quality and its four sub-scores. With non-negative chunk scores up to 1
// every field is in [0, 1]; the seed does not clamp, and neither does this
// port (chunk scores above 1 can lift retrieval confidence above 1, and
// negative ones take it below 0).
type ContextAssessment struct {
	Overall               float64 `json:"overall"`
	RetrievalConfidence   float64 `json:"retrievalConfidence"`
	ContextSufficiency    float64 `json:"contextSufficiency"`
	DiversityScore        float64 `json:"diversityScore"`
	EstimatedFaithfulness float64 `json:"estimatedFaithfulness"`
	// Warning is one of the Warn... messages, or "" when none applies.
	Warning string `json:"warning,omitempty"`
	// Notes say what the input lacked or held outside the usual range
	// (a missing context.text, negative scores) and how it was read; the
	// seed has no such field.
	Notes []string `json:"notes,omitempty"`
}

// ContextQuality is seed 002's CompositeQualityScorer: it judges the
// retrieval behind a RAG answer before generation, from the query, the
// ranked chunks and the assembled context. It does not read the answer.
//
// It reads Sample.Query; Sample.Sources as the chunks in rank order
// (Text is the content, Score the retrieval score, RerankScore the
// reranker's when not nil, ID the documentId, Metadata["sectionTitle"] the
// section); and Sample.Context, where nil means empty text and 0 tokens.
//
// The zero value uses defaultContextWeights. It is safe for concurrent use.
//
// # Matching the TypeScript
//
// The results equal, bit for bit, those of the seed's TypeScript on Node:
// the arithmetic is done in the seed's order with no fused multiply-add,
// and JavaScript's string rules are reproduced rather than approximated:
//
//   - Whitespace, for splitting the query and the content and inside the
//     proper-noun pattern, is JavaScript's \s: tab, LF, VT, FF, CR, space,
//     U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000
//     and U+FEFF (not U+0085, unlike Go's unicode.IsSpace). Splitting keeps
//     the empty fields at either end, as String.prototype.split does.
//   - Lengths count UTF-16 code units (an emoji counts 2).
//   - Lower-casing is toLowerCase's: U+0130 becomes "i" + U+0307, and a
//     capital sigma becomes final sigma (U+03C2) at the end of a word, by
//     ICU's Final_Sigma rule. Other letters use Go's Unicode 15.0 tables,
//     as does the Cased and Case_Ignorable test of that rule. A Node whose
//     ICU has Unicode 16 or later also lowercases the 55 capitals added
//     since (U+1C89, U+A7CB, U+A7CC, U+A7CE, U+A7D2, U+A7D4, U+A7DA,
//     U+A7DC, Garay U+10D50-U+10D65, Beria Erfe U+16EA0-U+16EB8), which
//     this port leaves as they are; that is the one known difference.
//   - \d, \w and [A-Z] are ASCII, as in JavaScript without the u flag.
//   - A sectionTitle that is absent or null falls back to the documentId;
//     any other value counts as itself: the string "1", the number 1 and
//     the boolean true are three different sections, equal numbers are one
//     section, and each object or array is a section of its own. Nil
//     metadata behaves as empty (the TypeScript would throw).
//   - A Go string that is not valid UTF-8 is read as if each invalid byte
//     were U+FFFD.
//
// Negative and zero chunk scores (a cross-encoder's logits) are used as
// they are, as in the seed, and so is a context without text; the
// assessment's Notes say so.
//
// Non-finite chunk scores give non-finite results, as in the seed; Score
// reports them as an error, AssessContext returns them as they are.
type ContextQuality struct {
	// Weights of the sub-scores in Overall; all zero means
	// defaultContextWeights.
	Weights ContextWeights
}

var _ eval.Scorer = ContextQuality{}

// Score implements eval.Scorer. The metric is "context_quality"; Value and
// Points are the overall quality, out of 1, and the evidence counts hold the
// four sub-scores and the overall (under the Key... names). The reason is
// the seed's warning when there is one (then also the evidence's one
// issue), else a summary of the sub-scores. The evidence's notes are the
// assessment's: what the input lacked and how it was read.
func (c ContextQuality) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := ctx.Err(); err != nil {
		return eval.Score{}, err
	}
	a := c.Assess(s)
	for _, v := range []float64{a.Overall, a.RetrievalConfidence, a.ContextSufficiency, a.DiversityScore, a.EstimatedFaithfulness} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return eval.Score{}, fmt.Errorf("context_quality: result is not finite (%v): source scores must be finite numbers", v)
		}
	}
	// The warning, if any, is the reason and the evidence's one issue,
	// where code reads it.
	reason, warnings := a.Warning, []string(nil)
	if reason != "" {
		warnings = []string{a.Warning}
	} else {
		reason = a.figures()
	}
	return eval.Score{
		Metric: "context_quality",
		Value:  a.Overall,
		Points: a.Overall,
		Max:    1,
		Reason: reason,
		Method: "heuristic",
		Evidence: eval.Evidence{Issues: warnings, Notes: a.Notes, Counts: map[string]float64{
			KeyRetrievalConfidence:   a.RetrievalConfidence,
			KeyContextSufficiency:    a.ContextSufficiency,
			KeyDiversityScore:        a.DiversityScore,
			KeyEstimatedFaithfulness: a.EstimatedFaithfulness,
			KeyOverall:               a.Overall,
		}},
	}, nil
}

// figures is the reason of an assessment without a warning: the overall
// and the sub-scores to three decimals, as fmt's %.3f writes them (they
// are finite).
func (a ContextAssessment) figures() string {
	b := make([]byte, 0, 128)
	for _, f := range [...]struct {
		label string
		v     float64
	}{{"overall ", a.Overall}, {": retrieval confidence ", a.RetrievalConfidence}, {", context sufficiency ", a.ContextSufficiency},
		{", diversity ", a.DiversityScore}, {", estimated faithfulness ", a.EstimatedFaithfulness}} {
		b = append(b, f.label...)
		b = strconv.AppendFloat(b, f.v, 'f', 3, 64)
	}
	return string(b)
}

// AssessContext returns seed 002's context quality of a sample with the
// default weights. See ContextQuality for the inputs it reads.
func AssessContext(s eval.Sample) ContextAssessment {
	return ContextQuality{}.Assess(s)
}

// Assess returns the context quality of a sample with c's weights.
func (c ContextQuality) Assess(s eval.Sample) ContextAssessment {
	w := c.Weights
	if w == (ContextWeights{}) {
		w = defaultContextWeights
	}
	text, tokens := "", 0
	if s.Context != nil {
		text, tokens = s.Context.Text, s.Context.TokenCount
	}
	a := ContextAssessment{
		RetrievalConfidence:   retrievalConfidence(s.Sources),
		ContextSufficiency:    contextSufficiency(s.Query, text, tokens),
		DiversityScore:        chunkDiversity(s.Sources),
		EstimatedFaithfulness: estimatedFaithfulness(s.Sources),
	}
	// Each product is converted to float64 so that the compiler cannot fuse
	// it with the addition (FMA): the sums then round exactly as in
	// JavaScript on every architecture.
	a.Overall = float64(a.RetrievalConfidence*w.RetrievalConfidence) +
		float64(a.ContextSufficiency*w.ContextSufficiency) +
		float64(a.DiversityScore*w.Diversity) +
		float64(a.EstimatedFaithfulness*w.EstimatedFaithfulness)
	switch {
	case a.Overall < ContextVeryLowBelow:
		a.Warning = WarnVeryLowConfidence
	case a.Overall < ContextModerateBelow:
		a.Warning = WarnModerateConfidence
	case a.DiversityScore < ContextLowDiversityBelow:
		a.Warning = WarnLowDiversity
	}
	a.Notes = contextNotes(s)
	return a
}

// retrievalConfidence is 0.7 times the mean chunk score (the rerank score
// where there is one) plus 0.3 times the last score over the first (0 when
// the first is not positive). No chunks score 0.
func retrievalConfidence(chunks []eval.Source) float64 {
	if len(chunks) == 0 {
		return 0
	}
	sum := 0.0
	for _, c := range chunks {
		sum += chunkRankScore(c)
	}
	avg := sum / float64(len(chunks))
	top, bottom := chunkRankScore(chunks[0]), chunkRankScore(chunks[len(chunks)-1])
	spread := 0.0
	if top > 0 {
		spread = bottom / top
	}
	return float64(avg*retrievalAvgWeight) + float64(spread*retrievalSpreadWeight)
}

// chunkRankScore is the seed's `rerankScore ?? score`.
func chunkRankScore(c eval.Source) float64 {
	if c.RerankScore != nil {
		return *c.RerankScore
	}
	return c.Score
}

// contextSufficiency is 0.6 times the share of the query's key terms found
// (as substrings) in the lower-cased context plus 0.4 times the context's
// tokens over 50 per key term, capped at 1. An empty context scores 0; a
// query without key terms scores 0.5.
func contextSufficiency(query, text string, tokens int) float64 {
	if text == "" {
		return 0
	}
	var lower string
	terms, covered := 0, 0
	for t := range contextQueryTerms(query) {
		if terms == 0 {
			lower = jsToLower(text)
		}
		terms++
		if strings.Contains(lower, t) {
			covered++
		}
	}
	if terms == 0 {
		return sufficiencyNeutral
	}
	coverage := float64(covered) / float64(terms)
	density := min(float64(tokens)/float64(terms*tokensPerQueryTerm), 1)
	return float64(coverage*sufficiencyCoverage) + float64(density*sufficiencyDensity)
}

// contextQueryTerms is the seed's extractQueryTerms: the lower-cased query
// split on whitespace, keeping the words longer than two UTF-16 units that
// are not stop words of the seed's list (lex.Seed002, shorter than the
// package's). Duplicates are kept. The split is JavaScript's, not
// lexicon().Words, so that the figures are the seed's. The terms are
// yielded as they are found, not gathered in a slice.
func contextQueryTerms(query string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for t := range jsFields(jsToLower(query)) {
			if jsstr.Len(t) > queryTermMinLen && !lex.Seed002().IsStop(t) && !yield(t) {
				return
			}
		}
	}
}

// chunkDiversity is 0.6 times the share of distinct documents plus 0.4
// times the share of distinct sections (sectionTitle, or the documentId
// when it has none). Fewer than two chunks score 0.
func chunkDiversity(chunks []eval.Source) float64 {
	if len(chunks) <= 1 {
		return 0
	}
	docs := distinct(len(chunks), func(i int) string { return chunks[i].ID })
	sections := distinct(len(chunks), func(i int) sectionKey { return sectionOf(chunks[i], i) })
	n := float64(len(chunks))
	return float64(float64(docs)/n*diversityDocWeight) + float64(float64(sections)/n*diversitySectionWeight)
}

// distinctByScan is the most keys distinct compares one by one.
const distinctByScan = 16

// distinct is the number of distinct keys key(0), ..., key(n-1): found by
// comparing each with those kept before it when there are few (a
// retrieval's handful of chunks: no map made), in a map otherwise.
func distinct[K comparable](n int, key func(int) K) int {
	if n <= distinctByScan {
		var kept [distinctByScan]K
		m := 0
		for i := range n {
			if k := key(i); !slices.Contains(kept[:m], k) {
				kept[m] = k
				m++
			}
		}
		return m
	}
	set := make(map[K]struct{}, n)
	for i := range n {
		set[key(i)] = struct{}{}
	}
	return len(set)
}

// sectionKey is a member of the seed's Set of sections, with JavaScript's
// SameValueZero equality: values of different types never match, numbers
// match by value (NaN matches NaN, -0 matches 0), and objects only match
// themselves.
type sectionKey struct {
	kind   byte // 's' string, 'n' number, 'b' boolean, 'o' object
	str    string
	num    float64
	object int // the chunk's index, for objects
}

// sectionOf is the seed's `(metadata.sectionTitle as string) ?? documentId`
// for chunk i.
func sectionOf(c eval.Source, i int) sectionKey {
	v, ok := c.Metadata["sectionTitle"]
	if !ok || v == nil {
		return sectionKey{kind: 's', str: c.ID}
	}
	switch t := v.(type) {
	case string:
		return sectionKey{kind: 's', str: t}
	case bool:
		if t {
			return sectionKey{kind: 'b', num: 1}
		}
		return sectionKey{kind: 'b'}
	case json.Number:
		if f, err := t.Float64(); err == nil || math.IsInf(f, 0) {
			return numberSection(f)
		}
		return sectionKey{kind: 'o', object: i}
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return numberSection(float64(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return numberSection(float64(rv.Uint()))
	case reflect.Float32, reflect.Float64:
		return numberSection(rv.Float())
	case reflect.String:
		return sectionKey{kind: 's', str: rv.String()}
	case reflect.Bool:
		if rv.Bool() {
			return sectionKey{kind: 'b', num: 1}
		}
		return sectionKey{kind: 'b'}
	}
	return sectionKey{kind: 'o', object: i}
}

func numberSection(f float64) sectionKey {
	switch {
	case math.IsNaN(f):
		return sectionKey{kind: 'n', str: "NaN"}
	case f == 0:
		return sectionKey{kind: 'n'} // folds -0 into 0
	}
	return sectionKey{kind: 'n', num: f}
}

// estimatedFaithfulness is 0.4 times the factual density of the chunks'
// joined content (numbers, dates counted twice, and proper nouns, per 100
// words, times 0.1, capped at 1) plus 0.6 times 1.5 times the first chunk's
// retrieval score (its score, not its rerank score), capped at 1. No chunks
// score 0.
func estimatedFaithfulness(chunks []eval.Source) float64 {
	if len(chunks) == 0 {
		return 0
	}
	all := joinTexts(chunks)
	words := float64(countJSFields(all))
	density := func(facts int) float64 {
		return min(float64(float64(facts)/(words/100))*faithDensityScale, 1)
	}
	// The density is capped at 1 and grows with the facts, so the counts
	// stop once those made reach the cap, the cheapest first: the figure
	// is the same as with every count made.
	facts := 0
	for _, count := range [...]func(string) int{countFactNumbers, countFactProperNouns, countFactDatesTwice} {
		if density(facts) == 1 {
			break
		}
		facts += count(all)
	}
	confidence := min(chunks[0].Score*faithScoreScale, 1)
	return float64(density(facts)*faithDensityWeight) + float64(confidence*faithScoreWeight)
}

// countFactDatesTwice is the dates' part of the facts: each counts twice.
func countFactDatesTwice(s string) int { return 2 * countFactDates(s) }

// joinTexts is the chunks' contents joined by single spaces, as the
// seed's chunks.map(c => c.content).join(" ").
func joinTexts(chunks []eval.Source) string {
	if len(chunks) == 1 {
		return chunks[0].Text
	}
	n := len(chunks) - 1
	for _, c := range chunks {
		n += len(c.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// The three counters below reproduce the number of matches of seed 002's
// global regular expressions, scanning once instead of running a regexp
// engine (which is about ten times slower on 20 KB). Their tests check them
// against the patterns themselves.

// Byte classes of ASCII characters, for the counters.
const (
	jsClassDigit byte = 1 << iota // \d
	jsClassWord                   // \w: [A-Za-z0-9_]
	jsClassUpper                  // [A-Z]
	jsClassLower                  // [a-z]
	jsClassSpace                  // ASCII characters of JavaScript's \s
)

// jsClassSpaceShift is jsClassSpace's bit: class&jsClassSpace>>it is 0 or 1.
const jsClassSpaceShift = 4

var jsByteClass = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = jsClassDigit | jsClassWord
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = jsClassUpper | jsClassWord
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = jsClassLower | jsClassWord
	}
	t['_'] = jsClassWord
	for _, c := range "\t\n\v\f\r " {
		t[c] = jsClassSpace
	}
	return t
}()

func jsIsDigit(c byte) bool { return jsByteClass[c]&jsClassDigit != 0 }

// countFactNumbers counts the matches of /\d+/g: runs of ASCII digits.
func countFactNumbers(s string) int {
	n := 0
	inRun := false
	for i := 0; i < len(s); i++ {
		d := jsByteClass[s[i]]&jsClassDigit != 0
		if d && !inRun {
			n++
		}
		inRun = d
	}
	return n
}

// countFactDates counts the matches of
// /\d{4}[-/]\d{2}[-/]\d{2}|\w+ \d{1,2},? \d{4}/g.
//
// Both alternatives start with a word character. From a position i inside
// a run of word characters, the second alternative needs the whole rest of
// the run (\w+ cannot stop early: the next character would be a word
// character, not the space), then a space, one or two digits (no third), an
// optional comma, a space and four digits: its outcome is the same for
// every i in the run. The first needs four digits followed by "-" or "/",
// so inside the run it can only start at the run's first position or four
// before its end. So, at the first position of a run: the first
// alternative, then the second; failing both, the first four before the
// run's end; then the next run.
func countFactDates(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if jsByteClass[s[i]]&jsClassWord == 0 {
			i++
			continue
		}
		if end := isoDateAt(s, i); end > 0 {
			n++
			i = end
			continue
		}
		runEnd := i + 1
		for runEnd < len(s) && jsByteClass[s[runEnd]]&jsClassWord != 0 {
			runEnd++
		}
		if end := proseDateTail(s, runEnd); end > 0 {
			n++
			i = end
			continue
		}
		if p := runEnd - 4; p > i {
			if end := isoDateAt(s, p); end > 0 {
				n++
				i = end
				continue
			}
		}
		i = runEnd
	}
	return n
}

// isoDateAt returns the end of a match of \d{4}[-/]\d{2}[-/]\d{2} at i, or
// 0.
func isoDateAt(s string, i int) int {
	if i+10 > len(s) {
		return 0
	}
	d := s[i : i+10]
	if !jsIsDigit(d[0]) || !jsIsDigit(d[1]) || !jsIsDigit(d[2]) || !jsIsDigit(d[3]) ||
		(d[4] != '-' && d[4] != '/') || !jsIsDigit(d[5]) || !jsIsDigit(d[6]) ||
		(d[7] != '-' && d[7] != '/') || !jsIsDigit(d[8]) || !jsIsDigit(d[9]) {
		return 0
	}
	return i + 10
}

// proseDateTail returns the end of a match of ` \d{1,2},? \d{4}` at j, or 0.
func proseDateTail(s string, j int) int {
	if j >= len(s) || s[j] != ' ' {
		return 0
	}
	j++
	k := j
	for k < len(s) && k-j < 3 && jsIsDigit(s[k]) {
		k++
	}
	if k == j || k-j > 2 {
		return 0
	}
	if k < len(s) && s[k] == ',' {
		k++
	}
	if k+5 > len(s) || s[k] != ' ' {
		return 0
	}
	k++
	if !jsIsDigit(s[k]) || !jsIsDigit(s[k+1]) || !jsIsDigit(s[k+2]) || !jsIsDigit(s[k+3]) {
		return 0
	}
	return k + 4
}

// countFactProperNouns counts the matches of /[A-Z][a-z]+(?:\s[A-Z][a-z]+)*/g,
// \s being JavaScript's whitespace: runs of capitalised words that are
// separated by exactly one whitespace character count once.
func countFactProperNouns(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if jsByteClass[s[i]]&jsClassUpper == 0 {
			i++
			continue
		}
		end := capitalisedWordAt(s, i)
		if end == 0 {
			i++
			continue
		}
		n++
		for end < len(s) {
			w := 1
			if c := s[end]; c >= utf8.RuneSelf {
				var r rune
				if r, w = utf8.DecodeRuneInString(s[end:]); !jsstr.IsSpace(r) {
					break
				}
			} else if jsByteClass[c]&jsClassSpace == 0 {
				break
			}
			next := capitalisedWordAt(s, end+w)
			if next == 0 {
				break
			}
			end = next
		}
		i = end
	}
	return n
}

// capitalisedWordAt returns the end of a match of [A-Z][a-z]+ at i, or 0.
func capitalisedWordAt(s string, i int) int {
	if i+1 >= len(s) || jsByteClass[s[i]]&jsClassUpper == 0 || jsByteClass[s[i+1]]&jsClassLower == 0 {
		return 0
	}
	i += 2
	for i < len(s) && jsByteClass[s[i]]&jsClassLower != 0 {
		i++
	}
	return i
}

// JavaScript string semantics (the rest are in internal/jsstr).

// jsFields yields the fields of s.split(/\s+/): those between runs of
// whitespace, including an empty first or last field when s starts or
// ends with whitespace ("" gives one empty field).
func jsFields(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := 0
		for i := 0; i < len(s); {
			if jsSpaceAt(s, i) == 0 {
				i += nonSpaceWidth(s, i)
				continue
			}
			if !yield(s[start:i]) {
				return
			}
			for i < len(s) {
				w := jsSpaceAt(s, i)
				if w == 0 {
					break
				}
				i += w
			}
			start = i
		}
		yield(s[start:])
	}
}

// jsSpaceAt is the width of the JavaScript whitespace character at s[i],
// 0 when s[i] starts another character.
func jsSpaceAt(s string, i int) int {
	if c := s[i]; c < utf8.RuneSelf {
		if jsByteClass[c]&jsClassSpace != 0 {
			return 1
		}
		return 0
	}
	if r, w := utf8.DecodeRuneInString(s[i:]); jsstr.IsSpace(r) {
		return w
	}
	return 0
}

// nonSpaceWidth is the width of the character at s[i].
func nonSpaceWidth(s string, i int) int {
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, w := utf8.DecodeRuneInString(s[i:])
	return w
}

// countJSFields is the number of jsFields(s): one
// more than the runs of whitespace. A run is counted where a space
// follows a character that is not one, by arithmetic on 0 and 1 rather
// than a branch (which words of varied lengths make unpredictable).
func countJSFields(s string) int {
	n, prev := 1, 0
	for i := 0; i < len(s); {
		var space int
		if c := s[i]; c < utf8.RuneSelf {
			space = int(jsByteClass[c]&jsClassSpace) >> jsClassSpaceShift
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			if jsstr.IsSpace(r) {
				space = 1
			}
			i += w
		}
		n += space &^ prev
		prev = space
	}
	return n
}

// jsToLower is String.prototype.toLowerCase as V8 runs it (through ICU's
// root locale): Go's simple lower-case mapping, plus U+0130 to "i" U+0307
// and the Final_Sigma rule for U+03A3.
func jsToLower(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && jsByteClass[s[i]]&jsClassUpper == 0 {
		i++
	}
	if i == len(s) {
		return s
	}
	// A Builder: the lower-cased text is made once, not copied again.
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			// A run of ASCII without capitals is written at once.
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && jsByteClass[s[j]]&jsClassUpper == 0 {
				j++
			}
			if j > i {
				b.WriteString(s[i:j])
				i = j
				continue
			}
			b.WriteByte(c + 'a' - 'A')
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch r {
		case 0x130: // LATIN CAPITAL LETTER I WITH DOT ABOVE
			b.WriteString("i\u0307")
		case 0x3A3: // GREEK CAPITAL LETTER SIGMA
			if jsIsFinalSigma(s, i, i+w) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		i += w
	}
	return b.String()
}

// jsIsFinalSigma is ICU's Final_Sigma test for the sigma at s[start:end]: a
// cased letter comes before it and none after it, skipping case-ignorable
// characters both ways. As in ICU, a character both cased and
// case-ignorable (U+0345, modifier letters) is skipped, not counted.
func jsIsFinalSigma(s string, start, end int) bool {
	before := false
	for j := start; j > 0; {
		r, w := utf8.DecodeLastRuneInString(s[:j])
		j -= w
		if jsIsCaseIgnorable(r) {
			continue
		}
		before = jsIsCased(r)
		break
	}
	if !before {
		return false
	}
	for j := end; j < len(s); {
		r, w := utf8.DecodeRuneInString(s[j:])
		j += w
		if jsIsCaseIgnorable(r) {
			continue
		}
		return !jsIsCased(r)
	}
	return true
}

// jsIsCased is Unicode's Cased property.
func jsIsCased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// jsIsCaseIgnorable is Unicode's Case_Ignorable property: marks, format
// characters, modifier letters and symbols, and the apostrophes, periods
// and colons of Word_Break MidLetter, MidNumLet and Single_Quote.
func jsIsCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
