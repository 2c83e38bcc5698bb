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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/internal/llmtest"
)

// TestJudgeFaultTable runs `assay judge` over 20 records against a model
// server that misbehaves in one way on every call (llmtest.Faults, which
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

	rate := "20 of 20 judgements (100%) fell back to the neutral default, over --max-default-rate 0.05"
	tests := map[string]struct {
		fault  string // the name in llmtest.Faults
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
		"bodies cut off in transit: taken as down": {
			fault:  "truncated",
			stderr: []string{rate, "unexpected EOF"}, calls: 12, atMost: true, someResult: "model server unreachable",
		},
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.fault] = true
	}
	require.Len(t, covered, len(llmtest.Faults), "every fault of llmtest.Faults has a row")
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fault, ok := llmtest.Faults[tc.fault]
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
				var r bench.Result
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
