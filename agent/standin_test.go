package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/datablock"
	"github.com/assaylabs/assay/llm"
)

func TestStandInAnswersTheWorkflowsOwnRequests(t *testing.T) {
	t.Parallel()
	count := func(s string) int { return len(strings.Fields(s)) }
	src := "<data-0a1b>\n" + `[{"ID":"https://a.example/x","Title":"A","Text":"Heat pumps work in the cold. They keep a COP of 2."}]` + "\n</data-0a1b>"
	tests := map[string]struct {
		schema  *llm.Schema
		msg     string
		ok      bool
		key     string
		want    string
		tokens  int
		wantLen bool
	}{
		"a summary: the source's first words": {summarySchema(), datablock.Block("source", "0123456789abcdef01234567", "Heat pumps work in the cold."), true, "summary", "Heat pumps work in the cold.", summaryTokens, false},
		"a summary of no source":              {summarySchema(), "x", true, "summary", "The source bears on the question.", summaryTokens, false},
		"the report cites each source":        {reportSchema(), src, true, "report", `Heat pumps work in the cold ([source](https://a.example/x "Heat pumps work in the cold"))`, 1500, false},
		"the insufficient-data note":          {explanationSchema(), "x", true, "explanation", "## Insufficient data", 0, true},
		"a judge's schema is not its own":     {&llm.Schema{Name: "verdicts"}, "x", false, "", "", 0, false},
		"no schema":                           {nil, "x", false, "", "", 0, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			content, n, ok := StandIn(llm.Request{Schema: tc.schema, Messages: []llm.Message{{Role: llm.User, Content: tc.msg}}}, count)
			require.Equal(t, tc.ok, ok)
			if !ok {
				return
			}
			var out map[string]string
			require.NoError(t, json.Unmarshal([]byte(content), &out))
			assert.Contains(t, out[tc.key], tc.want)
			assert.NotEmpty(t, tc.want)
			if tc.wantLen {
				assert.Equal(t, count(content), n)
			} else {
				assert.Equal(t, tc.tokens, n)
			}
		})
	}
}
