package daily

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Claim is a number a report states for one of the profile's metrics.
type Claim struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	// Percent: the number was written with a percent sign.
	Percent bool `json:"percent,omitempty"`
	// Text is the number as written, with its unit.
	Text string `json:"text"`
	// Direction of a signed metric's number: "above" or "below", from
	// its sign or the direction word beside it; "" when it states
	// neither, and is checked as a distance.
	Direction string `json:"direction,omitempty"`
}

// PercentileClaim is a percentile a report states for a metric ("ATR
// 3.03% ซึ่งอยู่ในเปอร์เซ็นไทล์ 88%", "the 88th percentile"). Metric is
// the metric it follows in its sentence, "" when none does.
type PercentileClaim struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	Text   string  `json:"text"`
}

// BandClaim is a word of an interpretation band used for a metric
// ("uncertainty 56.6, a high level").
type BandClaim struct {
	Metric string `json:"metric"`
	Label  string `json:"label"`
	Word   string `json:"word"`
}

// Extraction is what the pattern extraction finds in a report.
type Extraction struct {
	Numbers     []Claim           `json:"numbers"`
	Percentiles []PercentileClaim `json:"percentiles"`
	Bands       []BandClaim       `json:"bands"`
	// Citations are the numbered references ([1], [2]) in order.
	Citations []int `json:"citations"`
	// BadCitations are references in another format ([^1], [1-3]).
	BadCitations []string `json:"bad_citations"`
	// Mentioned counts each metric's mentions by name.
	Mentioned map[string]int `json:"mentioned"`
	// Numbers in the body, bound or not.
	AllNumbers int `json:"all_numbers"`
	// cites are the body's citations with their sentences.
	cites []cite
}

// Extract finds the profile's claims in a report: numbers bound to the
// metric they follow or (after "above", "เหนือ"...) precede, percentiles
// bound to the metric they follow, band words bound to the metric they
// describe, and citations. It never fails: text it cannot read yields no
// claim.
func (p *Profile) Extract(report string) Extraction {
	return p.extract(p.parse(report))
}

// number is a number token of a sentence.
type number struct {
	span
	value   float64
	percent bool
	ordinal bool // 88th
	signed  bool // written with a sign: -7.3, −7.3, +8.4
	text    string
}

// mention is a metric named in a sentence.
type mention struct {
	span
	metric string
	bound  bool
}

func (p *Profile) extract(d *doc) Extraction {
	x := Extraction{Mentioned: map[string]int{}}
	x.Citations, x.BadCitations = citations(d.text)
	for _, s := range d.sentences {
		text := d.text[s.start:s.end]
		p.extractSentence(text, d.lower[s.start:s.end], &x)
		good, _ := citations(text)
		for _, n := range good {
			x.cites = append(x.cites, cite{n: n, sentence: text})
		}
	}
	return x
}

func (p *Profile) extractSentence(text, lower string, x *Extraction) {
	m := p.m
	var ments []mention
	for _, h := range m.metricNames.find(lower) {
		ments = append(ments, mention{span: h.span, metric: m.metricOf[lowerASCII(h.term)]})
		x.Mentioned[m.metricOf[lowerASCII(h.term)]]++
	}
	nums := numbers(text, ments)
	x.AllNumbers += len(nums)
	nums = m.dropMoves(text, lower, nums)
	pcts := m.pctWords.find(lower)
	links := m.linkWords.find(lower)
	lastMetric := "" // the metric of the last number bound, for percentiles
	hyps := m.hyps.findExcept(lower, m.notHyps.find(lower))
	if o := m.hypOpeners.find(lower); len(o) > 0 && startsSentence(text, o[0].start) {
		hyps = append([]hit{o[0]}, hyps...)
	}
	for i, n := range nums {
		if supposed(text, hyps, n.start) {
			continue
		}
		if isPercentile(text, lower, n, pcts) {
			metric := lastMetric
			if metric == "" {
				if k := before(ments, n.start); k >= 0 {
					metric = ments[k].metric
				}
			}
			x.Percentiles = append(x.Percentiles, PercentileClaim{Metric: metric, Value: n.value, Text: n.text})
			continue
		}
		// "43.79% above VWAP": a link or direction word, then the
		// metric's name.
		k, link := after(ments, links, text, n.end)
		dir := m.dirOf[link.term]
		if k < 0 {
			// "ATR 3.03%": the nearest metric before, with no number
			// between them.
			k = before(ments, n.start)
			if k >= 0 && (ments[k].bound || n.start-ments[k].end > 90 || (i > 0 && nums[i-1].start > ments[k].end)) {
				k = -1
			}
			if k >= 0 {
				dir = directionBefore(m, links, text, ments[k])
			}
		}
		if k < 0 {
			continue
		}
		mt, _ := p.Metric(ments[k].metric)
		if (mt.Unit == "%" && !n.percent) || (mt.Unit == "" && n.percent) {
			continue
		}
		ments[k].bound = true
		lastMetric = mt.Name
		c := Claim{Metric: mt.Name, Value: n.value, Percent: n.percent, Text: n.text}
		if mt.Signed {
			switch {
			case dir != 0:
				c.Value = float64(dir) * math.Abs(n.value)
			case n.signed && n.value != 0:
				dir = int(math.Copysign(1, n.value))
			}
			c.Direction = map[int]string{1: "above", -1: "below"}[dir]
		}
		x.Numbers = append(x.Numbers, c)
	}
	p.readBands(text, lower, ments, hyps, x)
}

