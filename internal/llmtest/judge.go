package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// JudgeReplies answers every Assay judge prompt with a valid reply of the
// shape its schema asks for, chosen by the schema's name (structured output)
// or, in JSON and prompt modes, by the reply format the system message
// names. It makes fake servers usable for end-to-end runs and benchmarks.
func JudgeReplies(req openai.ChatCompletionRequest) Reply {
	name := ""
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		name = rf.JSONSchema.Name
	}
	sys := ""
	if len(req.Messages) > 0 {
		sys = req.Messages[0].Content
	}
	has := func(schema, marker string) bool {
		return name == schema || (name == "" && strings.Contains(sys, marker))
	}
	switch {
	case has("claims", `{"claims"`):
		return Reply{Content: `{"claims":["The first statement of the answer.","The second statement of the answer."]}`}
	case has("verdicts", `{"verdicts": [{"statement"`):
		return Reply{Content: statementVerdicts(req)}
	case has("questions", `{"questions"`):
		return Reply{Content: `{"questions":["What does the answer explain?","Which facts does it give?","Why does it matter?"],"noncommittal":false}`}
	case has("usefulness", `"useful"`):
		return Reply{Content: contextVerdicts(req)}
	case has("aspects", `{"aspects"`):
		return Reply{Content: `{"aspects":[{"aspect":"the main question","covered":true,"evidence":"the answer"},{"aspect":"the reasons","covered":false,"evidence":""}]}`}
	case has("reasoning", `"clarity"`):
		return Reply{Content: `{"clarity":80,"coverage":70,"specificity":60,"alignment":90,"minimality":80,"consistency":100,"issues":["few numbers"]}`}
	case has("summary", `{"summary"`):
		return Reply{Content: `{"summary":"The source reports measurements that bear on the question."}`}
	case has("explanation", `{"explanation"`):
		return Reply{Content: `{"explanation":"## Insufficient data\n\nThe fake model found nothing useful.\n\n## Suggestions\n\n- Search elsewhere."}`}
	case has("report", `{"report"`):
		return Reply{Content: fakeReport(req)}
	case has("grade", `{"grade"`):
		return Reply{Content: `{"grade":4,"reason":"relevant with useful detail"}`}
	}
	return Reply{Status: 400, Body: `{"error":{"message":"fake server: unknown judge prompt","type":"invalid_request_error"}}`}
}

// statementVerdicts answers a verification prompt with one verdict per
// statement it lists: odd statements supported by the first context, even
// ones unsupported.
func statementVerdicts(req openai.ChatCompletionRequest) string {
	var ctxs []struct{ ID string }
	var statements []string
	if blocks := dataBlocks(req); len(blocks) >= 2 {
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
	for i := range max(len(statements), 2) {
		v := verdict{Statement: i + 1, Verdict: "supported", Context: first, Reason: "stated in " + first}
		if i%2 == 1 {
			v = verdict{Statement: i + 1, Verdict: "unsupported", Reason: "not in the contexts"}
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// contextVerdicts answers a context-usefulness prompt with one verdict per
// context it lists: the first useful, the others not.
func contextVerdicts(req openai.ChatCompletionRequest) string {
	var ctxs []struct{ ID string }
	if blocks := dataBlocks(req); len(blocks) > 0 {
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
	return string(b)
}

// dataBlocks are the JSON lists in the data blocks of a prompt's last
// message, in order.
func dataBlocks(req openai.ChatCompletionRequest) []string {
	if len(req.Messages) == 0 {
		return nil
	}
	var out []string
	for _, m := range dataBlock.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Content, -1) {
		out = append(out, m[1])
	}
	return out
}

// dataBlock finds the JSON list in a prompt's data block.
var dataBlock = regexp.MustCompile(`(?s)<data-[0-9a-f]+>\n(\[.*?\])\n</data-`)

// fakeReport writes a research report from the sources in the synthesis
// prompt: the first sentence of each, cited with itself as the quote, and
// one sentence with a quote no source has, which the caller must remove.
func fakeReport(req openai.ChatCompletionRequest) string {
	var srcs []struct{ ID, Title, Text string }
	if m := dataBlock.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content); m != nil {
		_ = json.Unmarshal([]byte(m[1]), &srcs)
	}
	var b strings.Builder
	b.WriteString("# Report\n\n## Executive Summary\n\n")
	for _, s := range srcs {
		// One line: a sentence that ended a paragraph stops at its full
		// stop, and a quote never spans lines.
		first, _, _ := strings.Cut(strings.Join(strings.Fields(s.Text), " "), ". ")
		first = strings.TrimSuffix(strings.TrimSpace(first), ".")
		if first == "" {
			continue
		}
		fmt.Fprintf(&b, "%s ([source](%s %q)). ", first, s.ID, first)
	}
	b.WriteString("\n\nThe fake model adds a claim of its own ([source](https://invented.example/ \"a quote no source contains\")).\n\n## Conclusion\n\nSee the findings above.\n")
	out, _ := json.Marshal(map[string]string{"report": b.String()})
	return string(out)
}
