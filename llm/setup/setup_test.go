package setup_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/setup"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestOpenRefusesBadSettings: each setting that cannot work is refused
// before anything is built, naming the flag and what to do.
func TestOpenRefusesBadSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badPrices := filepath.Join(dir, "prices.yaml")
	require.NoError(t, os.WriteFile(badPrices, []byte("gpt-4o: [1, 2]\n"), 0o600))
	endless := filepath.Join(dir, "endless.yaml") // 10 MB of blanks and a byte: read to its end, it would not fit
	fh, err := os.Create(endless)
	require.NoError(t, err)
	require.NoError(t, fh.Truncate(10<<20+1))
	require.NoError(t, fh.Close())
	tests := map[string]struct {
		change func(*setup.Config)
		env    map[string]string
		want   string
	}{
		"no call in flight":     {change: func(c *setup.Config) { c.Concurrency = 0 }, want: "--concurrency: want 1 to 4096 calls in flight, got 0"},
		"calls past any server": {change: func(c *setup.Config) { c.Concurrency = 100000000 }, want: "--concurrency: want 1 to 4096 calls in flight, got 100000000"},
		"a negative budget":     {change: func(c *setup.Config) { c.MaxCostUSD = -1 }, want: "--max-cost: want US dollars, 0 or more (0: no limit), got -1"},
		"a budget of NaN":       {change: func(c *setup.Config) { c.MaxCostUSD = math.NaN() }, want: "--max-cost: want US dollars, 0 or more (0: no limit), got NaN"},
		"an infinite budget":    {change: func(c *setup.Config) { c.MaxCostUSD = math.Inf(1) }, want: "--max-cost: want US dollars, 0 or more (0: no limit), got +Inf"},
		"a negative rpm":        {change: func(c *setup.Config) { c.RPM = -5 }, want: "--rpm: must not be negative (0: no limit), got -5"},
		"a negative tpm":        {change: func(c *setup.Config) { c.TPM = -1 }, want: "--tpm: must not be negative (0: no limit), got -1"},
		"no time for an call":   {change: func(c *setup.Config) { c.CallTimeout = 0 }, want: "--call-timeout: must be positive, got 0s"},
		"no time for retries":   {change: func(c *setup.Config) { c.MaxRetryTime = -time.Second }, want: "--max-retry-time: must be positive, got -1s"},
		"an unknown backend":    {change: func(c *setup.Config) { c.Spec = "gemini:pro" }, want: `--llm: unknown backend "gemini" in "gemini:pro": want one of offline, openai, ollama, vllm, llamacpp, lmstudio, langchain`},
		"OpenAI without a key":  {change: func(c *setup.Config) { c.Spec = "openai:gpt-4o" }, want: "--llm: openai:gpt-4o: OPENAI_API_KEY is not set (or set OPENAI_BASE_URL for a local server)"},
		"ASSAY_LLM is read": {env: map[string]string{"ASSAY_LLM": "nope"},
			want: `--llm: unknown backend "nope" in "nope": want one of offline, openai, ollama, vllm, llamacpp, lmstudio, langchain`},
		"a missing prices file":         {change: func(c *setup.Config) { c.PricesFile = filepath.Join(dir, "none.yaml") }, want: "--prices: " + filepath.Join(dir, "none.yaml") + ": cannot read: no such file or directory"},
		"a prices file that never ends": {change: func(c *setup.Config) { c.PricesFile = endless }, want: "--prices: " + endless + ": larger than the 10 MB limit of a price file"},
		"a folder for prices":           {change: func(c *setup.Config) { c.PricesFile = dir }, want: "--prices: " + dir + ": is a directory, not a price file"},
		"a batch on the offline backend": {
			change: func(c *setup.Config) { c.Spec, c.Batch = "offline", true },
			want:   "--batch: offline has no batch endpoint; batches go to an OpenAI-compatible server (--llm openai:MODEL, $OPENAI_BASE_URL)",
		},
		"a budget without a price": {
			change: func(c *setup.Config) { c.Spec, c.MaxCostUSD = "vllm:my-model", 1 },
			want:   "--max-cost: model my-model is not in the price table, so its spending cannot be counted; give --prices FILE with its price per million tokens ({my-model: {in: 0.15, out: 0.6}})",
		},
		"a budget without the embedding model's price": {
			change: func(c *setup.Config) { c.Spec, c.MaxCostUSD = "vllm:gpt-4o-mini", 1 },
			env:    map[string]string{"ASSAY_EMBEDDING_MODEL": "my-embed"},
			want:   "--max-cost: embedding model my-embed ($ASSAY_EMBEDDING_MODEL) is not in the price table, so its spending cannot be counted; give --prices FILE with its price per million tokens ({my-embed: {in: 0.02, out: 0}})",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := setup.DefaultConfig()
			if tc.change != nil {
				tc.change(&cfg)
			}
			c, closer, err := setup.Open(cfg, envOf(tc.env))
			assert.Nil(t, c)
			assert.Nil(t, closer)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
	t.Run("a prices file that is not a table", func(t *testing.T) {
		t.Parallel()
		cfg := setup.DefaultConfig()
		cfg.PricesFile = badPrices
		_, _, err := setup.Open(cfg, envOf(nil))
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), "--prices: "), err.Error())
	})
}

