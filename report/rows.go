package report

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// The samples' rows are most of report.html: drawn by html/template they
// cost a reflective lookup and a call per value, more than the rest of
// what bench does after its last call. They are drawn here instead, the
// markup the template drew, byte for byte (TestRowsAsTheTemplateDrewThem
// holds them to it): every value from the dataset, a model or the
// evidence goes through esc, which escapes it as html/template escapes a
// value in HTML text or in a quoted attribute; the rows hold no value in
// any other context (no URL, script or style attribute).

// page builds the markup of some rows.
type page struct {
	strings.Builder
}

// esc writes s escaped as html/template escapes a string in HTML text or
// in a quoted attribute value (its htmlEscaper and attrEscaper agree on
// strings): NUL becomes U+FFFD, and " & ' + < > character references;
// every other byte, invalid UTF-8 included, is written as it is.
func (p *page) esc(s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		p.WriteString(s[start:i])
		p.WriteString(repl)
		start = i + 1
	}
	p.WriteString(s[start:])
}

// vis writes a name (a sample's id, a tool's) escaped, each control and
// bidirectional formatting character of it shown as its escape
// (termtext.Visible): a page obeys them, and an id holding U+202E would
// show reversed, and reverse the figures written after it.
func (p *page) vis(s string) { p.esc(termtext.Visible(s)) }

// int writes n in decimal (no byte of it needs escaping).
func (p *page) int(n int) {
	var b [20]byte
	p.Write(strconv.AppendInt(b[:0], int64(n), 10))
}

// str writes the strings in order, as they are: markup.
func (p *page) str(ss ...string) {
	for _, s := range ss {
		p.WriteString(s)
	}
}

// rows draws part's rows: per sample a tbody of its values and of what
// opening it shows.
func (p *page) rows(part rowsPart) {
	for i := range part.Rows {
		p.row(&part.Rows[i], part.Texts, part.Width)
		if i == 0 {
			// Room for the other rows, about as long as the first: the
			// page is not copied as it grows.
			p.Grow(p.Len() * (len(part.Rows) - 1) * 5 / 4)
		}
	}
}

func (p *page) row(r *sampleRow, texts bool, width int) {
	p.str("\n<tbody class=\"sample")
	if r.Marked {
		p.str(" marked")
	}
	p.str("\">\n<tr class=\"vals\"><td class=\"mono\" data-v=\"")
	p.esc(r.ID)
	p.str("\">")
	p.vis(r.ID)
	p.str("</td>")
	if texts {
		p.str("<td class=\"q\">")
		p.esc(r.Question)
		p.str("</td>")
	}
	for i := range r.Cells {
		p.cell(&r.Cells[i])
	}
	p.str("</tr>\n<tr class=\"ev\"><td colspan=\"")
	p.int(width)
	p.str("\"><details><summary>open the sample</summary>\n<div class=\"evidence\">")
	if r.Text != nil {
		p.texts(r.Text)
	}
	if r.Conv != nil {
		p.conv(r.Conv)
	}
	for i := range r.Results {
		p.result(&r.Results[i])
	}
	p.str("\n</div>\n</details></td></tr>\n</tbody>")
}

func (p *page) cell(c *sampleCell) {
	p.str("<td class=\"v ")
	p.esc(c.State)
	if c.State == "not_evaluable" {
		p.str(" skipped")
	}
	p.str("\" data-v=\"")
	p.esc(c.Sort)
	p.str("\"")
	if c.Flip != "" {
		p.str(" data-flip=\"")
		p.esc(c.Flip)
		p.str("\"")
	}
	p.str(">")
	if c.State == "scored" || c.State == "below" {
		p.esc(f3(c.Value))
	} else {
		p.str("<span class=\"badge b-")
		p.esc(c.State)
		p.str("\">")
		p.esc(c.State)
		p.str("</span>")
	}
	if c.Base != "" {
		if c.Flip != "" {
			p.str(" <span class=\"flip f-")
			p.esc(c.Flip)
			if c.Flip == run.FlipFails {
				p.str("\" title=\"passed in the baseline, fails now\">▼</span>")
			} else {
				p.str("\" title=\"failed in the baseline, passes now\">▲</span>")
			}
		}
		p.str("<span class=\"was\" title=\"in the baseline\">")
		p.esc(c.Base)
		p.str("</span>")
	}
	p.str("</td>")
}

