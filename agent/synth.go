package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/mdtext"
	"github.com/assaylabs/assay/internal/textseg"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
)

// summarySentences is how many sentences an extractive summary keeps.
const summarySentences = 4

// offline reports whether the run has no generative model.
func (r *run) offline() bool { return judges.Offline(r.cfg.Model) }

// summarize returns a summary of a source for the query: with a model, a
// short summary it writes; offline, the source's sentences most relevant
// to the query, in their order.
func (r *run) summarize(ctx context.Context, s *SourceRecord) (string, eval.Usage, error) {
	if r.offline() {
		return strings.Join(topSentences(r.query, s.Text, summarySentences), " "), eval.Usage{}, nil
	}
	var out struct {
		Summary string `json:"summary"`
	}
	u, err := judges.Ask(ctx, r.cfg.Model, "research.summarize", prompts.SourceQuery{
		Question: r.query, Source: prompts.Passage{ID: s.URL, Title: s.Title, Text: textseg.ClipWords(s.Text, 2000)},
	}, &out, summarySchema(), 0)
	eu := u.Recorded()
	if err != nil || strings.TrimSpace(out.Summary) == "" {
		if err := judges.Stops(ctx, err); err != nil {
			return "", eu, err
		}
		r.model.note(cmp.Or(err, errors.New("the model's summary is empty")))
		// A failed summary falls back to the extractive one, so the gate
		// still grades the source on its own words.
		return strings.Join(topSentences(r.query, s.Text, summarySentences), " "), eu, nil
	}
	r.model.note(nil)
	return out.Summary, eu, nil
}

// summarySchema, like the agent's other reply schemas, is reflected on
// first use rather than at start-up.
var summarySchema = sync.OnceValue(func() *llm.Schema {
	return llm.SchemaFor[struct {
		Summary string `json:"summary"`
	}]("summary")
})

// sentence is a source sentence with its relevance to the query.
type sentence struct {
	text  string
	score float64
	pos   int
}

// rankedSentences returns the sentences of text that can stand as report
// sentences (5-40 words, counted by textseg.WordCount; not questions), most
// relevant to the query first.
func rankedSentences(query, text string) []sentence {
	var out []sentence
	for i, s := range heuristics.SplitClaims(text) {
		s = strings.TrimSpace(s)
		n := textseg.WordCount(s)
		if n < 5 || n > 40 || strings.HasSuffix(s, "?") || !endsSentence(s) {
			continue
		}
		out = append(out, sentence{text: s, score: heuristics.PassageRelevance(query, s), pos: i})
	}
	slices.SortStableFunc(out, func(a, b sentence) int { return cmp.Compare(b.score, a.score) })
	return out
}

// endsSentence reports whether s reads as a whole sentence: a capital
// letter to a full stop or exclamation mark, or, in Chinese and Japanese,
// which have no capitals, anything to 。 or ！.
func endsSentence(s string) bool {
	last, _ := utf8.DecodeLastRuneInString(s)
	if strings.ContainsRune("。！", last) {
		return true
	}
	first, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, "\"'(“"))
	return strings.ContainsRune(".!", last) && unicode.IsUpper(first)
}

// topSentences returns the n most relevant sentences in document order.
func topSentences(query, text string, n int) []string {
	rs := rankedSentences(query, text)
	if len(rs) > n {
		rs = rs[:n]
	}
	slices.SortFunc(rs, func(a, b sentence) int { return cmp.Compare(a.pos, b.pos) })
	out := make([]string, len(rs))
	for i, s := range rs {
		out[i] = s.text
	}
	return out
}

