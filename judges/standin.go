package judges

import (
	"encoding/json"
	"regexp"
	"sync"

	"github.com/assaylabs/assay/llm"
)

// The judges' dry-run stand-ins (metric.Entry.DryRun) answer what a
// cooperative model would: the answer's sentences as its claims, one
// verdict per statement or context asked about (the first supported or
// useful, the next not, alternately), grade 4 of 5. They make a judge take
// the path a real reply makes it take, with no repair request and no
// second ask; each answers only the reply schemas its judge asks for.

// asks reports whether req asks for a reply of schema.
func asks(req llm.Request, schema *llm.Schema) bool {
	return req.Schema != nil && req.Schema.Name == schema.Name
}

// last is the content of req's last message: the one that holds the data.
func last(req llm.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// gradeStandIn answers a 1-5 grade (answer_relevancy_grade,
// source relevance): grade 4.
func gradeStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if !asks(req, gradeSchema()) {
		return "", 0, false
	}
	return `{"grade":4,"reason":"relevant with useful detail"}`, 40, true
}

// verdictStandIn answers a verification prompt (faithfulness, context
// recall) with one verdict per statement it lists, no more: odd statements
// supported by the first context, even ones unsupported.
func verdictStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if !asks(req, verdictSchema()) {
		return "", 0, false
	}
	var ctxs []struct{ ID string }
	var statements []string
	if blocks := dataBlocks(last(req)); len(blocks) >= 2 {
		_ = json.Unmarshal([]byte(blocks[0]), &ctxs)
		_ = json.Unmarshal([]byte(blocks[1]), &statements)
	}
	first := "c1"
	if len(ctxs) > 0 {
		first = ctxs[0].ID
	}
	out := verdictList{Verdicts: []verdict{}}
	for i := range statements {
		v := verdict{Statement: i + 1, Verdict: "supported", Context: first, Reason: "stated in " + first}
		if i%2 == 1 {
			v = verdict{Statement: i + 1, Verdict: "unsupported", Reason: "not in the contexts"}
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	b, _ := json.Marshal(out)
	return string(b), 40 * len(out.Verdicts), true
}

// dataBlocks are the JSON lists in the data blocks of a prompt, in order.
func dataBlocks(prompt string) []string {
	var out []string
	for _, m := range dataBlock().FindAllStringSubmatch(prompt, -1) {
		out = append(out, m[1])
	}
	return out
}

// dataBlock finds the JSON list in a prompt's data block; compiled on
// first use, by a dry run.
var dataBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<data-[0-9a-f]+>\n(\[.*?\])\n</data-`) })
