package llmtest

import (
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// ErrorReply is an error sent in the body of a 200 reply, as some proxies
// and servers send it (LiteLLM, OpenRouter, vLLM and Ollama setups), and
// what a client retrying at most 3 times must make of it: the server's
// message as the error, retried or not as the code or type says.
type ErrorReply struct {
	Body    string
	Then    bool   // a success follows the first error reply
	Calls   int    // attempts the server sees
	Code    int    // of the *llm.StatusError; 0: none
	Message string // the server's message, in the error
}

// errorReplies backs ErrorReplies, which hands out copies.
var errorReplies = map[string]ErrorReply{
	"rate limit with a numeric code (OpenRouter) is retried until MaxRetries": {
		Body:  `{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":429}}`,
		Calls: 4, Code: 429, Message: "Rate limit exceeded",
	},
	"rate limit with a string code (LiteLLM) is retried, then succeeds": {
		Body: `{"error":{"message":"litellm.RateLimitError: too many requests","type":"None","param":"None","code":"429"}}`,
		Then: true, Calls: 2,
	},
	"rate limit named by its code alone is retried": {
		Body:  `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		Calls: 4, Code: 429, Message: "Rate limit reached for requests",
	},
	"overload (Anthropic's shape) is retried, then succeeds": {
		Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		Then: true, Calls: 2,
	},
	"a 5xx code is retried": {
		Body:  `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"x"}}}`,
		Calls: 4, Code: 502, Message: "Provider returned error",
	},
	"a string error (Ollama) is permanent": {
		Body:  `{"error":"model \"judge-1\" not found, try pulling it first"}`,
		Calls: 1, Message: `model "judge-1" not found, try pulling it first`,
	},
	"a top-level error (vLLM) with code 404 is permanent": {
		Body:  `{"object":"error","message":"The model ` + "`judge-1`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
		Calls: 1, Code: 404, Message: "The model `judge-1` does not exist.",
	},
	"invalid_request_error without a code is permanent": {
		Body:  `{"error":{"message":"Invalid schema for response_format","type":"invalid_request_error","param":null,"code":null}}`,
		Calls: 1, Message: "Invalid schema for response_format",
	},
	"401 in the body is permanent": {
		Body:  `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":401}}`,
		Calls: 1, Code: 401, Message: "Incorrect API key provided",
	},
}

// ErrorReplies returns the shapes every backend is tested with.
func ErrorReplies() map[string]ErrorReply { return maps.Clone(errorReplies) }

// Check asserts what a client made of e: the attempts the server saw, the
// retries in the usage, the time taken, and the error.
func (e ErrorReply) Check(t *testing.T, calls int, u eval.Usage, err error, took time.Duration) {
	t.Helper()
	assert.Equal(t, e.Calls, calls, "attempts the server saw")
	assert.Equal(t, e.Calls-1, u.Retries, "usage retries")
	assert.Less(t, took, time.Second)
	if e.Then {
		require.NoError(t, err)
		return
	}
	require.Error(t, err)
	assert.ErrorContains(t, err, e.Message)
	assert.ErrorContains(t, err, "200 reply")
	assert.NotErrorIs(t, err, llm.ErrEmpty)
	assert.Equal(t, e.Calls > 1, llm.Temporary(err), "retryable")
	var se *llm.StatusError
	if assert.Equal(t, e.Code != 0, errors.As(err, &se), "a *llm.StatusError: %v", err) && se != nil {
		assert.Equal(t, e.Code, se.Code)
	}
}
