package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	runpkg "github.com/assaylabs/assay/run"
)

// TestBadKeyExits3: the first 401 stops the run at once, with exit 3 and
// the server's message; no later call is sent.
func TestBadKeyExits3(t *testing.T) {
	t.Parallel()
	bad := llmtest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-bad","type":"invalid_request_error","code":"invalid_api_key"}}`}
	tests := map[string][]string{
		"judge": {"judge", "--metric", "faithfulness", "--format", "json"},
		"agree": {"agree", "--metric", "faithfulness", "--label", "faithful"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Default(bad))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
			args = append(args, "--no-cache", "--concurrency", "1", "../../fixtures/rag/labelled.jsonl")
			code, _, errOut := runEnv(t, env, args...)
			assert.Equal(t, exitInfra, code, errOut)
			assert.Contains(t, errOut, "refused the credentials")
			assert.Contains(t, errOut, "status 401: Incorrect API key provided: sk-bad")
			assert.Equal(t, 1, srv.Calls(), "one call, for six records")
		})
	}
}

// TestHungServerFailsFast: a server that never answers is taken as down
// after three timed-out attempts; calls then wait for it, and once it has
// stayed down past the retry time (--max-retry-time) every call fails at
// once, its judge's default naming the cause, instead of each waiting out
// its --call-timeout and retries.
func TestHungServerFailsFast(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Delay: time.Hour}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	code, out, errOut := runEnv(t, env, "judge", "--strict", "--no-cache", "--concurrency", "2", "--call-timeout", "100ms",
		"--max-retry-time", "1s", "--metric", "source_relevance", "--format", "json", "../../fixtures/rag/labelled.jsonl")
	assert.Equal(t, exitInfra, code, errOut)
	var results []runpkg.Result
	require.NoError(t, json.Unmarshal([]byte(out), &results))
	require.Len(t, results, 6)
	unreachable := 0
	for _, r := range results {
		assert.True(t, r.Defaulted, r.ID)
		assert.Contains(t, r.Error, "context deadline exceeded", r.ID)
		if strings.Contains(r.Error, "model server unreachable: ") {
			unreachable++
		}
	}
	// A call in flight when the server was taken as down (one per slot)
	// may end on its own last timeout, as the retry time runs out during
	// an attempt, before it waits for the server: the others are refused.
	assert.GreaterOrEqual(t, unreachable, len(results)-2, "calls refused as the server was down")
	// The calls in flight, one per slot freed before the verdict, and a
	// test of the server at each 1 s cool-down.
	assert.LessOrEqual(t, srv.Calls(), 2+2+2)
	assert.Contains(t, errOut, "neutral defaults 6")
}

// TestBudgetNeedsAPrice: a budget on a model missing from the price table
// cannot be kept, so it is a usage error naming the model and --prices,
// and a dry run marks the cost unknown rather than printing $0.
func TestBudgetNeedsAPrice(t *testing.T) {
	t.Parallel()
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte("judge-model: {in: 1, out: 2}\n"), 0o600))
	tests := map[string]struct {
		args    []string
		code    int
		stdout  string
		stderr  string
		nothing string // not in stdout
	}{
		"a budget without a price is exit 2": {
			args: []string{"judge", "--max-cost", "0.0001"}, code: exitInput,
			stderr: "--max-cost: model judge-model is not in the price table, so its spending cannot be counted; give --prices FILE",
		},
		"a dry run marks the cost unknown": {
			args: []string{"judge", "--dry-run"}, code: exitPass,
			stdout: "cost unknown: model judge-model is not in the price table; give --prices FILE", nothing: "0.0000",
		},
		"with --prices the dry run is priced": {
			args: []string{"judge", "--dry-run", "--max-cost", "1", "--prices", prices}, code: exitPass,
			stdout: "within --max-cost $1.0000", nothing: "unknown",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
			code, out, errOut := runEnv(t, env, append(tc.args, "--no-cache", "--metric", "faithfulness", "../../fixtures/rag/labelled.jsonl")...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, out, tc.stdout)
			assert.Contains(t, errOut, tc.stderr)
			if tc.nothing != "" {
				assert.NotContains(t, out, tc.nothing)
			}
			assert.Equal(t, 0, srv.Calls())
		})
	}
}

