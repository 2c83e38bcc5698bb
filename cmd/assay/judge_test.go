package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
	runpkg "github.com/assaylabs/assay/run"
)

// runEnv runs the CLI with the given environment.
func runEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestJudgeOfflineGolden(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		code int
	}{
		"judge-eiffel.txt":  {[]string{"judge", "--metric", "faithfulness,context_recall,context_precision", "--format", "text", "../../fixtures/rag/eiffel.json"}, 0},
		"judge-eiffel.yaml": {[]string{"judge", "--metric", "faithfulness", "../../fixtures/rag/eiffel.json"}, 0},
		"judge-min.txt":     {[]string{"judge", "--metric", "faithfulness", "--min", "0.9", "--format", "text", "../../fixtures/rag/eiffel.json"}, 1},
		"agree.md":          {[]string{"agree", "--metric", "faithfulness", "--label", "faithful", "--baseline", "../../fixtures/rag/labelled.jsonl"}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, "judge: offline (approximate)")
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), out)
		})
	}
}

func TestJudgeBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"question":"q","answer":"a","contexts":["c"]}`+"\n"+`{"question":"q","contexts":7}`+"\n"), 0o644))
	noRef := filepath.Join(dir, "noref.json")
	require.NoError(t, os.WriteFile(noRef, []byte(`{"question":"q","answer":"a","contexts":["c"]}`), 0o644))
	tests := map[string]struct {
		args []string
		want string
	}{
		"unknown metric":           {[]string{"judge", "--metric", "bleu", "../../fixtures/rag/eiffel.json"}, `--metric: unknown metric "bleu"`},
		"missing metric":           {[]string{"judge", "../../fixtures/rag/eiffel.json"}, `required flag(s) "metric" not set`},
		"bad dataset line":         {[]string{"judge", "--metric", "faithfulness", bad}, "bad.jsonl:2: contexts: want an array of strings, got number"},
		"recall needs a ref":       {[]string{"judge", "--metric", "context_recall", noRef}, "sample has no reference answer"},
		"unknown backend":          {[]string{"judge", "--metric", "faithfulness", "--llm", "nope:x", "../../fixtures/rag/eiffel.json"}, "--llm:"},
		"bad format":               {[]string{"judge", "--metric", "faithfulness", "--format", "xml", "../../fixtures/rag/eiffel.json"}, "--format"},
		"agree no label":           {[]string{"agree", "--metric", "faithfulness", "--label", "relevant", "../../fixtures/rag/labelled.jsonl"}, "no record has the binary label human.relevant"},
		"agree NaN threshold":      {[]string{"agree", "--metric", "faithfulness", "--label", "faithful", "--threshold", "NaN", "../../fixtures/rag/labelled.jsonl"}, "--threshold: want a value from 0 to 1, got NaN"},
		"agree threshold above 1":  {[]string{"agree", "--metric", "faithfulness", "--label", "faithful", "--threshold", "5", "../../fixtures/rag/labelled.jsonl"}, "--threshold: want a value from 0 to 1, got 5"},
		"agree negative threshold": {[]string{"agree", "--metric", "faithfulness", "--label", "faithful", "--threshold", "-0.5", "../../fixtures/rag/labelled.jsonl"}, "--threshold: want a value from 0 to 1, got -0.5"},
		"bad concurrency":          {[]string{"judge", "--metric", "faithfulness", "--concurrency", "0", "../../fixtures/rag/eiffel.json"}, "--concurrency"},
		"empty metric list":        {[]string{"judge", "--metric", "", "../../fixtures/rag/eiffel.json"}, "--metric: name at least one metric"},
		"metric twice":             {[]string{"judge", "--metric", "faithfulness,faithfulness", "../../fixtures/rag/eiffel.json"}, `--metric: "faithfulness" is named twice`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runCLI(t, "", tc.args...)
			assert.Equal(t, exitInput, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

// TestJudgeWithModel runs the judge command against a fake OpenAI server:
// a first run calls the model, a second identical run answers from the
// cache with zero calls and the same output, --dry-run calls nothing, and
// a failing server gives flagged neutral defaults that --strict turns into
// exit 3.
func TestJudgeWithModel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
	args := []string{"judge", "--metric", "faithfulness,source_relevance", "--format", "json", "../../fixtures/rag/eiffel.json"}

	code, first, errOut := runEnv(t, env, args...)
	require.Equal(t, 0, code, errOut)
	calls := srv.Calls()
	assert.Equal(t, 4, calls, "claims + verify + one grade per source")
	assert.Contains(t, first, `"method": "llm:openai:judge-model"`)
	assert.Contains(t, errOut, "calls 4")

	code, second, errOut := runEnv(t, env, args...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, calls, srv.Calls(), "the second run is served from the cache")
	assert.Contains(t, errOut, "cache hits 4")
	assert.JSONEq(t, stripUsage(t, first), stripUsage(t, second))

	code, plan, errOut := runEnv(t, env, append([]string{"judge", "--dry-run"}, args[1:]...)...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, calls, srv.Calls(), "a dry run makes no call")
	assert.Contains(t, plan, "faithfulness                2")
	assert.Contains(t, plan, "source_relevance            2")
}

func TestJudgeStrictOnFailingModel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Status: 400, Body: `{"error":{"message":"context too long","type":"invalid_request_error"}}`}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	args := []string{"judge", "--no-cache", "--metric", "faithfulness", "--format", "json", "../../fixtures/rag/eiffel.json"}

	// Allowed every default, the run shows them flagged and passes.
	code, out, errOut := runEnv(t, env, append([]string{"judge", "--max-default-rate", "1"}, args[1:]...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"defaulted": true`)
	assert.Contains(t, out, `"value": 0.5`)
	assert.Contains(t, out, "status 400")
	assert.Contains(t, errOut, "neutral defaults 1")

	code, _, errOut = runEnv(t, env, append([]string{"judge", "--max-default-rate", "1", "--strict"}, args[1:]...)...)
	assert.Equal(t, exitInfra, code)
	assert.Contains(t, errOut, "assay: 1 of 1 judgements (100%) fell back to the neutral default, over --strict (no default allowed): ")
}

