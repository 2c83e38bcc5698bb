package llm

// TokenLogprob is one token of a reply with its log-probability (natural
// log) and the most likely tokens the model weighed at its place, as an
// OpenAI-compatible server sends them (choices[].logprobs.content).
type TokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	// Top are the most likely tokens at this place, the sampled one
	// usually among them, most likely first as the server sent them.
	Top []TopLogprob `json:"top,omitempty"`
}

// TopLogprob is one of the most likely tokens at a place of a reply.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}