// text draws a text cut to its bound: folded when long, saying how much
// the page left out.
func (p *page) text(t Text) {
	if len(t.Text) > 600 {
		chars := utf8.RuneCountInString(t.Text)
		p.str("<div class=\"full long\">")
		p.esc(t.Text)
		p.str("</div><button type=\"button\" class=\"more\" data-chars=\"")
		p.int(chars)
		p.str("\">show all ")
		p.int(chars)
		p.str(" characters</button>")
	} else {
		p.str("<div class=\"full\">")
		p.esc(t.Text)
		p.str("</div>")
	}
	if t.Cut != 0 {
		p.str("<p class=\"note\">… ")
		p.int(t.Cut)
		p.str(" more characters left out of this page.</p>")
	}
}

// texts draws a sample's question, answer, contexts and reference.
func (p *page) texts(t *SampleText) {
	p.str("\n<section class=\"texts\">")
	if t.Question.Text != "" {
		p.str("<h4>Question</h4>")
		p.text(t.Question)
	}
	if t.Answer.Text != "" {
		p.str("<h4>Answer</h4>")
		p.text(t.Answer)
	}
	if len(t.Contexts) > 0 {
		p.str("<h4>Contexts</h4><ol class=\"contexts\">")
		for _, c := range t.Contexts {
			p.str("<li><div class=\"muted mono\">")
			p.esc(c.Label)
			p.str("</div>")
			p.text(c.Text)
			p.str("</li>")
		}
		p.str("</ol>")
		if t.MoreContexts != 0 {
			p.str("<p class=\"note\">")
			p.int(t.MoreContexts)
			p.str(" more contexts left out of this page.</p>")
		}
	}
	if t.Reference.Text != "" {
		p.str("<h4>Reference</h4>")
		p.text(t.Reference)
	}
	p.str("\n</section>")
}

// marks draws where metrics lost points on a turn or a call.
func (p *page) marks(ms []mark) {
	for _, m := range ms {
		p.str("<div class=\"mark\" data-metric=\"")
		p.esc(m.Metric)
		p.str("\" data-kind=\"")
		p.esc(m.Kind)
		p.str("\"><span class=\"badge b-below\">")
		p.esc(m.Kind)
		p.str("</span> <b>")
		p.esc(m.Metric)
		p.str("</b>: ")
		p.esc(m.Note)
		p.str("</div>")
	}
}

// lost is the class of a turn or call some metric marked.
func lost(ms []mark) string {
	if len(ms) > 0 {
		return " lost"
	}
	return ""
}

// conv draws a sample's conversation with its marks, and the calls it
// expects.
func (p *page) conv(c *convView) {
	p.str("\n<section class=\"conv\" data-marked=\"")
	p.int(c.Marked)
	p.str("\">\n<h4>Conversation</h4>")
	if c.NotEvaluable != "" {
		p.str("<p class=\"note\">not_evaluable: ")
		p.esc(c.NotEvaluable)
		p.str("</p>")
	}
	p.str("\n<div class=\"conv-grid\">\n<div><ol class=\"turns\">")
	for i := range c.Turns {
		p.turn(&c.Turns[i])
	}
	p.str("\n</ol>")
	if c.MoreTurns != 0 {
		p.str("<p class=\"note\">")
		p.int(c.MoreTurns)
		p.str(" more messages left out of this page.</p>")
	}
	p.str("</div>\n<aside class=\"expected\"><h4>Expected calls")
	if c.Ordered {
		p.str(" <span class=\"muted\">(in order)</span>")
	}
	p.str("</h4>")
	if len(c.Expected) > 0 {
		p.str("<ol>")
		for _, e := range c.Expected {
			p.str("<li class=\"xcall", lost(e.Marks), "\" data-expected=\"")
			p.int(e.N)
			p.str("\"><span class=\"mono\"><b>")
			p.vis(e.Name)
			p.str("</b>(<span class=\"args\">")
			if e.Any {
				p.str("<i>any arguments</i>")
			} else {
				p.args(e.Arguments)
			}
			p.str("</span>)</span>")
			p.marks(e.Marks)
			p.str("</li>")
		}
		p.str("</ol>")
	} else {
		p.str("<p class=\"note\">none expected</p>")
	}
	if c.MoreExpected != 0 {
		p.str("<p class=\"note\">")
		p.int(c.MoreExpected)
		p.str(" more expected calls left out of this page.</p>")
	}
	p.str("\n</aside>\n</div>\n</section>")
}

