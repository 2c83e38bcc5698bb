package llm

// TokenLogprob is one token of a reply with its natural-log probability,
// and the most likely tokens at its position (Request.TopLogprobs of
// them), the token itself usually among them.
type TokenLogprob struct {
	Token   string       `json:"token"`
	Logprob float64      `json:"logprob"`
	Top     []TopLogprob `json:"top,omitempty"`
}

// TopLogprob is one of the most likely tokens at a position of a reply.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}
