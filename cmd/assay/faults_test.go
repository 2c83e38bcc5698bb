package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	runpkg "github.com/assaylabs/assay/run"
)

// TestJudgeFaultTable runs `assay judge` over 20 records against a model
// server that misbehaves in one way on every call (llmtest.Faults(), which
// fakellm -fault serves by hand), and checks what the user is told: no
// fault ends in exit 0, each names its cause on standard error, the
// requests it costs are bounded, and every result written is a whole
// JSON line, defaulted, never a clean score.
func TestJudgeFaultTable(t *testing.T) {
	t.Parallel()
	const records = 20
	data := filepath.Join(t.TempDir(), "data.jsonl")
	var b strings.Builder
	for i := range records {
		fmt.Fprintf(&b, `{"id":"r%d","question":"What is the boiling point of water at sea level? (%d)","answer":"Water boils at 100 degrees Celsius at sea level.","contexts":["At sea level, pure water boils at 100 degrees Celsius."]}`+"\n", i+1, i+1)
	}
	require.NoError(t, os.WriteFile(data, []byte(b.String()), 0o644))

	// The defaults of one fault may have causes of two kinds (calls cut
	// before and after the server is taken as down), counted between
	// "default" and "over".
	rate := "20 of 20 judgements (100%) fell back to the neutral default"
	tests := map[string]struct {
		fault  string // the name in llmtest.Faults()
		stderr []string
		// calls bounds the requests the server sees: exactly, or at most
		// when atMost is set (how many leave before a verdict on the
		// server is the scheduler's).
		calls  int
		atMost bool
		// stops: the run ends at the first failure, so not every record
		// has a result.
		stops bool
		// someResult is said by the error of at least one result.
		someResult string
		// callTimeout cuts an attempt (default 10s: long enough that a
		// server that answers is never cut on a loaded machine, which
		// would add a retry to the counts).
		callTimeout string
	}{
		"a reply off the schema is repaired once, then defaulted": {
			fault:  "offschema",
			stderr: []string{rate, `missing properties: ["claims"]`, "do not follow the judges' JSON schema"}, calls: 2 * records,
		},
		"an empty object is repaired once, then defaulted": {
			fault:  "empty",
			stderr: []string{rate, `missing properties: ["claims"]`}, calls: 2 * records,
		},
		"401 stops the run at once with the server's message": {
			fault:  "401",
			stderr: []string{"refused the credentials", "status 401: Incorrect API key provided.", "no further calls are sent"},
			calls:  8, atMost: true, stops: true,
		},
		"403 stops the run at once with the server's message": {
			fault:  "403",
			stderr: []string{"refused the credentials", "status 403: This key may not use the model.", "no further calls are sent"},
			calls:  8, atMost: true, stops: true,
		},
		"429 always: a Retry-After past the retry time ends each call's retries": {
			fault:  "429",
			stderr: []string{rate, "status 429", "lower --concurrency"}, calls: records,
		},
		"500 always: retried, then defaulted": {
			fault:  "500",
			stderr: []string{rate, "status 500", "check that the model server is up"}, calls: 4 * records, atMost: true,
		},
		"a hung server is taken as down and calls fail fast": {
			fault:  "hang",
			stderr: []string{rate, "context deadline exceeded"}, calls: 12, atMost: true, someResult: "model server unreachable",
			callTimeout: "200ms",
		},
		"resets: taken as down": {
			fault:  "reset",
			stderr: []string{rate, "connection reset by peer"}, calls: 12, atMost: true, someResult: "model server unreachable",
		},
		"10 MB replies: over the cap, repaired once, then defaulted": {
			fault:  "huge",
			stderr: []string{rate, "reply over the cap of 1048576 bytes (llm.MaxReply)", "over the 1048576-byte cap"}, calls: 2 * records,
			// Decoding a megabyte of each reply is slow under -race on a
			// loaded machine: no attempt may be cut, or it has no repair.
			callTimeout: "60s",
		},
		"a 200 reply of another shape is said to be no chat completion": {
			fault:  "notchat",
			stderr: []string{rate, `the reply is not a chat completion: a 200 reply with no "choices" field: {"result": "ok"`, "not chat completions"}, calls: records,
		},
		"bodies cut off in transit: taken as down": {
			fault:  "truncated",
			stderr: []string{rate, "unexpected EOF"}, calls: 12, atMost: true, someResult: "model server unreachable",
		},
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.fault] = true
	}
	require.Len(t, covered, len(llmtest.Faults()), "every fault of llmtest.Faults() has a row")
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fault, ok := llmtest.Faults()[tc.fault]
			require.True(t, ok, tc.fault)
			srv := llmtest.New(t, llmtest.Default(fault), llmtest.Quiet())
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test", "ASSAY_CACHE_DIR": t.TempDir()}
			code, stdout, stderr := runEnv(t, env, "judge", "--llm", "openai:gpt-4o-mini", "--no-cache", "-q",
				"--metric", "faithfulness", "--format", "jsonl", "--call-timeout", cmp.Or(tc.callTimeout, "10s"), "--max-retry-time", "100ms", data)

			assert.Equal(t, exitInfra, code, stderr)
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			if tc.atMost {
				assert.LessOrEqual(t, srv.Calls(), tc.calls, "requests the server saw")
				assert.Positive(t, srv.Calls())
			} else {
				assert.Equal(t, tc.calls, srv.Calls(), "requests the server saw")
			}
			lines, said := 0, tc.someResult == ""
			sc := bufio.NewScanner(strings.NewReader(stdout))
			for sc.Scan() {
				var r runpkg.Result
				require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "line %d: %s", lines+1, sc.Text())
				assert.True(t, r.Defaulted, "%s: never a clean score", r.ID)
				assert.Equal(t, 0.5, r.Value)
				assert.NotEmpty(t, r.Error)
				said = said || strings.Contains(r.Error, tc.someResult)
				lines++
			}
			assert.True(t, said, "some result says %q", tc.someResult)
			if !tc.stops {
				assert.Equal(t, records, lines, "one result per record")
			}
		})
	}
}

