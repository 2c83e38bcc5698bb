package toolcall_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/toolcall"
)

// An agent called the right tool twice: once with a number written as a
// string, once again with the same arguments. Accuracy loses half a call
// for the wrong argument and counts the duplicate against it.
func ExampleAccuracy() {
	call := func(id, args string) eval.ToolCall {
		return eval.ToolCall{ID: id, Type: "function", Function: eval.ToolFunction{Name: "search", Arguments: args}}
	}
	s := eval.Sample{
		Messages: []eval.Message{
			{Role: eval.RoleUser, Content: "Find five papers on tides."},
			{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{call("a", `{"q":"tides","limit":"5"}`)}},
			{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{call("b", `{"limit":"5","q":"tides"}`)}},
		},
		ExpectedToolCalls: []eval.ExpectedToolCall{{Name: "search", Arguments: json.RawMessage(`{"q":"tides","limit":5}`)}},
	}
	sc, err := toolcall.Accuracy{}.Score(context.Background(), s)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.2f (%g of %g)\n", sc.Value, sc.Points, sc.Max)
	for _, issue := range sc.Evidence.Issues {
		fmt.Println(issue)
	}
	// Output:
	// 0.25 (0.5 of 2)
	// wrong arguments in call 1, search({"q":"tides","limit":"5"}): arguments.limit: want 5, got "5"
	// duplicated call: search({"limit":"5","q":"tides"}) repeats an earlier call
}
