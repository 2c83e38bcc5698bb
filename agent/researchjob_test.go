package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
)

const heatPumps = "How do heat pumps perform in cold climates?"

// job is an offline research job on the embedded corpus as of day, its
// index and cache in a temporary folder.
func job(t *testing.T, env map[string]string) agent.ResearchJob {
	t.Helper()
	vars := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
	for k, v := range env {
		vars[k] = v
	}
	j := judging.Default()
	j.LLM.NoCache = true
	return agent.ResearchJob{Question: heatPumps, AsOf: day, Judging: j, Env: func(k string) string { return vars[k] }}
}

// execute runs j and writes its outcome, returning what went to each writer.
func execute(t *testing.T, ctx context.Context, j agent.ResearchJob) (out *agent.ResearchOutcome, stdout, log string) {
	t.Helper()
	var logb strings.Builder
	j.Log = &logb
	out, err := agent.RunResearch(ctx, j)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, out.Write(&b, &logb))
	return out, b.String(), logb.String()
}

func TestRunResearchRefusesBadSettingsBeforeRunning(t *testing.T) {
	t.Parallel()
	taken := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(taken, agent.FileCard), 0o755))
	tests := map[string]struct {
		edit func(*agent.ResearchJob)
		want string
	}{
		"a format research does not print": {func(j *agent.ResearchJob) { j.Format = "text" }, `--format: must be md, json or yaml, got "text"`},
		"an unknown mode":                  {func(j *agent.ResearchJob) { j.Mode = "fast" }, `--mode: unknown mode "fast" (have deep, quick, standard)`},
		"an empty question":                {func(j *agent.ResearchJob) { j.Question = " \n" }, "the question is empty"},
		"a question with nothing visible":  {func(j *agent.ResearchJob) { j.Question = "\x1b\a\u200b\u00a0" }, "the question is empty"},
		"more than one sample":             {func(j *agent.ResearchJob) { j.Judging.Samples = 3 }, "--samples: a research run asks each judgement once"},
		"a default rate out of range":      {func(j *agent.ResearchJob) { j.Judging.MaxDefaultRate = 2 }, "--max-default-rate"},
		"an unknown search backend":        {func(j *agent.ResearchJob) { j.Search = "bing" }, `--search: must be local or searxng:URL, got "bing"`},
		"searxng without its URL":          {func(j *agent.ResearchJob) { j.Search = "searxng:" }, "--search: searxng needs a URL"},
		"searxng with an ftp URL":          {func(j *agent.ResearchJob) { j.Search = "searxng:ftp://x" }, `--search: "ftp://x": want an http or https URL`},
		"searxng with a URL, no host":      {func(j *agent.ResearchJob) { j.Search = "searxng:https:///search" }, `--search: "https:///search": no host`},
		"a corpus that is not there":       {func(j *agent.ResearchJob) { j.Corpus = "/does/not/exist" }, "--corpus: local corpus: stat /does/not/exist"},
		"a corpus with nothing to search":  {func(j *agent.ResearchJob) { j.Corpus = t.TempDir() }, "no Markdown, HTML or text files"},
		"a jury":                           {func(j *agent.ResearchJob) { j.Judging.LLM.Spec = "openai:a,openai:b" }, "--llm: one model here"},
		"a folder with a name taken":       {func(j *agent.ResearchJob) { j.Out = taken }, "--out " + filepath.Join(taken, agent.FileCard) + ": exists and is not a regular file"},
		"a --url that does not parse":      {func(j *agent.ResearchJob) { j.URLs = []string{"http://[::1"} }, `--url: "http://[::1" is not a URL: missing ']' in host`},
		"a --url of another scheme":        {func(j *agent.ResearchJob) { j.URLs = []string{"ftp://x.org/a"} }, `--url: "ftp://x.org/a": want an http or https URL`},
		"a relevance cutoff above 5":       {func(j *agent.ResearchJob) { j.RelevanceCutoff = new(6) }, "--relevance-cutoff: must be a grade from 1 to 5, got 6"},
		"a relevance cutoff of 0":          {func(j *agent.ResearchJob) { j.RelevanceCutoff = new(0) }, "--relevance-cutoff: must be a grade from 1 to 5, got 0"},
		"a negative relevance cutoff":      {func(j *agent.ResearchJob) { j.RelevanceCutoff = new(-2) }, "--relevance-cutoff: must be a grade from 1 to 5, got -2"},
		"a daily profile":                  {func(j *agent.ResearchJob) { j.Profile = "daily" }, `--profile: "daily" is a daily profile; research needs one of kind report`},
		"a profile that is not there":      {func(j *agent.ResearchJob) { j.Profile = "/does/not/exist.yaml" }, "--profile: profile: open /does/not/exist.yaml"},
		"a --url without a host":           {func(j *agent.ResearchJob) { j.URLs = []string{"https:///a"} }, `--url: "https:///a": no host`},
		"a negative timeout":               {func(j *agent.ResearchJob) { j.Timeout = -time.Second }, "--timeout: want 0 (no limit) or a positive duration such as 10m, got -1s"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, nil)
			tc.edit(&j)
			var log strings.Builder
			j.Log = &log
			out, err := agent.RunResearch(context.Background(), j)
			assert.Nil(t, out)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, log.String(), "[0] search", "nothing runs")
		})
	}
}