// TestJudgeNothingToJudge: records with no answer, an empty or blank one,
// or one that claims nothing are skipped and counted, offline and with a
// model (which is not called for them), and never pass a floor; a metric
// with nothing scored at all is a failed run, exit 3, with the reason.
func TestJudgeNothingToJudge(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id":"missing","question":"Where is the Eiffel Tower?","contexts":["The Eiffel Tower is in Paris."]}
{"id":"empty","question":"Where is the Eiffel Tower?","answer":"","contexts":["The Eiffel Tower is in Paris."]}
{"id":"blank","question":"Where is the Eiffel Tower?","answer":"  \n ","contexts":["The Eiffel Tower is in Paris."]}
`), 0o644))
	tests := map[string]struct {
		llm   bool
		args  []string
		code  int
		lines []string // in stderr
	}{
		"offline, no floor: counted, nothing scored is exit 3": {
			code:  exitInfra,
			lines: []string{"faithfulness  0/3", "skipped 3 result(s) with nothing to judge", "faithfulness: none of its 3 judgement(s) was scored (3 skipped"},
		},
		"offline, a floor: never passed, and nothing scored": {
			args: []string{"--min", "0.1"}, code: exitInfra,
			lines: []string{"none of its 3 judgement(s) was scored"},
		},
		"with a model: no call made for them": {
			llm: true, args: []string{"--min", "0.1"}, code: exitInfra,
			lines: []string{"calls 0", "skipped 3 result(s)", "none of its 3 judgement(s) was scored"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
			if tc.llm {
				env["ASSAY_LLM"], env["OPENAI_BASE_URL"] = "openai:gpt-4o-mini", srv.URL()
			}
			args := append([]string{"judge", "--metric", "faithfulness", "--format", "jsonl", "-q"}, tc.args...)
			code, stdout, stderr := runEnv(t, env, append(args, data)...)
			assert.Equal(t, tc.code, code, stderr)
			for _, s := range tc.lines {
				assert.Contains(t, stderr, s)
			}
			assert.Equal(t, 0, srv.Calls())
			assert.Equal(t, 3, strings.Count(stdout, `"skipped":true`), stdout)
			assert.NotContains(t, stdout, `"defaulted":true`)
		})
	}
}

// TestMaxSkipRate: skips have their own limit beside defaults: off by
// default (one scored judgement of three passes), and a share over
// --max-skip-rate is exit 3 naming the metric.
func TestMaxSkipRate(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id":"missing","question":"Where is the Eiffel Tower?","contexts":["The Eiffel Tower is in Paris."]}
{"id":"blank","question":"Where is the Eiffel Tower?","answer":"  ","contexts":["The Eiffel Tower is in Paris."]}
{"id":"said","question":"Where is the Eiffel Tower?","answer":"The Eiffel Tower is in Paris.","contexts":["The Eiffel Tower is in Paris."]}
`), 0o644))
	tests := map[string]struct {
		args []string
		code int
		want string
	}{
		"off by default":        {nil, exitPass, "skipped 2 result(s)"},
		"under the limit":       {[]string{"--max-skip-rate", "0.7"}, exitPass, "skipped 2 result(s)"},
		"over the limit":        {[]string{"--max-skip-rate", "0.5"}, exitInfra, "faithfulness: 2 of 3 judgement(s) skipped with nothing to judge, over --max-skip-rate 0.5"},
		"a share out of bounds": {[]string{"--max-skip-rate", "2"}, exitInput, "--max-skip-rate: want a share from 0 to 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"judge", "--metric", "faithfulness", "--format", "jsonl", "-q"}, tc.args...)
			code, _, stderr := runEnv(t, nil, append(args, data)...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// outageData writes n records, each naming itself in its answer and
// context ("(record 7)"), so that a request can be traced to its record.
func outageData(t *testing.T, n int) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data.jsonl")
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"r%d","question":"What is the boiling point of water at sea level?","answer":"Water boils at 100 degrees Celsius at sea level (record %d).","contexts":["At sea level, pure water boils at 100 degrees Celsius (record %d)."]}`+"\n", i, i, i)
	}
	require.NoError(t, os.WriteFile(data, []byte(b.String()), 0o644))
	return data
}

// benchResults reads a run's results.jsonl: the results by id, and how
// many were defaulted.
func benchResults(t *testing.T, dir string) (byID map[string]runpkg.Result, defaulted int) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "results.jsonl"))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	byID = map[string]runpkg.Result{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r runpkg.Result
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), sc.Text())
		byID[r.ID] = r // a later line of a pair replaces an earlier one
	}
	for _, r := range byID {
		if r.Defaulted {
			defaulted++
		}
	}
	return byID, defaulted
}

// TestBenchSurvivesOutages: a model server that blips, restarts, stalls
// or hangs once in the middle of a bench costs the run a pause, not its
// judgements: every one is real (no neutral default) and the run exits
// 0, at the default --call-timeout and --max-retry-time.
func TestBenchSurvivesOutages(t *testing.T) {
	t.Parallel()
	const records = 60 // faithfulness: 2 calls each
	data := outageData(t, records)
	tests := map[string]struct {
		opts []llmtest.Option
		// more: requests beyond the run's own 2 per record (the ones the
		// fault cut, their retries and hedges).
		more bool
	}{
		"the server stops for 0.3 s": {
			opts: []llmtest.Option{llmtest.At(40, func(s *llmtest.Server) { s.Down(300 * time.Millisecond) })}, more: true,
		},
		"the server restarts (down 2 s)": {
			opts: []llmtest.Option{llmtest.At(40, func(s *llmtest.Server) { s.Down(2 * time.Second) })}, more: true,
		},
		"the server stalls 4 s": {
			opts: []llmtest.Option{llmtest.At(40, func(s *llmtest.Server) { s.Stall(4 * time.Second) })}, more: true,
		},
		"a request hangs once, then every reply is 200": {
			opts: []llmtest.Option{llmtest.Script(llmtest.Reply{Delay: time.Hour})}, more: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, append(tc.opts, llmtest.Func(llmtest.JudgeReplies), llmtest.Quiet())...)
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test", "ASSAY_DATA_DIR": t.TempDir()}
			out := filepath.Join(t.TempDir(), "run")
			code, _, stderr := runEnv(t, env, "bench", "--llm", "openai:gpt-4o-mini", "--no-cache", "-q", "--concurrency", "4",
				"--metric", "faithfulness", "--out", out, data)
			assert.Equal(t, exitPass, code, stderr)
			assert.Contains(t, stderr, "neutral defaults 0")
			byID, defaulted := benchResults(t, out)
			assert.Len(t, byID, records, "one result per record")
			assert.Zero(t, defaulted, "every judgement real")
			if tc.more {
				// Requests refused while the server was down never reach
				// it: the client's count has them.
				var calls int
				_, err := fmt.Sscanf(stderr[strings.Index(stderr, "; calls ")+2:], "calls %d", &calls)
				require.NoError(t, err, stderr)
				assert.Greater(t, calls, 2*records, "the fault cost requests: %s", stderr)
			}
		})
	}
}

// TestBenchServerDownForGood: a server that goes down in the middle of a
// bench and stays down ends the run in bounded time (--max-retry-time)
// with exit 3, the judgements it could not make written as neutral
// defaults; once the server is back, --resume judges them, and no pair
// judged before is asked of the server again.
func TestBenchServerDownForGood(t *testing.T) {
	t.Parallel()
	const records = 60
	data := outageData(t, records)
	srv := llmtest.New(t, llmtest.At(40, (*llmtest.Server).Stop), llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test", "ASSAY_DATA_DIR": t.TempDir()}
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"bench", "--llm", "openai:gpt-4o-mini", "--no-cache", "-q", "--concurrency", "4",
		"--max-retry-time", "2s", "--metric", "faithfulness", "--out", out, data}
	code, _, stderr := runEnv(t, env, args...)
	assert.Equal(t, exitInfra, code, stderr)
	assert.Contains(t, stderr, "model server unreachable")
	first, defaulted := benchResults(t, out)
	require.Len(t, first, records, "every pair has a line")
	require.Positive(t, defaulted)
	require.Less(t, defaulted, records, "the pairs judged before the server went down are kept")

	srv.Restart()
	sent := len(srv.Requests())
	code, _, stderr = runEnv(t, env, append(args[:len(args)-1], "--resume", data)...)
	assert.Equal(t, exitPass, code, stderr)
	byID, defaulted := benchResults(t, out)
	assert.Len(t, byID, records)
	assert.Zero(t, defaulted, "every judgement real after the resume")
	asked := map[string]bool{}
	for _, req := range srv.Requests()[sent:] {
		for _, m := range req.Messages {
			for id := range first {
				if strings.Contains(m.Content, "(record "+strings.TrimPrefix(id, "r")+")") {
					asked[id] = true
				}
			}
		}
	}
	for id, r := range first {
		assert.Equal(t, r.Defaulted, asked[id], "%s: asked again on resume only when defaulted", id)
	}
}

// TestMixedFaultsNamedAndCounted: a run against a server that misbehaves
// in several ways (each retried or repaired as documented, the rest
// defaulted) fails, names each kind of default with its count, and prints
// the tokens and cost the server reported, no more and no less: in the
// usage line of judge and bench and in bench's summary.json.
func TestMixedFaultsNamedAndCounted(t *testing.T) {
	t.Parallel()
	faults := []llmtest.Reply{
		{Status: 500},                              // retried
		{Reset: true},                              // retried
		{Empty: true},                              // the next record's claims: defaulted, an empty reply
		{Refusal: "No."},                           // the next: defaulted, a refusal
		{Content: `{"x":1}`}, {Content: `{"x":2}`}, // the next: repaired once, then defaulted
		{Content: `{"claims": ["The fir`, FinishReason: "length"}, // the next: repaired
	}
	wantBy := "(1 empty reply, 1 refusal, 1 reply off the schema)"
	tests := map[string]struct {
		cmd []string
	}{
		"judge": {cmd: []string{"judge", "--format", "jsonl"}},
		"bench": {cmd: []string{"bench", "--out"}},
		"agree": {cmd: []string{"agree", "--label", "faithful"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Quiet(), llmtest.Script(faults...), llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test", "ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
			out := filepath.Join(t.TempDir(), "run")
			args := append([]string{}, tc.cmd...)
			if name == "bench" {
				args = append(args, out)
			}
			samples := benchSamples(t, 8)
			if name == "agree" {
				samples = withLabel(t, samples, `"human":{"faithful":true}`)
			}
			args = append(args, "--llm", "openai:gpt-4o-mini", "--no-cache", "-q", "--concurrency", "1", "--metric", "faithfulness",
				"--call-timeout", "10s", "--max-retry-time", "10s", samples)
			code, _, stderr := runEnv(t, env, args...)
			assert.Equal(t, exitInfra, code, stderr)
			assert.Contains(t, stderr, "3 of 8 judgements (37.5%) fell back to the neutral default "+wantBy+", over --max-default-rate 0.05")
			u := usageLine(t, stderr)
			in, outTokens := srv.Usage()
			assert.Equal(t, srv.Calls(), u[0], "calls")
			assert.Equal(t, 2, u[1], "retries")
			assert.Equal(t, [2]int{in, outTokens}, [2]int{u[3], u[4]}, "the usage line's tokens are the server's")
			assert.NotContains(t, stderr, "estimated")
			// gpt-4o-mini: $0.15 in, $0.60 out a million tokens.
			cost := (float64(in)*0.15 + float64(outTokens)*0.60) / 1e6
			assert.Contains(t, stderr, fmt.Sprintf("cost $%.4f;", cost))
			if name == "bench" {
				s := readSummary(t, out)
				assert.Equal(t, srv.Calls(), s.Usage.Calls)
				assert.Equal(t, in, s.Usage.TokensIn)
				assert.Equal(t, outTokens, s.Usage.TokensOut)
				assert.InDelta(t, cost, s.Usage.CostUSD, 1e-12)
			}
		})
	}
}

// withLabel is the JSON Lines file at path with field added to each
// record, written beside it.
func withLabel(t *testing.T, path, field string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	out := strings.ReplaceAll(strings.TrimSpace(string(data)), "}\n", ","+field+"}\n") + "\n"
	out = strings.TrimSuffix(out, "}\n") + "," + field + "}\n"
	labelled := path + ".labelled.jsonl"
	require.NoError(t, os.WriteFile(labelled, []byte(out), 0o600))
	return labelled
}
