package agent

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/mdtext"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/metric"
)

// Markdown renders the research card for people: a points table, the
// counts, the issues and the fixes.
func (v ResearchView) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Score card: %s\n\n", strings.ToUpper(v.Status))
	fmt.Fprintf(&b, "%s\n\n", v.Reason)
	fmt.Fprintf(&b, "Judge: %s. Neutral defaults after judge errors: %d.", v.Judge, v.Defaulted)
	if u := v.LLMUsage; u != nil {
		fmt.Fprintf(&b, " LLM calls: %d, tokens %d in / %d out, cost $%.4f.", u.Calls, u.TokensIn, u.TokensOut, u.CostUSD)
	}
	b.WriteString("\n\n")
	b.WriteString("| Dimension | Points |\n|---|---|\n")
	for _, p := range v.QualityScore.points() {
		label := v.titles[p.Metric]
		switch {
		case p.Metric == "total":
			label = "**Total**"
		case label == "":
			label = metric.Title(p.Metric)
		}
		fmt.Fprintf(&b, "| %s | %s/%s |\n", label, num(p.Points), num(v.maxima[p.Metric]))
	}
	d := v.Details
	unquoted := ""
	if d.CitedWithoutQuote > 0 {
		unquoted = fmt.Sprintf(", cited without quote: %d", d.CitedWithoutQuote)
	}
	fmt.Fprintf(&b, "\nPass threshold: %s. Claims: %d, cited: %d (%s%%)%s. Average credibility: %s. Distinct sources: %d from %s.\n",
		num(v.PassThreshold), d.TotalClaims, d.CitedClaims, num(d.CitationCoveragePct), unquoted, num(d.AvgCredibility), d.UniqueSources, plural.Count(d.UniqueDomains, "domain"))
	// Claims, URLs, gaps and issues quote the report and its sources:
	// they are written escaped (mdtext), so none can run or link.
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		for _, it := range items {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	var uncited, noQuote []string
	for _, c := range d.Claims {
		switch c.Verdict {
		case eval.VerdictCited:
		case eval.VerdictCitedNoQuote:
			noQuote = append(noQuote, fmt.Sprintf("line %d: %s", c.Line, mdtext.Text(c.Text)))
		default:
			uncited = append(uncited, fmt.Sprintf("line %d: %s", c.Line, mdtext.Text(c.Text)))
		}
	}
	list("Uncited claims", uncited)
	list("Cited without quote", noQuote)
	list("Gaps", escaped(d.GapsIdentified))
	list("Clarity issues", escaped(d.ClarityIssues))
	list("Citation issues", escaped(d.CitationIssues))
	var srcs []string
	for _, s := range d.Sources {
		srcs = append(srcs, fmt.Sprintf("%s: %s (%s)", mdtext.URL(s.URL), num(s.Rating), mdtext.Text(s.Basis)))
	}
	list("Sources", srcs)
	if len(d.Unlisted) > 0 {
		var left []string
		for _, name := range slices.Sorted(maps.Keys(d.Unlisted)) {
			left = append(left, fmt.Sprintf("%s: %d more", name, d.Unlisted[name]))
		}
		list(fmt.Sprintf("Not listed (each list holds %d at most)", MaxListed), left)
	}
	var fixes []string
	for _, f := range v.Fixes {
		fixes = append(fixes, fmt.Sprintf("%d. %s: %s (re-run stages %s)", f.Priority, f.Dimension, f.Action, stages(f.RerunStages)))
	}
	list("Fixes", fixes)
	return b.String()
}

// escaped returns the items escaped as Markdown text.
func escaped(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = mdtext.Text(s)
	}
	return out
}

func stages(s []int) string {
	if len(s) == 0 {
		return "none"
	}
	if len(s) > 1 && s[len(s)-1]-s[0] == len(s)-1 {
		return fmt.Sprintf("%d-%d", s[0], s[len(s)-1])
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}