// TestRunResearchOffline: the run of `make demo` passes, prints its report
// and card, says its status on the log and writes its folder; JSON and
// YAML carry the same keys.
func TestRunResearchOffline(t *testing.T) {
	t.Parallel()
	j := job(t, nil)
	j.Out = t.TempDir()
	out, stdout, log := execute(t, context.Background(), j)
	assert.True(t, out.Passed(), "%v", out.Failures)
	assert.Equal(t, agent.StatusPass, out.Run.Status)
	assert.Contains(t, stdout, "# Score card: PASS")
	assert.Contains(t, stdout, "\nResearch status: **pass** (full_report, standard mode). Quality threshold met")
	assert.Contains(t, log, "[0] search new=7 results=7\n")
	assert.True(t, strings.HasSuffix(log, "assay: pass: "+out.Run.Reason+"\n"), log)
	assert.NotContains(t, log, "judge:", "offline, no model usage line")
	for _, f := range []string{agent.FileReport, agent.FileCard, agent.FileSources, agent.FileTrace} {
		st, err := os.Stat(filepath.Join(j.Out, f))
		require.NoError(t, err)
		assert.Positive(t, st.Size(), f)
	}

	keys := map[string][]string{}
	for _, format := range []string{agent.FormatJSON, agent.FormatYAML} {
		var b strings.Builder
		require.NoError(t, out.Run.Write(&b, format))
		var m map[string]any
		if format == agent.FormatJSON {
			require.NoError(t, json.Unmarshal([]byte(b.String()), &m))
		} else {
			require.NoError(t, yaml.Unmarshal([]byte(b.String()), &m))
		}
		for k := range m {
			keys[format] = append(keys[format], k)
		}
		assert.Equal(t, "pass", m["status"], format)
		assert.Contains(t, m["report"], "## Executive Summary", format)
	}
	assert.ElementsMatch(t, keys[agent.FormatJSON], keys[agent.FormatYAML])
}

// TestRunResearchRelevanceCutoff: the gate keeps sources graded at or
// above the cutoff set by --relevance-cutoff, else by the profile's
// gate.relevance_cutoff, else seed 004's 3. Offline, the battery query's
// three on-topic sources grade 5 and its four others 1.
func TestRunResearchRelevanceCutoff(t *testing.T) {
	t.Parallel()
	profile := func(t *testing.T, cutoff string) string {
		data, err := os.ReadFile("profiles/research.yaml")
		require.NoError(t, err)
		edited := strings.Replace(string(data), "relevance_cutoff: 3", "relevance_cutoff: "+cutoff, 1)
		require.NotEqual(t, string(data), edited)
		path := filepath.Join(t.TempDir(), "gate.yaml")
		require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))
		return path
	}
	tests := map[string]struct {
		flag       int    // 0: not given
		profile    string // the profile's gate.relevance_cutoff; "" the built-in profile
		wantCutoff int
		wantKept   int
	}{
		"seed 004's default":                   {wantCutoff: 3, wantKept: 3},
		"the flag lowers it":                   {flag: 1, wantCutoff: 1, wantKept: 7},
		"the flag at the top keeps grade 5":    {flag: 5, wantCutoff: 5, wantKept: 3},
		"the profile sets it":                  {profile: "1", wantCutoff: 1, wantKept: 7},
		"the flag wins over the profile":       {flag: 4, profile: "1", wantCutoff: 4, wantKept: 3},
		"a profile that says 2 keeps the rest": {profile: "2", wantCutoff: 2, wantKept: 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, nil)
			j.Question, j.Quiet = "What share of lithium-ion batteries is recycled today?", true
			if tc.flag != 0 {
				j.RelevanceCutoff = &tc.flag
			}
			if tc.profile != "" {
				j.Profile = profile(t, tc.profile)
			}
			out, _, _ := execute(t, context.Background(), j)
			assert.Equal(t, tc.wantCutoff, out.Run.Mode.Cutoff)
			kept := 0
			for _, s := range out.Run.Sources {
				if s.Iteration == 0 && s.Kept {
					kept++
				} else if s.Iteration == 0 {
					assert.Contains(t, s.Dropped, fmt.Sprintf("below %d", tc.wantCutoff))
				}
			}
			assert.Equal(t, tc.wantKept, kept)
		})
	}
}

