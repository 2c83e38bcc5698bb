package conversation_test

import (
	"fmt"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/eval"
)

// A model call and the tool it called, as two spans of a trace (GenAI
// semantic conventions), make one conversation with the tool's result
// joined to its call.
func ExampleAssemble() {
	spans := []conversation.Span{
		{TraceID: "t1", SpanID: "s1", Start: 1, End: 5, Attrs: map[string]any{
			"gen_ai.operation.name":  "chat",
			"gen_ai.input.messages":  `[{"role":"user","parts":[{"type":"text","content":"Weather in Oslo?"}]}]`,
			"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Oslo"}}]}]`,
		}},
		{TraceID: "t1", SpanID: "s2", ParentID: "s1", Start: 6, End: 8, Attrs: map[string]any{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
			"gen_ai.tool.call.id": "c1", "gen_ai.tool.call.result": "snow",
		}},
	}
	for _, c := range conversation.Assemble(spans) {
		fmt.Println(c.ID)
		fmt.Println(eval.Transcript(c.Messages))
	}
	// Output:
	// t1
	// user: Weather in Oslo?
	//
	// assistant called get_weather({"city":"Oslo"})
	//
	// tool get_weather: snow
}
