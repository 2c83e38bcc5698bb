package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/assaylabs/assay/internal/datablock"
	"github.com/assaylabs/assay/llm"
)

// StandIn answers the research workflow's own requests in a dry run (an
// llm/dryrun.Replier): a source's summary is its first words, the report
// cites the first sentence of each source with itself as the quote, the
// insufficient-data note is a short fixed one. The judges the workflow runs
// (the relevance gate, the card's) have their stand-ins in their metric
// entries (metric.Registry.DryRun). ok is false for any other request.
func StandIn(req llm.Request, count func(string) int) (content string, tokensOut int, ok bool) {
	if req.Schema == nil {
		return "", 0, false
	}
	last := ""
	if len(req.Messages) > 0 {
		last = req.Messages[len(req.Messages)-1].Content
	}
	switch req.Schema.Name {
	case summarySchema().Name:
		src, _ := datablock.Find(last, "source")
		b, _ := json.Marshal(map[string]string{"summary": standInSummary(src, summaryTokens, count)})
		return string(b), summaryTokens, true
	case explanationSchema().Name:
		r := `{"explanation":"## Insufficient data\n\nNo source was found useful.\n\n## Suggestions\n\n- Search elsewhere."}`
		return r, count(r), true
	case reportSchema().Name:
		return standInReport(last), 1500, true
	}
	return "", 0, false
}

// summaryTokens is the length of a source's summary a dry run assumes.
const summaryTokens = 120

// standInSummary is the stand-in summary of a source: its first words, up
// to about n tokens, so that the prompts that carry it (the relevance
// gate's) are counted at a summary's length.
func standInSummary(src string, n int, count func(string) int) string {
	words := strings.Fields(src)
	lo, hi := 0, len(words)
	for lo < hi { // the most words whose count is at most n
		mid := (lo + hi + 1) / 2
		if count(strings.Join(words[:mid], " ")) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return "The source bears on the question."
	}
	return strings.Join(words[:lo], " ")
}

// sourcesBlock finds the JSON list of sources in the synthesis prompt's
// data block; compiled on first use, by a dry run.
var sourcesBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<data-[0-9a-f]+>\n(\[.*?\])\n</data-`) })

// standInReport writes a research report from the sources in the
// synthesis prompt: the first sentence of each, cited with itself as the
// quote.
func standInReport(prompt string) string {
	var srcs []struct{ ID, Title, Text string }
	if m := sourcesBlock().FindStringSubmatch(prompt); m != nil {
		_ = json.Unmarshal([]byte(m[1]), &srcs)
	}
	var b strings.Builder
	b.WriteString("# Report\n\n## Executive Summary\n\n")
	for _, s := range srcs {
		first, _, _ := strings.Cut(strings.Join(strings.Fields(s.Text), " "), ". ")
		first = strings.TrimSuffix(strings.TrimSpace(first), ".")
		if first == "" {
			continue
		}
		fmt.Fprintf(&b, "%s ([source](%s %q)). ", first, s.ID, first)
	}
	b.WriteString("\n\n## Conclusion\n\nSee the findings above.\n")
	out, _ := json.Marshal(map[string]string{"report": b.String()})
	return string(out)
}
