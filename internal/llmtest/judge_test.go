package llmtest

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			require.NoError(t, json.Unmarshal([]byte(JudgeReplies(req).Content), &out))
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
