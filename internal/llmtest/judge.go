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
		return Reply{Content: `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":"stated in c1"},` +
			`{"statement":2,"verdict":"unsupported","context":"","reason":"not in the contexts"}]}`}
	case has("questions", `{"questions"`):
		return Reply{Content: `{"questions":["What does the answer explain?","Which facts does it give?","Why does it matter?"],"noncommittal":false}`}
	case has("usefulness", `"useful"`):
		return Reply{Content: `{"verdicts":[{"context":"c1","useful":true,"reason":"on topic"}]}`}
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