// dropMoves leaves out the numbers that are the day's move rather than
// a value: right after a change verb (spaces between) and followed by a
// change unit ("fell 4 points", "ลดลง ๓.๒ จุด").
func (m *matcher) dropMoves(text, lower string, nums []number) []number {
	units := m.changeUnits.find(lower)
	if len(units) == 0 {
		return nums
	}
	verbs := m.changeVerbs.find(lower)
	out := nums[:0:0]
	for _, n := range nums {
		if !n.percent && followedBy(text, n.end, units) && precededBy(text, n.start, verbs) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// followedBy reports whether one of hits starts at off, spaces skipped.
func followedBy(text string, off int, hits []hit) bool {
	off += len(text[off:]) - len(strings.TrimLeft(text[off:], " "))
	for _, h := range hits {
		if h.start == off {
			return true
		}
	}
	return false
}

// precededBy reports whether one of hits ends at off, spaces skipped.
func precededBy(text string, off int, hits []hit) bool {
	off = len(strings.TrimRight(text[:off], " "))
	for _, h := range hits {
		if h.end == off {
			return true
		}
	}
	return false
}

// directionBefore is the direction (+1 above, -1 below, 0 none) of a
// direction word standing right before the mention, at most two words
// away in its clause ("อยู่เหนือ VWAP ถึง 43.79%", "below its VWAP").
func directionBefore(m *matcher, links []hit, text string, mt mention) int {
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		if l.end > mt.start {
			continue
		}
		if d := m.dirOf[l.term]; d != 0 && near(text, l.end, mt.start, 2) {
			return d
		}
		return 0
	}
	return 0
}

// before returns the index of the last mention ending at or before off,
// or -1.
func before(ments []mention, off int) int {
	k := -1
	for i, mt := range ments {
		if mt.end <= off {
			k = i
		}
	}
	return k
}

// after returns the index of the mention that follows off across only
// spaces and one link or direction word, and at most two words after it
// ("7.3% below its VWAP"), with that word; -1 when none does.
func after(ments []mention, links []hit, text string, off int) (int, hit) {
	rest := off
	for rest < len(text) && text[rest] == ' ' {
		rest++
	}
	for _, l := range links {
		if l.start != rest {
			continue
		}
		for i, mt := range ments {
			if mt.start >= l.end {
				if near(text, l.end, mt.start, 2) {
					return i, l
				}
				break
			}
		}
		break
	}
	return -1, hit{}
}

// isPercentile reports whether n is a percentile: right after a
// percentile word ("เปอร์เซ็นไทล์ 88%", "percentile 88"), or an ordinal or
// a number right before one ("88th percentile").
func isPercentile(text, lower string, n number, pcts []hit) bool {
	for _, h := range pcts {
		// "เปอร์เซ็นไทล์ 88%", "เปอร์เซ็นไทล์ที่ 88", "percentile of 88".
		if gap := strings.TrimSpace(text[h.end:min(max(n.start, h.end), len(text))]); h.end <= n.start && len(gap) <= 9 && !hasDigit(gap) {
			return true
		}
		if h.start >= n.end && strings.TrimLeft(lower[n.end:h.start], " ") == "" {
			return true
		}
	}
	return false
}

// numbers finds the numbers of a sentence that are not part of a metric's
// name ("52-week"), a date (2025-11-01), a citation ([2]) or a word. Thai
// digits (๐-๙) are digits; a sign (-, the Unicode minus −, +) right before
// a number is its sign.
func numbers(text string, ments []mention) []number {
	var out []number
	for i := 0; i < len(text); {
		if _, n := digitAt(text, i); n == 0 {
			i++
			continue
		}
		start, neg, signed := numberSign(text, i)
		ascii, j := numberDigits(text, i, neg)
		i = j
		if !standsAlone(text, start, j, ments) {
			continue
		}
		v, err := strconv.ParseFloat(ascii, 64)
		if err != nil {
			continue
		}
		n := number{span: span{start, j}, value: v, signed: signed, text: text[start:j]}
		if n.takeSuffix(text) {
			out = append(out, n)
		}
	}
	return out
}

// numberSign returns where the number whose digits start at i starts: at
// a sign (-, the Unicode minus −, +) right before it, not after a word,
// whether that sign is negative, and whether there is one.
func numberSign(text string, i int) (start int, neg, signed bool) {
	for _, sg := range []string{"-", "\u2212", "+"} {
		if s := i - len(sg); s >= 0 && text[s:i] == sg && (s == 0 || !isWordByte(text[s-1])) {
			return s, sg != "+", true
		}
	}
	return i, false, false
}

// numberDigits reads the digits from i, with the decimal points and
// thousands commas between them, and returns them as ASCII for
// ParseFloat (with a leading '-' when neg, without the commas) and the
// end of the digits.
func numberDigits(text string, i int, neg bool) (string, int) {
	var ascii strings.Builder
	if neg {
		ascii.WriteByte('-')
	}
	j := i
	for j < len(text) {
		if d, n := digitAt(text, j); n > 0 {
			ascii.WriteByte(byte('0' + d))
			j += n
			continue
		}
		if (text[j] == '.' || text[j] == ',') && j+1 < len(text) {
			if _, n := digitAt(text, j+1); n > 0 {
				if text[j] == '.' {
					ascii.WriteByte('.')
				}
				j++
				continue
			}
		}
		break
	}
	return ascii.String(), j
}

// standsAlone reports whether the number at text[start:end] is a value:
// not part of a word, a date, a citation, a range or a fraction, nor
// inside a metric's name (ments).
func standsAlone(text string, start, end int, ments []mention) bool {
	prev, _ := utf8.DecodeLastRuneInString(text[:start])
	next, _ := utf8.DecodeRuneInString(text[end:])
	if start > 0 && (unicode.IsLetter(prev) && prev < 0x80 || prev == '[' || prev == '^' || prev == '/' || prev == '-' || prev == '.') {
		return false
	}
	if next == '-' || next == '/' || next == ']' || next == ':' {
		return false
	}
	for _, m := range ments {
		if start < m.end && m.start < end {
			return false
		}
	}
	return true
}

// takeSuffix extends n over what follows its digits in text: a percent
// sign, an ordinal's letters or a multiple's x. It reports false when a
// letter follows instead: a word ("3rd-party", "5G"), not a value.
func (n *number) takeSuffix(text string) bool {
	start, j, raw := n.start, n.end, n.text
	k := j
	for k < len(text) && text[k] == ' ' {
		k++
	}
	switch {
	case strings.HasPrefix(text[k:], "%"):
		n.percent, n.end, n.text = true, k+1, raw+"%"
	case percentWord(text[k:]) > 0:
		w := percentWord(text[k:])
		n.percent, n.end, n.text = true, k+w, text[start:k+w]
	case ordinal(text[j:]):
		n.ordinal, n.end, n.text = true, j+2, text[start:j+2]
	case j < len(text) && (text[j] == 'x' || text[j] == 'X') && (j+1 == len(text) || !isWordByte(text[j+1])):
		n.end, n.text = j+1, raw+"x"
	default:
		if next, _ := utf8.DecodeRuneInString(text[j:]); unicode.IsLetter(next) && next < 0x80 {
			return false
		}
	}
	return true
}

// percentWords are the English words that say "%" ("3.03 percent",
// "3.03 per cent", "3.03 pct"); "percentile" is not one.
var percentWords = []string{"percent", "per cent", "pct"}

// percentWord returns the length of the percent word s opens with, or 0.
func percentWord(s string) int {
	for _, w := range percentWords {
		if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
			continue
		}
		if len(s) > len(w) && isWordByte(s[len(w)]) {
			continue // "percentile", "pcts"
		}
		return len(w)
	}
	return 0
}

func ordinal(s string) bool {
	if len(s) < 2 {
		return false
	}
	switch strings.ToLower(s[:2]) {
	case "st", "nd", "rd", "th":
		return len(s) == 2 || !isWordByte(s[2])
	}
	return false
}

// citations finds numbered references: [1] and [1][2] are the format;
// [^1], [1-2], [1, 2] are references in another format.
func citations(text string) (good []int, bad []string) {
	for i := 0; i < len(text); i++ {
		if text[i] != '[' {
			continue
		}
		end := strings.IndexByte(text[i:], ']')
		if end < 0 || end > 12 {
			continue
		}
		inner := text[i+1 : i+end]
		if n, ok := atoiDigits(inner); ok {
			if i+end+1 < len(text) && text[i+end+1] == '(' {
				continue // a Markdown link whose text is a number
			}
			good = append(good, n)
			continue
		}
		trim := strings.TrimPrefix(inner, "^")
		if trim != "" && strings.Trim(trim, "0123456789๐๑๒๓๔๕๖๗๘๙-, ") == "" && hasDigit(trim) {
			bad = append(bad, text[i:i+end+1])
		}
	}
	return good, bad
}
