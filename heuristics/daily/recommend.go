package daily

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Reading recommendations. A recommendation is one of a recommendation's
// words ("take profit", "ถือต่อ"), one of its verbs at most two words after
// a modal ("we would sell", "recommend holding", "ควรขาย"), one of its
// verbs opening a sentence of the recommendation section ("Hold, because
// ..."), or its label in capitals ("HOLD"). Phrases that hold such a word
// without recommending ("selling pressure", "การขายทำกำไร") are read
// first and hide it. A negation at most three words before it ("we would
// not sell", "ยังไม่ควรเพิ่มสถานะ") unsays it. A condition before it in
// its sentence, or after it in its clause ("sell if it breaks 190"), makes
// it a plan: plans count only when the report gives no plain
// recommendation.

// capitals marks a label found in capitals among the hits of a sentence.
const capitals = "\x00"

// recommendation is a recommendation read in a report.
type recommendation struct {
	label       int
	conditional bool
}

// recommendations are the labels of the distinct recommendations of the
// report, in profile order: its plain ones, or its plans when it has no
// plain one.
func (p *Profile) recommendations(d *doc) []string {
	if d.recs != nil {
		return *d.recs
	}
	var plain, plans []bool
	plain, plans = make([]bool, len(p.Recommendations)), make([]bool, len(p.Recommendations))
	rec, inRec := d.section("recommendation", p)
	for _, s := range d.sentences {
		opening := inRec && s.start >= rec.body.start && s.start < rec.body.end
		for _, r := range p.readRecs(d.text[s.start:s.end], d.lower[s.start:s.end], opening) {
			if r.conditional {
				plans[r.label] = true
			} else {
				plain[r.label] = true
			}
		}
	}
	use := plain
	if !slices.Contains(plain, true) {
		use = plans
	}
	out := []string{}
	for i, ok := range use {
		if ok {
			out = append(out, p.Recommendations[i].Label)
		}
	}
	d.recs = &out
	return out
}

// readRecs reads one sentence's recommendations; opening: the sentence is
// in the recommendation section, where a verb opening it is an
// imperative.
func (p *Profile) readRecs(text, lower string, opening bool) []recommendation {
	m := p.m
	g := &m.recScan
	hs := g.findExcept(lower, m.notRecs.find(lower))
	// Labels in capitals: "HOLD", "BUY MORE".
	for _, r := range p.Recommendations {
		if r.Label != strings.ToUpper(r.Label) {
			continue
		}
		for off := 0; ; {
			k := strings.Index(text[off:], r.Label)
			if k < 0 {
				break
			}
			s := span{off + k, off + k + len(r.Label)}
			off = s.end
			if wordBounds(text, s) && !overlaps(hs, s) {
				hs = append(hs, hit{s, capitals + r.Label})
			}
		}
	}
	sortHits(hs)
	var out []recommendation
	for i, h := range hs {
		word := strings.HasPrefix(h.term, capitals) || g.is(h, kRecWord)
		verb := g.is(h, kRecVerb) && (cued(g, kModal, text, hs, i, 2) || opening && startsSentence(text, h.start) && !strings.HasSuffix(h.term, "ing"))
		if !word && !verb {
			continue
		}
		if negated(g, text, hs, i) || (verb && modalNegated(g, text, hs, i)) {
			continue
		}
		out = append(out, recommendation{label: m.recOf[h.term], conditional: conditional(g, text, hs, i)})
	}
	return out
}

// modalNegated reports whether the modal before hs[i] is negated ("ไม่ควร
// ขาย", "we shouldn't sell" is caught by the negation itself).
func modalNegated(g *tagged, text string, hs []hit, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if g.is(hs[j], kModal) && near(text, hs[j].end, hs[i].start, 2) {
			return negated(g, text, hs, j)
		}
	}
	return false
}

// conditional reports whether a condition stands before hs[i] in its
// sentence, or after it in its clause.
func conditional(g *tagged, text string, hs []hit, i int) bool {
	for j, h := range hs {
		if !g.is(h, kCondition) {
			continue
		}
		if j < i || sameClause(text, hs[i].end, h.start) {
			return true
		}
	}
	return false
}

// startsSentence reports whether only markup stands before off in the
// sentence ("**Hold**, because ...").
func startsSentence(text string, off int) bool {
	for _, r := range text[:off] {
		if !strings.ContainsRune(" *_>\"'“‘", r) && r != utf8.RuneError {
			return false
		}
	}
	return true
}
