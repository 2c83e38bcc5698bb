package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/internal/llmtest"
)

// researchReplies answers the judges' prompts and the research workflow's
// own (its stand-in, agent.StandIn) as a model would.
var researchReplies = llmtest.ResearchReplies(agent.StandIn)

func TestResearchCommand(t *testing.T) {
	cache := t.TempDir()
	env := map[string]string{"ASSAY_CACHE_DIR": cache}
	out1, out2 := t.TempDir(), t.TempDir()
	q := "How do heat pumps perform in cold climates?"

	code, stdout, stderr := runEnv(t, env, "research", "--now", "2026-11-23", "--out", out1, q)
	require.Equal(t, exitPass, code, stderr)
	assert.Contains(t, stdout, "## Executive Summary")
	assert.Contains(t, stdout, "# Score card: PASS")
	assert.Contains(t, stdout, "Research status: **pass**")
	assert.Contains(t, stderr, "[0] search")
	assert.Contains(t, stderr, "[0] score")

	for _, f := range []string{"report.md", "card.json", "sources.json", "trace.jsonl"} {
		st, err := os.Stat(filepath.Join(out1, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	var card map[string]any
	data, err := os.ReadFile(filepath.Join(out1, "card.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &card))
	assert.Equal(t, "pass", card["status"])
	assert.Equal(t, "full_report", card["decision"])
	assert.Contains(t, card, "qos")
	trace, err := os.ReadFile(filepath.Join(out1, "trace.jsonl"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, strings.Count(string(trace), "\n"), 5)

	// The same run again gives the same report and card, times aside.
	code, _, stderr = runEnv(t, env, "research", "--now", "2026-11-23", "--out", out2, q)
	require.Equal(t, exitPass, code, stderr)
	r1, _ := os.ReadFile(filepath.Join(out1, "report.md"))
	r2, _ := os.ReadFile(filepath.Join(out2, "report.md"))
	assert.Equal(t, string(r1), string(r2))
	c2, _ := os.ReadFile(filepath.Join(out2, "card.json"))
	assert.Equal(t, withoutTimes(t, data), withoutTimes(t, c2))
}

// withoutTimes drops the QoS timings of a card.json.
func withoutTimes(t *testing.T, data []byte) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	delete(m, "qos")
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

func TestResearchExitCodes(t *testing.T) {
	env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
	tests := map[string]struct {
		args []string
		code int
		want string
	}{
		"insufficient data exits 1": {[]string{"research", "-q", "--now", "2026-11-23", "How much does a wedding guitarist charge per hour?"}, exitFailed, "insufficient_data"},
		"unknown mode":              {[]string{"research", "--mode", "fast", "q"}, exitInput, `--mode: unknown mode "fast"`},
		"bad search":                {[]string{"research", "--search", "bing", "q"}, exitInput, "--search: must be local or searxng:URL"},
		"searxng without URL":       {[]string{"research", "--search", "searxng:", "q"}, exitInput, "searxng needs a URL"},
		"missing corpus":            {[]string{"research", "--corpus", "/does/not/exist", "q"}, exitInput, "--corpus"},
		"empty question":            {[]string{"research", "  "}, exitInput, "the question is empty"},
		"bad format":                {[]string{"research", "--format", "xml", "q"}, exitInput, "--format"},
		"no question":               {[]string{"research"}, exitInput, "accepts 1 arg"},
		"cutoff out of range":       {[]string{"research", "--relevance-cutoff", "0.5", "q"}, exitInput, "--relevance-cutoff"},
		"cutoff above 5":            {[]string{"research", "--relevance-cutoff", "6", "q"}, exitInput, "--relevance-cutoff: must be a grade from 1 to 5, got 6"},
		// 0 is no grade: refused, not read as "the default".
		"cutoff 0":                    {[]string{"research", "--relevance-cutoff", "0", "q"}, exitInput, "--relevance-cutoff: must be a grade from 1 to 5, got 0"},
		"searxng with an ftp URL":     {[]string{"research", "--search", "searxng:ftp://x", "q"}, exitInput, `--search: "ftp://x": want an http or https URL`},
		"searxng with a URL, no host": {[]string{"research", "--search", "searxng:http://", "q"}, exitInput, `--search: "http://": no host`},
		"searxng with a bare word":    {[]string{"research", "--search", "searxng:localhost", "q"}, exitInput, `--search: "localhost": want an http or https URL`},
		"a context profile":           {[]string{"research", "--profile", "context", "q"}, exitInput, `--profile: "context" is a context profile`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runEnv(t, env, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// TestResearchRelevanceCutoffFlag: --relevance-cutoff reaches the gate;
// the job's tests cover what it keeps and drops.
func TestResearchRelevanceCutoffFlag(t *testing.T) {
	env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
	code, stdout, stderr := runEnv(t, env, "research", "-q", "--now", "2026-11-23", "--relevance-cutoff", "1", "--format", "json",
		"What share of lithium-ion batteries is recycled today?")
	require.Contains(t, []int{exitPass, exitFailed}, code, stderr)
	var run struct {
		Mode struct {
			Cutoff int `json:"relevance_cutoff"`
		} `json:"mode"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	assert.Equal(t, 1, run.Mode.Cutoff)
	assert.NotContains(t, stdout, "below 3", "no source dropped under the default cutoff")
}

func TestResearchBadCorpusNamesFileLineField(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("---\nurl: https://example.org/a\npublished: 2026-13-45\n---\nBody text here.\n"), 0o644))
	code, _, stderr := runEnv(t, map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}, "research", "--corpus", dir, "anything")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, "a.md:3")
	assert.Contains(t, stderr, "published")
}

func TestResearchDryRun(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(researchReplies))
	env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL()}
	code, out, stderr := runEnv(t, env, "research", "--dry-run", "How do heat pumps perform in cold climates?")
	require.Equal(t, exitPass, code, stderr)
	assert.Equal(t, 0, srv.Calls(), "a dry run calls no model")
	assert.Contains(t, out, "research.summarize          7")
	assert.Contains(t, out, "source.relevance            7")
	assert.Contains(t, out, "research.synthesize         1")
	// The run itself, with stand-in replies: its first scoring asks for a
	// repair, whose scoring judges completeness again.
	assert.Contains(t, out, "completeness                2")
	assert.Contains(t, out, "total                      17")
}

// TestResearchOutWithATakenNameFailsBeforeTheRun: the folder is written
// as the run goes, so a file name it cannot replace is found before the
// run starts, and the earlier run's files are left as they were.
func TestResearchOutWithATakenNameFailsBeforeTheRun(t *testing.T) {
	env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
	q := "How do heat pumps perform in cold climates?"
	tests := map[string]struct {
		// block makes one of the run's files unwritable before the second run.
		block string
	}{
		"sources.json cannot be written": {block: "sources.json"},
		"trace.jsonl cannot be written":  {block: "trace.jsonl"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := runEnv(t, env, "research", "-q", "--now", "2026-11-23", "--out", out,
				"How much does a wedding guitarist charge per hour?")
			require.Equal(t, exitFailed, code, stderr)
			before := map[string]string{}
			for _, f := range []string{"report.md", "card.json", "sources.json", "trace.jsonl"} {
				b, err := os.ReadFile(filepath.Join(out, f))
				require.NoError(t, err)
				before[f] = string(b)
			}
			require.NoError(t, os.Remove(filepath.Join(out, tc.block)))
			require.NoError(t, os.Mkdir(filepath.Join(out, tc.block), 0o755))

			code, stdout, stderr := runEnv(t, env, "research", "--now", "2026-11-23", "--out", out, q)
			assert.Equal(t, exitInput, code, stderr)
			assert.Contains(t, stderr, "--out "+filepath.Join(out, tc.block)+": exists and is not a regular file")
			assert.NotContains(t, stderr, "[0] search", "nothing runs")
			assert.Empty(t, stdout)
			for f, want := range before {
				if f == tc.block {
					continue
				}
				got, err := os.ReadFile(filepath.Join(out, f))
				require.NoError(t, err)
				assert.Equal(t, want, string(got), "%s of the earlier run is kept whole", f)
			}
			ents, err := os.ReadDir(out)
			require.NoError(t, err)
			assert.Len(t, ents, 4, "no temporary files are left behind")
		})
	}
}

func TestResearchOutNotWritableFailsBeforeTheRun(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write to any folder")
	}
	out := t.TempDir()
	require.NoError(t, os.Chmod(out, 0o555))
	t.Cleanup(func() { _ = os.Chmod(out, 0o755) })
	code, stdout, stderr := runEnv(t, map[string]string{"ASSAY_CACHE_DIR": t.TempDir()},
		"research", "--now", "2026-11-23", "--out", out, "How do heat pumps perform in cold climates?")
	assert.Equal(t, exitInput, code, stderr)
	assert.Contains(t, stderr, "--out "+out)
	assert.NotContains(t, stderr, "[0] search", "nothing runs before the folder is known to be writable")
	assert.Empty(t, stdout)
}

func TestResearchCorpusWithNothingToSearch(t *testing.T) {
	env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
	tests := map[string]struct {
		files map[string][]byte
		want  []string
	}{
		"empty folder": {
			files: nil,
			want:  []string{"no Markdown, HTML or text files"},
		},
		"binary files only": {
			files: map[string][]byte{"a.md": {0x00, 0xff, 0x13, 0x37, 0x00}, "b.html": {0x7f, 'E', 'L', 'F', 0x00}},
			want:  []string{"none of its 2 file(s) can be searched", "a.md: no front matter", "b.html"},
		},
		"Markdown without front matter": {
			files: map[string][]byte{"notes.md": []byte("# Heat pumps\n\nHeat pumps work in cold climates.\n")},
			want:  []string{"none of its 1 file(s) can be searched", "notes.md: no front matter with a url"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, data := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
			}
			code, stdout, stderr := runEnv(t, env, "research", "--now", "2026-11-23", "--corpus", dir, "heat pumps in cold climates")
			assert.Equal(t, exitInput, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "--corpus "+dir)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

func TestResearchCorpusNamesSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("no front matter here\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("---\nurl: https://www.energy.gov/a\ntitle: Heat pumps\n---\nHeat pumps work in cold climates.\n"), 0o644))
	code, _, stderr := runEnv(t, map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}, "research", "--now", "2026-11-23", "--corpus", dir, "heat pumps in cold climates")
	assert.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, "notes.md: no front matter with a url; not indexed")
}

func TestResearchCorpusInChineseAndJapanese(t *testing.T) {
	// A corpus with no spaced text at all is searchable: the question's
	// words are found inside the documents' runs of characters.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zh.md"), []byte("---\nurl: https://zh.example.cn/a\ntitle: 热泵在寒冷气候中的性能\n---\n空气源热泵在零下十五度时仍能供暖。\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ja.md"), []byte("---\nurl: https://ja.example.jp/a\ntitle: 寒冷地のヒートポンプ\n---\nヒートポンプの性能は寒冷地でも高い。\n"), 0o644))
	code, _, stderr := runEnv(t, map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}, "research", "--now", "2026-11-23", "--corpus", dir, "寒冷地の性能")
	assert.NotEqual(t, exitInput, code, stderr)
	assert.Contains(t, stderr, "[0] search new=2 results=2")
}

func TestResearchReportsOnAChineseCorpus(t *testing.T) {
	// Offline, the gate, the extractive report and its scores read Chinese
	// by its characters and pairs of characters, so documents on the
	// question are kept, cited and scored, and one on tea is dropped.
	dir := t.TempDir()
	docs := map[string]string{
		"zh-1.md": "url: https://www.ndrc.gov.cn/heat-pumps-cold\ntitle: 热泵在寒冷气候中的效率\nreferences: 4\n---\n" +
			"现代空气源热泵在寒冷气候中仍能高效运行，即使冬季气温经常低于零下十五度。\n\n" +
			"室外温度下降时，热泵的效率也随之下降，因为室外空气中可收集的热量更少。典型的寒冷气候热泵在8摄氏度时性能系数约为3.5，在零下15摄氏度时约为2。\n",
		"zh-2.md": "url: https://www.tsinghua.edu.cn/heat-pump-field-study\ntitle: 寒冷地区热泵实地测试报告\nreferences: 12\n---\n" +
			"研究人员在东北地区的二十户住宅中测试了寒冷气候热泵的实际效率。测试结果显示，热泵在整个供暖季的平均性能系数为2.6，明显高于燃气锅炉的能源效率。\n",
		"zh-3.md": "url: https://www.mohurd.gov.cn/heat-pump-sizing\ntitle: 如何为寒冷气候选择热泵\nreferences: 6\n---\n" +
			"在寒冷气候中选择热泵时，应按照当地最冷的设计温度确定系统容量。良好的保温和气密性可以降低住宅的热负荷，让较小的热泵也能高效运行。\n",
		"zh-4.md": "url: https://www.cabr.ac.cn/heat-pump-defrost\ntitle: 热泵除霜与低温效率研究\nreferences: 9\n---\n" +
			"低温环境下，热泵室外机盘管容易结霜，除霜过程会降低热泵的平均效率。采用智能除霜控制的寒冷气候热泵，可将除霜造成的效率损失控制在百分之五以内。\n",
		"zh-tea.md": "url: https://www.tea.example.cn/green-tea\ntitle: 绿茶的冲泡方法\n---\n" +
			"冲泡绿茶时，水温最好控制在八十度左右，以免破坏茶叶的香气。每次冲泡约需两到三分钟，茶叶可以反复冲泡三次。\n",
		"ja.md": "url: https://www.enecho.meti.go.jp/heat-pump-cold\ntitle: 寒冷地におけるヒートポンプの効率\n---\n" +
			"寒冷地向けのヒートポンプは、外気温が零下15度でも暖房を続けることができる。\n",
	}
	for name, doc := range docs {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("---\n"+doc), 0o644))
	}
	code, stdout, stderr := runEnv(t, map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}, "research", "--now", "2026-11-23", "--corpus", dir, "热泵在寒冷气候中的效率如何？")
	require.Equal(t, exitPass, code, stderr)
	tests := map[string]struct {
		text string
		want bool
	}{
		"the report passes":                     {"Research status: **pass** (full_report", true},
		"every claim is cited":                  {"| Grounding | 5/5 |", true},
		"the question's aspects are covered":    {"| Completeness | 1/1 |", true},
		"sentences are not too long":            {"| Clarity | 1/1 |", true},
		"a citation comes before the full stop": {`([ndrc.gov.cn](https://www.ndrc.gov.cn/heat-pumps-cold "现代空气源热泵在寒冷气候中仍能高效运行，即使冬季气温经常低于零下十五度。"))。`, true},
		"the document on tea is not cited":      {"tea.example.cn", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, strings.Contains(stdout, tc.text), stdout)
		})
	}
}

func TestResearchYAMLKeepsIntegers(t *testing.T) {
	env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
	code, stdout, stderr := runEnv(t, env, "research", "-q", "--now", "2026-11-23", "--format", "yaml", "How do heat pumps perform in cold climates?")
	require.Equal(t, exitPass, code, stderr)
	tests := map[string]struct {
		re   string
		want bool
	}{
		"durations are whole nanoseconds": {`(?m)^  total_ns: \d+$`, true},
		"no number has an exponent":       {`(?m)^\s*[a-z_]+: -?\d+(\.\d+)?e[+-]\d+$`, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := regexp.MustCompile(tc.re).FindString(stdout)
			assert.Equal(t, tc.want, got != "", "match: %q", got)
		})
	}
}

// TestResearchCountsEveryJudgeDefault fails one kind of judge call at a
// time: a gate grade that defaults to 3 and a completeness judge that
// defaults in the card are both counted on the card, in the summary, in
// the JSON output, and both make --strict exit 3. A card whose judge
// defaulted is not a pass.
func TestResearchCountsEveryJudgeDefault(t *testing.T) {
	t.Parallel()
	q := "How do heat pumps perform in cold climates?"
	tests := map[string]struct {
		fail func(req openai.ChatCompletionRequest) bool
		code int // of the run without --strict
		card string
	}{
		"a gate grade defaults": {fail: func(req openai.ChatCompletionRequest) bool {
			return schemaOf(req) == "grade" && strings.Contains(req.Messages[len(req.Messages)-1].Content, "Rating Heat Pump Efficiency for Cold Climates")
		}, code: exitPass, card: "# Score card: PASS"},
		"the completeness judge defaults": {fail: func(req openai.ChatCompletionRequest) bool {
			return schemaOf(req) == "aspects"
		}, code: exitFailed, card: "# Score card: ITERATE"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
				if tc.fail(req) {
					return llmtest.Reply{Status: 400, Body: `{"error":{"message":"scripted failure","type":"invalid_request_error"}}`}
				}
				return researchReplies(req)
			}))
			env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
			args := []string{"research", "--no-cache", "--now", "2026-11-23"}

			code, stdout, stderr := runEnv(t, env, append(args, q)...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stdout, tc.card)
			assert.NotContains(t, stdout, "Neutral defaults after judge errors: 0.", "the card counts the default")
			assert.NotContains(t, stderr, "neutral defaults 0", "the summary counts the default")

			code, stdout, stderr = runEnv(t, env, append(args, "--format", "json", q)...)
			require.NotEqual(t, exitInput, code, stderr)
			var v struct {
				Defaulted int `json:"defaulted"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &v))
			assert.Positive(t, v.Defaulted, "the JSON output counts the default")

			code, _, stderr = runEnv(t, env, append(args, "--strict", q)...)
			assert.Equal(t, exitInfra, code, stderr)
			assert.Contains(t, stderr, "--strict:")
		})
	}
}

// TestResearchWithAFailingModel: a model that is down, refuses the key,
// fails, rate-limits or hangs on every call, or a budget that stops every
// call, never gives a pass: the run exits 3 saying why, and its card is
// not a pass.
func TestResearchWithAFailingModel(t *testing.T) {
	t.Parallel()
	q := "How do heat pumps perform in cold climates?"
	errReply := func(status int, typ string) func(openai.ChatCompletionRequest) llmtest.Reply {
		return func(openai.ChatCompletionRequest) llmtest.Reply {
			return llmtest.Reply{Status: status, Body: `{"error":{"message":"scripted ` + typ + `","type":"` + typ + `"}}`}
		}
	}
	tests := map[string]struct {
		reply  func(openai.ChatCompletionRequest) llmtest.Reply // nil: no server at all
		args   []string
		stderr []string
		calls  int  // calls the server sees; -1: not checked
		atMost bool // calls is a ceiling: how many leave first is the scheduler's
		// status is the run's in stdout and card.json, and final its last
		// card's (default model_failed and iterate); a run stopped by
		// refused credentials is failed and has no card.
		status, final string
	}{
		"server down (connection refused)": {
			// A server down for good fails a call once it has stayed
			// down for --max-retry-time (2 minutes by default).
			args:   []string{"--max-retry-time", "1s"},
			stderr: []string{"failed all 16 of the run's model steps", "connect: connection refused", "check that the model server is up"},
			calls:  -1,
		},
		"401 on every call stops at the first": {
			reply:  errReply(401, "invalid_api_key"),
			stderr: []string{"research stopped", "refused the credentials", "status 401: scripted invalid_api_key", "no further calls are sent"},
			// Some of the first wave of summaries (7 sources) go out
			// before the first 401 comes back; nothing is sent after it.
			calls: 7, atMost: true,
			status: "failed",
		},
		"500 on every call": {
			reply:  errReply(500, "server_error"),
			args:   []string{"--max-retry-time", "100ms"},
			stderr: []string{"failed all 16 of the run's model steps", "500"},
			calls:  -1,
		},
		"429 on every call": {
			reply: func(openai.ChatCompletionRequest) llmtest.Reply {
				return llmtest.Reply{Status: 429, RetryAfter: "1", Body: `{"error":{"message":"scripted rate limit","type":"rate_limit_error"}}`}
			},
			// A wait past the retry time ends the call's retries at once.
			args:   []string{"--max-retry-time", "100ms"},
			stderr: []string{"failed all 16 of the run's model steps", "429"},
			calls:  16,
		},
		"a server that never answers": {
			reply:  func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Reply{Delay: time.Minute} },
			args:   []string{"--call-timeout", "50ms", "--max-retry-time", "100ms"},
			stderr: []string{"failed all 16 of the run's model steps", "deadline exceeded"},
			calls:  -1,
		},
		"a budget that stops every call": {
			reply:  researchReplies,
			args:   []string{"--max-cost", "0.0000001"},
			stderr: []string{"assay: budget reached: 16 call(s) not made under --max-cost $0.0000001", "raise --max-cost"},
			calls:  0,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := "http://" + closedPort(t) + "/v1"
			var srv *llmtest.Server
			if tc.reply != nil {
				srv = llmtest.New(t, llmtest.Func(tc.reply))
				base = srv.URL()
			}
			env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": base, "ASSAY_CACHE_DIR": t.TempDir()}
			out := t.TempDir()
			args := append([]string{"research", "--no-cache", "--now", "2026-11-23", "--out", out}, tc.args...)
			code, stdout, stderr := runEnv(t, env, append(args, q)...)
			assert.Equal(t, exitInfra, code, stderr)
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			assert.NotContains(t, stdout, "Score card: PASS")
			assert.NotContains(t, stdout, "Research status: **pass**")
			status := cmp.Or(tc.status, "model_failed")
			final := tc.final
			if tc.status == "" {
				final = "iterate"
			}
			assert.Contains(t, stdout, "Research status: **"+status+"**")
			switch {
			case srv == nil || tc.calls < 0:
			case tc.atMost:
				assert.LessOrEqual(t, srv.Calls(), tc.calls)
				assert.Positive(t, srv.Calls())
			default:
				assert.Equal(t, tc.calls, srv.Calls())
			}
			var card struct {
				Status string `json:"status"`
				Final  struct {
					Status string `json:"status"`
				} `json:"final_card"`
			}
			data, err := os.ReadFile(filepath.Join(out, "card.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &card))
			assert.Equal(t, status, card.Status)
			assert.Equal(t, final, card.Final.Status, "the card of a defaulted judge is not a pass")
		})
	}
}

// TestResearchSearchBackend: a SearxNG that cannot be reached, or that
// refuses the question, is exit 3 naming it, not "insufficient data"; one
// that answers with nothing is
// insufficient data whose advice does not send the user back to it.
func TestResearchSearchBackend(t *testing.T) {
	t.Parallel()
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"results":[]}`))
	}))
	t.Cleanup(empty.Close)
	noJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Forbidden", http.StatusForbidden)
	}))
	t.Cleanup(noJSON.Close)
	down := "http://" + closedPort(t)
	tests := map[string]struct {
		base     string
		code     int
		stderr   []string
		noOutput []string
	}{
		"down": {
			base:     down,
			code:     exitInfra,
			stderr:   []string{"assay: search backend searxng:" + down + " unreachable: dial tcp " + strings.TrimPrefix(down, "http://") + ": connect: connection refused", "check that it is running"},
			noOutput: []string{"insufficient", "Insufficient", "--search searxng"},
		},
		"refuses the JSON format": {
			base:     noJSON.URL,
			code:     exitInfra,
			stderr:   []string{"assay: research stopped: searxng: HTTP 403 Forbidden (is the json format enabled in search.formats of settings.yml?): Forbidden"},
			noOutput: []string{"insufficient", "Insufficient"},
		},
		"answers with no results": {
			base:     empty.URL,
			code:     exitFailed,
			stderr:   []string{"assay: insufficient_data: only 0 source(s) passed the relevance gate"},
			noOutput: []string{"--search searxng"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runEnv(t, map[string]string{"ASSAY_CACHE_DIR": t.TempDir()},
				"research", "--now", "2026-11-23", "--search", "searxng:"+tc.base, "How do heat pumps perform in cold climates?")
			assert.Equal(t, tc.code, code, stderr)
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			for _, s := range tc.noOutput {
				assert.NotContains(t, stdout+stderr, s)
			}
		})
	}
}

// TestResearchNamesFailedURLs: a --url that is refused or fails is named
// on standard error with its reason, not only in sources.json.
func TestResearchNamesFailedURLs(t *testing.T) {
	t.Parallel()
	gone := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(gone.Close)
	tests := map[string]struct {
		url    string
		args   []string
		stderr string
	}{
		"a loopback address is refused": {
			url: gone.URL + "/page", stderr: "assay: --url " + gone.URL + "/page: dropped: fetch: blocked address 127.0.0.1: loopback\n",
		},
		"a page that is not found": {
			url: gone.URL + "/page", args: []string{"--allow-private"}, stderr: "assay: --url " + gone.URL + "/page: dropped: fetch: status 404\n",
		},
		"a URL with a comma, whole": {
			url: gone.URL + "/page?ids=1,2", args: []string{"--allow-private"}, stderr: "assay: --url " + gone.URL + "/page?ids=1,2: dropped: fetch: status 404\n",
		},
		"a server that is down": {
			url: "http://" + closedPort(t) + "/page", args: []string{"--allow-private"}, stderr: "/page: dropped: fetch: request failed: dial tcp 127.0.0.1:",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"research", "-q", "--now", "2026-11-23", "--url", tc.url}, tc.args...)
			_, _, stderr := runEnv(t, map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}, append(args, "How do heat pumps perform in cold climates?")...)
			assert.Contains(t, stderr, tc.stderr)
		})
	}
}