// TestRunResearchInsufficientData: a run that ended without a pass is a
// verdict on what was scored, not a failure of the run.
func TestRunResearchInsufficientData(t *testing.T) {
	t.Parallel()
	j := job(t, nil)
	j.Question, j.Quiet = "How much does a wedding guitarist charge per hour?", true
	out, stdout, log := execute(t, context.Background(), j)
	require.Len(t, out.Failures, 1)
	f := out.Failures[0]
	assert.Equal(t, judging.FailVerdict, f.Kind)
	assert.True(t, f.Kind.Scored())
	assert.Nil(t, out.Failures.Infra())
	assert.Equal(t, "insufficient_data: "+out.Run.Reason, f.Error())
	assert.Contains(t, stdout, "Research status: **insufficient_data** (insufficient_data, standard mode)")
	assert.Equal(t, "assay: insufficient_data: only 0 source(s) passed the relevance gate; 2 needed for a short report\n", log)
}

func TestRunResearchDryRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(researchReplies))
	j := job(t, map[string]string{"OPENAI_BASE_URL": srv.URL()})
	j.Judging.LLM.Spec, j.Judging.DryRun = "openai:gpt-4o-mini", true
	out, stdout, _ := execute(t, context.Background(), j)
	assert.Equal(t, 0, srv.Calls(), "a dry run calls no model")
	assert.Nil(t, out.Run)
	require.NotNil(t, out.Plan)
	calls := map[string]int{}
	for _, r := range out.Plan.Rows {
		calls[r.Name] = r.Calls
	}
	assert.Equal(t, map[string]int{"research.summarize": 7, "source.relevance": 7, "research.synthesize": 1, "completeness": 2}, calls)
	assert.True(t, strings.HasPrefix(stdout, "dry run for llm:openai:gpt-4o-mini: the research run, repairs included"), stdout)
}

// TestRunResearchFailures: each way a research run fails is one failure of
// the kind that names it, the run's own failures (exit 3) before a status
// that is not a pass (exit 1), with the message the user reads.
func TestRunResearchFailures(t *testing.T) {
	t.Parallel()
	failOn := func(schema string) func(openai.ChatCompletionRequest) llmtest.Reply {
		return func(req openai.ChatCompletionRequest) llmtest.Reply {
			if schema == "" || schemaName(req) == schema {
				return llmtest.Reply{Status: 400, Body: `{"error":{"message":"scripted failure","type":"invalid_request_error"}}`}
			}
			return researchReplies(req)
		}
	}
	tests := map[string]struct {
		reply  func(openai.ChatCompletionRequest) llmtest.Reply
		edit   func(*agent.ResearchJob)
		kinds  []judging.FailureKind
		first  string // the first failure's message begins so
		status agent.Status
	}{
		"a model that fails every call": {
			reply: failOn(""), kinds: []judging.FailureKind{judging.FailDefaults},
			first: "model openai:gpt-4o-mini failed all 16 of the run's model steps", status: agent.StatusModelFailed,
		},
		"a budget that stops every call": {
			reply: researchReplies, edit: func(j *agent.ResearchJob) { j.Judging.LLM.MaxCostUSD = 1e-7 },
			kinds:  []judging.FailureKind{judging.FailBudget, judging.FailDefaults},
			first:  "budget reached: 16 call(s) not made under --max-cost $0.0000001, and the steps they were for fell back to their defaults",
			status: agent.StatusModelFailed,
		},
		"a gate grade that defaults, under --strict": {
			reply: func(req openai.ChatCompletionRequest) llmtest.Reply {
				if schemaName(req) == "grade" && strings.Contains(req.Messages[len(req.Messages)-1].Content, "Rating Heat Pump Efficiency for Cold Climates") {
					return failOn("")(req)
				}
				return researchReplies(req)
			},
			edit:  func(j *agent.ResearchJob) { j.Judging.Strict = true },
			kinds: []judging.FailureKind{judging.FailDefaults}, first: "--strict: 1 judge result(s) fell back to the neutral default",
			status: agent.StatusPass,
		},
		"a completeness judge that defaults": {
			reply: failOn("aspects"), kinds: []judging.FailureKind{judging.FailVerdict},
			first: "rejected: still iterate after 2 repair iteration(s): Not a pass: the completeness judge(s) fell back", status: agent.StatusRejected,
		},
		"a search backend out of reach": {
			reply: researchReplies, edit: func(j *agent.ResearchJob) { j.Search = "searxng:http://" + closedAddr(t) },
			kinds: []judging.FailureKind{judging.FailError}, first: "search backend searxng:http://", status: agent.StatusSearchFailed,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(tc.reply))
			j := job(t, map[string]string{"OPENAI_BASE_URL": srv.URL()})
			j.Judging.LLM.Spec, j.Quiet = "openai:gpt-4o-mini", true
			if tc.edit != nil {
				tc.edit(&j)
			}
			out, _, _ := execute(t, context.Background(), j)
			var kinds []judging.FailureKind
			for _, f := range out.Failures {
				kinds = append(kinds, f.Kind)
			}
			assert.Equal(t, tc.kinds, kinds)
			require.NotEmpty(t, out.Failures)
			assert.True(t, strings.HasPrefix(out.Failures[0].Error(), tc.first), out.Failures[0].Error())
			assert.Equal(t, tc.status, out.Run.Status)
			assert.False(t, out.Passed())
		})
	}
}

