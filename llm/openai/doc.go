// Package openai is the llm.Backend for OpenAI-compatible servers: OpenAI
// itself, vLLM, Ollama (/v1), llama.cpp server and LM Studio, on
// github.com/sashabaranov/go-openai.
//
// # Overview
//
// A Backend sends one request and maps the reply; the llm.Client around it
// retries, caches and counts. The backend's share of that contract:
//
//   - Temperature 0 is sent as the smallest float32 (1e-45), because
//     go-openai drops a zero temperature and servers then use their default.
//   - Schemas are sent as Config.Output says: structured outputs
//     (JSONSchema, the default), JSON mode with the schema in the system
//     message (JSONObject), or the schema in the prompt alone (Prompt).
//   - HTTP errors become *llm.StatusError with the status, the message
//     of the error body in whatever shape the server sends it, and the
//     server's retry-after-ms, Retry-After or, lacking both, the reset of
//     an exhausted x-ratelimit limit, which go-openai drops and a wrapped
//     HTTP client records; transport errors pass through unchanged, so
//     llm.Temporary sees them.
//   - A 200 reply whose body is an error instead of a completion or
//     embeddings (LiteLLM, OpenRouter, some vLLM and Ollama setups) fails
//     with the server's message: a code of 400 to 599, or one its type
//     implies (429 for a rate limit, 5xx for a server error or overload),
//     gives *llm.StatusError with that code; an error naming neither is
//     permanent.
//   - A refusal or content filter is *llm.RefusalError; no choices or an
//     empty message, llm.ErrEmpty; a body with no choices field, or a
//     message with no content field (a tool call), or a stream of
//     server-sent events the request did not ask for, llm.ErrNotChat,
//     quoting the body's start.
//   - A reply body is read up to llm.MaxReplyBody; past it the reply is
//     *llm.ReplyTooLargeError (an invalid reply) and the rest is not read.
//   - Config.Timeout bounds each attempt; the caller's context bounds all.
//
// A Backend for a local vLLM server, used through an llm.Client:
//
//	b, err := openai.New(openai.Config{
//		BaseURL: "http://127.0.0.1:8000/v1",
//		Model:   "qwen3-8b",
//		Output:  openai.JSONSchema,
//	})
//	if err != nil {
//		return err
//	}
//	c := llm.New(llm.Config{Backend: b, Concurrency: 8})
//	var v Verdict
//	u, err := llm.ChatJSON(ctx, c, llm.Request{Messages: msgs, Schema: llm.SchemaFor[Verdict]("verdict")}, &v)
package openai
