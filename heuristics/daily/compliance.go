package daily

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
)

// ComplianceScore is seed 003's compliance: structure 30, content 25,
// format 15, length 10, language 10, citation 10.
type ComplianceScore struct {
	OverallScore      float64  `json:"overall_score" yaml:"overall_score"`
	DimensionScores   Dims     `json:"dimension_scores" yaml:"dimension_scores"`
	Violations        []string `json:"violations" yaml:"violations"`
	CompliantElements []string `json:"compliant_elements" yaml:"compliant_elements"`
	// Rating is the seed's name for the score (Excellent ... Failed).
	Rating     string      `json:"rating" yaml:"rating"`
	Deductions []Deduction `json:"deductions" yaml:"deductions"`
}

// Compliance checks the report against the profile's format: its sections
// by marker and name, their order and lengths, the required metrics (in
// the sections that must carry them), forbidden formats (tables, numbered
// lists, bullets, named strategies), length limits, the language (by
// script) and the citation format.
func (p *Profile) Compliance(d *doc, x Extraction, t *eval.Truth) ComplianceScore {
	c := complianceTally{out: ComplianceScore{Violations: []string{}, CompliantElements: []string{}}}
	structure, storySentences := p.structureCompliance(d, &c)
	content := p.contentCompliance(d, x, t, &c)
	format := p.formatCompliance(d, &c)
	length := p.lengthCompliance(d, storySentences, &c)
	language := p.languageCompliance(d, t, &c)
	citation := citationCompliance(x, t, &c)
	out := c.out
	out.DimensionScores = Dims{{"structure_compliance", clamp(structure)}, {"content_compliance", clamp(content)},
		{"format_compliance", clamp(format)}, {"length_compliance", clamp(length)}, {"language_compliance", clamp(language)},
		{"citation_compliance", clamp(citation)}}
	out.OverallScore = weighted(out.DimensionScores, 0.30, 0.25, 0.15, 0.10, 0.10, 0.10)
	out.Rating, out.Deductions = rating(out.OverallScore), c.l.list()
	return out
}

// complianceTally gathers Compliance's violations, compliant elements
// and deductions, in the order the dimensions are checked.
type complianceTally struct {
	out ComplianceScore
	l   ledger
}

// bad records a violation and what it costs a dimension.
func (c *complianceTally) bad(dim string, pts float64, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	c.out.Violations = append(c.out.Violations, msg)
	c.l.take(dim, pts, msg)
}

// good records a compliant element.
func (c *complianceTally) good(s string) {
	c.out.CompliantElements = append(c.out.CompliantElements, s)
}

// structureCompliance scores the sections' presence, order and lengths,
// and returns the sentences of the section that carries the metrics (-1
// when none has a sentence range).
func (p *Profile) structureCompliance(d *doc, c *complianceTally) (float64, int) {
	structure := 100.0
	missing := 0
	var order []int
	for _, s := range p.Sections {
		if _, ok := d.section(s.Key, p); !ok {
			missing++
			c.bad("structure_compliance", 100/float64(len(p.Sections)), "Missing required section: %s (%s)", s.Label, s.Marker)
		}
	}
	for _, s := range d.sections {
		if !slices.Contains(order, s.idx) {
			order = append(order, s.idx)
		}
	}
	structure -= 100 * float64(missing) / float64(len(p.Sections))
	if !slices.IsSorted(order) {
		structure -= 20
		c.bad("structure_compliance", 20, "Sections out of order")
	}
	if missing == 0 && slices.IsSorted(order) {
		c.good(fmt.Sprintf("All %d sections present in correct order", len(p.Sections)))
	}
	storySentences := -1
	for _, fs := range d.sections {
		s := p.Sections[fs.idx]
		if r := s.Sentences; len(r) == 2 {
			if s.RequiredMetrics {
				storySentences = fs.sentences
			}
			if fs.sentences < r[0] || fs.sentences > r[1] {
				structure -= 10
				c.bad("structure_compliance", 10, "%s should be %d-%d sentences (found %d)", s.Label, r[0], r[1], fs.sentences)
			}
		}
		if r := s.Paragraphs; len(r) == 2 && (fs.paragraphs < r[0] || fs.paragraphs > r[1]) {
			structure -= 10
			c.bad("structure_compliance", 10, "%s should be %d-%d paragraphs (found %d)", s.Label, r[0], r[1], fs.paragraphs)
		}
	}
	return structure, storySentences
}