// TestBudgetStopExits3: a run whose budget stopped calls exits 3, saying
// how many calls were not made, in judge and in agree.
func TestBudgetStopExits3(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"judge": {"judge", "--metric", "source_relevance", "--format", "json"},
		"agree": {"agree", "--metric", "source_relevance", "--label", "faithful"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL()}
			code, _, errOut := runEnv(t, env, append(args, "--no-cache", "--concurrency", "1", "--max-cost", "0.0001", "../../fixtures/rag/labelled.jsonl")...)
			assert.Equal(t, exitInfra, code, errOut)
			assert.Regexp(t, `assay: budget reached: [1-9][0-9]* call\(s\) not made \(--max-cost \$0.0001\)`, errOut)
			assert.Less(t, srv.Calls(), 12, "the budget stopped calls")
		})
	}
}

// TestCorruptCacheSaysSo: a cache file whose pages were overwritten is
// set aside and a new one started, said on stderr, and counted in the
// usage line; the run goes on.
func TestCorruptCacheSaysSo(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		off    int64 // garbage from here to the end of the file
		stderr []string
	}{
		"a malformed page, found on use": {off: 4096, stderr: []string{"cache errors 1", "is corrupt (database disk image is malformed", "set aside as "}},
		"a broken header, found at open": {off: 0, stderr: []string{"is corrupt (", "set aside as "}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			dir := t.TempDir()
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": dir}
			args := []string{"judge", "--concurrency", "1", "--metric", "faithfulness,source_relevance", "--format", "json", "../../fixtures/rag/labelled.jsonl"}
			code, _, errOut := runEnv(t, env, args...)
			require.Equal(t, exitPass, code, errOut)
			first := srv.Calls()

			path := filepath.Join(dir, "llm-cache.db")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Greater(t, len(data), int(tc.off)+4096)
			for i := tc.off; i < int64(len(data)); i++ {
				data[i] = byte(i*131 + 7)
			}
			require.NoError(t, os.WriteFile(path, data, 0o600))

			code, _, errOut = runEnv(t, env, args...)
			require.Equal(t, exitPass, code, errOut)
			for _, s := range tc.stderr {
				assert.Contains(t, errOut, s)
			}
			assert.Equal(t, 1, strings.Count(errOut, "set aside as "), errOut)
			// Every reply is asked again, but for at most one read before
			// the damage was found (which of the file's pages a read hits
			// first is the scheduler's).
			second := srv.Calls()
			assert.GreaterOrEqual(t, second, 2*first-1, "the lost replies are asked again")
			assert.LessOrEqual(t, second, 2*first)
			aside, err := filepath.Glob(path + ".corrupt-*")
			require.NoError(t, err)
			assert.Len(t, aside, 1)

			code, _, errOut = runEnv(t, env, args...)
			require.Equal(t, exitPass, code, errOut)
			assert.Equal(t, second, srv.Calls(), "the new cache answers")
			assert.NotContains(t, errOut, "cache errors")
		})
	}
}

