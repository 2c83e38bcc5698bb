package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
)

// checkerData is a dataset of two records, one in English and one in
// Thai, each with a claim its contexts hold and one they do not.
const checkerData = `{"id": "en", "question": "When did the library open?", "answer": "The city library opened in 1921. It was funded by a shipping magnate.", "contexts": ["Records show the city library opened its doors in 1921.", "The reading room seats two hundred people."], "reference": "The library opened in 1921.", "human": {"faithful": false}}
{"id": "th", "question": "ตลาดหุ้นวันนี้เป็นอย่างไร", "answer": "ดัชนีปิดที่ 1,350 จุด\nนักลงทุนต่างชาติขายสุทธิ", "contexts": ["วันนี้ดัชนีปิดที่ 1,350 จุด ปรับขึ้น 5 จุด"], "reference": "ปรับขึ้น 5 จุด", "human": {"faithful": false}}
`

// checkerReply is a fact-checking server: Yes when every word of three
// letters or more of the claim is in the document (in lower case), No
// otherwise, with the log-probabilities of both (0.9 for the answer
// given) when logprobs is true.
func checkerReply(t *testing.T, logprobs bool) func(req openai.ChatCompletionRequest) llmtest.Reply {
	return func(req openai.ChatCompletionRequest) llmtest.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		doc, claim, ok := strings.Cut(strings.TrimPrefix(user, "Document: "), "\nClaim: ")
		if !ok {
			t.Errorf("not a check: %q", user)
			return llmtest.Reply{Status: 400}
		}
		doc = strings.ToLower(doc)
		holds := true
		for _, w := range strings.Fields(strings.ToLower(claim)) {
			w = strings.TrimFunc(w, unicode.IsPunct)
			if utf8.RuneCountInString(w) >= 3 && !strings.Contains(doc, w) {
				holds = false
			}
		}
		answer, other := "Yes", "No"
		if !holds {
			answer, other = other, answer
		}
		r := llmtest.Reply{Content: answer}
		if logprobs {
			r.Logprobs = []llm.TokenLogprob{{Token: answer, Logprob: math.Log(0.9), Top: []llm.TopLogprob{
				{Token: answer, Logprob: math.Log(0.9)}, {Token: other, Logprob: math.Log(0.1)}}}}
		}
		return r
	}
}

