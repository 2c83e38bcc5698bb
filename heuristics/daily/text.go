package daily

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/sentences"

	"github.com/assaylabs/assay/internal/textseg"
)

// span is a byte range [start, end) of a report.
type span struct{ start, end int }

// hit is one occurrence of a term of a matcher's list.
type hit struct {
	span
	term string
}

// terms finds the words of one list in a text, longest first, without
// overlaps. Latin terms match case-insensitively and only as whole words
// ("high" is not found in "higher"); terms of unspaced scripts (Thai)
// match anywhere, since such text has no spaces between words.
type terms []string

// newTerms returns the words, lowered by lowerASCII, longest first.
func newTerms(w Words) terms {
	t := terms(w.all())
	for i := range t {
		t[i] = lowerASCII(t[i])
	}
	return t
}

// find returns the occurrences of t in lower (a text lowered by
// lowerASCII), in text order.
func (t terms) find(lower string) []hit {
	out := t.collect(lower, nil)
	sortHits(out)
	return out
}

// findExcept is find, leaving out occurrences that overlap taken: words
// read first, such as phrases that hold a word without meaning it.
func (t terms) findExcept(lower string, taken []hit) []hit {
	out := t.collect(lower, append([]hit(nil), taken...))[len(taken):]
	sortHits(out)
	return out
}

// collect appends to out each whole-word occurrence of t in lower that
// overlaps none already in out.
func (t terms) collect(lower string, out []hit) []hit {
	for _, lt := range t {
		for off := 0; ; {
			i := strings.Index(lower[off:], lt)
			if i < 0 {
				break
			}
			s := span{off + i, off + i + len(lt)}
			off = s.end
			if !wordBounds(lower, s) || overlaps(out, s) {
				continue
			}
			out = append(out, hit{s, lt})
		}
	}
	return out
}

// kind is a bit set of what a word of a tagged list is.
type kind uint16

const (
	kMetric kind = 1 << iota
	kBand
	kQualifier
	kNegation
	kCondition
	kModal
	kRecWord
	kRecVerb
	kCompare
)

// tagged is one word list made of several, each word tagged with the
// lists it comes from, so that the longest word wins wherever two lists'
// words overlap ("ความไม่แน่นอน", a metric, over "ไม่", a negation).
type tagged struct {
	terms
	kinds map[string]kind
}

func (g *tagged) add(w Words, k kind) {
	if g.kinds == nil {
		g.kinds = map[string]kind{}
	}
	for _, t := range w.all() {
		lt := lowerASCII(t)
		if g.kinds[lt] == 0 {
			g.terms = append(g.terms, lt)
		}
		g.kinds[lt] |= k
	}
}

// sort orders the words longest first, as find needs.
func (g *tagged) sort() {
	slices.SortFunc(g.terms, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
}

// is reports whether h's word is of kind k.
func (g *tagged) is(h hit, k kind) bool { return g.kinds[h.term]&k != 0 }

// has reports whether any term occurs in lower.
func (t terms) has(lower string) bool { return t.count(lower) > 0 }

// count is the number of occurrences of t in lower.
func (t terms) count(lower string) int { return len(t.find(lower)) }

func sortHits(h []hit) {
	// Insertion sort: lists are short, and it keeps the package free of
	// a comparison closure on this hot path.
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].start < h[j-1].start; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

func overlaps(hs []hit, s span) bool {
	for _, h := range hs {
		if s.start < h.end && h.start < s.end {
			return true
		}
	}
	return false
}

// wordBounds reports whether s in text starts and ends at word boundaries
// where its first and last characters are Latin letters or digits. Thai
// has no spaces between words, so a Thai term may start or end anywhere
// except inside a syllable: not right after a leading vowel (เ แ โ ใ ไ,
// written before the consonant they follow in speech: "ปิด" is not in
// "เปิด"), and not right before a vowel or tone mark that sits on the
// term's last consonant.
func wordBounds(text string, s span) bool {
	if s.start > 0 && isWordByte(text[s.start]) && isWordByte(text[s.start-1]) {
		return false
	}
	if s.end < len(text) && isWordByte(text[s.end-1]) && isWordByte(text[s.end]) {
		return false
	}
	if s.start > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:s.start]); r >= 0x0E40 && r <= 0x0E44 {
			return false
		}
	}
	if s.end < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[s.end:]); thaiMark(r) {
			return false
		}
	}
	return true
}