// TestTPMSaysWhenItHoldsCallsBack: a tokens-per-minute limit that makes
// calls wait says so on stderr, once a spell of waits. The first reply
// reports 60,300 tokens against --tpm 60000 (1,000 a second): its debt
// holds the next call back a fraction of a second.
func TestTPMSaysWhenItHoldsCallsBack(t *testing.T) {
	t.Parallel()
	var first atomic.Bool
	srv := llmtest.New(t, llmtest.Func(func(req goopenai.ChatCompletionRequest) llmtest.Reply {
		r := llmtest.JudgeReplies(req)
		if first.CompareAndSwap(false, true) {
			r.PromptTokens = 60300
		}
		return r
	}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	code, _, errOut := runEnv(t, env, "judge", "--no-cache", "--concurrency", "1", "--tpm", "60000", "--metric", "faithfulness", "../../fixtures/rag/eiffel.json")
	require.Equal(t, exitPass, code, errOut)
	assert.Equal(t, 1, strings.Count(errOut, "assay: --tpm 60000 is holding calls back (next in "), errOut)
	assert.Equal(t, 2, srv.Calls())
}

// TestBudgetBoundsAResumedRunInAll: --max-cost bounds what a run spends
// in all, its earlier attempts included. The first attempt pays for two
// source_relevance calls (the two Great Wall records' call fails, a 400,
// unpaid, and defaults); a resume under a budget those two spent makes no
// call, and says what the run spent; one with room left makes the call
// it redoes and keeps within it; a finished run resumed under what it
// spent judges nothing and passes. The price, $1,000 a million tokens in
// and nothing out, makes each call about $0.23 and its estimate its price.
func TestBudgetBoundsAResumedRunInAll(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		failFirst  bool    // the Great Wall call fails in the first attempt
		extra      float64 // the resume's --max-cost is what the first attempt spent, plus this
		wantCode   int
		wantCalls  bool // the resume makes calls (one or two: the Great Wall records' call, sent once or twice)
		wantStop   string
		wantNoStop bool
	}{
		"under what the earlier attempt spent": {failFirst: true, wantCode: exitInfra,
			wantStop: `bench: stopped by --max-cost \$[0-9.]+: the run spent \$0\.\d{4} on \d+ call\(s\) in all, \$0\.0000 on 0 in this attempt, then made no more`},
		"with room left for the call redone": {failFirst: true, extra: 1, wantCode: exitPass, wantCalls: true, wantNoStop: true},
		"a finished run under what it spent": {extra: -0.2, wantCode: exitPass, wantNoStop: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var fail atomic.Bool
			fail.Store(tc.failFirst)
			srv := llmtest.New(t, llmtest.Func(func(req goopenai.ChatCompletionRequest) llmtest.Reply {
				for _, m := range req.Messages {
					if fail.Load() && strings.Contains(m.Content, "Great Wall") {
						return llmtest.Reply{Status: 400, Body: `{"error":{"message":"no","type":"invalid_request_error"}}`}
					}
				}
				return llmtest.JudgeReplies(req)
			}))
			dir := t.TempDir()
			prices := filepath.Join(dir, "prices.yaml")
			require.NoError(t, os.WriteFile(prices, []byte("gpt-4o-mini: {in: 1000, out: 0}\n"), 0o600))
			env := tempEnv(t)
			env["ASSAY_LLM"], env["OPENAI_BASE_URL"] = "openai:gpt-4o-mini", srv.URL()
			out := filepath.Join(dir, "run")
			args := []string{"bench", "--metric", "source_relevance", "--no-cache", "--concurrency", "1", "--max-default-rate", "1", "--prices", prices, "--out", out}
			spent := func() float64 {
				var s struct {
					Usage struct {
						CostUSD float64 `json:"cost_usd"`
					} `json:"usage"`
				}
				data, err := os.ReadFile(filepath.Join(out, "summary.json"))
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(data, &s))
				return s.Usage.CostUSD
			}
			code, _, errOut := runEnv(t, env, append(args, "../../fixtures/rag/labelled.jsonl")...)
			require.Equal(t, exitPass, code, errOut)
			first, before := spent(), srv.Calls()
			require.Greater(t, first, 0.4, "two calls or more paid")
			fail.Store(false)
			budget := strconv.FormatFloat(first+tc.extra, 'f', -1, 64)
			code, _, errOut = runEnv(t, env, append(args, "--resume", "--max-cost", budget, "../../fixtures/rag/labelled.jsonl")...)
			assert.Equal(t, tc.wantCode, code, errOut)
			assert.Equal(t, tc.wantCalls, srv.Calls() > before, "calls the resume made: %d", srv.Calls()-before)
			if tc.wantStop != "" {
				assert.Regexp(t, tc.wantStop, errOut)
			}
			if tc.wantNoStop {
				assert.NotContains(t, errOut, "budget")
			}
			assert.LessOrEqual(t, spent(), first+max(tc.extra, 0), "the run in all keeps to the budget")
		})
	}
}
