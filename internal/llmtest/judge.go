package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/dryrun"
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
		return standIn("questions", req)
	case has("usefulness", `"useful"`):
		return standIn("usefulness", req)
	case has("aspects", `{"aspects"`):
		return standIn("aspects", req)
	case has("reasoning", `"clarity"`):
		return standIn("reasoning", req)
	case has("summary", `{"summary"`):
		return Reply{Content: `{"summary":"The source reports measurements that bear on the question."}`}
	case has("explanation", `{"explanation"`):
		return Reply{Content: `{"explanation":"## Insufficient data\n\nThe fake model found nothing useful.\n\n## Suggestions\n\n- Search elsewhere."}`}
	case has("report", `{"report"`):
		return Reply{Content: fakeReport(req)}
	case has("grade", `{"grade"`):
		return standIn("grade", req)
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

// standIn is the dry run's stand-in reply to the schema (dryrun.Reply):
// the same for the replies the fake server has no reason to vary.
func standIn(schema string, req openai.ChatCompletionRequest) Reply {
	msgs := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = llm.Message{Role: llm.Role(m.Role), Content: m.Content}
	}
	content, _, _ := dryrun.Reply(schema, msgs, Tokens)
	return Reply{Content: content}
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
