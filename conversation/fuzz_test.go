package conversation_test

import (
	"os"
	"strings"
	"testing"

	"github.com/assaylabs/assay/conversation"
)

// FuzzDecodeAndAssemble: no export request, however malformed, panics the
// decoder or the assembly, and every conversation assembled has an ID.
func FuzzDecodeAndAssemble(f *testing.F) {
	for _, file := range []string{"../fixtures/agents/weather.spans.jsonl", "../fixtures/agents/nocontent.spans.jsonl"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for l := range strings.Lines(string(b)) {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00","spanId":"01","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"tool_call_response\"}]}]"}}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := conversation.DecodeJSON(data)
		if err != nil {
			return
		}
		for _, c := range conversation.Assemble(conversation.Spans(req)) {
			if c.ID == "" && len(c.Traces) > 0 && c.Traces[0] != "" {
				t.Fatalf("a conversation without an ID: %+v", c)
			}
		}
	})
}
