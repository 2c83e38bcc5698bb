package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/internal/llmtest"
	runpkg "github.com/assaylabs/assay/run"
)

// mainEnv, set in the environment, makes the test binary run as the assay
// command (TestMain), so a test can start it as a process and kill it.
const mainEnv = "ASSAY_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		code := run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
		reportPeak(os.Getenv(peakEnv))
		os.Exit(code)
	}
	os.Exit(sandboxed(m))
}

// sandboxed runs the tests with the user's data, cache and config folders
// moved into a temporary one, so that no test (nor a process it starts)
// writes the user's run store or reply cache, whatever it forgets to set.
func sandboxed(m *testing.M) int {
	home, err := os.MkdirTemp("", "assay-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(home) }() // the tests' own folder
	for _, k := range []string{"HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "ASSAY_DATA_DIR", "ASSAY_CACHE_DIR"} {
		if err := os.Setenv(k, filepath.Join(home, k)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

// benchSamples writes n RAG samples whose every text carries the marker
// zqNzq, so that a model request names its sample.
func benchSamples(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"s%d","question":"What does study zq%dzq find about sleep?","answer":"Study zq%dzq finds that sleep helps memory. Participants slept eight hours.","contexts":["Study zq%dzq reports that sleep consolidates memory."]}`+"\n", i, i, i, i)
	}
	path := filepath.Join(t.TempDir(), "samples.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

var markerRe = regexp.MustCompile(`zq(\d+)zq`)

// pairOf is the (sample, metric) pair a judge request is for: the sample
// from its marker, the metric from the reply schema it asks for.
func pairOf(t *testing.T, req openai.ChatCompletionRequest) runpkg.Key {
	t.Helper()
	var text strings.Builder
	for _, m := range req.Messages {
		text.WriteString(m.Content)
	}
	m := markerRe.FindStringSubmatch(text.String())
	require.NotNil(t, m, "a request without a sample marker")
	metric := map[string]string{"claims": "faithfulness", "verdicts": "faithfulness", "usefulness": "context_precision"}[req.ResponseFormat.JSONSchema.Name]
	require.NotEmpty(t, metric, "schema %s", req.ResponseFormat.JSONSchema.Name)
	return runpkg.Key{ID: "s" + m[1], Metric: metric}
}

// resultLines counts the whole lines of results.jsonl by pair.
func resultLines(t *testing.T, path string) map[runpkg.Key]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	out := map[runpkg.Key]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var r runpkg.Result
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID != "" {
			out[r.Key()]++
		}
	}
	return out
}

// TestBenchKilledAndResumed is the acceptance test of resume: a bench
// process is killed with SIGKILL midway against a slow fake model, then
// resumed; every (sample, metric) is in results.jsonl exactly once, and
// the model saw no request again for a pair finished before the kill.
func TestBenchKilledAndResumed(t *testing.T) {
	t.Parallel()
	const samples = 24
	// The first process can never finish: after stall calls the server
	// holds every request until the test ends.
	const stall = 30
	release := make(chan struct{})
	var resumed atomic.Bool
	var calls atomic.Int64
	var mu sync.Mutex
	var afterResume []openai.ChatCompletionRequest // the requests the resumed run sent
	srv := llmtest.New(t, llmtest.Latency(5*time.Millisecond), llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if resumed.Load() {
			mu.Lock()
			afterResume = append(afterResume, req)
			mu.Unlock()
		}
		if calls.Add(1) > stall && !resumed.Load() {
			<-release
			return llmtest.Reply{Status: 503}
		}
		return llmtest.JudgeReplies(req)
	}))
	t.Cleanup(func() { close(release) }) // before the server closes

	data := benchSamples(t, samples)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"bench", "--llm", "openai:judge-model", "--no-cache", "--concurrency", "2", "-q",
		"--metric", "faithfulness,context_precision", "--out", out, data}
	store := t.TempDir()
	env := append(os.Environ(), mainEnv+"=1", "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "ASSAY_CACHE_DIR="+t.TempDir(), "ASSAY_DATA_DIR="+store)
	results := filepath.Join(out, runpkg.FileResults)

	first := exec.CommandContext(t.Context(), os.Args[0], args...)
	first.Env = env
	firstErr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	first.Stderr = firstErr
	require.NoError(t, first.Start())
	// Poll the file (not a sleep for a guess): kill once some pairs are
	// written.
	deadline := time.Now().Add(60 * time.Second)
	for len(resultLines(t, results)) < 6 {
		require.True(t, time.Now().Before(deadline), "no results written (stderr in %s)", firstErr.Name())
		time.Sleep(10 * time.Millisecond)
	}
	// A second resume while the first writes is refused, naming it, and
	// leaves the file as the first writes it.
	code, _, errOut := runEnv(t, map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "test", "ASSAY_DATA_DIR": store},
		append([]string{args[0], "--resume"}, args[1:]...)...)
	assert.Equal(t, exitInput, code, errOut)
	assert.Contains(t, errOut, "is being written by another process (pid ")
	require.NoError(t, first.Process.Kill()) // SIGKILL
	_ = first.Wait()

	before := resultLines(t, results)
	require.Less(t, len(before), samples*2, "killed midway")
	resumed.Store(true)

	second := exec.CommandContext(t.Context(), os.Args[0], append([]string{args[0], "--resume"}, args[1:]...)...)
	second.Env = env
	got, err := second.CombinedOutput()
	require.NoError(t, err, "%s", got)
	assert.Contains(t, string(got), "bench: resuming "+out)

	after := resultLines(t, results)
	require.Len(t, after, samples*2, "every pair judged")
	for k, n := range after {
		assert.Equal(t, 1, n, "%v written %d times", k, n)
	}
	again := 0
	mu.Lock()
	defer mu.Unlock()
	for _, req := range afterResume {
		k := pairOf(t, req)
		assert.Zero(t, before[k], "%v was finished before the kill and called again", k)
		again++
	}
	assert.Positive(t, again, "the resume judged what was missing")

	var s runpkg.Summary
	raw, err := os.ReadFile(filepath.Join(out, runpkg.FileSummary))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &s))
	assert.True(t, s.Complete)
	assert.Equal(t, samples, s.Samples)
	for _, m := range s.Metrics {
		assert.Equal(t, samples, m.N, m.Metric)
	}
	_, err = os.Stat(filepath.Join(store, "runs.db"))
	assert.NoError(t, err, "the run is recorded in the test's own store, $ASSAY_DATA_DIR")
}

func TestBenchRunFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errOut := runEnv(t, nil, "bench", "--metric", "faithfulness,answer_relevancy", "--out", dir, "../../fixtures/rag/labelled.jsonl")
	require.Equal(t, exitPass, code, errOut)
	assert.Regexp(t, `(?m)^faithfulness +6/6 +0\.500 +0\.548 +0\.500 +0\.000 +1\.000 +0\.000 +\[`, out)
	assert.Contains(t, errOut, "bench: run ")

	var cfg runpkg.Config
	raw, err := os.ReadFile(filepath.Join(dir, runpkg.FileConfig))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &cfg))
	data, err := os.ReadFile("../../fixtures/rag/labelled.jsonl")
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	assert.Equal(t, hex.EncodeToString(sum[:]), cfg.DatasetSHA256)
	assert.Equal(t, []string{"faithfulness", "answer_relevancy"}, cfg.Metrics)
	assert.Equal(t, "offline (approximate)", cfg.Model)
	assert.Equal(t, "2", cfg.Prompts["faithfulness.claims"])
	assert.Regexp(t, `^\d{8}T\d{6}Z-[0-9a-f]{4}$`, cfg.RunID)
	assert.Len(t, resultLines(t, filepath.Join(dir, runpkg.FileResults)), 12)

	// The folder holds a run: without --resume it is refused.
	code, _, errOut = runEnv(t, nil, "bench", "--metric", "faithfulness,answer_relevancy", "--out", dir, "../../fixtures/rag/labelled.jsonl")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errOut, "a run is already there (config.json): resume it with --resume, or choose another --out")

	// Resumed when finished: nothing to judge, the same results.
	code, out2, errOut := runEnv(t, nil, "bench", "--metric", "faithfulness,answer_relevancy", "--resume", "--out", dir, "../../fixtures/rag/labelled.jsonl")
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, errOut, "12 result(s) kept, 0 defaulted or failed to judge again, 0 of 6 record(s) to judge")
	assert.Equal(t, out, out2)
}

func TestBenchRefusals(t *testing.T) {
	t.Parallel()
	labelled := "../../fixtures/rag/labelled.jsonl"
	other := benchSamples(t, 3)
	tests := map[string]struct {
		args []string
		code int
		want string
	}{
		"another dataset": {[]string{"--metric", "faithfulness,answer_relevancy", "--resume", other}, exitInput, "dataset sha256 was"},
		"other metrics":   {[]string{"--metric", "faithfulness", "--resume", labelled}, exitInput, `metrics was "faithfulness,answer_relevancy", now "faithfulness"`},
		"another floor":   {[]string{"--metric", "faithfulness,answer_relevancy", "--min", "0.2", "--resume", labelled}, exitInput, `--min was (none), now "0.2"`},
		"another profile": {[]string{"--profile", "research", "--resume", labelled}, exitInput, "profile was (none), now \"research\""},
		"both metric and profile": {[]string{"--metric", "faithfulness", "--profile", "context", labelled}, exitInput,
			"--metric and --profile: give one"},
		"no metric":          {[]string{labelled}, exitInput, "--metric: name at least one metric"},
		"an unknown profile": {[]string{"--profile", "weekly", labelled}, exitInput, `--profile: want context, research or daily, or a profile file (.yaml), got "weekly"`},
		"resume needs --out": {[]string{"--metric", "faithfulness", "--resume", labelled}, exitInput, "--resume: give the run's folder with --out DIR"},
		"no run to resume":   {[]string{"--metric", "faithfulness", "--resume", "--out", "EMPTY", labelled}, exitInput, "no run to resume (no config.json): start it without --resume"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			code, _, errOut := runEnv(t, nil, "bench", "--metric", "faithfulness,answer_relevancy", "-q", "--out", dir, labelled)
			require.Equal(t, exitPass, code, errOut)
			args := append([]string{"bench"}, tc.args...)
			for i, a := range args {
				if a == "EMPTY" {
					args[i] = t.TempDir()
				}
			}
			if !strings.Contains(strings.Join(args, " "), "--out") && strings.Contains(strings.Join(args, " "), "--resume") && name != "resume needs --out" {
				args = append(args[:len(args)-1], "--out", dir, args[len(args)-1])
			}
			code, _, errOut = runEnv(t, nil, args...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

func TestBenchExitCodes(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Status: 500}), llmtest.Quiet())
	down := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "test", "ASSAY_CACHE_DIR": t.TempDir()}
	tests := map[string]struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		"below a floor": {nil, []string{"--metric", "faithfulness", "--min", "0.9"}, exitFailed, "score(s) below --min"},
		"defaults over the rate": {down, []string{"--metric", "context_precision", "--max-retry-time", "20ms"}, exitInfra,
			"fell back to the neutral default, over --max-default-rate 0.05"},
		"a pass": {nil, []string{"--metric", "faithfulness", "--min", "0"}, exitPass, "bench: run "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			args := append(append([]string{"bench", "-q", "--out", dir}, tc.args...), "../../fixtures/rag/labelled.jsonl")
			code, _, errOut := runEnv(t, tc.env, args...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, tc.want)
			_, err := os.Stat(filepath.Join(dir, runpkg.FileSummary))
			assert.NoError(t, err, "the summary is written whatever the verdict")
		})
	}
}

func TestBenchProfilesAndStandardInput(t *testing.T) {
	t.Parallel()
	ctxSamples := func() string {
		var b strings.Builder
		for _, f := range []string{"good", "poor", "ambiguous"} {
			raw, err := os.ReadFile("../../fixtures/context/" + f + ".json")
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, json.Compact(&buf, raw))
			b.Write(buf.Bytes())
			b.WriteByte('\n')
		}
		return b.String()
	}()
	report, err := os.ReadFile("../../fixtures/reports/pass.md")
	require.NoError(t, err)
	research, err := json.Marshal(map[string]string{"id": "pass", "query": "How does HTTP/3 differ from HTTP/2?", "report": string(report)})
	require.NoError(t, err)
	tests := map[string]struct {
		profile, input string
		metrics        []string
	}{
		"context": {"context", ctxSamples, bench.ContextMetrics()},
		"research": {"research", string(research) + "\n",
			[]string{"grounding", "source_quality", "source_diversity", "completeness", "clarity", "total"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"bench", "--profile", tc.profile, "-q", "--out", dir, "-"},
				func(string) string { return "" }, strings.NewReader(tc.input), &out, &errb)
			require.Equal(t, exitPass, code, errb.String())
			for _, m := range tc.metrics {
				assert.Regexp(t, `(?m)^`+m+` +\d+/\d+ `, out.String())
			}
			if tc.profile == "context" {
				assert.Regexp(t, `(?m)^context_quality .* 33% \(>= 0\.7\) `, out.String(), "passes at the context card's threshold")
			}
			spooled, err := os.ReadFile(filepath.Join(dir, dataset.SpoolName))
			require.NoError(t, err)
			assert.Equal(t, tc.input, string(spooled), "standard input is kept in the run folder")
			var cfg runpkg.Config
			raw, err := os.ReadFile(filepath.Join(dir, runpkg.FileConfig))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &cfg))
			sum := sha256.Sum256([]byte(tc.input))
			assert.Equal(t, hex.EncodeToString(sum[:]), cfg.DatasetSHA256)
			assert.Equal(t, "-", cfg.Dataset)
			assert.Equal(t, tc.metrics, cfg.Metrics)
			lines := resultLines(t, filepath.Join(dir, runpkg.FileResults))
			assert.Len(t, lines, len(tc.metrics)*strings.Count(tc.input, "\n"))

			// Another input on standard input is refused, and the copy
			// the run was judged from is kept.
			code = run(context.Background(), []string{"bench", "--profile", tc.profile, "-q", "--resume", "--out", dir, "-"},
				func(string) string { return "" }, strings.NewReader(tc.input+tc.input), &out, &errb)
			assert.Equal(t, exitInput, code)
			assert.Contains(t, errb.String(), "dataset sha256 was")
			kept, err := os.ReadFile(filepath.Join(dir, dataset.SpoolName))
			require.NoError(t, err)
			assert.Equal(t, tc.input, string(kept))
		})
	}
}

// TestBenchInterrupted: a run cut short (Ctrl-C) writes what it judged and
// an incomplete summary, exits 3 and says how to resume.
func TestBenchInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	srv := llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if calls.Add(1) == 8 {
			cancel()
		}
		return llmtest.JudgeReplies(req)
	}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "test", "ASSAY_CACHE_DIR": t.TempDir()}
	dir := filepath.Join(t.TempDir(), "run")
	var out, errb bytes.Buffer
	code := run(ctx, []string{"bench", "-q", "--no-cache", "--concurrency", "1", "--metric", "context_precision", "--out", dir, benchSamples(t, 40)},
		func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitInfra, code, errb.String())
	assert.Contains(t, errb.String(), "resume with --resume --out "+dir)
	var s runpkg.Summary
	raw, err := os.ReadFile(filepath.Join(dir, runpkg.FileSummary))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &s))
	assert.False(t, s.Complete)
	written := resultLines(t, filepath.Join(dir, runpkg.FileResults))
	assert.Equal(t, len(written), s.Metrics[0].N)
	assert.Less(t, len(written), 40)
}

// TestBenchDryRun: a dry run prints the plan, calls nothing and keeps no
// run folder.
func TestBenchDryRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"judge metrics": {[]string{"--metric", "faithfulness"}, "dry run for offline (approximate) on 6 record(s); no call made"},
		"context":       {[]string{"--profile", "context"}, "dry run: --profile context is deterministic and calls no model"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			data := "../../fixtures/rag/labelled.jsonl"
			if name == "context" {
				data = writeContextSamples(t)
			}
			code, out, errOut := runEnv(t, nil, append(append([]string{"bench", "--dry-run", "--out", dir}, tc.args...), data)...)
			require.Equal(t, exitPass, code, errOut)
			assert.Contains(t, out, tc.want)
			_, err := os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "no run folder for a dry run")
		})
	}
}

func writeContextSamples(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../fixtures/context/good.json")
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, raw))
	path := filepath.Join(t.TempDir(), "ctx.jsonl")
	require.NoError(t, os.WriteFile(path, append(buf.Bytes(), '\n'), 0o644))
	return path
}

// TestBenchResumeAfterAnOutage: a run whose every judgement fell back to
// the neutral default while the model server was down exits 3; resumed
// against the server up again, it judges those pairs again (and says how
// many), exits 0, and counts each pair once with its new value. Resumed
// once more, it has nothing left to judge.
func TestBenchResumeAfterAnOutage(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	var calls atomic.Int64
	srv := llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if down.Load() {
			return llmtest.Reply{Status: 500}
		}
		calls.Add(1)
		return llmtest.JudgeReplies(req)
	}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "test",
		"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
	dir := filepath.Join(t.TempDir(), "run")
	data := benchSamples(t, 3)
	args := []string{"bench", "-q", "--max-retry-time", "20ms", "--metric", "faithfulness,context_precision", "--out", dir, data}
	code, _, errOut := runEnv(t, env, args...)
	require.Equal(t, exitInfra, code, errOut)
	require.Contains(t, errOut, "6 of 6 judgements (100%) fell back to the neutral default")

	down.Store(false)
	resume := append([]string{"bench", "--resume"}, args[1:]...)
	code, out, errOut := runEnv(t, env, resume...)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, errOut, "bench: resuming "+dir+": 0 result(s) kept, 6 defaulted or failed to judge again, 3 of 3 record(s) to judge")
	assert.Equal(t, int64(3*2+3), calls.Load(), "faithfulness asks twice a sample, context_precision once")
	assert.Regexp(t, `(?m)^faithfulness +3/3 +0\.500 `, out)
	assert.Regexp(t, `(?m)^context_precision +3/3 +1\.000 `, out)

	var s runpkg.Summary
	raw, err := os.ReadFile(filepath.Join(dir, runpkg.FileSummary))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &s))
	require.Len(t, s.Metrics, 2)
	// The fake judge finds one of two claims supported, and every
	// context useful.
	for i, m := range s.Metrics {
		assert.Equal(t, []string{"faithfulness", "context_precision"}[i], m.Metric)
		assert.Equal(t, 3, m.N, m.Metric)
		assert.Equal(t, 3, m.Scored, m.Metric)
		assert.Equal(t, 0, m.Defaulted, m.Metric)
		assert.InDelta(t, []float64{0.5, 1}[i], float64(m.Mean), 1e-9, m.Metric)
	}
	assert.Equal(t, 6+9, s.Usage.Calls, "the outage's calls and the resume's")
	assert.Len(t, resultLines(t, filepath.Join(dir, runpkg.FileResults)), 6)
	code, out, errOut = runEnv(t, env, "runs", "show", dir)
	require.Equal(t, exitPass, code, errOut)
	assert.Regexp(t, `(?m)^cost +unknown \(15 calls, \d+ tokens in, \d+ out\)$`, out, "the fake model has no price: its cost is unknown, never $0")
	report, err := os.ReadFile(filepath.Join(dir, runpkg.FileReport))
	require.NoError(t, err)
	assert.Contains(t, string(report), "<dt>Calls</dt><dd>15 model calls · ")

	code, _, errOut = runEnv(t, env, resume...)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, errOut, "6 result(s) kept, 0 defaulted or failed to judge again, 0 of 3 record(s) to judge")
	assert.Equal(t, int64(9), calls.Load(), "nothing judged a third time")
	raw, err = os.ReadFile(filepath.Join(dir, runpkg.FileSummary))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &s))
	assert.Equal(t, 6+9, s.Usage.Calls, "the outage's calls still count")
}
