package llmtest

import (
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
	case has("grade", `{"grade"`):
		return Reply{Content: `{"grade":4,"reason":"relevant with useful detail"}`}
	}
	return Reply{Status: 400, Body: `{"error":{"message":"fake server: unknown judge prompt","type":"invalid_request_error"}}`}
}