// TestRunResearchInterrupted stops a run while its gate grades are in flight,
// as Ctrl-C does: the failure is an interruption that gives its cause
// (never "%!w(<nil>)"), and the run's status says it was interrupted.
func TestRunResearchInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var grades atomic.Int32
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if schemaName(req) == "grade" {
			if grades.Add(1) == 1 {
				cancel(errors.New("interrupt signal received"))
			}
			return llmtest.Reply{Delay: time.Minute} // ends when the client goes away
		}
		return researchReplies(req)
	}))
	j := job(t, map[string]string{"OPENAI_BASE_URL": srv.URL()})
	j.Judging.LLM.Spec, j.Quiet = "openai:gpt-4o-mini", true
	out, stdout, log := execute(t, ctx, j)
	require.Len(t, out.Failures, 1)
	assert.Equal(t, judging.FailInterrupted, out.Failures[0].Kind)
	assert.Equal(t, "research stopped: interrupt signal received", out.Failures[0].Error())
	assert.Equal(t, agent.StatusInterrupted, out.Run.Status)
	assert.Contains(t, stdout, "Research status: **interrupted** (standard mode)")
	assert.NotContains(t, stdout+log, "%!")
	assert.NotContains(t, log, "assay: interrupted", "a run an error stopped says so once, in its failure")
	assert.Contains(t, log, "judge: llm:openai:gpt-4o-mini; calls ")
}

// TestRunResearchStoppedWhileIndexing: a run stopped (its --timeout
// past, an interrupt) while the corpus is indexed says so, an
// infrastructure failure, not an input error telling the user to delete
// an index that is sound.
func TestRunResearchStoppedWhileIndexing(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		ctx  func() (context.Context, context.CancelFunc)
		want string
	}{
		"an interrupt": {func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errors.New("interrupt signal received"))
			return ctx, func() {}
		}, "research stopped while indexing the corpus: interrupt signal received"},
		"a deadline past": {func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Unix(0, 0))
		}, "research stopped while indexing the corpus: context deadline exceeded"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tc.ctx()
			defer cancel()
			j := job(t, nil)
			j.Quiet, j.Log = true, io.Discard
			out, err := agent.RunResearch(ctx, j)
			assert.Nil(t, out)
			require.EqualError(t, err, tc.want)
			_, input := errors.AsType[*eval.InputError](err)
			assert.False(t, input, "not an input error")
		})
	}
}

func TestEventLine(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		e     agent.Event
		want  string
		ended bool
	}{
		"floats to four digits": {
			e:    agent.Event{Stage: "crag", Duration: 1, Outputs: map[string]any{"overall": 0.9400000000000001, "classification": "correct"}},
			want: "[0] crag classification=correct overall=0.94", ended: true,
		},
		"a stage with no outputs has no trailing space": {
			e:    agent.Event{Stage: "fix", Iteration: 1, Duration: 1},
			want: "[1] fix", ended: true,
		},
		"errors counted": {
			e:    agent.Event{Stage: "fetch", Duration: 1, Outputs: map[string]any{"fetched": 2, "failed": 1}, Errors: []string{"x"}},
			want: "[0] fetch failed=1 fetched=2 (1 error(s))", ended: true,
		},
		// progress.Status shows it on a terminal only.
		"a stage starting": {
			e:    agent.Event{Stage: "search"},
			want: "[0] search...",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			line, ended := tc.e.Line()
			assert.Equal(t, tc.want, line)
			assert.Equal(t, tc.ended, ended)
		})
	}
}

func TestRunWriteStatusLine(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		run  agent.Run
		want string
	}{
		"decided": {agent.Run{Mode: agent.Modes()["standard"], Decision: "full_report", Status: "pass", Reason: "Met."},
			"Research status: **pass** (full_report, standard mode). Met.\n"},
		"interrupted before deciding": {agent.Run{Mode: agent.Modes()["standard"], Status: "interrupted", Reason: "Stopped."},
			"Research status: **interrupted** (standard mode). Stopped.\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			require.NoError(t, tc.run.Write(&b, agent.FormatMD))
			assert.Contains(t, b.String(), tc.want)
		})
	}
}

// closedAddr is a loopback address nothing listens on: a port that was
// just free, whose listener is closed again.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}
