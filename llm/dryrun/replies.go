package dryrun

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/datablock"
	"github.com/assaylabs/assay/llm"
)

// Reply is a valid reply to a request of Assay's judges and research
// workflow, by the name of the reply schema it asks for ("claims",
// "verdicts", "grade"...), with the length a dry run assumes a model's
// reply has, in tokens as count counts them. ok is false for a schema it
// does not know.
//
// The replies are what a cooperative model would answer: the answer's
// sentences as its claims, one verdict per statement or context asked
// about (the first supported or useful, the next not, alternately), grade
// 4 of 5, a report citing each source's first sentence. They make the
// judges take the path a real reply makes them take, with no repair
// request and no second ask.
func Reply(schema string, msgs []llm.Message, count func(string) int) (content string, tokensOut int, ok bool) {
	last := ""
	if len(msgs) > 0 {
		last = msgs[len(msgs)-1].Content
	}
	switch schema {
	case "claims":
		answer, _ := datablock.Find(last, "answer")
		claims := heuristics.SplitClaims(answer)
		if claims == nil {
			claims = []string{}
		}
		b, _ := json.Marshal(map[string][]string{"claims": claims})
		return string(b), count(answer) + 10, true
	case "verdicts":
		v, n := statementVerdicts(last)
		return v, 40 * n, true
	case "questions":
		return `{"questions":["What does the answer explain?","Which facts does it give?","Why does it matter?"],"noncommittal":false}`, 60, true
	case "usefulness":
		v, n := contextVerdicts(last)
		return v, 30 * n, true
	case "aspects":
		return `{"aspects":[{"aspect":"the main question","covered":true,"evidence":"the answer"},{"aspect":"the reasons","covered":false,"evidence":""}]}`, 200, true
	case "reasoning":
		return `{"clarity":80,"coverage":70,"specificity":60,"alignment":90,"minimality":80,"consistency":100,"issues":["few numbers"]}`, 120, true
	case "summary":
		src, _ := datablock.Find(last, "source")
		b, _ := json.Marshal(map[string]string{"summary": summary(src, summaryTokens, count)})
		return string(b), summaryTokens, true
	case "explanation":
		r := `{"explanation":"## Insufficient data\n\nNo source was found useful.\n\n## Suggestions\n\n- Search elsewhere."}`
		return r, count(r), true
	case "report":
		return report(last), 1500, true
	case "grade":
		return `{"grade":4,"reason":"relevant with useful detail"}`, 40, true
	}
	return "", 0, false
}

// summaryTokens is the length of a source's summary a dry run assumes.
const summaryTokens = 120

// summary is the stand-in summary of a source: its first words, up to
// about n tokens, so that the prompts that carry it (the relevance gate's)
// are counted at a summary's length.
func summary(src string, n int, count func(string) int) string {
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

// statementVerdicts answers a verification prompt with one verdict per
// statement it lists, no more: odd statements supported by the first
// context, even ones unsupported. n is the number of verdicts.
func statementVerdicts(prompt string) (reply string, n int) {
	var ctxs []struct{ ID string }
	var statements []string
	if blocks := dataBlocks(prompt); len(blocks) >= 2 {
		_ = json.Unmarshal([]byte(blocks[0]), &ctxs)
		_ = json.Unmarshal([]byte(blocks[1]), &statements)
	}
	first := "c1"
	if len(ctxs) > 0 {
		first = ctxs[0].ID
	}
	type verdict struct {
		Statement int    `json:"statement"`
		Verdict   string `json:"verdict"`
		Context   string `json:"context"`
		Reason    string `json:"reason"`
	}
	out := struct {
		Verdicts []verdict `json:"verdicts"`
	}{Verdicts: []verdict{}}
	for i := range statements {
		v := verdict{Statement: i + 1, Verdict: "supported", Context: first, Reason: "stated in " + first}
		if i%2 == 1 {
			v = verdict{Statement: i + 1, Verdict: "unsupported", Reason: "not in the contexts"}
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	b, _ := json.Marshal(out)
	return string(b), len(out.Verdicts)
}

// contextVerdicts answers a context-usefulness prompt with one verdict per
// context it lists: the first useful, the others not.
func contextVerdicts(prompt string) (reply string, n int) {
	var ctxs []struct{ ID string }
	if blocks := dataBlocks(prompt); len(blocks) > 0 {
		_ = json.Unmarshal([]byte(blocks[len(blocks)-1]), &ctxs)
	}
	if len(ctxs) == 0 {
		ctxs = append(ctxs, struct{ ID string }{"c1"})
	}
	type verdict struct {
		Context string `json:"context"`
		Useful  bool   `json:"useful"`
		Reason  string `json:"reason"`
	}
	out := struct {
		Verdicts []verdict `json:"verdicts"`
	}{}
	for i, c := range ctxs {
		v := verdict{Context: c.ID, Useful: i == 0, Reason: "on topic"}
		if i > 0 {
			v.Reason = "adds nothing the answer needs"
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	b, _ := json.Marshal(out)
	return string(b), len(out.Verdicts)
}

// dataBlocks are the JSON lists in the data blocks of a prompt, in order.
func dataBlocks(prompt string) []string {
	var out []string
	for _, m := range dataBlock.FindAllStringSubmatch(prompt, -1) {
		out = append(out, m[1])
	}
	return out
}

// dataBlock finds the JSON list in a prompt's data block.
var dataBlock = regexp.MustCompile(`(?s)<data-[0-9a-f]+>\n(\[.*?\])\n</data-`)

// report writes a research report from the sources in the synthesis
// prompt: the first sentence of each, cited with itself as the quote.
func report(prompt string) string {
	var srcs []struct{ ID, Title, Text string }
	if m := dataBlock.FindStringSubmatch(prompt); m != nil {
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