// thaiMark reports whether r is a Thai vowel sign or tone mark written on
// the consonant before it (U+0E31, U+0E34-U+0E3A, U+0E47-U+0E4E).
func thaiMark(r rune) bool {
	return r == 0x0E31 || r >= 0x0E34 && r <= 0x0E3A || r >= 0x0E47 && r <= 0x0E4E
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// lowerASCII lowers ASCII letters only, so that byte offsets into the
// result are offsets into s.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// doc is a report cut into what the scorers look at.
type doc struct {
	text, lower string
	// sentences are the sentences of the body (headings left out).
	sentences []span
	// sections are the sections found, in report order.
	sections []foundSection
	// lines is the number of non-empty lines.
	lines int
	// words is the report's length in words (textseg.WordCount).
	words int
	// lang is "th" when Thai letters make up 30% of the letters or more,
	// else "en".
	lang string
	// counts memoises the whole-text counts of the matcher's lists, by
	// the address of a list's first word (see doc.count).
	counts map[*string]int
	// recs memoises the report's recommendations (Profile.recommendations).
	recs *[]string
	// tables, numbered and bullets count the lines of each forbidden
	// format.
	tables, numbered, bullets int
}

// count is the number of occurrences of the words of t, one of the
// profile's compiled lists, in the whole report, counted once per report.
func (d *doc) count(t terms) int {
	if len(t) == 0 {
		return 0
	}
	if n, ok := d.counts[&t[0]]; ok {
		return n
	}
	n := t.count(d.lower)
	if d.counts == nil {
		d.counts = map[*string]int{}
	}
	d.counts[&t[0]] = n
	return n
}

// has reports whether the words of t occur in the whole report.
func (d *doc) has(t terms) bool { return d.count(t) > 0 }

// foundSection is a section found in a report.
type foundSection struct {
	idx        int  // index in Profile.Sections
	heading    span // its heading line
	body       span // from after the heading to the next heading
	sentences  int
	paragraphs int
}

// invisible are the characters that mark where a word may break or join
// without showing anything: zero-width space, non-joiner and joiner, word
// joiner, zero-width no-break space (a byte order mark) and soft hyphen.
// Thai text often carries zero-width spaces between its words; the
// matcher finds Thai terms as runs of letters, which one would cut.
var invisible = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "", "\u00ad", "")

// parse cuts a report into sections, paragraphs and sentences. The
// report is read without its invisible characters (invisible), in
// Unicode NFC (textseg.Normalize).
func (p *Profile) parse(text string) *doc {
	text = textseg.Normalize(invisible.Replace(text))
	d := &doc{text: text, lower: lowerASCII(text)}
	d.words = textseg.WordCount(text)
	d.lang = language(text)
	var cur *foundSection
	para := false
	off := 0
	for line := range strings.SplitAfterSeq(text, "\n") {
		start := off
		off += len(line)
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			para = false
			continue
		}
		d.lines++
		if i := p.headingOf(trimmed, d.lower[start:off]); i >= 0 {
			if cur != nil {
				cur.body.end = start
			}
			d.sections = append(d.sections, foundSection{idx: i, heading: span{start, off}, body: span{off, off}})
			cur = &d.sections[len(d.sections)-1]
			para = false
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			continue // a title or another heading: not body text
		}
		switch {
		case strings.HasPrefix(trimmed, "|") && strings.Count(trimmed, "|") >= 2:
			d.tables++
			continue // a table row: not prose
		case isNumbered(trimmed):
			d.numbered++
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") || strings.HasPrefix(trimmed, "• ") || strings.HasPrefix(trimmed, "+ "):
			d.bullets++
		}
		if cur != nil && !para {
			cur.paragraphs++
		}
		para = true
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		n := 0
		for _, s := range sentenceSpans(strings.TrimRight(line, " \t\r\n")[lead:]) {
			d.sentences = append(d.sentences, span{start + lead + s.start, start + lead + s.end})
			n++
		}
		if cur != nil {
			cur.sentences += n
		}
	}
	if cur != nil {
		cur.body.end = len(text)
	}
	return d
}

