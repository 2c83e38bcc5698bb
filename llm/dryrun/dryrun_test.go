package dryrun_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
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

func (model) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	panic("a dry run must not call the model")
}
func (m model) Embeds() bool { return m.embeds }

func standIn(embeds bool, replies ...dryrun.Replier) (*dryrun.Backend, *llm.Client) {
	real := llm.New(llm.Config{Backend: model{embeds}, Counter: llm.TokenizerFor("gpt-4o-mini")})
	rec := dryrun.New(real, replies...)
	return rec, dryrun.Client(rec, real)
}

var sample = eval.Sample{
	Query:  "When was the Eiffel Tower completed and how tall is it?",
	Answer: "The Eiffel Tower was completed in 1889. It is 330 metres tall. It was designed by Gustave Eiffel's company.",
}

// fixed is a Replier that answers the schema named with content, its
// length n tokens.
func fixed(schema, content string, n int) dryrun.Replier {
	return func(req llm.Request, _ func(string) int) (string, int, bool) {
		if req.Schema == nil || req.Schema.Name != schema {
			return "", 0, false
		}
		return content, n, true
	}
}

type rating struct {
	Grade int `json:"grade" schema:"minimum=1,maximum=5"`
}

// TestChatAsksItsRepliersInOrder: the first replier that knows a request
// answers it, with its length (capped at the request's MaxTokens); a
// request none knows gets its schema's least instance, counted.
func TestChatAsksItsRepliersInOrder(t *testing.T) {
	t.Parallel()
	schema := llm.SchemaFor[rating]("rating")
	tests := map[string]struct {
		replies   []dryrun.Replier
		maxTokens int
		want      string
		tokensOut int
	}{
		"the one that knows it": {[]dryrun.Replier{fixed("other", `{"x":1}`, 7), fixed("rating", `{"grade":4}`, 30)}, 0, `{"grade":4}`, 30},
		"the first of two":      {[]dryrun.Replier{fixed("rating", `{"grade":5}`, 30), fixed("rating", `{"grade":2}`, 30)}, 0, `{"grade":5}`, 30},
		"capped at max tokens":  {[]dryrun.Replier{fixed("rating", `{"grade":4}`, 30)}, 12, `{"grade":4}`, 12},
		"none knows it":         {[]dryrun.Replier{fixed("other", `{"x":1}`, 7)}, 0, `{"grade":1}`, llm.TokenizerFor("gpt-4o-mini").Count(`{"grade":1}`)},
		"no replier":            {nil, 0, `{"grade":1}`, llm.TokenizerFor("gpt-4o-mini").Count(`{"grade":1}`)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec, c := standIn(false, tc.replies...)
			var out rating
			u, err := llm.ChatJSON(context.Background(), c, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "rate"}}, Schema: schema, MaxTokens: tc.maxTokens, Tag: "rate"}, &out)
			require.NoError(t, err, "the reply validates")
			assert.Equal(t, tc.tokensOut, u.TokensOut)
			require.Len(t, rec.Calls(), 1)
			assert.Equal(t, dryrun.Call{Tag: "rate", TokensIn: rec.Calls()[0].TokensIn, TokensOut: tc.tokensOut}, rec.Calls()[0])
			var want rating
			require.NoError(t, json.Unmarshal([]byte(tc.want), &want))
			assert.Equal(t, want, out)
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
	rec, _ := standIn(false, fixed("reasoning", `{"clarity":80}`, 120))
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
	rec, c := standIn(false, fixed("rating", `{"grade":4}`, 30))
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: sample.Answer}}, Schema: llm.SchemaFor[rating]("rating")}
	for range 2 {
		var out rating
		_, err := llm.ChatJSON(context.Background(), c, req, &out)
		require.NoError(t, err)
		assert.Equal(t, 4, out.Grade)
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
		Label string `json:"label" schema:"enum=good,enum=bad"`
	}
	type reply struct {
		Score  int     `json:"score" schema:"minimum=1,maximum=5"`
		Ratio  float64 `json:"ratio"`
		Ok     bool    `json:"ok"`
		Note   string  `json:"note"`
		Items  []item  `json:"items" schema:"minItems=2"`
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
