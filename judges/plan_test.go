package judges_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
)

// TestPlanIsCloseToTheRealPrompt: a plan's first call is estimated the same
// every time, and close to the prompt really sent. Each real prompt draws a
// random nonce and repeats it in every tag; a BPE tokenizer splits one into
// 8 to 20 tokens, so two real renderings of one prompt differ by tens of
// tokens. The estimate is within one token per nonce occurrence of the
// average real prompt, and with a counter that goes by length (the
// client's default) equal to any real one.
func TestPlanIsCloseToTheRealPrompt(t *testing.T) {
	t.Parallel()
	s := eval.Sample{
		Query:  "When was the Eiffel Tower completed?",
		Answer: "It was completed in 1889. It is 330 metres tall.",
		Sources: []eval.Source{
			{ID: "c1", Title: "History", Text: "The Eiffel Tower was completed in 1889 for the World's Fair."},
			{ID: "c2", Text: "The tower is 330 metres tall."},
		},
	}
	ctxs := []prompts.Passage{{ID: "c1", Title: "History", Text: s.Sources[0].Text}, {ID: "c2", Text: s.Sources[1].Text}}
	metrics := map[string]struct {
		template string
		data     any // what the first call's prompt is rendered from
	}{
		judges.MetricFaithfulness:     {"faithfulness.claims", prompts.ExtractClaims{Question: s.Query, Answer: s.Answer}},
		judges.MetricReasoning:        {"reasoning", prompts.QA{Question: s.Query, Answer: s.Answer}},
		judges.MetricSourceRelevance:  {"source.relevance", prompts.SourceQuery{Question: s.Query, Source: ctxs[0]}},
		judges.MetricContextPrecision: {"context.precision", prompts.RankedContexts{Question: s.Query, Reference: s.Answer, Contexts: ctxs}},
	}
	counters := map[string]struct {
		count      func(string) int
		byLength   bool
		renderings int
	}{
		"bytes/4":     {count: func(s string) int { return (len(s) + 3) / 4 }, byLength: true, renderings: 1},
		"o200k_base":  {count: llm.TokenizerFor("gpt-4o-mini").Count, renderings: 300},
		"cl100k_base": {count: llm.TokenizerFor("gpt-4").Count, renderings: 300},
	}
	for cname, c := range counters {
		for metric, tc := range metrics {
			t.Run(cname+"/"+metric, func(t *testing.T) {
				t.Parallel()
				first, err := judges.Plan(metric, s, c.count)
				require.NoError(t, err)
				again, err := judges.Plan(metric, s, c.count)
				require.NoError(t, err)
				require.Equal(t, first, again, "the same estimate every time")
				require.Equal(t, tc.template, first[0].Template)

				// The real prompt as the client counts it: 4 tokens of
				// overhead per message.
				sum, occurrences := 0, 0
				for range c.renderings {
					r, err := prompts.MustGet(tc.template).Render(tc.data)
					require.NoError(t, err)
					sum += c.count(r.System) + 4 + c.count(r.User) + 4
					occurrences = strings.Count(r.System+r.User, r.Nonce)
				}
				mean := float64(sum) / float64(c.renderings)
				if c.byLength {
					assert.InDelta(t, mean, first[0].TokensIn, 0, "a real prompt has the estimate's length")
					return
				}
				require.Positive(t, occurrences)
				assert.InDelta(t, mean, first[0].TokensIn, float64(occurrences),
					"within a token per nonce occurrence (%d) of the average real prompt", occurrences)
			})
		}
	}
}

// TestPlanCall: one prompt's planned call is its preview's system and user
// text as count counts them, 8 tokens of message framing, and the reply's
// estimate; Plan's calls are made of it.
func TestPlanCall(t *testing.T) {
	t.Parallel()
	count := func(s string) int { return len(strings.Fields(s)) }
	qa := prompts.QA{Question: "When was the Eiffel Tower completed?", Answer: "In 1889."}

	t.Run("the preview, counted, plus framing", func(t *testing.T) {
		t.Parallel()
		c, err := judges.PlanCall("reasoning", qa, 120, count)
		require.NoError(t, err)
		r, err := prompts.MustGet("reasoning").Preview(qa)
		require.NoError(t, err)
		assert.Equal(t, judges.Call{Template: "reasoning", TokensIn: count(r.System) + count(r.User) + 8, TokensOut: 120}, c)
	})
	t.Run("Plan is made of it", func(t *testing.T) {
		t.Parallel()
		want, err := judges.PlanCall("reasoning", qa, 120, count)
		require.NoError(t, err)
		got, err := judges.Plan(judges.MetricReasoning, eval.Sample{Query: qa.Question, Answer: qa.Answer}, count)
		require.NoError(t, err)
		assert.Equal(t, []judges.Call{want}, got)
	})
	t.Run("data that cannot be rendered is an error", func(t *testing.T) {
		t.Parallel()
		_, err := judges.PlanCall("reasoning", make(chan int), 120, count)
		require.ErrorContains(t, err, "prompts: reasoning")
	})
}

// TestPlanOfARecordWithoutAnAnswer: the judges of the answer skip it
// without a call, so a dry run plans none; the judges of the retrieval
// still plan theirs.
func TestPlanOfARecordWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	s := eval.Sample{
		Query: "When was the Eiffel Tower completed?", Answer: " ",
		Sources:   []eval.Source{{ID: "doc", Text: "The Eiffel Tower was completed in 1889."}},
		Reference: "It was completed in 1889.",
	}
	count := func(s string) int { return len(s) / 4 }
	tests := map[string]struct {
		metric    string
		templates []string
	}{
		"faithfulness":      {metric: judges.MetricFaithfulness},
		"answer_relevancy":  {metric: judges.MetricAnswerRelevancy},
		"completeness":      {metric: judges.MetricCompleteness},
		"reasoning":         {metric: judges.MetricReasoning},
		"context_recall":    {metric: judges.MetricContextRecall, templates: []string{"faithfulness.verify"}},
		"context_precision": {metric: judges.MetricContextPrecision, templates: []string{"context.precision"}},
		"source_relevance":  {metric: judges.MetricSourceRelevance, templates: []string{"source.relevance"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			calls, err := judges.Plan(tc.metric, s, count)
			require.NoError(t, err)
			var got []string
			for _, c := range calls {
				got = append(got, c.Template)
			}
			assert.Equal(t, tc.templates, got)
		})
	}
	_, err := judges.Plan("bleu", s, count)
	assert.ErrorContains(t, err, `unknown metric "bleu"`)
}
