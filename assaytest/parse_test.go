package assaytest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
