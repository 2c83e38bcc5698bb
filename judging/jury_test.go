package judging_test

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
)

func TestJudgingJurors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec string
		want []string
		err  string
	}{
		"one model":     {spec: "openai:gpt-4o-mini"},
		"none":          {spec: ""},
		"a jury":        {spec: "openai:a, ollama:qwen2.5:7b", want: []string{"openai:a", "ollama:qwen2.5:7b"}},
		"an empty":      {spec: "openai:a,,openai:b", err: `--llm "openai:a,,openai:b": an empty model between commas: write openai:gpt-4o-mini,ollama:qwen2.5:7b`},
		"a model twice": {spec: "openai:a,openai:a", err: "--llm: openai:a is given twice: a jury's models are distinct"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := judging.Default()
			j.LLM.Spec = tc.spec
			got, err := j.Jurors()
			if tc.err != "" {
				var ie *eval.InputError
				require.ErrorAs(t, err, &ie)
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestOpenJury: a session per juror, each its own client; one for one
// model; and a client refused closes those opened.
func TestOpenJury(t *testing.T) {
	t.Parallel()
	env := func(k string) string {
		return map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}[k]
	}
	j := judging.Default()
	j.LLM.Spec, j.LLM.NoCache = "openai:judge-a,openai:judge-b", true
	ss, err := j.OpenJury(io.Discard, env)
	require.NoError(t, err)
	require.Len(t, ss, 2)
	assert.Equal(t, "openai:judge-a", ss[0].Client().Name())
	assert.Equal(t, "openai:judge-b", ss[1].Client().Name())
	assert.NotSame(t, ss[0].Client(), ss[1].Client())
	for _, s := range ss {
		assert.Equal(t, "llm:"+s.Client().Name(), s.Report(0).Judge)
		assert.Equal(t, judging.TasksPerCall*j.LLM.Concurrency, s.Limit())
		require.NoError(t, s.Close())
	}

	j.LLM.Spec = "offline"
	ss, err = j.OpenJury(io.Discard, env)
	require.NoError(t, err)
	require.Len(t, ss, 1)
	assert.True(t, ss[0].Client().Offline())
	require.NoError(t, ss[0].Close())

	j.LLM.Spec = "offline,nope:x"
	_, err = j.OpenJury(io.Discard, env)
	assert.ErrorContains(t, err, `--llm: unknown backend "nope"`)
}