// stripUsage removes the usage of each result, which differs between a
// call and a cache hit, from the judge's JSON output.
func stripUsage(t *testing.T, s string) string {
	t.Helper()
	var rs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &rs))
	for _, r := range rs {
		delete(r, "usage")
	}
	b, err := json.Marshal(rs)
	require.NoError(t, err)
	return string(b)
}

// TestJudgeSummaryKeepsDefaultsApart runs a dataset whose model fails for
// two of six records: the per-metric summary counts them as defaulted and
// averages only the four real grades.
func TestJudgeSummaryKeepsDefaultsApart(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "Great Wall") {
				return llmtest.Reply{Status: 400, Body: `{"error":{"message":"context too long","type":"invalid_request_error"}}`}
			}
		}
		return llmtest.JudgeReplies(req)
	}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	code, out, errOut := runEnv(t, env, "judge", "--no-cache", "--max-default-rate", "0.5", "--metric", "source_relevance", "--format", "json", "../../fixtures/rag/labelled.jsonl")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 2, strings.Count(out, `"defaulted": true`))
	assert.Contains(t, errOut, "metric            scored  mean   min    passed        defaulted\n"+
		"source_relevance  4/6     0.750  0.750  4/4 (>= 0.5)  2 (33%)\n")
	assert.Contains(t, errOut, "neutral defaults 2")
}

// TestDryRunBudget: a dry run under --max-cost says whether the estimate
// fits, and makes no call either way.
func TestDryRunBudget(t *testing.T) {
	srv := llmtest.New(t)
	env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL()}
	tests := map[string]struct {
		maxCost string
		want    string
	}{
		"fits":     {"1", "within --max-cost $1.0000"},
		"too much": {"0.000001", "over --max-cost $0.0000: new calls would stop after about 0% of the estimate"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runEnv(t, env, "judge", "--dry-run", "--max-cost", tc.maxCost, "--metric", "faithfulness", "../../fixtures/rag/labelled.jsonl")
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, tc.want)
			assert.Equal(t, 0, srv.Calls())
		})
	}
}

