package agent

import (
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