// headingOf returns the index of the section whose heading line is line,
// or -1: a line holding the section's marker, or a Markdown heading or a
// bold line naming it.
func (p *Profile) headingOf(line, lower string) int {
	for i, s := range p.Sections {
		if s.Marker != "" && strings.Contains(line, s.Marker) {
			return i
		}
	}
	if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "**") {
		return -1
	}
	for i := range p.Sections {
		if p.m.sectionNames[i].has(lower) {
			return i
		}
	}
	return -1
}

// isNumbered reports whether a line starts a numbered list item ("1. ",
// "2) ").
func isNumbered(line string) bool {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i < 4 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' '
}

// sentenceSpans splits one line into sentences: at the UAX #29 sentence
// boundaries, and in Thai, which ends a sentence with a space rather than
// a full stop, at each run of spaces between two Thai letters (a Thai
// digit is not one: "ราคา ๒๐๒.๔๙ บาท" is one sentence). A number alone is
// never a sentence.
func sentenceSpans(line string) []span {
	var out []span
	for it := sentences.FromString(maskThaiAbbrevs(line)); it.Next(); {
		s, e := it.Start(), it.End()
		seg := line[s:e]
		from := 0
		for i := 0; i < len(seg); {
			r, n := utf8.DecodeRuneInString(seg[i:])
			if r != ' ' || i == 0 {
				i += n
				continue
			}
			j := i
			for j < len(seg) && seg[j] == ' ' {
				j++
			}
			prev, _ := utf8.DecodeLastRuneInString(seg[:i])
			next, _ := utf8.DecodeRuneInString(seg[j:])
			if thaiLetter(prev) && thaiLetter(next) && !thaiAbbrevAt(seg, j) && !spacedWord(seg, i, j) {
				out = appendSpan(out, line, s+from, s+i)
				from = j
			}
			i = j
		}
		out = appendSpan(out, line, s+from, e)
	}
	// A number never ends a sentence on its own: a span of no letters
	// ("1." of a list item, "๒๕๖๘.") joins the sentence after it.
	var merged []span
	carry := -1
	for _, sp := range out {
		if carry >= 0 {
			sp.start, carry = carry, -1
		}
		if !strings.ContainsFunc(line[sp.start:sp.end], unicode.IsLetter) {
			carry = sp.start
			continue
		}
		merged = append(merged, sp)
	}
	if carry >= 0 {
		merged = append(merged, span{carry, out[len(out)-1].end})
	}
	return merged
}

// maxThaiAbbrev is the most Thai letters and marks before each period of
// a Thai abbreviation: พ.ศ. (the Buddhist era), มี.ค. (March), กทม.
// (Bangkok), บมจ. (a public company).
const maxThaiAbbrev = 4

// thaiAbbrevDot reports whether the period at s[i] ends a part of a Thai
// abbreviation: a run of at most maxThaiAbbrev Thai letters and marks
// right before it, after a space, a period or nothing. Thai ends a
// sentence with a space, not a period, so such a period ends none.
func thaiAbbrevDot(s string, i int) bool {
	n := 0
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if !thaiLetter(r) {
			break
		}
		j -= size
		n++
	}
	if n == 0 || n > maxThaiAbbrev {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:j])
	return j == 0 || !unicode.IsLetter(prev) && !unicode.IsDigit(prev)
}