// args draws a call's arguments, saying how much the page left out.
func (p *page) args(a Text) {
	p.esc(a.Text)
	if a.Cut != 0 {
		p.str("… ")
		p.int(a.Cut)
		p.str(" more characters")
	}
}

func (p *page) turn(t *turnView) {
	p.str("\n<li class=\"turn r-")
	p.esc(t.Role)
	p.str(lost(t.Marks), "\" data-turn=\"")
	p.int(t.N)
	p.str("\"><div class=\"who\"><span class=\"role\">")
	p.esc(t.Role)
	p.str("</span>")
	if t.Tool != "" {
		p.str(" <span class=\"mono\">")
		p.vis(t.Tool)
		p.str("</span>")
	}
	if t.Failed {
		p.str(" <span class=\"badge b-error\">error</span>")
	}
	p.str(" · turn ")
	p.int(t.N)
	p.str("</div>")
	if t.Text.Text != "" {
		p.text(t.Text)
	}
	for i := range t.Calls {
		p.call(&t.Calls[i])
	}
	if t.MoreCalls != 0 {
		p.str("<p class=\"note\">")
		p.int(t.MoreCalls)
		p.str(" more calls left out of this page.</p>")
	}
	p.marks(t.Marks)
	p.str("</li>")
}

func (p *page) call(c *callView) {
	p.str("\n<div class=\"call", lost(c.Marks), "\" data-call=\"")
	p.int(c.N)
	p.str("\"><div class=\"mono\"><span class=\"muted\">call ")
	p.int(c.N)
	p.str("</span> <b>")
	p.vis(c.Name)
	p.str("</b>(<span class=\"args\">")
	p.args(c.Arguments)
	p.str("</span>)</div>")
	if c.Result != nil {
		p.str("<div class=\"result")
		if c.Failed {
			p.str(" failed")
		}
		p.str("\">→ ")
		if c.Failed {
			p.str("<span class=\"badge b-error\">error</span> ")
		}
		p.esc(c.Result.Text)
		if c.Result.Cut != 0 {
			p.str(" … ")
			p.int(c.Result.Cut)
			p.str(" more characters")
		}
		p.str("</div>")
	} else {
		p.str("<div class=\"result\">→ <i>no result in the conversation</i></div>")
	}
	p.marks(c.Marks)
	p.str("</div>")
}

// result draws one metric's judgement of the sample: its value, its
// value in the baseline, its reason, error and evidence.
func (p *page) result(r *resultView) {
	p.str("\n<section class=\"metric-ev\" data-metric=\"")
	p.esc(r.Metric)
	p.str("\">\n<h3>")
	p.esc(r.Metric)
	p.str(" ")
	switch {
	case r.Defaulted:
		p.str("<span class=\"badge b-defaulted\">defaulted ")
		p.esc(f3(r.Value))
		p.str("</span>")
	case r.NotEvaluable():
		p.str("<span class=\"badge b-not_evaluable\">not_evaluable</span>")
	case r.Skipped:
		p.str("<span class=\"badge b-skipped\">skipped</span>")
	case r.Error != "":
		p.str("<span class=\"badge b-error\">error</span>")
	default:
		p.str("<span class=\"mono\">")
		p.esc(f3(r.Value))
		p.str("</span>")
	}
	if r.Max != 0 && !r.Skipped {
		p.str(" <span class=\"muted\">· ")
		p.esc(fmtG(r.Points))
		p.str(" of ")
		p.esc(fmtG(r.Max))
		p.str("</span>")
	}
	p.str(" ")
	if r.Method != "" {
		p.str("<span class=\"muted\">· ")
		p.esc(r.Method)
		p.str("</span>")
	}
	if b := r.Base; b != nil {
		p.str(" <span class=\"muted\">· baseline ")
		switch {
		case b.Defaulted:
			p.str("defaulted")
		case b.NotEvaluable():
			p.str("not_evaluable")
		case b.Skipped:
			p.str("skipped")
		default:
			p.esc(f3(b.Value))
		}
		p.str("</span>")
	}
	switch r.Flip {
	case run.FlipFails:
		p.str(" <span class=\"badge b-fail\">now failing</span>")
	case run.FlipPasses:
		p.str(" <span class=\"badge b-pass\">now passing</span>")
	}
	p.str("</h3>")
	if r.Reason != "" {
		p.str("<p class=\"reason\">")
		p.esc(r.Reason)
		p.str("</p>")
	}
	if r.Error != "" && !r.NotEvaluable() {
		p.str("<p class=\"err\">error: ")
		p.esc(r.Error)
		p.str("</p>")
	}
	p.evidence(r)
	p.str("\n</section>")
}

