package openai

import (
	"github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/llm"
)

// maxTopLogprobs is the most top_logprobs OpenAI (and vLLM by default)
// accepts.
const maxTopLogprobs = 20

// setLogprobs asks for the log-probabilities of the reply's tokens and
// the n most likely at each place (at most maxTopLogprobs), unless the
// model is one go-openai knows refuses them before sending (the reasoning
// models, o1, o3, gpt-5...): such a request goes without, and the reply
// has none.
func setLogprobs(out *openai.ChatCompletionRequest, n int) {
	if n <= 0 {
		return
	}
	probe := openai.ChatCompletionRequest{Model: out.Model, LogProbs: true, TopLogProbs: min(n, maxTopLogprobs)}
	if openai.NewReasoningValidator().Validate(probe) != nil {
		return
	}
	out.LogProbs, out.TopLogProbs = true, probe.TopLogProbs
}

// logprobsOf are a choice's token log-probabilities; nil when the server
// sent none.
func logprobsOf(c openai.ChatCompletionChoice) []llm.TokenLogprob {
	if c.LogProbs == nil || len(c.LogProbs.Content) == 0 {
		return nil
	}
	out := make([]llm.TokenLogprob, len(c.LogProbs.Content))
	for i, t := range c.LogProbs.Content {
		out[i] = llm.TokenLogprob{Token: t.Token, Logprob: t.LogProb}
		for _, a := range t.TopLogProbs {
			out[i].Top = append(out[i].Top, llm.TopLogprob{Token: a.Token, Logprob: a.LogProb})
		}
	}
	return out
}
