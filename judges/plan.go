package judges

import (
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/prompts"
)

// Call is one model call a judge expects to make, for --dry-run.
type Call struct {
	Template  string `json:"template"`
	TokensIn  int    `json:"tokens_in"`
	TokensOut int    `json:"tokens_out"`
	// Embed marks an embedding call (its tokens are all input).
	Embed bool `json:"embed,omitempty"`
}

// Plan lists the calls the judge for metric would make on s, with token
// estimates from count, before any call is made. Prompts are rendered as
// previews (a fixed nonce in place of the random one, so the same sample
// gives the same estimate); a step that depends on an earlier reply
// (verifying extracted claims) is rendered with the answer's sentences
// standing in for the claims, and reply sizes are estimated from the
// schema's shape.
func Plan(metric string, s eval.Sample, count func(string) int) ([]Call, error) {
	ps := passages(s)
	var calls []Call
	add := func(name string, data any, out int) error {
		c, err := PlanCall(name, data, out, count)
		calls = append(calls, c)
		return err
	}
	var err error
	if blank(s.Answer) && metric != MetricContextPrecision && metric != MetricContextRecall && metric != MetricSourceRelevance {
		// A judge of the answer skips a sample without one, making no call.
		if _, err := New(metric, nil); err != nil {
			return nil, err
		}
		return nil, nil
	}
	switch metric {
	case MetricFaithfulness:
		claims := heuristics.SplitClaims(s.Answer)
		if err = add("faithfulness.claims", prompts.ExtractClaims{Question: s.Query, Answer: s.Answer}, count(s.Answer)+10); err == nil && len(claims) > 0 && hasText(ps) {
			err = add("faithfulness.verify", prompts.VerifyClaims{Claims: claims, Contexts: ps}, 40*len(claims))
		}
	case MetricAnswerRelevancy:
		if err = add("relevancy.questions", prompts.GenerateQuestions{Answer: s.Answer, N: 3}, 60); err == nil {
			calls = append(calls, Call{Template: "embeddings", TokensIn: count(s.Query) + 60, Embed: true})
		}
	case MetricContextPrecision:
		ref := s.Reference
		if strings.TrimSpace(ref) == "" {
			ref = s.Answer
		}
		if strings.TrimSpace(ref) == "" {
			break // an error without a call
		}
		err = add("context.precision", prompts.RankedContexts{Question: s.Query, Reference: ref, Contexts: ps}, 30*len(ps))
	case MetricContextRecall:
		if claims := heuristics.SplitClaims(s.Reference); len(claims) > 0 && hasText(ps) {
			err = add("faithfulness.verify", prompts.VerifyClaims{Claims: claims, Contexts: ps}, 40*len(claims))
		}
	case MetricCompleteness:
		if q := completenessQuestion(s); q != "" {
			err = add("completeness", prompts.QA{Question: q, Answer: s.Answer}, 200)
		}
	case MetricSourceRelevance:
		for _, p := range ps {
			if err = add("source.relevance", prompts.SourceQuery{Question: s.Query, Source: p}, 40); err != nil {
				break
			}
		}
	case MetricReasoning:
		err = add("reasoning", prompts.QA{Question: s.Query, Answer: s.Answer}, 120)
	default:
		return nil, fmt.Errorf("unknown metric %q (have %s)", metric, strings.Join(Metrics(), ", "))
	}
	return calls, err
}

// PlanCall is the Call that the prompt template name, rendered with data,
// would be: its preview's system and user text as count counts them, plus
// 8 tokens of message framing, for tokens in, and tokensOut, the reply's
// estimate. Plan and agent's research plan are made of such calls.
func PlanCall(name string, data any, tokensOut int, count func(string) int) (Call, error) {
	r, err := prompts.MustGet(name).Preview(data)
	if err != nil {
		return Call{}, err
	}
	return Call{Template: name, TokensIn: count(r.System) + count(r.User) + 8, TokensOut: tokensOut}, nil
}
