package daily

import "slices"

// Reading interpretations. A band word is read where it is said about its
// number: it belongs to the metric named nearest before it in its sentence
// (else the nearest after it), and it is a claim only when that metric has
// the band ("RSI 80 is high" says nothing of uncertainty). A negation at
// most three words before it in its clause ("not high", "ไม่มีแรงขาย")
// unsays it; a modal before it makes it a recommendation's verb ("we
// recommend buying"), not a band. A band that strengthens another is read
// from the other's word with a qualifier beside it in either order
// ("buying pressure stays strong", "แรงซื้อยังแข็งแกร่ง").

// negationWords is how far, in words, a negation reaches.
const negationWords = 3

// readBands adds the sentence's band claims to x.
func (p *Profile) readBands(text, lower string, ments []mention, hyps []hit, x *Extraction) {
	m := p.m
	hs := m.bandScan.find(lower)
	for i, h := range hs {
		g := &m.bandScan
		if !g.is(h, kBand) || supposed(text, hyps, h.start) || negated(g, text, hs, i) || cued(g, kModal, text, hs, i, 2) || cued(g, kCompare, text, hs, i, 1) {
			continue
		}
		k := about(ments, h.span, m.bandOf[h.term])
		if k < 0 {
			continue
		}
		metric, label := ments[k].metric, ""
		for _, r := range m.bandOf[h.term] {
			if r.metric == metric {
				label = r.label
			}
		}
		if label == "" {
			continue
		}
		word := h.term
		if q, w, ok := p.strengthened(metric, label, text, hs, i); ok {
			label, word = q, word+" + "+w
		}
		x.Bands = append(x.Bands, BandClaim{Metric: metric, Label: label, Word: word})
	}
}

// about returns the mention a band word at s is said of: the nearest
// ending before it, else the nearest after it of a metric the word is a
// band of; -1 when there is none.
func about(ments []mention, s span, refs []bandRef) int {
	k := -1
	for i, mt := range ments {
		if mt.end <= s.start {
			k = i
		}
	}
	if k >= 0 {
		return k
	}
	for i, mt := range ments {
		if mt.start >= s.end && slices.ContainsFunc(refs, func(r bandRef) bool { return r.metric == mt.metric }) {
			return i
		}
	}
	return -1
}

// negated reports whether a negation stands at most negationWords words
// before hs[i] in its clause.
func negated(g *tagged, text string, hs []hit, i int) bool {
	return cued(g, kNegation, text, hs, i, negationWords)
}

// cued reports whether a word of kind k stands at most words words before
// hs[i], in its clause.
func cued(g *tagged, k kind, text string, hs []hit, i, words int) bool {
	for j := i - 1; j >= 0; j-- {
		if g.is(hs[j], k) && near(text, hs[j].end, hs[i].start, words) {
			return true
		}
	}
	return false
}

// strengthened returns the band, and its qualifier, that a qualifier
// beside hs[i] (a word of band label of metric) names: at most three words
// away, either side, in the clause, and not negated.
func (p *Profile) strengthened(metric, label, text string, hs []hit, i int) (string, string, bool) {
	g := &p.m.bandScan
	for j, q := range hs {
		if j == i || !g.is(q, kQualifier) {
			continue
		}
		beside := (j > i && near(text, hs[i].end, q.start, 3)) || (j < i && near(text, q.end, hs[i].start, 3))
		if !beside || (j > i && negated(g, text, hs, j)) {
			continue
		}
		for _, r := range p.m.qualOf[q.term] {
			if r.metric != metric {
				continue
			}
			for _, bs := range p.Bands {
				for _, b := range bs.Bands {
					if bs.Metric == metric && b.Label == r.label && b.Strengthens == label {
						return b.Label, q.term, true
					}
				}
			}
		}
	}
	return "", "", false
}