// TestDryRunIsTheSameEveryRun: a dry run's calls, tokens and cost depend
// on the input alone, not on the random nonce each real prompt draws.
func TestDryRunIsTheSameEveryRun(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		// The fixture has no reference, which context_recall and the metrics
		// against a reference need, nor the assertions' arguments.
		"judge, every judge needing no reference": {"judge", "--dry-run", "--metric", strings.Join(slices.DeleteFunc(agent.Builtins().Metrics(), func(m string) bool {
			e, _ := agent.Builtins().Lookup(m)
			return e.Needs&metric.NeedsReference != 0 || !e.CallsModel()
		}), ","), "../../fixtures/rag/labelled.jsonl"},
		"judge, every metric":   {"judge", "--dry-run", "--metric", strings.Join(slices.DeleteFunc(agent.Builtins().Metrics(), func(m string) bool { return m == judges.MetricContextRecall }), ","), "../../fixtures/rag/checks.jsonl"},
		"judge, context_recall": {"judge", "--dry-run", "--metric", "context_recall", "../../fixtures/rag/eiffel.json"},
		"score":                 {"score", "--dry-run", "--now", "2026-11-23", "../../fixtures/reports/pass.md"},
		"research":              {"research", "--dry-run", "How do heat pumps perform in cold climates?"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir(),
				"ASSAY_EMBEDDING_MODEL": "text-embedding-3-small"} // answer_relevancy needs one
			code, first, errOut := runEnv(t, env, args...)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, first, "no call made")
			code, second, errOut := runEnv(t, env, args...)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, first, second)
			assert.Zero(t, srv.Calls())
		})
	}
}

// TestJudgeInterrupted cancels a run while two records wait on a stalled
// model: the four judged records are written as well-formed JSON, the
// summary shows them, and the exit says how far the run got.
func TestJudgeInterrupted(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "Great Wall") {
				return llmtest.Reply{Delay: time.Minute}
			}
		}
		return llmtest.JudgeReplies(req)
	}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"judge", "--no-cache", "--metric", "source_relevance", "--format", "json", "../../fixtures/rag/labelled.jsonl"},
		func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitInfra, code)
	var rs []runpkg.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &rs), out.String())
	require.Len(t, rs, 4)
	assert.Equal(t, []string{"r1", "r2", "r3", "r4"}, []string{rs[0].ID, rs[1].ID, rs[2].ID, rs[3].ID})
	assert.Contains(t, errb.String(), "source_relevance  4/4")
	assert.Contains(t, errb.String(), "interrupted after 4 of 6 records")
}

func TestAgreeNamesRecordsTheJudgeCannotScore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	some := filepath.Join(dir, "some.jsonl")
	require.NoError(t, os.WriteFile(some, []byte(
		`{"id":"a","question":"q","answer":"a","contexts":["c"],"reference":"cats purr","human":{"faithful":true}}`+"\n"+
			`{"id":"b","question":"q","answer":"a","contexts":["c"],"human":{"faithful":false}}`+"\n"), 0o644))
	tests := map[string]struct {
		file   string
		code   int
		stdout bool
		stderr string
	}{
		"none scored is an input error": {"../../fixtures/rag/labelled.jsonl", exitInput, false,
			"assay: ../../fixtures/rag/labelled.jsonl:1: record r1: context_recall: sample has no reference answer (context_recall could score none of the 6 labelled records)"},
		"some left out are named": {some, exitPass, true,
			some + ":2: record b: context_recall: sample has no reference answer (1 of 2 labelled records left out)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", "agree", "--metric", "context_recall", "--label", "faithful", tc.file)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, tc.stderr)
			assert.Equal(t, tc.stdout, out != "", out)
		})
	}
}

func TestJudgeReadsDatasetsLargerThanOneReport(t *testing.T) {
	t.Parallel()
	// Many small records whose total is over the 10 MB a single report
	// or sample may have.
	path := filepath.Join(t.TempDir(), "large.jsonl")
	line := `{"question":"q","answer":"a","contexts":["` + strings.Repeat("word ", 2000) + `"]}` + "\n"
	n := agent.MaxInput/len(line) + 10
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat(line, n)), 0o644))
	d, err := dataset.Open(path, dataset.Options{})
	require.NoError(t, err)
	assert.Equal(t, n, d.Len())
}

// fullWriter fails every write, as standard output does on a full disk.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

func TestAgreeReportsWriteErrors(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"md", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			var errb bytes.Buffer
			code := run(context.Background(), []string{"agree", "--metric", "faithfulness", "--label", "faithful", "--format", format, "../../fixtures/rag/labelled.jsonl"},
				noEnv, strings.NewReader(""), fullWriter{}, &errb)
			assert.Equal(t, exitInfra, code, errb.String())
			assert.Contains(t, errb.String(), "no space left on device")
		})
	}
}