// thaiAbbrevAt reports whether a Thai abbreviation (พ.ศ.) starts at s[i]:
// a space before it is no sentence's end.
func thaiAbbrevAt(s string, i int) bool {
	j := i
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !thaiLetter(r) {
			break
		}
		j += size
	}
	return j > i && j < len(s) && s[j] == '.' && thaiAbbrevDot(s, j)
}

// spacedWords are the Thai words written with a space on both sides
// inside a sentence, as the Royal Institute's rules of spacing ask: ๆ
// (mai yamok, the repetition mark: ต่าง ๆ), ณ (at: ณ วันที่), ฯ and ฯลฯ.
var spacedWords = []string{"ๆ", "ณ", "ฯ", "ฯลฯ"}

// spacedWord reports whether the spaces s[i:j] are beside one of the
// spacedWords: the word that ends at i or the one that starts at j.
func spacedWord(s string, i, j int) bool {
	before := strings.LastIndexByte(s[:i], ' ') + 1
	after := strings.IndexByte(s[j:], ' ')
	if after < 0 {
		after = len(s) - j
	}
	return slices.Contains(spacedWords, s[before:i]) || slices.Contains(spacedWords, s[j:j+after])
}

// maskThaiAbbrevs returns line with the periods of its Thai
// abbreviations (thaiAbbrevDot) made underscores, of the same length, so
// that the sentence splitter ends no sentence at them.
func maskThaiAbbrevs(line string) string {
	if !strings.Contains(line, ".") || !textseg.HasUnspaced(line) {
		return line
	}
	var b []byte
	for i := 0; i < len(line); i++ {
		if line[i] == '.' && thaiAbbrevDot(line, i) {
			if b == nil {
				b = []byte(line)
			}
			b[i] = '_'
		}
	}
	if b == nil {
		return line
	}
	return string(b)
}

// appendSpan adds the trimmed span [s, e) of line when it holds a letter
// or a digit.
func appendSpan(out []span, line string, s, e int) []span {
	for s < e && line[s] == ' ' {
		s++
	}
	for e > s && strings.ContainsRune(" \t\r\n", rune(line[e-1])) {
		e--
	}
	if strings.IndexFunc(line[s:e], func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return out
	}
	return append(out, span{s, e})
}

// language is "th" when Thai letters are 30% or more of s's letters.
func language(s string) string {
	thai, all := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			all++
			if unicode.Is(unicode.Thai, r) {
				thai++
			}
		}
	}
	if all > 0 && thai*10 >= all*3 {
		return "th"
	}
	return "en"
}

// matcher holds a profile's compiled word lists.
type matcher struct {
	metricNames  terms
	metricOf     map[string]string // lowered name -> metric
	linkWords    terms             // link and direction words
	dirOf        map[string]int    // lowered direction word -> +1 above, -1 below
	pctWords     terms
	bandWords    terms
	bandOf       map[string][]bandRef // lowered word -> bands
	qualOf       map[string][]bandRef // lowered qualifier -> the bands it names
	bandScan     tagged               // band words, qualifiers and what reads around them
	notRecs      terms                // read before recScan
	recScan      tagged
	recOf        map[string]int // lowered recommendation word or verb -> index
	hyps         terms          // condition and hypothetical cues, for claims
	notHyps      terms          // read before hyps
	hypOpeners   terms          // hypothetical only at a sentence's start
	changeVerbs  terms          // the day's move: "fell", "ลดลง"
	changeUnits  terms          // its unit: "points", "จุด"
	sectionNames []terms
	vague, cause, generic, filler, comparison, trend, timeframe,
	risk, lowRisk, highRisk, technical, fundamental, strategies terms
}

type bandRef struct {
	metric string
	label  string
}

