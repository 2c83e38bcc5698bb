package agent

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
)

// The YAML card shows the run's cost in dollars to the hundred-millionth,
// without the float noise a sum of per-call costs carries.
func TestResearchViewYAMLCost(t *testing.T) {
	tests := map[string]struct {
		cost float64
		want string
	}{
		"sum with float noise": {0.00016154999999999997, "cost_usd: 0.00016155\n"},
		"a whole cent":         {0.01, "cost_usd: 0.01\n"},
		"below the last digit": {0.000000001, "cost_usd: 0\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v := ResearchView{LLMUsage: &eval.Usage{Calls: 3, CostUSD: tc.cost, Latency: 1500 * time.Millisecond}}
			out, err := yaml.Marshal(v.YAML())
			require.NoError(t, err)
			assert.Contains(t, string(out), "    "+tc.want)
		})
	}
}

// TestResearchCardYAMLCarriesTheJSONKeys: as docs/scoring.md says, the
// research card's YAML carries the keys of its JSON (llm_usage's own keys
// aside: latency in seconds in YAML), empty lists included.
func TestResearchCardYAMLCarriesTheJSONKeys(t *testing.T) {
	t.Parallel()
	claim := eval.Claim{Text: "HTTP/3 runs over QUIC.", Line: 3, Section: "Main Findings", Verdict: "cited",
		Citations: []eval.Citation{{Kind: "link", Text: "RFC 9114", URL: "https://www.rfc-editor.org/rfc/rfc9114", Quote: "QUIC"}}}
	tests := map[string]struct {
		view ResearchView
	}{
		"an empty card": {NewResearchView(nil, eval.Card{Profile: "research", Status: "fail"})},
		"claims, sources and usage": {func() ResearchView {
			v := NewResearchView(nil, eval.Card{Profile: "research", Status: "pass"})
			v.Details.Claims = []eval.Claim{claim}
			v.Details.Sources = []eval.SourceRating{{URL: "https://www.rfc-editor.org/rfc/rfc9114", Domain: "rfc-editor.org", Rating: 9, Basis: "standards_body 9"}}
			v.LLMUsage = &eval.Usage{Calls: 2, TokensIn: 10, TokensOut: 4, CostUSD: 0.01, Latency: time.Second}
			return v
		}()},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j, err := json.Marshal(tc.view)
			require.NoError(t, err)
			var fromJSON, fromYAML map[string]any
			require.NoError(t, json.Unmarshal(j, &fromJSON))
			y, err := yaml.Marshal(tc.view.YAML())
			require.NoError(t, err)
			require.NoError(t, yaml.Unmarshal(y, &fromYAML))
			assert.Equal(t, keyPaths("", fromJSON), keyPaths("", fromYAML), "YAML:\n%s", y)
		})
	}
}

// keyPaths are the dotted paths of v's keys, a list's items under "[]",
// and llm_usage's own keys left out.
func keyPaths(prefix string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			out = append(out, prefix+k)
			if prefix+k != "llm_usage" {
				out = append(out, keyPaths(prefix+k+".", sub)...)
			}
		}
	case []any:
		for _, sub := range v {
			out = append(out, keyPaths(prefix+"[].", sub)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