// TestOpenBatchesOnAnOpenAICompatibleServer: --batch gives the client a
// batch whose calls go to the server's batch endpoint.
func TestOpenBatchesOnAnOpenAICompatibleServer(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	cfg := setup.DefaultConfig()
	cfg.Spec, cfg.Batch, cfg.NoCache = "vllm:judge", true, true
	c, closer, err := setup.Open(cfg, envOf(map[string]string{"OPENAI_BASE_URL": srv.URL()}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = closer.Close() })
	require.NotNil(t, c.Batch())
	_, err = c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
	require.ErrorIs(t, err, llm.ErrBatchPending)
	st, err := c.Batch().Submit(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "batch_1", st.ID)
	assert.Zero(t, srv.Calls())
	assert.Equal(t, 1, srv.BatchCounts().Created)
}

// TestOpenBuildsTheCommandsClient: the client the command line builds,
// in one call: the backend from the environment, the cache under
// $ASSAY_CACHE_DIR answering the second run, the prices file read, and
// nothing said when all goes well.
func TestOpenBuildsTheCommandsClient(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: `{"verdict":"yes"}`, PromptTokens: 1000000, CompletionTokens: 1000000}))
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte("judge-model: {in: 1, out: 2}\n"), 0o600))
	env := envOf(map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": dir})
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Is it so?"}}, Tag: "test"}
	for run := range 2 {
		var notes strings.Builder
		cfg := setup.DefaultConfig()
		cfg.PricesFile, cfg.MaxCostUSD, cfg.Notices = prices, 10, &notes
		c, closer, err := setup.Open(cfg, env)
		require.NoError(t, err)
		assert.Equal(t, "openai:judge-model", c.Name())
		assert.Equal(t, 10.0, c.MaxCost())
		resp, err := c.Chat(context.Background(), req)
		require.NoError(t, err)
		assert.JSONEq(t, `{"verdict":"yes"}`, resp.Content)
		u := c.Usage()
		if run == 0 {
			assert.Equal(t, 1, u.Calls)
			assert.InDelta(t, 3.0, u.CostUSD, 1e-9, "the prices file's $1 in and $2 out a million tokens")
		} else {
			assert.Equal(t, 1, u.CacheHits, "the second run is answered from the cache")
		}
		require.NoError(t, closer.Close())
		assert.Empty(t, notes.String())
	}
	assert.Equal(t, 1, srv.Calls())
	assert.FileExists(t, filepath.Join(dir, "llm-cache.db"))
}

// TestOpenCache: where the cache is, when there is none, and a cache that
// cannot be opened, which is said and leaves the client without one.
func TestOpenCache(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "ok"}))
	notADir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notADir, []byte("x"), 0o600))
	tests := map[string]struct {
		spec      string
		noCache   bool
		cachePath string
		dirEnv    bool
		file      string // the cache file made, relative to the dir
		notice    string
	}{
		"in ASSAY_CACHE_DIR":         {dirEnv: true, file: "llm-cache.db"},
		"at the path given":          {dirEnv: true, cachePath: "elsewhere.db", file: "elsewhere.db"},
		"none with NoCache":          {dirEnv: true, noCache: true},
		"none offline":               {spec: "offline", dirEnv: true},
		"one that cannot be created": {cachePath: filepath.Join(notADir, "c.db"), notice: "assay: response cache off: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
			if tc.dirEnv {
				env["ASSAY_CACHE_DIR"] = dir
			}
			var notes strings.Builder
			cfg := setup.DefaultConfig()
			cfg.Spec, cfg.NoCache, cfg.Notices = tc.spec, tc.noCache, &notes
			cfg.CachePath = tc.cachePath
			if tc.cachePath != "" && !filepath.IsAbs(tc.cachePath) {
				cfg.CachePath = filepath.Join(dir, tc.cachePath)
			}
			c, closer, err := setup.Open(cfg, envOf(env))
			require.NoError(t, err)
			defer func() { require.NoError(t, closer.Close()) }()
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if tc.file == "" {
				assert.Empty(t, names)
			} else {
				assert.Contains(t, names, tc.file)
			}
			if tc.notice == "" {
				assert.Empty(t, notes.String())
				return
			}
			assert.True(t, strings.HasPrefix(notes.String(), tc.notice), notes.String())
			assert.Equal(t, 1, strings.Count(notes.String(), "\n"))
			_, err = c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
			require.NoError(t, err, "the client goes on without a cache")
		})
	}
}

