package judges_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/dryrun"
)

// neverCalled is the real backend a dry run stands in for.
type neverCalled struct{ embeds bool }

func (neverCalled) Name() string { return "openai:gpt-4o-mini" }
func (neverCalled) Chat(context.Context, llm.Request) (llm.Response, error) {
	panic("a dry run must not call the model")
}

func (neverCalled) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	panic("a dry run must not call the model")
}
func (m neverCalled) Embeds() bool { return m.embeds }

// TestEveryJudgeTakesItsStandIn: each judge, run against a dry run with
// the stand-ins of the judges' registry entries, scores without a default,
// making the calls its real run makes; with only the least instances of
// their schemas (dryrun's fallback), most would not.
func TestEveryJudgeTakesItsStandIn(t *testing.T) {
	t.Parallel()
	sample := eval.Sample{
		Query:     "When was the Eiffel Tower completed and how tall is it?",
		Answer:    "The Eiffel Tower was completed in 1889. It is 330 metres tall. It was designed by Gustave Eiffel's company.",
		Reference: "The tower was completed in 1889. It is 330 metres tall.",
		Sources: []eval.Source{
			{ID: "a", Text: "The Eiffel Tower in Paris was completed in 1889 as the entrance arch of that year's World's Fair."},
			{ID: "b", Text: "Including its antennas, the tower is 330 metres tall."},
		},
	}
	reg := builtins(t)
	tests := map[string]struct {
		metric string
		embeds bool
		tags   []string
		// least is what the judge makes of the least instances of its
		// schemas (dryrun's fallback): a default or a skip where a
		// reply must say more than its schema demands.
		least string
	}{
		"faithfulness: claims, then one verification": {judges.MetricFaithfulness, false, []string{"faithfulness.claims", "faithfulness.verify"}, "skipped: no claim"},
		"answer relevancy with embeddings":            {judges.MetricAnswerRelevancy, true, []string{"relevancy.questions", dryrun.EmbedTag}, "defaulted"},
		"answer relevancy grade: one grade":           {judges.MetricAnswerRelevancyGrade, false, []string{"relevancy.rate"}, "scored"},
		"context precision":                           {judges.MetricContextPrecision, false, []string{"context.precision"}, "defaulted"},
		"context recall":                              {judges.MetricContextRecall, false, []string{"faithfulness.verify"}, "defaulted"},
		"completeness":                                {judges.MetricCompleteness, false, []string{"completeness"}, "defaulted"},
		"source relevance: one grade a source":        {judges.MetricSourceRelevance, false, []string{"source.relevance", "source.relevance"}, "scored"},
		"reasoning":                                   {judges.MetricReasoning, false, []string{"reasoning"}, "scored"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			real := llm.New(llm.Config{Backend: neverCalled{tc.embeds}, Counter: llm.TokenizerFor("gpt-4o-mini")})
			rec := dryrun.New(real, reg.DryRun)
			j, err := reg.New(tc.metric, dryrun.Client(rec, real))
			require.NoError(t, err)
			sc, err := j.Score(context.Background(), sample)
			require.NoError(t, err)
			require.False(t, sc.Defaulted, "the stand-in reply was refused: %v", sc.Err)
			var tags []string
			for _, call := range rec.Calls() {
				tags = append(tags, call.Tag)
				assert.Positive(t, call.TokensIn, call.Tag)
				if !call.Embed {
					assert.Positive(t, call.TokensOut, call.Tag)
				}
				assert.Equal(t, call.Tag == dryrun.EmbedTag, call.Embed)
			}
			assert.ElementsMatch(t, tc.tags, tags)

			bare := dryrun.New(real)
			j, err = reg.New(tc.metric, dryrun.Client(bare, real))
			require.NoError(t, err)
			sc, err = j.Score(context.Background(), sample)
			require.NoError(t, err)
			got := "scored"
			switch {
			case sc.Defaulted:
				got = "defaulted"
			case sc.Skipped:
				got = "skipped: no claim"
			}
			assert.Equal(t, tc.least, got)
		})
	}
}

// TestAStandInAnswersOnlyItsOwnSchemas: the judges' stand-ins leave the
// requests they do not make to others (the research workflow's, a
// schema of the user's) and a request without a schema.
func TestAStandInAnswersOnlyItsOwnSchemas(t *testing.T) {
	t.Parallel()
	reg := builtins(t)
	for _, name := range []string{"summary", "report", "explanation", "toy_verdict", ""} {
		req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "x"}}}
		if name != "" {
			req.Schema = &llm.Schema{Name: name}
		}
		_, _, ok := reg.DryRun(req, func(s string) int { return len(s) })
		assert.False(t, ok, name)
	}
}
