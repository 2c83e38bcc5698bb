package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	runpkg "github.com/assaylabs/assay/run"
)

// usageLineRe reads the usage line's calls, cache hits and paid tokens.
var usageLineRe = regexp.MustCompile(`calls (\d+) \(retries (\d+)(?:, hedged \d+)?, cache hits (\d+)\), tokens (\d+) in / (\d+) out`)

// usageLine is the usage line's calls, retries, cache hits and paid
// tokens in and out.
func usageLine(t *testing.T, stderr string) [5]int {
	t.Helper()
	m := usageLineRe.FindStringSubmatch(stderr)
	require.NotNil(t, m, "no usage line in %s", stderr)
	var out [5]int
	for i := range out {
		n, err := strconv.Atoi(m[i+1])
		require.NoError(t, err)
		out[i] = n
	}
	return out
}

func readSummary(t *testing.T, dir string) runpkg.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, runpkg.FileSummary))
	require.NoError(t, err)
	var s runpkg.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// TestBenchUsageCountsPaid: a run's usage line, summary.json and runs
// show count the tokens paid for; the replies served from the cache are
// counted apart, and a --no-cache run has none; the calls the line
// counts are the requests the model server received, retries included.
func TestBenchUsageCountsPaid(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		first   []llmtest.Reply // scripted before the judge replies
		noCache bool
	}{
		"a cached rerun pays nothing":              {},
		"a --no-cache rerun pays again, no hits":   {noCache: true},
		"retries are calls the server counted too": {first: []llmtest.Reply{{Status: 500}, {Status: 500}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Quiet(), llmtest.Script(tc.first...), llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "test",
				"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
			data := benchSamples(t, 4)
			bench := func(out string, noCache bool) (code int, stderr string) {
				args := []string{"bench", "--llm", "openai:judge-model", "--concurrency", "1", "-q", "--metric", "faithfulness", "--out", out, data}
				if noCache {
					args = append(args, "--no-cache")
				}
				code, _, stderr = runEnv(t, env, args...)
				return code, stderr
			}
			first := filepath.Join(t.TempDir(), "first")
			code, errOut := bench(first, false)
			require.Equal(t, 0, code, errOut)
			u1 := usageLine(t, errOut)
			assert.Equal(t, srv.Calls(), u1[0], "the first run's calls are the server's requests: %s", errOut)
			assert.Equal(t, len(tc.first), u1[1], "retries")
			assert.Zero(t, u1[2], "no cache hits on a first run")
			s1 := readSummary(t, first)
			require.Positive(t, s1.Usage.TokensIn)
			assert.Equal(t, u1[0], s1.Usage.Calls)
			assert.Equal(t, u1[3], s1.Usage.TokensIn)
			assert.Zero(t, s1.Usage.CacheHits)

			served := srv.Calls()
			second := filepath.Join(t.TempDir(), "second")
			code, errOut = bench(second, tc.noCache)
			require.Equal(t, 0, code, errOut)
			u2 := usageLine(t, errOut)
			s2 := readSummary(t, second)
			assert.Equal(t, srv.Calls()-served, u2[0], "the rerun's calls are the server's new requests: %s", errOut)
			if tc.noCache {
				assert.Zero(t, u2[2], "cache hits")
				assert.Zero(t, s2.Usage.CacheHits)
				assert.Zero(t, s2.Usage.CachedTokensIn)
				assert.Equal(t, s1.Usage.TokensIn, s2.Usage.TokensIn, "paid again")
				assert.NotContains(t, errOut, "from the cache")
				return
			}
			assert.Equal(t, [5]int{0, 0, u1[0] - len(tc.first), 0, 0}, u2, "no call, a hit per reply, nothing paid: %s", errOut)
			assert.Contains(t, errOut, fmt.Sprintf("paid, %d in / %d out from the cache", s1.Usage.TokensIn, s1.Usage.TokensOut))
			assert.Zero(t, s2.Usage.Calls)
			assert.Zero(t, s2.Usage.TokensIn)
			assert.Zero(t, s2.Usage.TokensOut)
			assert.Zero(t, s2.Usage.CostUSD)
			assert.Equal(t, s1.Usage.TokensIn, s2.Usage.CachedTokensIn)
			assert.Equal(t, s1.Usage.TokensOut, s2.Usage.CachedTokensOut)
			require.Len(t, s2.Metrics, 1)
			assert.Zero(t, s2.Metrics[0].TokensIn)
			assert.Equal(t, s1.Usage.TokensIn, s2.Metrics[0].CachedTokensIn)

			code, show, errOut := runEnv(t, env, "runs", "show", second)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, show, "(0 calls, 0 tokens in, 0 out)")
			assert.Contains(t, show, fmt.Sprintf("served from the cache, not paid (%d tokens in, %d out)", s1.Usage.TokensIn, s1.Usage.TokensOut))
			html, err := os.ReadFile(filepath.Join(second, "report.html"))
			require.NoError(t, err)
			assert.Contains(t, string(html), "0 model calls · 0 tokens in · 0 out (paid)")
			assert.Contains(t, string(html), fmt.Sprintf("replies from the cache, not paid · %d tokens in", s1.Usage.TokensIn))
		})
	}
}