// closedPort returns a loopback address nothing listens on: a port that
// was just free, whose listener is closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestResearchCardSumsTheRunsUsage: the card printed after a research run
// gives the calls of the whole run (summaries, grades, synthesis, every
// scoring), not only those of its last scoring.
func TestResearchCardSumsTheRunsUsage(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(researchReplies))
	env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
	code, stdout, stderr := runEnv(t, env, "research", "--no-cache", "--now", "2026-11-23", "How do heat pumps perform in cold climates?")
	require.Equal(t, exitPass, code, stderr)
	m := regexp.MustCompile(`LLM calls: (\d+),`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	assert.Equal(t, strconv.Itoa(srv.Calls()), m[1], "the card's calls are the run's")
	assert.Contains(t, stderr, "calls "+m[1]+" ")
}

func schemaOf(req openai.ChatCompletionRequest) string {
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		return rf.JSONSchema.Name
	}
	return ""
}

// TestResearchInterruptedKeepsWholeFiles stops a run while its seven gate
// grades are in flight, as Ctrl-C would: it exits 3, and card.json is
// whole and gives the model calls standard error gives, which are the
// calls the server saw.
func TestResearchInterruptedKeepsWholeFiles(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var grades atomic.Int32
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if schemaOf(req) == "grade" {
			if grades.Add(1) == 7 {
				cancel() // every grade has reached the server
			}
			return llmtest.Reply{Delay: time.Minute} // ends when the client goes away
		}
		return researchReplies(req)
	}))
	env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"research", "--no-cache", "--now", "2026-11-23", "--out", out, "How do heat pumps perform in cold climates?"},
		func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitInfra, code, stderr.String())
	assert.Contains(t, stderr.String(), "assay: research stopped: context canceled")
	m := regexp.MustCompile(`calls (\d+) \(`).FindStringSubmatch(stderr.String())
	require.NotNil(t, m, stderr.String())

	var card struct {
		Status string `json:"status"`
		QoS    struct {
			Calls int `json:"llm_calls"`
		} `json:"qos"`
	}
	data, err := os.ReadFile(filepath.Join(out, "card.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &card))
	assert.Equal(t, "interrupted", card.Status)
	assert.Equal(t, m[1], strconv.Itoa(card.QoS.Calls), "card.json and stderr give the same calls")
	assert.Equal(t, srv.Calls(), card.QoS.Calls, "the calls the server saw")
	assert.Equal(t, 14, card.QoS.Calls, "7 summaries and 7 cut grades")
	for _, f := range []string{"sources.json", "trace.jsonl"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err)
		dec := json.NewDecoder(bytes.NewReader(data))
		for dec.More() {
			var v any
			require.NoError(t, dec.Decode(&v), "%s is whole JSON", f)
		}
	}
}