// TestOpenSaysACorruptCacheWasSetAside: a cache file that is not a
// database is set aside when opened, said once, and a new one started.
func TestOpenSaysACorruptCacheWasSetAside(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "ok"}))
	dir := t.TempDir()
	path := filepath.Join(dir, "llm-cache.db")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database ", 1000)), 0o600))
	var notes strings.Builder
	cfg := setup.DefaultConfig()
	cfg.Notices = &notes
	_, closer, err := setup.Open(cfg, envOf(map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": dir}))
	require.NoError(t, err)
	require.NoError(t, closer.Close())
	assert.Equal(t, 1, strings.Count(notes.String(), "set aside as "), notes.String())
	assert.True(t, strings.HasPrefix(notes.String(), "assay: llm cache "+path+" is corrupt ("), notes.String())
	aside, err := filepath.Glob(path + ".corrupt-*")
	require.NoError(t, err)
	assert.Len(t, aside, 1)
	assert.FileExists(t, path)
}

// TestOpenSaysAModelHasNoPrice: a real run on a model missing from the
// price table names it once on the notices, and its cost is unknown,
// never $0.0000; a priced model, or one the cache answers, says nothing.
func TestOpenSaysAModelHasNoPrice(t *testing.T) {
	t.Parallel()
	const notice = "assay: model judge-model is not in the price table, so the cost of its calls is unknown; give --prices FILE with its price per million tokens ({judge-model: {in: 0.15, out: 0.6}})\n"
	tests := map[string]struct {
		prices string // the prices file, when there is one
		notes  string
		cost   string
	}{
		"no price":     {notes: notice, cost: "unknown"},
		"a price":      {prices: "judge-model: {in: 1, out: 2}\n", cost: "$4.5000"}, // 3 x (0.5 x $1 + 0.5 x $2)
		"a zero price": {prices: "judge-model: {in: 0, out: 0}\n", cost: "$0.0000"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "ok", PromptTokens: 500000, CompletionTokens: 500000}))
			dir := t.TempDir()
			var notes strings.Builder
			cfg := setup.DefaultConfig()
			cfg.NoCache, cfg.Notices = true, &notes
			if tc.prices != "" {
				cfg.PricesFile = filepath.Join(dir, "prices.yaml")
				require.NoError(t, os.WriteFile(cfg.PricesFile, []byte(tc.prices), 0o600))
			}
			c, closer, err := setup.Open(cfg, envOf(map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}))
			require.NoError(t, err)
			defer func() { require.NoError(t, closer.Close()) }()
			for i := range 3 {
				_, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "call " + strconv.Itoa(i)}}})
				require.NoError(t, err)
			}
			assert.Equal(t, 3, srv.Calls())
			assert.Equal(t, tc.notes, notes.String(), "said once, for three calls")
			assert.Equal(t, tc.cost, c.Usage().Cost())
			_, known := c.Spent()
			assert.Equal(t, tc.cost != "unknown", known)
		})
	}
}

// TestOpenRefusesATypoInThePrices: a prices file with input for in is an
// input error naming the file, the line and the key, before any call; it
// used to price every call at $0 and switch --max-cost off.
func TestOpenRefusesATypoInThePrices(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "ok"}))
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte("judge-model:\n  input: 5\n  output: 10\n"), 0o600))
	cfg := setup.DefaultConfig()
	cfg.PricesFile, cfg.MaxCostUSD, cfg.NoCache = prices, 0.0001, true
	c, _, err := setup.Open(cfg, envOf(map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}))
	assert.Nil(t, c)
	require.Error(t, err)
	ie, ok := errors.AsType[*eval.InputError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, prices, ie.File)
	assert.Equal(t, 2, ie.Line)
	assert.Equal(t, "judge-model.input", ie.Field)
	assert.Equal(t, "--prices: "+prices+`:2:3: judge-model.input: unknown key "input": a price has in and out (US dollars per million tokens), and may have batch (the share of it batch calls pay)`, err.Error())
	assert.Equal(t, 0, srv.Calls())
}