// TestJudgeInterruptedBeforeAnyResult: a run cut off before its first
// record is judged still prints a well-formed, empty list.
func TestJudgeInterruptedBeforeAnyResult(t *testing.T) {
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Delay: time.Minute}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	tests := map[string]struct {
		format string
		decode func([]byte, any) error
	}{
		"json": {"json", json.Unmarshal},
		"yaml": {"yaml", yaml.Unmarshal},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			var out, errb bytes.Buffer
			code := run(ctx, []string{"judge", "--no-cache", "--metric", "source_relevance", "--format", tc.format, "../../fixtures/rag/labelled.jsonl"},
				func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
			assert.Equal(t, exitInfra, code)
			assert.Contains(t, errb.String(), "interrupted after 0 of 6 records")
			var rs []runpkg.Result
			require.NoError(t, tc.decode(out.Bytes(), &rs), "output %q", out.String())
			assert.NotNil(t, rs, "an empty list, not an empty document")
			assert.Empty(t, rs)
		})
	}
}

// TestAgreeEveryRecordDefaulted: when every judgement fell back to the
// neutral default, agree shows no statistics and exits 3 rather than
// printing zeros as if they were measured.
func TestAgreeEveryRecordDefaulted(t *testing.T) {
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Status: 500}), llmtest.Quiet())
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"agree", "--no-cache", "--max-retry-time", "50ms", "--metric", "faithfulness", "--label", "faithful", "../../fixtures/rag/labelled.jsonl"},
		func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitInfra, code, errb.String())
	assert.Contains(t, out.String(), "| faithfulness | faithful | 0 (0/0) | 6 | 0 | 0 | n/a | - | n/a | n/a | n/a | - |")
	assert.Contains(t, errb.String(), "assay: 6 of 6 judgements (100%) fell back to the neutral default, over --max-default-rate 0.05: ")
	assert.Contains(t, errb.String(), "status 500")

	// Allowed every default, agree still refuses to pass off nothing
	// measured as a result.
	errb.Reset()
	code = run(context.Background(), []string{"agree", "--no-cache", "--max-retry-time", "50ms", "--max-default-rate", "1", "--metric", "faithfulness", "--label", "faithful", "../../fixtures/rag/labelled.jsonl"},
		func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitInfra, code, errb.String())
	assert.Contains(t, errb.String(), "all 6 labelled records fell back to the neutral default")
}

// TestJudgeUsageLatencyKeys: a result's latency is nanoseconds under
// latency_ns in JSON, and a duration under latency in YAML; never a
// duration string under a key that says nanoseconds.
func TestJudgeUsageLatencyKeys(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(2*time.Millisecond))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
	tests := map[string]*regexp.Regexp{
		"json": regexp.MustCompile(`"latency_ns": [0-9]+,?\n`),
		"yaml": regexp.MustCompile(`\n +latency: [0-9.]+m?s\n`),
	}
	for format, want := range tests {
		code, out, errOut := runEnv(t, env, "judge", "--no-cache", "--metric", "source_relevance", "--format", format, "../../fixtures/rag/eiffel.json")
		require.Equal(t, 0, code, errOut)
		assert.Regexp(t, want, out, format)
		assert.NotRegexp(t, `latency_ns: [0-9.]+m?s`, out, format)
	}
}

// TestJudgeChecksWhatEachMetricNeedsFirst: a record without what a metric
// needs (a reference for context_recall, contexts for source_relevance) is
// an input error naming file, line and field before any model call, not a
// failure halfway through a paid run.
func TestJudgeChecksWhatEachMetricNeedsFirst(t *testing.T) {
	good := `{"id":"a","question":"q?","answer":"Paris is in France.","contexts":["Paris is in France."],"reference":"Paris is in France."}`
	tests := map[string]struct {
		metric, bad, want string
	}{
		"no reference for context_recall": {"context_recall",
			`{"id":"b","question":"q?","answer":"Paris is in France.","contexts":["Paris is in France."]}`, ":3: reference: context_recall: sample has no reference answer"},
		"no contexts for source_relevance": {"source_relevance",
			`{"id":"b","question":"q?","answer":"Paris is in France.","reference":"Paris is in France."}`, ":3: contexts: source_relevance: sample has no contexts or sources"},
		"no contexts for context_precision": {"context_precision",
			`{"id":"b","question":"q?","answer":"Paris is in France.","reference":"Paris is in France."}`, ":3: contexts: context_precision: sample has no contexts or sources"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
			path := filepath.Join(t.TempDir(), "data.jsonl")
			good2 := strings.Replace(good, `"a"`, `"c"`, 1)
			require.NoError(t, os.WriteFile(path, []byte(good+"\n"+good2+"\n"+tc.bad+"\n"), 0o644))
			code, out, errOut := runEnv(t, env, "judge", "--metric", "faithfulness,"+tc.metric, path)
			assert.Equal(t, exitInput, code, errOut)
			assert.Contains(t, errOut, path+tc.want)
			assert.Empty(t, out)
			assert.Zero(t, srv.Calls(), "no model call before the input is checked")
		})
	}
}