// evidence draws a result's claims, sources, gaps, issues and counts,
// each list bounded (MaxListed).
func (p *page) evidence(r *resultView) {
	ev := &r.Evidence
	if len(ev.Claims) > 0 {
		p.str("<div>Claims<ul>")
		for _, c := range ev.Claims[:min(len(ev.Claims), MaxListed)] {
			p.str("<li><span class=\"badge b-")
			p.esc(c.Verdict)
			p.str("\">")
			p.esc(c.Verdict)
			p.str("</span> ")
			p.esc(c.Text)
			if c.SourceID != "" {
				p.str(" <span class=\"muted\">(")
				p.vis(c.SourceID)
				p.str(")</span>")
			}
			for _, ct := range c.Citations {
				if ct.Quote != "" {
					p.str(" <q class=\"muted\">")
					p.esc(ct.Quote)
					p.str("</q>")
				}
			}
			if ck := c.Check; ck != nil {
				p.str(" <span class=\"muted\">· checked by ")
				p.esc(ck.Checker)
				p.str(": p ")
				p.esc(f3(ck.Probability))
				p.str(" (")
				p.esc(ck.From)
				p.str(")")
				if ck.Chunk != 0 {
					p.str(", chunk ")
					p.int(ck.Chunk)
					p.str(" of ")
					p.int(ck.Chunks)
				}
				p.str("</span>")
			}
			p.str("</li>")
		}
		p.more(len(ev.Claims))
		p.str("</ul></div>")
	}
	if len(ev.Sources) > 0 {
		p.str("<div>Sources<ul>")
		for _, s := range ev.Sources[:min(len(ev.Sources), MaxListed)] {
			p.str("<li><span class=\"mono\">")
			p.esc(f3(s.Rating))
			p.str("</span> ")
			p.esc(s.URL)
			if s.Basis != "" {
				p.str(" <span class=\"muted\">")
				p.esc(s.Basis)
				p.str("</span>")
			}
			p.str("</li>")
		}
		p.more(len(ev.Sources))
		p.str("</ul></div>")
	}
	p.items("Gaps", ev.Gaps)
	p.items("Issues", ev.Issues)
	if len(ev.Counts) > 0 {
		p.str("<div class=\"counts muted\">")
		for _, k := range slices.Sorted(maps.Keys(ev.Counts)) {
			p.str("<span>")
			p.esc(k)
			p.str(" ")
			p.esc(fmtG(ev.Counts[k]))
			p.str("</span>")
		}
		p.str("</div>")
	}
}

// items draws a list of texts (gaps, issues), each clipped.
func (p *page) items(title string, items []string) {
	if len(items) == 0 {
		return
	}
	p.str("<div>", title, "<ul>")
	for _, it := range items[:min(len(items), MaxListed)] {
		p.str("<li>")
		p.esc(clip(it))
		p.str("</li>")
	}
	p.more(len(items))
	p.str("</ul></div>")
}

// more says how many items of a list of n the page leaves out.
func (p *page) more(n int) {
	if n > MaxListed {
		p.str("<li class=\"muted\">… ")
		p.int(n - MaxListed)
		p.str(" more left out of this page</li>")
	}
}

// fmtG writes a number (points, counts) with as few digits as it needs,
// four decimal places at most.
func fmtG(v float64) string {
	if math.Abs(v) < 1e15 {
		v = math.Round(v*1e4) / 1e4 // four places at most, as the terminal shows points
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