// contentCompliance scores the required metrics the truth holds, in the
// report and in the sections that carry them; the warnings that must
// name them; percentile context; numbers.
func (p *Profile) contentCompliance(d *doc, x Extraction, t *eval.Truth, c *complianceTally) float64 {
	var required []Metric
	for _, mt := range p.Metrics {
		if _, ok := t.Value(mt.Name); ok && mt.Required {
			required = append(required, mt)
		}
	}
	found := 0
	for _, mt := range required {
		if x.Mentioned[mt.Name] > 0 {
			found++
		} else {
			c.bad("content_compliance", 40/float64(len(required)), "Missing required metric: %s", mt.Label)
		}
	}
	content := 0.4 * share(found, len(required))
	if found == len(required) && len(required) > 0 {
		c.good(fmt.Sprintf("All %d required metrics mentioned", len(required)))
	}
	content += p.metricsInSections(d, required, c)
	for _, fs := range d.sections {
		s := p.Sections[fs.idx]
		if !s.WarnsWithMetrics || len(required) == 0 {
			continue
		}
		body := d.lower[fs.body.start:fs.body.end]
		named := slices.ContainsFunc(required, func(mt Metric) bool { return newTerms(mt.Names).has(body) })
		if !named || !hasDigit(body) {
			content -= riskPenalty
			c.bad("content_compliance", riskPenalty, "%s warns without the report's metrics (name one of them with its number)", s.Label)
		}
	}
	content += p.percentileContext(x, t, c.bad)
	if x.AllNumbers > 0 {
		content += 15
	} else {
		c.bad("content_compliance", 15, "No specific numbers")
	}
	return content
}

// metricsInSections is the content points of the sections that must
// carry the required metrics and name them all.
func (p *Profile) metricsInSections(d *doc, required []Metric, c *complianceTally) float64 {
	inSections, withMetrics := 0, 0
	var inSectionsBad []string
	for _, fs := range d.sections {
		s := p.Sections[fs.idx]
		if !s.RequiredMetrics {
			continue
		}
		withMetrics++
		body := d.lower[fs.body.start:fs.body.end]
		n := 0
		for _, mt := range required {
			if newTerms(mt.Names).has(body) {
				n++
			}
		}
		if n == len(required) {
			inSections++
		} else {
			inSectionsBad = append(inSectionsBad, fmt.Sprintf("%s should include all %d metrics, found %d", s.Label, len(required), n))
		}
	}
	for _, msg := range inSectionsBad {
		c.bad("content_compliance", 30/float64(withMetrics), "%s", msg)
	}
	return 0.3 * share(inSections, withMetrics)
}

// formatCompliance scores the forbidden formats: tables, numbered lists,
// bullets and named strategies.
func (p *Profile) formatCompliance(d *doc, c *complianceTally) float64 {
	format := 100.0
	for _, f := range []struct {
		n    int
		what string
	}{{d.tables, "tables"}, {d.numbered, "numbered lists"}, {d.bullets, "bullet points"}} {
		if f.n > 0 {
			format -= 30
			c.bad("format_compliance", 30, "Contains %s (prohibited)", f.what)
		}
	}
	if hs := p.m.strategies.find(d.lower); len(hs) > 0 {
		format -= 30
		c.bad("format_compliance", 30, "Names a strategy (%s) (prohibited)", hs[0].term)
	}
	if format == 100 {
		c.good("No tables or lists found")
	}
	return format
}

// lengthCompliance scores the report's lines and words and the length of
// the section that carries the metrics (storySentences, -1 for none).
func (p *Profile) lengthCompliance(d *doc, storySentences int, c *complianceTally) float64 {
	length := 100.0
	if l := p.Length; l.MaxLines > 0 && d.lines > l.MaxLines {
		length -= 40
		c.bad("length_compliance", 40, "Too long: %d lines (at most %d)", d.lines, l.MaxLines)
	}
	if l := p.Length; (l.MinWords > 0 && d.words < l.MinWords) || (l.MaxWords > 0 && d.words > l.MaxWords) {
		length -= 30
		c.bad("length_compliance", 30, "Word count %d outside %d-%d", d.words, p.Length.MinWords, p.Length.MaxWords)
	}
	for _, s := range p.Sections {
		if s.RequiredMetrics && len(s.Sentences) == 2 && storySentences >= 0 && (storySentences < s.Sentences[0] || storySentences > s.Sentences[1]) {
			length -= 30
			c.l.take("length_compliance", 30, fmt.Sprintf("%s length: %d sentences, outside %d-%d", s.Label, storySentences, s.Sentences[0], s.Sentences[1]))
		}
	}
	if length == 100 {
		c.good("Length within limits")
	}
	return length
}