// synthesize runs stage 5: the report from the kept sources. tidy asks for
// the clarity fix's restructuring (shorter sentences, no repetition).
func (r *run) synthesize(ctx context.Context, it int, kept []*SourceRecord, tidy bool) (string, error) {
	ev, done := r.tr.begin(StageSynthesize, it)
	defer done()
	ev.Inputs["sources"] = len(kept)
	var report string
	if r.offline() || r.grounded {
		report = extractiveReport(r.query, kept, tidy)
		ev.Decisions = append(ev.Decisions, "extractive report: every sentence is a source sentence cited with itself as the quote")
	} else {
		rep, u, removed, recited, err := r.llmReport(ctx, kept, tidy)
		ev.Usage = u
		if ctx.Err() == nil {
			r.model.note(err)
		}
		if err != nil {
			if err := judges.Stops(ctx, err); err != nil {
				return "", err
			}
			ev.Errors = append(ev.Errors, "model synthesis failed, extractive report used: "+err.Error())
			r.out.QoS.Errors = append(r.out.QoS.Errors, "synthesize: "+err.Error())
			rep = extractiveReport(r.query, kept, tidy)
		}
		report = rep
		ev.Outputs["quotes_removed"], ev.Outputs["quotes_recited"] = removed, recited
	}
	if r.out.Decision == DecisionShort {
		report = shortDisclaimer(len(kept), r.cfg.Mode) + report
		ev.Decisions = append(ev.Decisions, "short report: disclaimer prepended")
	}
	ev.Outputs["words"] = textseg.WordCount(report)
	return report, nil
}

// shortDisclaimer opens a short report (seed 004).
func shortDisclaimer(n int, m Mode) string {
	return fmt.Sprintf("> **Limited information.** Only %d source(s) passed the relevance gate; a full report needs %d in %s mode. "+
		"Treat this report as preliminary.\n\n", n, m.MinFull, m.Name)
}