// TestCheckerThroughTheCommands: --checker makes faithfulness and context
// recall verify each claim with the fact-checking server at
// $ASSAY_CHECKER_BASE_URL, in judge, bench and agree, offline (claims are
// the answer's sentences) and with a judging model (claims are its own);
// the evidence says who checked each claim and how sure it was, and the
// run's line counts the checker's calls.
func TestCheckerThroughTheCommands(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(checkerData), 0o600))
	checker := llmtest.New(t, llmtest.Func(checkerReply(t, true)))
	judge := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"ASSAY_CHECKER_BASE_URL": checker.URL(), "OPENAI_BASE_URL": judge.URL(), "ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}

	t.Run("judge offline", func(t *testing.T) {
		before := checker.Calls()
		code, out, errOut := runEnv(t, env, "judge", "--llm", "offline", "--checker", "openai:minicheck", "--metric", "faithfulness,context_recall", "--format", "json", data)
		require.Equal(t, 0, code, errOut)
		var got []struct {
			ID       string  `json:"id"`
			Metric   string  `json:"metric"`
			Value    float64 `json:"value"`
			Method   string  `json:"method"`
			Evidence struct {
				Claims []struct {
					Text    string `json:"text"`
					Verdict string `json:"verdict"`
					Check   struct {
						Checker     string  `json:"checker"`
						Probability float64 `json:"probability"`
						From        string  `json:"from"`
					} `json:"check"`
				} `json:"claims"`
			} `json:"evidence"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		require.Len(t, got, 4, "a result per record and metric")
		for _, r := range got {
			assert.Equal(t, "offline (approximate) + checker openai:minicheck", r.Method)
			if r.Metric == "context_recall" {
				assert.InDelta(t, 1, r.Value, 1e-9, "%s: the reference is in the contexts", r.ID)
				continue
			}
			assert.InDelta(t, 0.5, r.Value, 1e-9, "%s: one claim of two is in the contexts", r.ID)
			require.Len(t, r.Evidence.Claims, 2)
			for i, c := range r.Evidence.Claims {
				assert.Equal(t, "openai:minicheck", c.Check.Checker)
				assert.Equal(t, "logprobs", c.Check.From)
				assert.Equal(t, map[bool]string{true: "supported", false: "unsupported"}[i == 0], c.Verdict, c.Text)
				assert.InDelta(t, map[bool]float64{true: 0.9, false: 0.1}[i == 0], c.Check.Probability, 1e-9)
			}
		}
		assert.Equal(t, before+6, checker.Calls(), "one check per claim: 2+2 for faithfulness, 1+1 for recall")
		assert.Contains(t, errOut, "checker openai:minicheck: calls 6")
	})

	t.Run("judge with a model", func(t *testing.T) {
		code, out, errOut := runEnv(t, env, "judge", "--llm", "openai:judge-model", "--checker", "openai:minicheck", "--metric", "faithfulness", "--format", "json", data)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, `"method": "llm:openai:judge-model + checker openai:minicheck"`)
		// The fake judge's claims are in no context: the checker says so.
		assert.Contains(t, out, `"text": "The first statement of the answer."`)
		assert.NotContains(t, out, `"verdict": "supported"`)
		assert.Contains(t, errOut, "judge: llm:openai:judge-model; calls 2")
	})

	t.Run("bench", func(t *testing.T) {
		out := filepath.Join(dir, "run")
		code, _, errOut := runEnv(t, env, "bench", "--llm", "offline", "--checker", "openai:minicheck", "--checker-chunk", "500", "--metric", "faithfulness", "--out", out, data)
		require.Equal(t, 0, code, errOut)
		results, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
		require.NoError(t, err)
		assert.Equal(t, 2, strings.Count(string(results), `"checker":"openai:minicheck"`)/2, "two claims a record, each checked")
		cfg, err := os.ReadFile(filepath.Join(out, "config.json"))
		require.NoError(t, err)
		assert.Contains(t, string(cfg), `"--checker": "openai:minicheck"`)
		assert.Contains(t, string(cfg), `"--checker-chunk": "500"`)
		assert.Contains(t, string(cfg), `"threshold faithfulness": "1"`, "a checker's verdicts are a model's: the threshold with a model")
	})

	t.Run("agree", func(t *testing.T) {
		code, out, errOut := runEnv(t, env, "agree", "--llm", "offline", "--checker", "openai:minicheck", "--metric", "faithfulness", "--label", "faithful", data)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "faithfulness")
		assert.Contains(t, errOut, "checker openai:minicheck: calls 4")
	})

	t.Run("dry run", func(t *testing.T) {
		before := checker.Calls()
		code, plan, errOut := runEnv(t, env, "judge", "--dry-run", "--llm", "openai:judge-model", "--checker", "openai:minicheck", "--metric", "faithfulness", data)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, before, checker.Calls(), "a dry run makes no call")
		assert.Contains(t, plan, "llm:openai:judge-model + checker openai:minicheck")
		// Per record: the claims, and one check a claim (the answer's two).
		assert.Contains(t, plan, "faithfulness                6")
	})
}

// TestCheckerWithoutLogprobs: a server that serves no log-probabilities
// gives the sampled answer, labelled as such in each claim's evidence.
func TestCheckerWithoutLogprobs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(checkerData), 0o600))
	checker := llmtest.New(t, llmtest.Func(checkerReply(t, false)))
	env := map[string]string{"ASSAY_CHECKER_BASE_URL": checker.URL()}
	code, out, errOut := runEnv(t, env, "judge", "--llm", "offline", "--checker", "openai:minicheck", "--metric", "faithfulness", "--format", "json", data)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 4, strings.Count(out, `"from": "sampled"`))
	assert.Contains(t, out, "from the sampled answer, no log-probabilities served")
}

// TestCheckerFailingIsADefault: a checker server that fails gives neutral
// defaults, counted: over --max-default-rate the run exits 3, never with
// claims taken as supported.
func TestCheckerFailingIsADefault(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(checkerData), 0o600))
	checker := llmtest.New(t, llmtest.Default(llmtest.Reply{Status: 400}))
	env := map[string]string{"ASSAY_CHECKER_BASE_URL": checker.URL()}
	code, out, errOut := runEnv(t, env, "judge", "--llm", "offline", "--checker", "openai:minicheck", "--metric", "faithfulness", "--format", "json", data)
	assert.Equal(t, exitInfra, code, errOut)
	assert.Equal(t, 2, strings.Count(out, `"defaulted": true`), out)
	assert.NotContains(t, out, `"verdict": "supported"`)
	assert.Contains(t, errOut, "neutral defaults 2")
}

// TestCheckerBadSettings: a checker that is no OpenAI-compatible server, a
// run that would not use it, and chunks too small or without a checker
// are exit 2 before any call, naming the flag.
func TestCheckerBadSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(checkerData), 0o600))
	tests := map[string]struct {
		args []string
		want string
	}{
		"offline checker":       {[]string{"judge", "--checker", "offline", "--metric", "faithfulness", data}, "--checker"},
		"langchain checker":     {[]string{"judge", "--checker", "langchain:anthropic:claude-3-5-haiku", "--metric", "faithfulness", data}, "--checker"},
		"no metric uses it":     {[]string{"judge", "--checker", "vllm:minicheck", "--metric", "answer_relevancy", data}, "--checker: verifies the claims of faithfulness and context_recall"},
		"bench, none uses it":   {[]string{"bench", "--checker", "vllm:minicheck", "--metric", "context_precision", "--out", filepath.Join(dir, "r"), data}, "--checker: verifies"},
		"agree, none uses it":   {[]string{"agree", "--checker", "vllm:minicheck", "--metric", "answer_relevancy", "--label", "faithful", data}, "--checker: verifies"},
		"chunk too small":       {[]string{"judge", "--checker", "vllm:minicheck", "--checker-chunk", "8", "--metric", "faithfulness", data}, "--checker-chunk 8"},
		"chunk with no checker": {[]string{"judge", "--checker-chunk", "800", "--metric", "faithfulness", data}, "--checker-chunk: sizes the chunks of a fact checker"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runEnv(t, map[string]string{}, tc.args...)
			assert.Equal(t, exitInput, code, errOut)
			assert.Contains(t, errOut, tc.want)
		})
	}
}
