package llmtest

import (
	"maps"
	"slices"
	"time"
)

// Faults are the ways a model server misbehaves, each as the reply to every
// chat call, by name: the fault table of the CLI's tests and fakellm's
// -fault flag use the same list.
var Faults = map[string]Reply{
	"offschema": {Content: `{"hello": "world"}`},
	"empty":     {Content: `{}`},
	"401":       {Status: 401, Body: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`},
	"403":       {Status: 403, Body: `{"error":{"message":"This key may not use the model.","type":"permission_error"}}`},
	"429":       {Status: 429, RetryAfter: "1"},
	"500":       {Status: 500},
	"hang":      {Delay: time.Hour},
	"reset":     {Reset: true},
	"truncated": {Body: `{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"sc`},
	// 10 MB of valid JSON in every reply.
	"huge": {Bulk: 10 << 20},
	// A 200 reply of another API's shape: no choices.
	"notchat": {Body: `{"result": "ok", "output": {"text": "4"}}`},
}

// FaultNames lists Faults' names in order.
func FaultNames() []string { return slices.Sorted(maps.Keys(Faults)) }