// extractiveReport writes the offline report: an executive summary, the
// main findings per source and a conclusion, every sentence a source
// sentence cited inline with itself as the quote, then the sources.
func extractiveReport(query string, kept []*SourceRecord, tidy bool) string {
	type pick struct {
		src *SourceRecord
		ss  []sentence
	}
	maxWords := 40
	if tidy {
		maxWords = 25
	}
	used := map[string]bool{}
	ranked := make([][]sentence, len(kept))
	var picks []pick
	for i, s := range kept {
		ranked[i] = rankedSentences(query, s.Text)
		var ss []sentence
		for _, x := range ranked[i] {
			if textseg.WordCount(x.text) > maxWords || used[norm(x.text)] {
				continue
			}
			used[norm(x.text)] = true
			ss = append(ss, x)
			if len(ss) == 3 {
				break
			}
		}
		if len(ss) > 0 {
			picks = append(picks, pick{s, ss})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n## Executive Summary\n\n", mdtext.Text(strings.TrimSpace(query)))
	// The summary takes the best sentence of the two best sources; the
	// findings the rest; the conclusion the best remaining sentence.
	var summary []string
	for i := 0; i < len(picks) && i < 2; i++ {
		summary = append(summary, cite(picks[i].src, picks[i].ss[0].text))
		picks[i].ss = picks[i].ss[1:]
	}
	b.WriteString(strings.Join(summary, " ") + "\n\n## Main Findings\n\n")
	for i := range picks {
		p := &picks[i]
		if len(p.ss) == 0 {
			continue
		}
		title := cmp.Or(p.src.Title, p.src.Domain)
		fmt.Fprintf(&b, "### %s\n\n", mdtext.Text(title))
		var para []string
		for _, s := range p.ss {
			para = append(para, cite(p.src, s.text))
		}
		b.WriteString(strings.Join(para, " ") + "\n\n")
	}
	b.WriteString("## Conclusion\n\n")
	// The conclusion is the most relevant sentence not used yet, from the
	// best source that has one.
	concluded := false
	for i, s := range kept {
		if concluded {
			break
		}
		for _, x := range ranked[i] {
			if !used[norm(x.text)] && textseg.WordCount(x.text) <= maxWords {
				b.WriteString(cite(s, x.text) + "\n\n")
				concluded = true
				break
			}
		}
	}
	b.WriteString("## Sources\n\n")
	writeSources(&b, kept)
	return b.String()
}

// writeSources writes the numbered Sources list: each source's title (or
// domain) linked to its URL.
func writeSources(b *strings.Builder, kept []*SourceRecord) {
	for i, s := range kept {
		fmt.Fprintf(b, "%d. [%s](%s)\n", i+1, mdtext.Text(cmp.Or(s.Title, s.Domain)), linkDest(s.URL))
	}
}

// cite attaches an inline citation in seed 000's format to a sentence:
// the sentence, then ([domain](url "quote")) before its full stop (or 。),
// the quote being the sentence as the source has it. The sentence is the
// source's text, not Markdown of ours: it is escaped (mdtext.Text), so its
// HTML, links and images show as text; the quote is a link title, which
// no Markdown viewer renders as HTML.
func cite(s *SourceRecord, text string) string {
	text = strings.TrimSpace(text)
	body := strings.TrimRight(text, ".! 。！")
	end := strings.TrimSpace(text[len(body):])
	if end == "" {
		end = "."
	}
	return mdtext.Text(body) + " ([" + mdtext.Text(s.Domain) + "](" + linkDest(s.URL) + ` "` + quoteEscaper.Replace(text) + `"))` + end
}

// quoteEscaper writes a quote as a link title: its backslashes and double
// quotes escaped, so neither can end the title early, and its line breaks
// as spaces, since a blank line would end the link.
var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r\n", " ", "\n", " ", "\r", " ")

// linkDest writes a URL as a link's destination: percent-encoded where it
// holds what a URL may not (mdtext.URL), and between "<" and ">" when it
// holds parentheses, which would otherwise end the destination.
func linkDest(u string) string {
	u = mdtext.URL(u)
	if strings.ContainsAny(u, "()") {
		return "<" + u + ">"
	}
	return u
}

// norm lower-cases s and keeps letters and digits, single-spaced, for
// comparing quotes with source text; it reads s in Unicode NFC
// (textseg.Normalize), so an accent typed as its own character stays with
// its letter.
func norm(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(textseg.Normalize(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// llmReport asks the model for the report, then checks every quote
// against the cited source: a quote found in another kept source is
// re-cited to it, a quote found nowhere takes its sentence out.
func (r *run) llmReport(ctx context.Context, kept []*SourceRecord, tidy bool) (string, eval.Usage, int, int, error) {
	var ps []prompts.Passage
	for _, s := range kept {
		ps = append(ps, prompts.Passage{ID: s.URL, Title: s.Title, Text: textseg.ClipWords(s.Text, 800)})
	}
	var out struct {
		Report string `json:"report"`
	}
	u, err := judges.Ask(ctx, r.cfg.Model, "research.synthesize", prompts.Synthesis{Question: r.query, Sources: ps, Tidy: tidy},
		&out, reportSchema(), 3000)
	eu := u.Recorded()
	if err != nil {
		return "", eu, 0, 0, err
	}
	if strings.TrimSpace(out.Report) == "" {
		return "", eu, 0, 0, fmt.Errorf("empty report")
	}
	// The model may have read a prompt-injected source: its raw HTML and
	// links that are not web addresses become text before the quotes are
	// checked (a javascript: link is no citation to re-cite), and again
	// after, since removing a sentence can join what was around it.
	report, removed, recited := CheckQuotes(mdtext.Safe(out.Report), kept)
	if !strings.Contains(strings.ToLower(report), "## sources") {
		var b strings.Builder
		b.WriteString(strings.TrimRight(report, "\n") + "\n\n## Sources\n\n")
		writeSources(&b, kept)
		report = b.String()
	}
	return mdtext.Safe(report), eu, removed, recited, nil
}

var reportSchema = sync.OnceValue(func() *llm.Schema {
	return llm.SchemaFor[struct {
		Report string `json:"report"`
	}]("report")
})

// quoteLink matches an inline citation [text](url "quote"). It and
// plainLink are compiled on first use, not at start-up.
var quoteLink = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[((?:[^\]\\]|\\.)*)\]\(<?([^\s)>]+)>?\s+"((?:[^"\\]|\\.)*)"\)`)
})