// TestDefaultRateExits: a run whose judgements fell back to the neutral
// default more often than --max-default-rate allows (0 under --strict)
// exits 3 and says how many, of how many, and the first cause; under the
// limit it passes with the defaults counted.
func TestDefaultRateExits(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: the server is down.
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	downURL := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())

	failOn := func(status int, texts ...string) llmtest.Option {
		return llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
			for _, m := range req.Messages {
				for _, s := range texts {
					if strings.Contains(m.Content, s) {
						return llmtest.Reply{Status: status}
					}
				}
			}
			return llmtest.JudgeReplies(req)
		})
	}
	data := "../../fixtures/rag/labelled.jsonl"
	judge := []string{"judge", "--no-cache", "--max-retry-time", "100ms", "--metric", "source_relevance", "--format", "json"}
	agree := []string{"agree", "--no-cache", "--max-retry-time", "100ms", "--metric", "faithfulness", "--label", "faithful"}
	tests := map[string]struct {
		server []llmtest.Option // nil: the server is down
		args   []string
		code   int
		stderr string // in stderr; "" with code 0 checks there is no such line
	}{
		// A server down from the start fails the run either way: over the
		// default rate, or with calls that gave up waiting for it, as the
		// breaker's timing has it.
		"server down":        {nil, judge, exitInfra, "the neutral default"},
		"server down, agree": {nil, agree, exitInfra, "the neutral default"},
		"500 always": {[]llmtest.Option{llmtest.Default(llmtest.Reply{Status: 500})}, judge, exitInfra,
			"assay: 6 of 6 judgements (100%) fell back to the neutral default, over --max-default-rate 0.05: record r1: source_relevance: source 1: openai:judge-model: chat: status 500"},
		"429 always": {[]llmtest.Option{llmtest.Default(llmtest.Reply{Status: 429, RetryAfter: "0"})}, judge, exitInfra,
			"6 of 6 judgements (100%) fell back to the neutral default, over --max-default-rate 0.05: "},
		"a hang cut by --call-timeout": {[]llmtest.Option{llmtest.Default(llmtest.Reply{Delay: time.Minute})},
			append([]string{"judge", "--call-timeout", "20ms"}, judge[1:]...), exitInfra,
			"6 of 6 judgements (100%) fell back to the neutral default, over --max-default-rate 0.05: "},
		"a third failing, over the default limit": {[]llmtest.Option{failOn(400, "Great Wall")}, judge, exitInfra,
			"assay: 2 of 6 judgements (33.3%) fell back to the neutral default, over --max-default-rate 0.05: "},
		"a third failing, over --max-default-rate 0.3": {[]llmtest.Option{failOn(400, "Great Wall")},
			append([]string{"judge", "--max-default-rate", "0.3"}, judge[1:]...), exitInfra,
			"2 of 6 judgements (33.3%) fell back to the neutral default, over --max-default-rate 0.3: "},
		"a third failing, under --max-default-rate 0.4": {[]llmtest.Option{failOn(400, "Great Wall")},
			append([]string{"judge", "--max-default-rate", "0.4"}, judge[1:]...), exitPass, ""},
		"one default allowed": {[]llmtest.Option{failOn(400, "Percy Shelley")},
			[]string{"judge", "--no-cache", "--max-default-rate", "0.2", "--metric", "faithfulness", "--format", "json"}, exitPass, ""},
		"--strict with one default": {[]llmtest.Option{failOn(400, "Percy Shelley")},
			[]string{"judge", "--no-cache", "--max-default-rate", "0.2", "--strict", "--metric", "faithfulness", "--format", "json"}, exitInfra,
			"assay: 1 of 6 judgements (16.7%) fell back to the neutral default, over --strict (no default allowed): record r4: faithfulness: extract claims: openai:judge-model: chat: status 400"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := downURL
			if tc.server != nil {
				url = llmtest.New(t, append(tc.server, llmtest.Quiet())...).URL()
			}
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": url}
			code, out, errOut := runEnv(t, env, append(tc.args, data)...)
			assert.Equal(t, tc.code, code, errOut)
			assert.NotEmpty(t, out, "the results are written whatever the exit")
			if tc.code == exitPass {
				assert.NotContains(t, errOut, "fell back to the neutral default, over")
				assert.Regexp(t, `neutral defaults [12]\n`, errOut)
				return
			}
			assert.Contains(t, errOut, tc.stderr)
			if tc.server != nil {
				assert.Contains(t, errOut, "or allow more defaults with --max-default-rate")
			}
		})
	}
}