func compile(p *Profile) *matcher {
	m := &matcher{metricOf: map[string]string{}, bandOf: map[string][]bandRef{}}
	var names Words = map[string][]string{}
	for _, mt := range p.Metrics {
		for lang, ns := range mt.Names {
			names[lang] = append(names[lang], ns...)
			for _, n := range ns {
				m.metricOf[lowerASCII(n)] = mt.Name
			}
		}
	}
	m.metricNames = newTerms(names)
	links := Words{}
	m.dirOf = map[string]int{}
	for _, d := range []struct {
		w    Words
		sign int
	}{{p.LinkWords, 0}, {p.DirectionWords.Above, 1}, {p.DirectionWords.Below, -1}} {
		for lang, ws := range d.w {
			links[lang] = append(links[lang], ws...)
			for _, w := range ws {
				if d.sign != 0 {
					m.dirOf[lowerASCII(w)] = d.sign
				}
			}
		}
	}
	m.linkWords = newTerms(links)
	m.pctWords = newTerms(p.PercentileWords)
	var bw Words = map[string][]string{}
	for _, bs := range p.Bands {
		for _, b := range bs.Bands {
			for lang, ws := range b.Words {
				bw[lang] = append(bw[lang], ws...)
				for _, w := range ws {
					m.bandOf[lowerASCII(w)] = append(m.bandOf[lowerASCII(w)], bandRef{bs.Metric, b.Label})
				}
			}
		}
	}
	m.bandWords = newTerms(bw)
	m.qualOf = map[string][]bandRef{}
	for _, bs := range p.Bands {
		for _, b := range bs.Bands {
			for _, ws := range b.Qualifiers {
				for _, w := range ws {
					m.qualOf[lowerASCII(w)] = append(m.qualOf[lowerASCII(w)], bandRef{bs.Metric, b.Label})
				}
			}
			m.bandScan.add(b.Qualifiers, kQualifier)
		}
	}
	m.bandScan.add(bw, kBand)
	m.bandScan.add(names, kMetric)
	m.bandScan.add(p.Words.Comparison, kCompare)
	m.bandScan.add(p.Cues.Negation, kNegation)
	m.bandScan.add(p.Cues.Modals, kModal)
	m.bandScan.sort()
	blocks := Words{}
	for _, w := range []Words{p.Cues.NotRecommendations, names} {
		for lang, ws := range w {
			blocks[lang] = append(blocks[lang], ws...)
		}
	}
	m.notRecs = newTerms(blocks)
	hyps := Words{}
	for _, w := range []Words{p.Cues.Condition, p.Cues.Hypothetical} {
		for lang, ws := range w {
			hyps[lang] = append(hyps[lang], ws...)
		}
	}
	m.hyps, m.notHyps = newTerms(hyps), newTerms(p.Cues.NotHypothetical)
	m.hypOpeners = newTerms(p.Cues.HypotheticalOpeners)
	m.changeVerbs, m.changeUnits = newTerms(p.Cues.ChangeVerbs), newTerms(p.Cues.ChangeUnits)
	m.recOf = map[string]int{}
	for i, r := range p.Recommendations {
		m.recOf[capitals+r.Label] = i
		m.recScan.add(r.Words, kRecWord)
		m.recScan.add(r.Verbs, kRecVerb)
		for _, w := range []Words{r.Words, r.Verbs} {
			for _, t := range w.all() {
				m.recOf[lowerASCII(t)] = i
			}
		}
	}
	m.recScan.add(p.Cues.Negation, kNegation)
	m.recScan.add(p.Cues.Condition, kCondition)
	m.recScan.add(p.Cues.Modals, kModal)
	m.recScan.sort()
	for _, s := range p.Sections {
		m.sectionNames = append(m.sectionNames, newTerms(s.Names))
	}
	w := p.Words
	m.vague, m.cause, m.generic, m.filler = newTerms(w.Vague), newTerms(w.CauseEffect), newTerms(w.Generic), newTerms(w.Filler)
	m.comparison, m.trend, m.timeframe = newTerms(w.Comparison), newTerms(w.Trend), newTerms(w.Timeframe)
	m.risk, m.lowRisk, m.highRisk = newTerms(w.Risk), newTerms(w.LowRisk), newTerms(w.HighRisk)
	m.technical, m.fundamental, m.strategies = newTerms(w.Technical), newTerms(w.Fundamental), newTerms(w.Strategies)
	return m
}
