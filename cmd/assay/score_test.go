package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestScoreWithModel runs `score --llm` against a fake server: the card
// names the model, its completeness comes from the judge and its usage
// from the calls; a cached run makes no call, a dry run none either; a
// failing server or a spent --max-cost gives a card with the default
// counted, which --strict turns into exit 3.
func TestScoreWithModel(t *testing.T) {
	t.Parallel()
	report := "../../fixtures/reports/pass.md"
	fail := llmtest.Reply{Status: 400, Body: `{"error":{"message":"scripted failure","type":"invalid_request_error"}}`}
	tests := map[string]struct {
		reply    func(openai.ChatCompletionRequest) llmtest.Reply
		args     []string
		runs     int // identical runs; the checks apply to the last
		calls    int // model calls over all runs
		code     int
		stdout   []string
		stderr   []string
		noStdout []string
	}{
		"the judge runs": {
			reply: llmtest.JudgeReplies, runs: 1, calls: 1,
			stdout: []string{"judge: llm:openai:gpt-4o-mini", "completeness: 0.5/1", "defaulted_scores: 0", "llm_usage:\n  calls: 1"},
			stderr: []string{"calls 1 (retries 0, cache hits 0)"},
		},
		"json carries judge, defaults and usage": {
			reply: llmtest.JudgeReplies, args: []string{"--format", "json"}, runs: 1, calls: 1,
			stdout: []string{`"judge": "llm:openai:gpt-4o-mini"`, `"defaulted_scores": 0`, `"llm_usage": {`, `"calls": 1`},
		},
		"md carries judge, defaults and usage": {
			reply: llmtest.JudgeReplies, args: []string{"--format", "md"}, runs: 1, calls: 1,
			stdout: []string{"Judge: llm:openai:gpt-4o-mini. Neutral defaults after judge errors: 0. LLM calls: 1,"},
		},
		"a second identical run is served from the cache": {
			reply: llmtest.JudgeReplies, runs: 2, calls: 1,
			stdout: []string{"judge: llm:openai:gpt-4o-mini", "completeness: 0.5/1"},
			stderr: []string{"calls 0 (retries 0, cache hits 1)"},
		},
		"a dry run calls nothing": {
			reply: llmtest.JudgeReplies, args: []string{"--dry-run"}, runs: 1, calls: 0,
			stdout: []string{"no call made", "completeness                1"},
		},
		"a failing judge defaults and --strict exits 3": {
			reply: func(openai.ChatCompletionRequest) llmtest.Reply { return fail }, args: []string{"--strict"}, runs: 1, calls: 1, code: exitInfra,
			stdout: []string{"defaulted_scores: 1", "fell back to the neutral default"},
			stderr: []string{"neutral defaults 1", "--strict: 1 judge result(s)"},
		},
		"a tiny --max-cost stops the call and says so": {
			reply: llmtest.JudgeReplies, args: []string{"--max-cost", "0.0000001"}, runs: 1, calls: 0, code: exitInfra,
			stdout:   []string{"judge: llm:openai:gpt-4o-mini", "defaulted_scores: 1", "status: iterate", "cannot carry a card to pass"},
			stderr:   []string{"budget reached: 1 call(s) not made (--max-cost $0.0000001); their judges used the neutral default"},
			noStdout: []string{"llm_usage"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(tc.reply))
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
			args := append([]string{"score", "--llm", "openai:gpt-4o-mini", "--now", "2026-11-23"}, tc.args...)
			args = append(args, report)
			var code int
			var stdout, stderr string
			for range tc.runs {
				code, stdout, stderr = runEnv(t, env, args...)
			}
			assert.Equal(t, tc.code, code, stderr)
			assert.Equal(t, tc.calls, srv.Calls())
			for _, s := range tc.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			for _, s := range tc.noStdout {
				assert.NotContains(t, stdout, s)
			}
		})
	}
}

// TestScoreContextYAMLHasTheJSONKeys: the context card's YAML and JSON
// carry the same keys, the CRAG action's tagged union included.
func TestScoreContextYAMLHasTheJSONKeys(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"good", "ambiguous", "poor"} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			path := "../../fixtures/context/" + f + ".json"
			_, js, errOut := runCLI(t, "", "score", "--profile", "context", "--format", "json", path)
			require.NotEmpty(t, js, errOut)
			_, ys, errOut := runCLI(t, "", "score", "--profile", "context", path)
			require.NotEmpty(t, ys, errOut)
			var fromJSON, fromYAML map[string]any
			require.NoError(t, json.Unmarshal([]byte(js), &fromJSON))
			require.NoError(t, yaml.Unmarshal([]byte(ys), &fromYAML))
			assert.Equal(t, keys(fromJSON), keys(fromYAML))
			assert.NotContains(t, ys, "retrievalconfidence")
			assert.NotContains(t, ys, `searchquery: ""`)
		})
	}
}