// languageCompliance scores the language: one of the profile's, kept
// throughout, with a narrative flow.
func (p *Profile) languageCompliance(d *doc, t *eval.Truth, c *complianceTally) float64 {
	language := 100.0
	if len(p.Languages) > 0 && !slices.Contains(p.Languages, d.lang) {
		language -= 60
		c.bad("language_compliance", 60, "Written in %s; the profile wants %s", d.lang, strings.Join(p.Languages, " or "))
	}
	if d.lang == "th" {
		// A Thai report is entirely Thai: a sentence with no Thai, or a
		// run of English words inside a Thai sentence, is flagged.
		for i, en := range p.foreignRuns(d, t) {
			pts := 0.0
			if i < maxForeignRuns {
				pts = foreignRunPenalty
			}
			language -= pts
			c.bad("language_compliance", pts, "English in a Thai report: %q", en)
		}
	}
	if !d.has(p.m.cause) {
		language -= 20
		c.bad("language_compliance", 20, "No narrative flow (no cause-effect words)")
	}
	if language == 100 {
		c.good("Written in " + map[string]string{"th": "Thai", "en": "English"}[d.lang] + " with narrative flow")
	}
	return language
}

// citationCompliance scores the citations: within the news list, in the
// [n] format.
func citationCompliance(x Extraction, t *eval.Truth, c *complianceTally) float64 {
	citation := 100.0
	invalid := 0
	for _, n := range x.Citations {
		if n < 1 || n > len(t.News) {
			invalid++
		}
	}
	if invalid > 0 {
		citation -= 100 * float64(invalid) / float64(len(x.Citations))
		c.bad("citation_compliance", 100*float64(invalid)/float64(len(x.Citations)), "%s outside the news list of %s", plural.Count(invalid, "citation"), plural.Count(len(t.News), "item"))
	}
	if len(x.BadCitations) > 0 {
		citation -= 30
		c.bad("citation_compliance", 30, "Citations not in the [1], [2] format: %s", strings.Join(x.BadCitations, ", "))
	}
	if citation == 100 {
		c.good("Citations follow the [n] format")
	}
	return citation
}

// riskPenalty is what content compliance loses when a section that must
// warn with the report's metrics names none with its number.
const riskPenalty = 10

// A Thai report's English runs cost language compliance this much each,
// for at most this many of them.
const (
	foreignRunPenalty = 10
	maxForeignRuns    = 3
	// minForeignWords English words in a row, inside a Thai sentence,
	// are an English phrase or sentence.
	minForeignWords = 4
)

// foreignRuns are the English stretches of a Thai report's sentences: a
// stretch without Thai letters holding minForeignWords English words or
// more, or any English word when the sentence has no Thai at all. Words
// the profile or the truth name (metric names, the subject's ticker, name
// and sector, technical and fundamental terms) are not counted: a Thai
// report writes them in Latin letters.
func (p *Profile) foreignRuns(d *doc, t *eval.Truth) []string {
	keep := map[string]bool{}
	addWords := func(s string) {
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isLatinWordRune(r) }) {
			keep[w] = true
		}
	}
	for _, mt := range p.Metrics {
		for _, ns := range mt.Names {
			for _, n := range ns {
				addWords(n)
			}
		}
	}
	for _, ws := range []Words{p.Words.Technical, p.Words.Fundamental, p.Words.Strategies} {
		for _, l := range ws {
			for _, w := range l {
				addWords(w)
			}
		}
	}
	for _, v := range t.Subject {
		addWords(v)
	}
	var out []string
	for _, sn := range d.sentences {
		sent := d.text[sn.start:sn.end]
		thai := strings.ContainsFunc(sent, thaiLetter)
		for _, run := range strings.FieldsFunc(sent, thaiLetter) {
			n := 0
			for _, w := range strings.FieldsFunc(strings.ToLower(run), func(r rune) bool { return !isLatinWordRune(r) }) {
				if !keep[w] && strings.ContainsFunc(w, unicode.IsLetter) {
					n++
				}
			}
			if n >= minForeignWords || !thai && n > 0 {
				out = append(out, clip(strings.TrimSpace(run), 80))
			}
		}
	}
	return out
}

// isLatinWordRune reports whether r belongs to an English word.
func isLatinWordRune(r rune) bool {
	return r < 0x250 && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '\'' || r == '’'
}

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
