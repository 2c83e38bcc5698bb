package langchain

import (
	"fmt"

	"github.com/tmc/langchaingo/llms"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// schemaInstruction is appended to the system message of a request with a
// Schema.
const schemaInstruction = "Reply with one JSON object only, no prose and no code fence. It must conform to this JSON schema (%q):\n%s"

// messages maps a request's messages to langchaingo's, writing the schema
// (if any) into the first system message, or a new one in front.
func messages(req llm.Request) ([]llms.MessageContent, error) {
	out := make([]llms.MessageContent, 0, len(req.Messages)+1)
	system := -1
	for i, m := range req.Messages {
		var role llms.ChatMessageType
		switch m.Role {
		case llm.System:
			role = llms.ChatMessageTypeSystem
			if system < 0 {
				system = i
			}
		case llm.User:
			role = llms.ChatMessageTypeHuman
		case llm.Assistant:
			role = llms.ChatMessageTypeAI
		default:
			return nil, fmt.Errorf("message %d: %w %q", i, errRole, m.Role)
		}
		out = append(out, llms.TextParts(role, m.Content))
	}
	if req.Schema == nil {
		return out, nil
	}
	instr := fmt.Sprintf(schemaInstruction, req.Schema.Name, req.Schema.JSON)
	if system < 0 {
		return append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, instr)}, out...), nil
	}
	out[system] = llms.TextParts(llms.ChatMessageTypeSystem, req.Messages[system].Content+"\n\n"+instr)
	return out, nil
}

// callOptions maps the request's parameters. Temperature is always sent:
// zero is the judges' setting, not "unset".
func callOptions(req llm.Request) []llms.CallOption {
	opts := []llms.CallOption{llms.WithTemperature(req.Temperature)}
	if req.MaxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(req.MaxTokens))
	}
	if req.Seed != nil {
		opts = append(opts, llms.WithSeed(*req.Seed))
	}
	if req.Schema != nil {
		opts = append(opts, llms.WithJSONMode())
	}
	return opts
}

// usage reads token counts from a choice's GenerationInfo: PromptTokens and
// CompletionTokens (OpenAI, Ollama, Google AI) or InputTokens and
// OutputTokens (Anthropic). Missing or non-numeric values count zero, which
// llm.Client replaces with an estimate.
func usage(info map[string]any) eval.Usage {
	in, ok := number(info["PromptTokens"])
	if !ok {
		in, _ = number(info["InputTokens"])
	}
	out, ok := number(info["CompletionTokens"])
	if !ok {
		out, _ = number(info["OutputTokens"])
	}
	return eval.Usage{TokensIn: in, TokensOut: out}
}

// number converts the integer and float kinds providers put in
// GenerationInfo.
func number(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case uint:
		return int(n), true
	case uint32:
		return int(n), true
	case uint64:
		return int(n), true
	case float64:
		return int(n), true
	case float32:
		return int(n), true
	default:
		return 0, false
	}
}