// plainLink matches an inline link without a quote, [text](url).
var plainLink = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[(?:[^\]\\]|\\.)*\]\(<?(https?://[^\s)>]+)>?\)`)
})

// CheckQuotes checks every inline citation's quote against the text of the
// source it cites (letters and digits, case-folded). A quote found in
// another source is re-cited to that source; a quote found nowhere is
// invented, and the sentence that carries it is removed. A link without a
// quote must point to one of the sources (after URL normalisation), or its
// sentence is removed too. It returns the report and how many citations
// were removed and re-cited.
func CheckQuotes(report string, sources []*SourceRecord) (string, int, int) {
	texts := map[string]string{}
	known := map[string]bool{}
	for _, s := range sources {
		texts[s.URL] = norm(s.Text)
		known[normURL(s.URL)] = true
	}
	removed, recited := 0, 0
	lines := strings.Split(report, "\n")
	for li, line := range lines {
		for {
			ms := quoteLink().FindAllStringSubmatchIndex(line, -1)
			changed := false
			for _, m := range ms {
				u, q := line[m[4]:m[5]], strings.ReplaceAll(line[m[6]:m[7]], `\"`, `"`)
				nq := norm(q)
				if nq != "" && strings.Contains(texts[u], nq) {
					continue
				}
				if other := findQuote(nq, sources, texts); other != "" && nq != "" {
					line = line[:m[4]] + other + line[m[5]:]
					recited++
				} else {
					line = dropSentence(line, m[0], m[1])
					removed++
				}
				changed = true
				break
			}
			if !changed {
				break
			}
		}
		// Each pass removes a link, so the loop ends.
		for {
			ms := plainLink().FindAllStringSubmatchIndex(line, -1)
			i := slices.IndexFunc(ms, func(m []int) bool { return !known[normURL(line[m[2]:m[3]])] })
			if i < 0 {
				break
			}
			line = dropSentence(line, ms[i][0], ms[i][1])
			removed++
		}
		lines[li] = line
	}
	return strings.Join(lines, "\n"), removed, recited
}

// endsInFullStop reports whether s ends with a full-width stop (。！？).
func endsInFullStop(s string) bool {
	return strings.HasSuffix(s, "。") || strings.HasSuffix(s, "！") || strings.HasSuffix(s, "？")
}

// normURL is a URL in the form sources are compared by; a URL that does
// not parse stands for itself.
func normURL(u string) string {
	if n, err := heuristics.PageKey(u); err == nil { // one page, however spelt
		return n
	}
	return u
}

// findQuote returns the first source whose normalised text holds nq.
func findQuote(nq string, sources []*SourceRecord, texts map[string]string) string {
	for _, s := range sources {
		if strings.Contains(texts[s.URL], nq) {
			return s.URL
		}
	}
	return ""
}

// dropSentence removes the sentence of line that holds [start, end).
// A sentence ends at '.', '!' or '?' before a space or the end of the line,
// or at a full-width stop (。！？), which needs no space after it.
func dropSentence(line string, start, end int) string {
	from := 0
	for i := start - 1; i > 0; i-- {
		if (line[i-1] == '.' || line[i-1] == '!' || line[i-1] == '?') && line[i] == ' ' {
			from = i + 1
			break
		}
		if endsInFullStop(line[:i]) {
			from = i
			break
		}
	}
	to := len(line)
	for i := end; i < len(line); i++ {
		if (line[i] == '.' || line[i] == '!' || line[i] == '?') && (i+1 == len(line) || line[i+1] == ' ') {
			to = i + 1
			break
		}
		if endsInFullStop(line[:i+1]) {
			to = i + 1
			break
		}
	}
	prefix := line[:from]
	// Keep a list marker or heading prefix that opened the line.
	if from == 0 {
		trim := strings.TrimLeft(line, " ")
		for _, mk := range []string{"- ", "* ", "+ "} {
			if strings.HasPrefix(trim, mk) {
				prefix = line[:len(line)-len(trim)+len(mk)]
			}
		}
	}
	return strings.TrimRight(prefix+strings.TrimLeft(line[to:], " "), " ")
}
