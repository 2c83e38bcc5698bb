package dataset_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
)

func TestConversationIsRead(t *testing.T) {
	t.Parallel()
	line := `{"id":"c1","messages":[` +
		`{"role":"system","content":"You are a weather bot."},` +
		`{"role":"user","content":[{"type":"text","text":"Paris?"},{"type":"image_url","image_url":{"url":"x"}}]},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
		`{"role":"tool","tool_call_id":"a","content":"sunny","error":false},` +
		`{"role":"assistant","content":"Sunny."}],` +
		`"expected_tool_calls":[{"name":"weather","arguments":{"city": "Paris"}},{"name":"clock"}],"ordered":true}`
	csv := "id,messages,expected_tool_calls,ordered\n" +
		`c1,"[{""role"":""user"",""content"":""Paris?""},{""role"":""assistant"",""tool_calls"":[{""id"":""a"",""type"":""function"",""function"":{""name"":""weather"",""arguments"":""{\""city\"":\""Paris\""}""}}]}]","[{""name"":""weather"",""arguments"":{""city"":""Paris""}}]",true` + "\n"
	tests := map[string]struct {
		name, data string
		messages   int
		expected   []eval.ExpectedToolCall
	}{
		"json lines": {"convs.jsonl", line + "\n", 5, []eval.ExpectedToolCall{{Name: "weather", Arguments: []byte(`{"city":"Paris"}`)}, {Name: "clock"}}},
		"json array": {"convs.json", "[" + line + "]", 5, []eval.ExpectedToolCall{{Name: "weather", Arguments: []byte(`{"city":"Paris"}`)}, {Name: "clock"}}},
		"csv":        {"convs.csv", csv, 2, []eval.ExpectedToolCall{{Name: "weather", Arguments: []byte(`{"city":"Paris"}`)}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			recs, err := dataset.Read(tc.name, strings.NewReader(tc.data))
			require.NoError(t, err)
			require.Len(t, recs, 1)
			s := recs[0].Sample
			require.Len(t, s.Messages, tc.messages)
			assert.True(t, s.Ordered)
			assert.Equal(t, tc.expected, s.ExpectedToolCalls)
			calls := eval.Calls(s.Messages)
			require.Len(t, calls, 1)
			assert.Equal(t, eval.ToolCall{ID: "a", Type: "function", Function: eval.ToolFunction{Name: "weather", Arguments: `{"city":"Paris"}`}}, calls[0])
			if tc.messages == 5 {
				assert.Equal(t, "Paris?", s.Messages[1].Content, "the text parts only")
				assert.Equal(t, "a", s.Messages[3].ToolCallID)
			}
		})
	}
}

func TestConversationErrorsNameLineAndField(t *testing.T) {
	t.Parallel()
	ok := `{"id":"ok","messages":[{"role":"user","content":"hi"}]}`
	tests := map[string]struct {
		record string
		want   string
	}{
		"arguments not JSON": {`{"messages":[{"role":"user","content":"x"},{"role":"assistant"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"Paris"}}]}]}`,
			"convs.jsonl:3: messages[2].tool_calls[0].function.arguments: not a JSON object: invalid JSON"},
		"arguments a list": {`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"[1]"}}]}]}`,
			"convs.jsonl:3: messages[0].tool_calls[0].function.arguments: not a JSON object: got array"},
		"arguments a number": {`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":5}}]}]}`,
			"convs.jsonl:3: messages[0].tool_calls[0].function.arguments: want a JSON object written as a string, got number"},
		"no function name": {`{"messages":[{"role":"assistant","tool_calls":[{"function":{"arguments":"{}"}}]}]}`,
			"convs.jsonl:3: messages[0].tool_calls[0].function.name: missing"},
		"unknown role": {`{"messages":[{"role":"robot","content":"x"}]}`,
			`convs.jsonl:3: messages[0].role: want one of system, developer, user, assistant, tool, got "robot"`},
		"tool message without id": {`{"messages":[{"role":"tool","content":"x"}]}`,
			"convs.jsonl:3: messages[0].tool_call_id: missing"},
		"a tool message answering no call": {`{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c2","content":"error: timeout"}]}`,
			`convs.jsonl:3: messages[2].tool_call_id: "c2" names no tool call of the conversation`},
		"a tool message, the calls without ids": {`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f"}},{"function":{"name":"g"}}]},{"role":"tool","tool_call_id":"f","content":"ok"}]}`,
			`convs.jsonl:3: messages[1].tool_call_id: "f" names no tool call of the conversation`},
		"a tool message and no call at all": {`{"messages":[{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"assistant","content":"done"}]}`,
			`convs.jsonl:3: messages[0].tool_call_id: "c1" names no tool call of the conversation`},
		"a user calling tools": {`{"messages":[{"role":"user","tool_calls":[]}]}`,
			"convs.jsonl:3: messages[0].tool_calls: only an assistant message calls tools"},
		"messages an object": {`{"messages":{"role":"user"}}`,
			"convs.jsonl:3: messages: want an array of messages, got object"},
		"content a number": {`{"messages":[{"role":"user","content":3}]}`,
			"convs.jsonl:3: messages[0].content: want a string or an array of content parts, got number"},
		"expected arguments a string of a list": {`{"messages":[{"role":"user","content":"x"}],"expected_tool_calls":[{"name":"f","arguments":"[]"}]}`,
			"convs.jsonl:3: expected_tool_calls[0].arguments: not a JSON object: got array"},
		"expected without name": {`{"messages":[{"role":"user","content":"x"}],"expected_tool_calls":[{"arguments":{}}]}`,
			"convs.jsonl:3: expected_tool_calls[0].name: missing"},
		"ordered a number": {`{"messages":[{"role":"user","content":"x"}],"ordered":1}`,
			"convs.jsonl:3: ordered: want true or false, got number"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := dataset.Read("convs.jsonl", strings.NewReader(ok+"\n\n"+tc.record+"\n"))
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestArgumentsNamingAKeyTwiceAreRefused: arguments written as a string
// are refused, naming the key, when one object in them gives a key twice
// (read as its last value in silence otherwise), as the record's own
// objects are.
func TestArgumentsNamingAKeyTwiceAreRefused(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		record string
		want   string
	}{
		"a made call's top-level key": {`{"messages":[{"role":"user","content":"flats?"},{"role":"assistant","tool_calls":[{"id":"q","type":"function","function":{"name":"listings","arguments":"{\"town\":\"Ghent\",\"town\":\"Bruges\"}"}}]}]}`,
			"flats.jsonl:2: messages[1].tool_calls[0].function.arguments: town: given twice in one object"},
		"a made call's nested key": {`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"listings","arguments":"{\"filter\":{\"rooms\":2,\"rooms\":3}}"}}]}]}`,
			"flats.jsonl:2: messages[0].tool_calls[0].function.arguments: filter.rooms: given twice in one object"},
		"expected arguments as a string": {`{"messages":[{"role":"user","content":"flats?"}],"expected_tool_calls":[{"name":"listings","arguments":"{\"max\":900,\"max\":1200}"}]}`,
			"flats.jsonl:2: expected_tool_calls[0].arguments: max: given twice in one object"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ok := `{"id":"fine","messages":[{"role":"user","content":"hello"}]}`
			_, err := dataset.Read("flats.jsonl", strings.NewReader(ok+"\n"+tc.record+"\n"))
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
