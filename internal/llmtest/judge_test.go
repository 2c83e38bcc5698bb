package llmtest

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/prompts"
)

// TestFakeReportQuotesOneSentence: the fake synthesis cites each source
// with one sentence of its own text, quoted on one line, even when the
// source opens with a short paragraph; only the invented claim quotes
// what no source says.
func TestFakeReportQuotesOneSentence(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text, quote string
	}{
		"one paragraph":      {text: "Heat pumps work in the cold. They keep a COP of 2.", quote: "Heat pumps work in the cold"},
		"a short first line": {text: "Modern heat pumps work in the cold.\n\nA heat pump moves heat. It does not make it.", quote: "Modern heat pumps work in the cold"},
		"no full stop":       {text: "Heat pumps work in the cold", quote: "Heat pumps work in the cold"},
		"a soft line break":  {text: "Heat pumps work\nin the cold. More.", quote: "Heat pumps work in the cold"},
	}
	quote := regexp.MustCompile(`\]\((\S+) "([^"]*)"\)`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srcs, err := json.Marshal([]map[string]string{{"ID": "https://a.example/x", "Title": "A", "Text": tc.text}})
			require.NoError(t, err)
			req := openai.ChatCompletionRequest{
				ResponseFormat: &openai.ChatCompletionResponseFormat{JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "report"}},
				Messages: []openai.ChatCompletionMessage{
					{Role: "system", Content: "write a report"},
					{Role: "user", Content: "<data-0a1b>\n" + string(srcs) + "\n</data-0a1b>"},
				},
			}
			var out struct{ Report string }
			require.NoError(t, json.Unmarshal([]byte(ResearchReplies(agent.StandIn)(req).Content), &out))
			got := map[string]string{}
			for _, m := range quote.FindAllStringSubmatch(out.Report, -1) {
				got[m[1]] = m[2]
			}
			assert.Equal(t, tc.quote, got["https://a.example/x"], out.Report)
			assert.Contains(t, got, "https://invented.example/")
			assert.False(t, strings.Contains(got["https://a.example/x"], "\n"))
		})
	}
}

// TestJudgeRepliesAnswerEveryItem: the fake gives one verdict per statement
// and per context its prompt lists, as a strict judge requires, whatever
// their number.
func TestJudgeRepliesAnswerEveryItem(t *testing.T) {
	t.Parallel()
	ctxs := []prompts.Passage{{ID: "c1", Text: "One."}, {ID: "c2", Text: "Two."}, {ID: "c3", Text: "Three."}}
	tests := map[string]struct {
		template, schema string
		data             any
		want             string
	}{
		"three statements": {
			template: "faithfulness.verify", schema: "verdicts",
			data: prompts.VerifyClaims{Claims: []string{"A.", "B.", "C."}, Contexts: ctxs[:1]},
			want: `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":"stated in c1"},` +
				`{"statement":2,"verdict":"unsupported","context":"","reason":"not in the contexts"},` +
				`{"statement":3,"verdict":"supported","context":"c1","reason":"stated in c1"}]}`,
		},
		"three contexts": {
			template: "context.precision", schema: "usefulness",
			data: prompts.RankedContexts{Question: "Q?", Reference: "R.", Contexts: ctxs},
			want: `{"verdicts":[{"context":"c1","useful":true,"reason":"on topic"},` +
				`{"context":"c2","useful":false,"reason":"adds nothing the answer needs"},` +
				`{"context":"c3","useful":false,"reason":"adds nothing the answer needs"}]}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := prompts.MustGet(tc.template).Render(tc.data)
			require.NoError(t, err)
			req := openai.ChatCompletionRequest{
				ResponseFormat: &openai.ChatCompletionResponseFormat{JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: tc.schema}},
				Messages:       []openai.ChatCompletionMessage{{Role: "system", Content: r.System}, {Role: "user", Content: r.User}},
			}
			assert.JSONEq(t, tc.want, JudgeReplies(req).Content)
		})
	}
}
