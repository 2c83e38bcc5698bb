package assaytest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want gate
		err  string
	}{
		"mean at least":        {text: "faithfulness.mean>=0.7", want: gate{text: "faithfulness.mean>=0.7", metric: "faithfulness", stat: "mean", op: ">=", want: 0.7}},
		"spaces are allowed":   {text: " context_quality.min >= 0.3 ", want: gate{text: "context_quality.min >= 0.3", metric: "context_quality", stat: "min", op: ">=", want: 0.3}},
		"strictly below":       {text: "faithfulness.defaulted_rate<0.05", want: gate{text: "faithfulness.defaulted_rate<0.05", metric: "faithfulness", stat: "defaulted_rate", op: "<", want: 0.05}},
		"at most":              {text: "faithfulness.defaulted<=2", want: gate{text: "faithfulness.defaulted<=2", metric: "faithfulness", stat: "defaulted", op: "<=", want: 2}},
		"no statistic":         {text: "faithfulness>=0.7", err: "want METRIC.STAT OP NUMBER"},
		"no operator":          {text: "faithfulness.mean", err: "want METRIC.STAT OP NUMBER"},
		"an unknown statistic": {text: "faithfulness.avg>=0.7", err: `unknown statistic "avg"`},
		"not a number":         {text: "faithfulness.mean>=high", err: "want METRIC.STAT OP NUMBER"},
		"NaN is no number":     {text: "faithfulness.mean>=NaN", err: "want METRIC.STAT OP NUMBER"},
		"equals is no OP":      {text: "faithfulness.mean==0.7", err: "want METRIC.STAT OP NUMBER"},
		"no metric":            {text: ".mean>=0.7", err: "want METRIC.STAT OP NUMBER"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, err := parseGate(tc.text)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, g)
		})
	}
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		sorted []float64
		q      float64
		want   float64
	}{
		"one value":             {sorted: []float64{0.4}, q: 0.1, want: 0.4},
		"median of an even set": {sorted: []float64{0, 0.2, 0.6, 1}, q: 0.5, want: 0.4},
		"median of an odd set":  {sorted: []float64{0, 0.2, 1}, q: 0.5, want: 0.2},
		"p10 interpolates":      {sorted: []float64{0, 0.5, 1}, q: 0.1, want: 0.1},
		"p10 of eleven":         {sorted: []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}, q: 0.1, want: 0.1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, quantile(tc.sorted, tc.q), 1e-12)
		})
	}
}

func TestStatOfNothingScored(t *testing.T) {
	t.Parallel()
	s := Stats{Metric: "faithfulness", N: 2, Defaulted: 2}
	s.summarise()
	for _, name := range []string{"mean", "min", "max", "median", "p10", "pass_rate"} {
		assert.True(t, math.IsNaN(s.stat(name)), name)
	}
	assert.Equal(t, 2.0, s.stat("defaulted"))
	assert.Equal(t, 1.0, s.stat("defaulted_rate"))
}

// TestOpenModel: the model comes from the environment as the assay
// command's does, offline when nothing is set; a wrong setting is an
// error naming the variable and the way out.
func TestOpenModel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		env     map[string]string
		offline bool
		name    string
		err     string
	}{
		"nothing set is offline":     {env: map[string]string{}, offline: true},
		"ASSAY_LLM names the model":  {env: map[string]string{"ASSAY_LLM": "openai:gpt-4.1-mini", "OPENAI_API_KEY": "sk-test"}, name: "gpt-4.1-mini"},
		"a key alone is gpt-4o-mini": {env: map[string]string{"OPENAI_API_KEY": "sk-test"}, name: "gpt-4o-mini"},
		"an unknown backend":         {env: map[string]string{"ASSAY_LLM": "nosuch:model"}, err: "assaytest: the judge model from the environment ($ASSAY_LLM, $OPENAI_API_KEY): --llm: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir() // the response cache, not the user's
			env := func(k string) string {
				if k == "ASSAY_CACHE_DIR" {
					return dir
				}
				return tc.env[k]
			}
			m, err := openModel(env)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), "pass assaytest.WithModel")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.offline, m.Offline())
			if tc.name != "" {
				assert.Contains(t, m.Name(), tc.name)
			}
		})
	}
}