func TestMaxDefaultRateIsAShare(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"-0.1", "1.5", "NaN"} {
		for _, cmd := range [][]string{{"judge", "--metric", "faithfulness"}, {"agree", "--metric", "faithfulness", "--label", "faithful"}} {
			t.Run(cmd[0]+" "+v, func(t *testing.T) {
				t.Parallel()
				code, out, errOut := runCLI(t, "", append(cmd, "--max-default-rate", v, "../../fixtures/rag/labelled.jsonl")...)
				assert.Equal(t, exitInput, code)
				assert.Empty(t, out)
				assert.Contains(t, errOut, "--max-default-rate: want a share from 0 to 1 (0.05 is 5%), got "+v)
			})
		}
	}
}

// TestJudgeInterruptedJSONL: an interrupted jsonl run leaves one whole
// line per judged record, each readable alone, and nothing else.
func TestJudgeInterruptedJSONL(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "Great Wall") {
				return llmtest.Reply{Delay: time.Minute}
			}
		}
		return llmtest.JudgeReplies(req)
	}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"judge", "--no-cache", "--metric", "source_relevance", "--format", "jsonl", "../../fixtures/rag/labelled.jsonl"},
		func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitInfra, code)
	assert.Contains(t, errb.String(), "interrupted after 4 of 6 records")
	var ids []string
	for line := range strings.Lines(out.String()) {
		var r runpkg.Result
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		assert.Equal(t, "source_relevance", r.Metric)
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"r1", "r2", "r3", "r4"}, ids)
}

// watchWriter is a stderr safe for concurrent writes that closes seen the
// first time what was written contains want.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestProgressLines: off a terminal, judge and agree print a progress line
// every $ASSAY_PROGRESS_EVERY while they run: records done of the total
// and the defaults so far, and the cost: unknown, as judge-model has no
// price, never $0.0000. The model holds r3 and r4 back until the line
// for the records done without them has been printed (judge writes in
// record order, agree counts as records finish), so the test waits on that
// line, not on a clock; a generous deadline stops a failing test from
// hanging. --quiet prints none.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args  []string
		want  string
		quiet bool
	}{
		"judge":         {args: []string{"judge", "--metric", "source_relevance", "--format", "jsonl"}, want: "judge: 2/6 records, "},
		"agree":         {args: []string{"agree", "--metric", "source_relevance", "--label", "faithful"}, want: "agree source_relevance: 4/6 records, "}, // in any order: the four not held back
		"judge --quiet": {args: []string{"judge", "-q", "--metric", "source_relevance", "--format", "jsonl"}, quiet: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stderr := &watchWriter{want: tc.want, seen: make(chan struct{})}
			release := stderr.seen
			if tc.quiet {
				release = make(chan struct{})
				close(release)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
				for _, m := range req.Messages {
					if strings.Contains(m.Content, "Frankenstein") { // r3 and r4
						select {
						case <-release:
						case <-ctx.Done():
						}
					}
				}
				return llmtest.JudgeReplies(req)
			}))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_PROGRESS_EVERY": "1ms"}
			var out bytes.Buffer
			args := append(append([]string{}, tc.args...), "--no-cache", "../../fixtures/rag/labelled.jsonl")
			code := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(""), &out, stderr)
			require.Equal(t, exitPass, code, stderr.String())
			if tc.quiet {
				assert.NotContains(t, stderr.String(), " records, ")
				return
			}
			assert.Regexp(t, regexp.MustCompile(regexp.QuoteMeta(tc.want)+`[0-9.]+/s, ETA [0-9hms.]+, 0 defaulted, cost unknown\n`), stderr.String())
		})
	}
}

func TestProgressIntervalMustBeADuration(t *testing.T) {
	t.Parallel()
	code, _, errOut := runEnv(t, map[string]string{"ASSAY_PROGRESS_EVERY": "often"}, "judge", "--metric", "faithfulness", "../../fixtures/rag/eiffel.json")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errOut, `$ASSAY_PROGRESS_EVERY: want a positive duration such as 30s, got "often"`)
}
