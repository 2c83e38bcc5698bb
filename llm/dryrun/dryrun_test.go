package dryrun_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/dryrun"
	"github.com/assaylabs/assay/prompts"
)

// model is the real backend a dry run stands in for: never called.
type model struct{ embeds bool }

func (model) Name() string { return "openai:gpt-4o-mini" }
func (model) Chat(context.Context, llm.Request) (llm.Response, error) {
	panic("a dry run must not call the model")
}

func (model) Embed(context.Context, []string) ([][]float32, llm.Usage, error) {
	panic("a dry run must not call the model")
}
func (m model) Embeds() bool { return m.embeds }

func standIn(embeds bool) (*dryrun.Backend, *llm.Client) {
	real := llm.New(llm.Config{Backend: model{embeds}, Counter: llm.TokenizerFor("gpt-4o-mini")})
	rec := dryrun.New(real)
	return rec, dryrun.Client(rec, real)
}

var sample = eval.Sample{
	Query:     "When was the Eiffel Tower completed and how tall is it?",
	Answer:    "The Eiffel Tower was completed in 1889. It is 330 metres tall. It was designed by Gustave Eiffel's company.",
	Reference: "The tower was completed in 1889. It is 330 metres tall.",
	Sources: []eval.Source{
		{ID: "a", Text: "The Eiffel Tower in Paris was completed in 1889 as the entrance arch of that year's World's Fair."},
		{ID: "b", Text: "Including its antennas, the tower is 330 metres tall."},
	},
}

// TestEveryJudgeTakesTheStandInReplies: each judge, run against the
// stand-in, scores without a default, making the calls its real run makes.
func TestEveryJudgeTakesTheStandInReplies(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metric string
		embeds bool
		tags   []string
	}{
		"faithfulness: claims, then one verification": {judges.MetricFaithfulness, false, []string{"faithfulness.claims", "faithfulness.verify"}},
		"answer relevancy with embeddings":            {judges.MetricAnswerRelevancy, true, []string{"relevancy.questions", dryrun.EmbedTag}},
		"answer relevancy without: a direct grade":    {judges.MetricAnswerRelevancy, false, []string{"relevancy.questions", "relevancy.rate"}},
		"context precision":                           {judges.MetricContextPrecision, false, []string{"context.precision"}},
		"context recall":                              {judges.MetricContextRecall, false, []string{"faithfulness.verify"}},
		"completeness":                                {judges.MetricCompleteness, false, []string{"completeness"}},
		"source relevance: one grade a source":        {judges.MetricSourceRelevance, false, []string{"source.relevance", "source.relevance"}},
		"reasoning":                                   {judges.MetricReasoning, false, []string{"reasoning"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec, c := standIn(tc.embeds)
			j, err := judges.New(tc.metric, c)
			require.NoError(t, err)
			sc, err := j.Score(context.Background(), sample)
			require.NoError(t, err)
			require.False(t, sc.Defaulted, "the stand-in reply was refused: %v", sc.Err)
			var tags []string
			for _, call := range rec.Calls() {
				tags = append(tags, call.Tag)
				assert.Positive(t, call.TokensIn, call.Tag)
				assert.Equal(t, call.Tag == dryrun.EmbedTag, call.Embed)
			}
			assert.ElementsMatch(t, tc.tags, tags)
		})
	}
}

// TestChatCountsAPromptAsItsPreview: a prompt is counted with its nonce at
// the preview's, as the client counts one (4 tokens a message), so two
// renderings with their own random nonces count the same; the reply
// carries the estimate of its schema.
func TestChatCountsAPromptAsItsPreview(t *testing.T) {
	t.Parallel()
	count := llm.TokenizerFor("gpt-4o-mini").Count
	qa := prompts.QA{Question: sample.Query, Answer: sample.Answer}
	preview, err := prompts.MustGet("reasoning").Preview(qa)
	require.NoError(t, err)
	want := count(preview.System) + 4 + count(preview.User) + 4
	rec, _ := standIn(false)
	for range 3 {
		r, err := prompts.MustGet("reasoning").Render(qa)
		require.NoError(t, err)
		resp, err := rec.Chat(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: llm.System, Content: r.System}, {Role: llm.User, Content: r.User}},
			Schema:   &llm.Schema{Name: "reasoning"}, Tag: "reasoning",
		})
		require.NoError(t, err)
		assert.Equal(t, want, resp.Usage.TokensIn)
		assert.Equal(t, 120, resp.Usage.TokensOut, "the reasoning reply's estimate")
	}
	assert.Len(t, rec.Calls(), 3)
}

// TestARequestMadeTwiceCountsOnce: the dry-run client caches, as a real
// run's does.
func TestARequestMadeTwiceCountsOnce(t *testing.T) {
	t.Parallel()
	rec, c := standIn(false)
	j, err := judges.New(judges.MetricReasoning, c)
	require.NoError(t, err)
	for range 2 {
		_, err := j.Score(context.Background(), sample)
		require.NoError(t, err)
	}
	assert.Len(t, rec.Calls(), 1)
}

func TestEmbedWithoutAnEmbeddingModel(t *testing.T) {
	t.Parallel()
	rec, _ := standIn(false)
	_, _, err := rec.Embed(context.Background(), []string{"a"})
	require.ErrorIs(t, err, llm.ErrNoEmbeddings)
	assert.Empty(t, rec.Calls(), "nothing was asked of a model")
	assert.False(t, rec.Embeds())
}

// TestAnUnknownSchemaGetsItsLeastInstance: a reply schema no judge of
// Assay's uses is answered with the least instance it allows, which the
// client's validation accepts.
func TestAnUnknownSchemaGetsItsLeastInstance(t *testing.T) {
	t.Parallel()
	type item struct {
		Label string `json:"label" jsonschema:"enum=good,enum=bad"`
	}
	type reply struct {
		Score  int     `json:"score" jsonschema:"minimum=1,maximum=5"`
		Ratio  float64 `json:"ratio"`
		Ok     bool    `json:"ok"`
		Note   string  `json:"note"`
		Items  []item  `json:"items" jsonschema:"minItems=2"`
		Nested struct {
			Name string `json:"name"`
		} `json:"nested"`
	}
	tests := map[string]struct {
		schema *llm.Schema
		want   string
	}{
		"a schema":     {llm.SchemaFor[reply]("toy"), `{"items":[{"label":"good"},{"label":"good"}],"nested":{"name":""},"note":"","ok":false,"ratio":0,"score":1}`},
		"no schema":    {nil, `{}`},
		"not a schema": {&llm.Schema{Name: "broken", JSON: json.RawMessage(`[`)}, `{}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec, c := standIn(false)
			resp, err := rec.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Schema: tc.schema})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, resp.Content)
			if tc.schema != nil && tc.schema.Name == "toy" {
				var out reply
				_, err := llm.ChatJSON(context.Background(), c, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "again"}}, Schema: tc.schema}, &out)
				require.NoError(t, err, "the least instance validates")
				assert.Equal(t, 1, out.Score)
			}
		})
	}
}