// keys lists the key paths of a decoded document: "crag.action.type".
func keys(m map[string]any) []string {
	var out []string
	for k, v := range m {
		out = append(out, k)
		if sub, ok := v.(map[string]any); ok {
			for _, s := range keys(sub) {
				out = append(out, k+"."+s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestScoreDetectsRetrievalSamples: without --profile, a JSON object with
// a retrieval sample's query and chunks is scored with the context
// profile, and said so; other JSON is an input error saying what score
// takes, not a report scored 0/10; Markdown stays a report.
func TestScoreDetectsRetrievalSamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	dataset := write("data.json", `[{"question": "q", "answer": "a", "contexts": ["c"]}]`)
	other := write("other.json", `{"query": "q", "documents": []}`)
	link := write("link.md", "[Intro](https://a.gov/x) says water boils at 100 degrees.\n")
	tests := map[string]struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		"a retrieval sample is scored as one": {[]string{"../../fixtures/context/good.json"}, exitPass,
			"profile: context\n", "is a retrieval sample (a JSON object with query and chunks): scoring it with --profile context"},
		"as text too": {[]string{"--format", "text", "../../fixtures/context/poor.json"}, exitFailed,
			"FAIL context 0.163, CRAG incorrect: supplemental_search\n", "scoring it with --profile context"},
		"a dataset is refused": {[]string{dataset}, exitInput, "",
			"data.json: is a dataset (a JSON array of RAG samples), not a Markdown report"},
		"an object without chunks is refused": {[]string{other}, exitInput, "", "assay judge --metric faithfulness"},
		"--profile research is taken at its word": {[]string{"--profile", "research", "../../fixtures/context/good.json"}, exitFailed,
			"quality_score:", ""},
		"markdown starting with a link is a report": {[]string{link}, exitFailed, "quality_score:", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", append([]string{"score", "--now", "2026-11-23"}, tc.args...)...)
			assert.Equal(t, tc.code, code, errOut)
			if tc.stdout == "" {
				assert.Empty(t, out)
			} else {
				assert.Contains(t, out, tc.stdout)
			}
			if tc.stderr == "" {
				assert.NotContains(t, errOut, "retrieval sample")
			} else {
				assert.Contains(t, errOut, tc.stderr)
			}
		})
	}
}

// TestScoreRefusesADataset: a dataset given to a profile that scores one
// Markdown report (research, the default, or daily) is refused with exit
// 2, naming the file and the command that judges it, where it was scored
// as a report (0/10, exit 1); a report is still scored.
func TestScoreRefusesADataset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	rag := `{"question":"Where is the Louvre?","answer":"In Paris.","contexts":["The Louvre is in Paris."]}`
	jsonl := write("rag.jsonl", rag+"\n"+rag+"\n")
	csvFile := write("rag.csv", "user_input,response,retrieved_contexts\nWhere?,Paris.,\"['The Louvre is in Paris.']\"\n")
	tsvFile := write("rag.tsv", "question\tanswer\tcontexts\nWhere is the Louvre?\tIn Paris, France.\tThe Louvre is in Paris.\n")
	research := write("reports.jsonl", `{"id":"r1","query":"q","report":"# R"}`+"\n"+`{"id":"r2","query":"q","report":"# S"}`+"\n")
	tests := map[string]struct {
		args   []string
		code   int
		stderr string
	}{
		"json lines of rag samples": {[]string{jsonl}, exitInput,
			jsonl + ": is a dataset (JSON Lines of RAG samples), not a Markdown report: assay score judges one report; judge the dataset with assay judge --metric faithfulness " + jsonl},
		"csv of rag samples, --profile research": {[]string{"--profile", "research", csvFile}, exitInput,
			"is a dataset (CSV of RAG samples), not a Markdown report"},
		"tsv of rag samples": {[]string{tsvFile}, exitInput,
			tsvFile + ": is a dataset (TSV of RAG samples), not a Markdown report: assay score judges one report; judge the dataset with assay judge --metric faithfulness " + tsvFile},
		"research samples": {[]string{research}, exitInput,
			"is a dataset (JSON Lines of research samples), not a Markdown report: assay score judges one report; judge the dataset with assay bench --profile research " + research},
		"standard input": {[]string{"-"}, exitInput,
			"<stdin>: is a dataset (JSON Lines of RAG samples), not a Markdown report: assay score judges one report; judge the dataset with assay judge --metric faithfulness -"},
		"a daily profile given a dataset": {[]string{"--profile", "daily", "--truth", "../../fixtures/daily/truth.json", jsonl}, exitInput,
			"is a dataset (JSON Lines of RAG samples)"},
		"a report is scored": {[]string{"--format", "text", "../../fixtures/reports/pass.md"}, exitPass, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, rag+"\n"+rag+"\n", append([]string{"score", "--now", "2026-11-23"}, tc.args...)...)
			assert.Equal(t, tc.code, code, errOut)
			if tc.stderr == "" {
				assert.NotContains(t, errOut, "dataset")
				assert.NotEmpty(t, out)
				return
			}
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.stderr)
		})
	}
}
