package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// schemaInstruction introduces the schema when it travels in the prompt
// (JSONObject and Prompt modes).
const schemaInstruction = "Reply with only a JSON object, with no other text, that follows this JSON schema:\n"

// chatRequest maps req to the wire request for mode.
func (b *Backend) chatRequest(req llm.Request) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:    b.cfg.Model,
		Messages: make([]openai.ChatCompletionMessage, 0, len(req.Messages)+1),
		// go-openai drops a zero temperature (omitempty) and the server
		// then samples at its own default, often 1.0. The smallest float32
		// is sent as 1e-45, which every server treats as greedy.
		Temperature: float32(req.Temperature),
		Seed:        req.Seed,
	}
	if out.Temperature == 0 {
		out.Temperature = math.SmallestNonzeroFloat32
	}
	if out.Seed == nil {
		out.Seed = b.cfg.Seed
	}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content})
	}
	if req.Schema != nil {
		switch b.cfg.Output {
		case JSONSchema:
			out.ResponseFormat = &openai.ChatCompletionResponseFormat{
				Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
					Name:   schemaName(req.Schema.Name),
					Schema: json.RawMessage(req.Schema.JSON),
					Strict: true,
				},
			}
		case JSONObject:
			out.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
			out.Messages = withSchema(out.Messages, req.Schema)
		case Prompt:
			out.Messages = withSchema(out.Messages, req.Schema)
		}
	}
	setLogprobs(&out, req.TopLogprobs)
	b.setMaxTokens(&out, req.MaxTokens)
	return out
}

// setMaxTokens caps the reply. It sends max_tokens, which vLLM, Ollama,
// llama.cpp server, LM Studio and OpenAI's chat models all accept; OpenAI
// has deprecated it in favour of max_completion_tokens, which older local
// servers ignore or reject. For the reasoning models go-openai recognises by
// name (o1, o3, o4, gpt-5...), where it refuses max_tokens and any
// temperature but 1 before sending, it sends max_completion_tokens and no
// temperature: those models sample at a fixed temperature anyway.
func (b *Backend) setMaxTokens(out *openai.ChatCompletionRequest, n int) {
	//lint:ignore SA1019 max_tokens is what vLLM, Ollama, llama.cpp and LM Studio read; see above.
	out.MaxTokens = n //nolint:staticcheck // max_tokens is what vLLM, Ollama, llama.cpp and LM Studio read; see above.
	err := openai.NewReasoningValidator().Validate(*out)
	if err == nil {
		return
	}
	if n > 0 && errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		//lint:ignore SA1019 clearing the deprecated field for reasoning models.
		out.MaxTokens, out.MaxCompletionTokens = 0, n //nolint:staticcheck // clearing the deprecated field for reasoning models.
	}
	if openai.NewReasoningValidator().Validate(*out) != nil {
		out.Temperature = 0
	}
}

// schemaName is name in the form the API accepts (letters, digits, _ and
// -, at most 64), "reply" when empty.
func schemaName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "reply"
	}
	return string(b)
}

// withSchema appends the schema to the first system message, or puts a
// system message carrying it first. msgs is owned by the caller.
func withSchema(msgs []openai.ChatCompletionMessage, s *llm.Schema) []openai.ChatCompletionMessage {
	text := schemaInstruction + string(s.JSON)
	for i := range msgs {
		if msgs[i].Role == openai.ChatMessageRoleSystem {
			msgs[i].Content += "\n\n" + text
			return msgs
		}
	}
	return append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: text}}, msgs...)
}

// chatResponse maps a reply: its first choice's content and the usage the
// server reported. A refusal or a content filter gives *llm.RefusalError;
// no choices or no content, llm.ErrEmpty. A reply cut off at the token
// limit is returned as it is, marked Truncated: decoding it is the
// caller's business.
func chatResponse(resp openai.ChatCompletionResponse) (llm.Response, error) {
	u := eval.Usage{TokensIn: resp.Usage.PromptTokens, TokensOut: resp.Usage.CompletionTokens}
	if u.TokensIn < 0 || u.TokensOut < 0 {
		// A usage block with a negative count is no count: taken as none
		// (the client estimates both), it cannot take tokens and cost off
		// a run's totals or its budget.
		u.TokensIn, u.TokensOut = 0, 0
	}
	if len(resp.Choices) == 0 {
		return llm.Response{Usage: u}, fmt.Errorf("no choices: %w", llm.ErrEmpty)
	}
	c := resp.Choices[0]
	if c.Message.Refusal != "" {
		return llm.Response{Usage: u}, &llm.RefusalError{Reason: c.Message.Refusal}
	}
	if c.FinishReason == openai.FinishReasonContentFilter {
		return llm.Response{Usage: u}, &llm.RefusalError{Reason: "content filter (finish_reason content_filter)"}
	}
	if c.Message.Content == "" {
		return llm.Response{Usage: u}, fmt.Errorf("no content (finish_reason %q): %w", c.FinishReason, llm.ErrEmpty)
	}
	return llm.Response{Content: c.Message.Content, Usage: u, Truncated: c.FinishReason == openai.FinishReasonLength, Logprobs: logprobsOf(c),
		Model: resp.Model, ID: resp.ID, Fingerprint: resp.SystemFingerprint}, nil
}

// embeddings orders the vectors by index and checks there is one per input.
func embeddings(resp openai.EmbeddingResponse, n int) ([][]float32, eval.Usage, error) {
	u := eval.Usage{TokensIn: resp.Usage.PromptTokens}
	if len(resp.Data) != n {
		return nil, u, fmt.Errorf("%w: %d embeddings for %d inputs", llm.ErrEmpty, len(resp.Data), n)
	}
	out := make([][]float32, n)
	for _, e := range resp.Data {
		if e.Index < 0 || e.Index >= n || out[e.Index] != nil {
			return nil, u, fmt.Errorf("embedding index %d out of range or repeated", e.Index)
		}
		out[e.Index] = e.Embedding
	}
	return out, u, nil
}
