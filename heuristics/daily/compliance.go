package daily

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// ComplianceScore is seed 003's compliance: structure 30, content 25,
// format 15, length 10, language 10, citation 10.
type ComplianceScore struct {
	OverallScore      float64  `json:"overall_score" yaml:"overall_score"`
	DimensionScores   Dims     `json:"dimension_scores" yaml:"dimension_scores"`
	Violations        []string `json:"violations" yaml:"violations"`
	CompliantElements []string `json:"compliant_elements" yaml:"compliant_elements"`
}

// Compliance checks the report against the profile's format: its sections
// by marker and name, their order and lengths, the required metrics (in
// the sections that must carry them), forbidden formats (tables, numbered
// lists, bullets, named strategies), length limits, the language (by
// script) and the citation format.
func (p *Profile) Compliance(d *doc, x Extraction, t *Truth) ComplianceScore {
	out := ComplianceScore{Violations: []string{}, CompliantElements: []string{}}
	m := p.m
	bad := func(format string, a ...any) { out.Violations = append(out.Violations, fmt.Sprintf(format, a...)) }
	good := func(s string) { out.CompliantElements = append(out.CompliantElements, s) }

	// Structure: presence, order, section lengths.
	structure := 100.0
	missing := 0
	var order []int
	for _, s := range p.Sections {
		if _, ok := d.section(s.Key, p); !ok {
			missing++
			bad("Missing required section: %s (%s)", s.Label, s.Marker)
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
		bad("Sections out of order")
	}
	if missing == 0 && slices.IsSorted(order) {
		good(fmt.Sprintf("All %d sections present in correct order", len(p.Sections)))
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
				bad("%s should be %d-%d sentences (found %d)", s.Label, r[0], r[1], fs.sentences)
			}
		}
		if r := s.Paragraphs; len(r) == 2 && (fs.paragraphs < r[0] || fs.paragraphs > r[1]) {
			structure -= 10
			bad("%s should be %d-%d paragraphs (found %d)", s.Label, r[0], r[1], fs.paragraphs)
		}
	}

	// Content: the required metrics the truth holds, in the report and in
	// the sections that carry them; percentile context; numbers.
	var required []Metric
	for _, mt := range p.Metrics {
		if _, ok := t.value(mt.Name); ok && mt.Required {
			required = append(required, mt)
		}
	}
	found := 0
	for _, mt := range required {
		if x.Mentioned[mt.Name] > 0 {
			found++
		} else {
			bad("Missing required metric: %s", mt.Label)
		}
	}
	content := 0.4 * share(found, len(required))
	if found == len(required) && len(required) > 0 {
		good(fmt.Sprintf("All %d required metrics mentioned", len(required)))
	}
	inSections, withMetrics := 0, 0
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
			bad("%s should include all %d metrics, found %d", s.Label, len(required), n)
		}
	}
	content += 0.3 * share(inSections, withMetrics)
	if len(t.Percentiles) == 0 || len(x.Percentiles) > 0 {
		content += 15
	} else {
		bad("Percentile context not used although the data has percentiles")
	}
	if x.AllNumbers > 0 {
		content += 15
	} else {
		bad("No specific numbers")
	}

	// Format.
	format := 100.0
	for _, f := range []struct {
		n    int
		what string
	}{{d.tables, "tables"}, {d.numbered, "numbered lists"}, {d.bullets, "bullet points"}} {
		if f.n > 0 {
			format -= 30
			bad("Contains %s (prohibited)", f.what)
		}
	}
	if hs := m.strategies.find(d.lower); len(hs) > 0 {
		format -= 30
		bad("Names a strategy (%s) (prohibited)", hs[0].term)
	}
	if format == 100 {
		good("No tables or lists found")
	}

	// Length.
	length := 100.0
	if l := p.Length; l.MaxLines > 0 && d.lines > l.MaxLines {
		length -= 40
		bad("Too long: %d lines (at most %d)", d.lines, l.MaxLines)
	}
	if l := p.Length; (l.MinWords > 0 && d.words < l.MinWords) || (l.MaxWords > 0 && d.words > l.MaxWords) {
		length -= 30
		bad("Word count %d outside %d-%d", d.words, p.Length.MinWords, p.Length.MaxWords)
	}
	for _, s := range p.Sections {
		if s.RequiredMetrics && len(s.Sentences) == 2 && storySentences >= 0 && (storySentences < s.Sentences[0] || storySentences > s.Sentences[1]) {
			length -= 30
		}
	}
	if length == 100 {
		good("Length within limits")
	}

	// Language: one of the profile's languages, kept throughout, with a
	// narrative flow.
	language := 100.0
	if len(p.Languages) > 0 && !slices.Contains(p.Languages, d.lang) {
		language -= 60
		bad("Written in %s; the profile wants %s", d.lang, strings.Join(p.Languages, " or "))
	}
	if d.lang == "th" {
		off := 0
		for _, s := range d.sentences {
			if !strings.ContainsFunc(d.text[s.start:s.end], func(r rune) bool { return unicode.Is(unicode.Thai, r) }) {
				off++
			}
		}
		if off > 0 {
			language -= min(30, 10*float64(off))
			bad("%d sentences not in Thai", off)
		}
	}
	if !d.has(m.cause) {
		language -= 20
		bad("No narrative flow (no cause-effect words)")
	}
	if language == 100 {
		good("Written in " + map[string]string{"th": "Thai", "en": "English"}[d.lang] + " with narrative flow")
	}

	// Citations.
	citation := 100.0
	invalid := 0
	for _, n := range x.Citations {
		if n < 1 || n > len(t.News) {
			invalid++
		}
	}
	if invalid > 0 {
		citation -= 100 * float64(invalid) / float64(len(x.Citations))
		bad("%d citations outside the news list of %d items", invalid, len(t.News))
	}
	if len(x.BadCitations) > 0 {
		citation -= 30
		bad("Citations not in the [1], [2] format: %s", strings.Join(x.BadCitations, ", "))
	}
	if citation == 100 {
		good("Citations follow the [n] format")
	}

	out.DimensionScores = Dims{{"structure_compliance", clamp(structure)}, {"content_compliance", clamp(content)},
		{"format_compliance", clamp(format)}, {"length_compliance", clamp(length)}, {"language_compliance", clamp(language)},
		{"citation_compliance", clamp(citation)}}
	out.OverallScore = weighted(out.DimensionScores, 0.30, 0.25, 0.15, 0.10, 0.10, 0.10)
	return out
}
