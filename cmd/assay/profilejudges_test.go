package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	runpkg "github.com/assaylabs/assay/run"
)

const exampleReportProfile = "../../examples/profiles/plain-report.yaml"

// onTopicProfile is a context profile in flow style, its judges after
// its pass rule and before the scorers that weigh them: written unlike
// examples/judges.yaml, to show the profile's reader takes YAML as YAML.
const onTopicProfile = `{name: ranked-chunks, kind: context,
 pass: {threshold: 1.2, fail_at_or_below: 0.4},
 judges: [{name: chunks_on_topic, criterion: "Every chunk speaks to what the query asks.", scale: 0-10, fields: [question, contexts], threshold: 6}],
 scorers: [{metric: context_quality, max: 1}, {metric: chunks_on_topic, max: 1}]}
`

// contextRecords writes the three context fixtures as a JSON Lines
// dataset of a context profile, each with an id.
func contextRecords(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{"good", "poor", "ambiguous"} {
		data, err := os.ReadFile(filepath.Join("../../fixtures/context", name+".json"))
		require.NoError(t, err)
		var rec map[string]any
		require.NoError(t, json.Unmarshal(data, &rec))
		rec["id"] = name
		line, err := json.Marshal(rec)
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "retrievals.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// reportRecords writes two reports as a JSON Lines dataset of a report
// profile.
func reportRecords(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{"pass", "iterate"} {
		data, err := os.ReadFile(filepath.Join("../../fixtures/reports", name+".md"))
		require.NoError(t, err)
		line, err := json.Marshal(map[string]string{"id": name, "query": "How does HTTP/3 differ from HTTP/2?", "report": string(data)})
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "reports.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// TestProfileJudgesThroughScoreAndBench: the judges a profile defines are
// metrics of the runs that read it, weighed on its card like any other,
// in score and in bench --profile FILE; offline they are exit 2 before
// any work, naming the judge and --llm.
func TestProfileJudgesThroughScoreAndBench(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	profile := filepath.Join(dir, "ranked.yaml")
	require.NoError(t, os.WriteFile(profile, []byte(onTopicProfile), 0o600))
	data := contextRecords(t, dir)
	env := func(srv *llmtest.Server) map[string]string {
		return map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_DATA_DIR": t.TempDir()}
	}

	t.Run("score", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		code, out, errOut := runEnv(t, env(srv), "score", "--profile", profile, "--llm", "openai:judge-model", "--no-cache", "--format", "json", "../../fixtures/context/good.json")
		require.Equal(t, 0, code, errOut)
		var card struct {
			Status  string  `json:"status"`
			Overall float64 `json:"overall"`
			Scores  []struct {
				Metric string  `json:"metric"`
				Points float64 `json:"points"`
				Max    float64 `json:"max"`
				Reason string  `json:"reason"`
			} `json:"scores"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &card), out)
		require.Len(t, card.Scores, 1)
		s := card.Scores[0]
		assert.Equal(t, "chunks_on_topic", s.Metric)
		assert.InDelta(t, 0.8, s.Points, 1e-9, "grade 8 of 0-10, weighed at max 1")
		assert.InDelta(t, 1.0, s.Max, 1e-9)
		assert.Contains(t, s.Reason, "grade 8 on 0-10")
		assert.Equal(t, "pass", card.Status, "context 0.918 + 0.8 is over 1.2")
		assert.Equal(t, map[string]int{"defined_steps": 1, "defined_grade": 1}, schemaCounts(srv))
		assert.Contains(t, errOut, "judge: llm:openai:judge-model; calls 2")
	})

	t.Run("bench", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
		run := filepath.Join(t.TempDir(), "run")
		code, out, errOut := runEnv(t, env(srv), "bench", "--profile", profile, "--llm", "openai:judge-model", "--no-cache", "-q", "--out", run,
			"--gate", "chunks_on_topic.mean>=0.8", data)
		require.Equal(t, 0, code, errOut)
		assert.Regexp(t, `chunks_on_topic +3/3 +0\.800 `, out)
		assert.Regexp(t, `chunks_on_topic .* 100% \(>= 0\.6, grade 6 of 0-10\) `, out, "the grade the profile wrote beside the value")
		html, err := os.ReadFile(filepath.Join(run, "report.html"))
		require.NoError(t, err)
		assert.Contains(t, string(html), "<td>threshold</td><td>0.600 (grade 6 of 0-10)</td>")
		summary, err := os.ReadFile(filepath.Join(run, "summary.json"))
		require.NoError(t, err)
		assert.NotContains(t, string(summary), "grade 6", "summary.json keeps the value only")
		cfg := readConfig(t, run)
		assert.Equal(t, profile, cfg.Profile)
		assert.Equal(t, []string{"context_quality", "retrieval_confidence", "context_sufficiency", "diversity_score", "estimated_faithfulness", "chunks_on_topic", "total"}, cfg.Metrics)
		assert.Equal(t, "0.6", cfg.Settings["threshold chunks_on_topic"], "threshold 6 of 0-10")
		assert.Equal(t, "0.6", cfg.Settings["threshold total"], "the card's 1.2 of 2")
		assert.Len(t, cfg.Prompts["judge chunks_on_topic"], 12, "the definition's version is recorded")
		require.Len(t, cfg.Judges, 1)
		j := cfg.Judges[0]
		assert.Equal(t, "chunks_on_topic", j.Name)
		assert.Equal(t, cfg.Prompts["judge chunks_on_topic"], j.Version)
		assert.True(t, j.Generated)
		assert.Equal(t, []string{"Read the fields the criterion is about.", "Check each thing the criterion asks for.", "Choose the grade whose description fits best."}, j.Steps)
		assert.Equal(t, map[string]int{"defined_steps": 1, "defined_grade": 3}, schemaCounts(srv), "the steps once for the run")
	})

	t.Run("offline", func(t *testing.T) {
		t.Parallel()
		run := filepath.Join(t.TempDir(), "run")
		for _, args := range [][]string{
			{"score", "--profile", profile, "../../fixtures/context/good.json"},
			{"bench", "--profile", profile, "--out", run, data},
			{"score", "--profile", exampleReportProfile, "--llm", "offline", "../../fixtures/reports/pass.md"},
		} {
			code, out, errOut := runEnv(t, map[string]string{"ASSAY_DATA_DIR": t.TempDir()}, args...)
			assert.Equal(t, 2, code, "%v: %s", args, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "--llm: ")
			assert.Regexp(t, `(chunks_on_topic|plain_words) is a judge defined in a judges file or a profile`, errOut)
		}
		_, err := os.Stat(run)
		assert.True(t, os.IsNotExist(err), "no run folder")
	})
}

// TestExampleReportProfile runs examples/profiles/plain-report.yaml, as the
// README shows it, through score and bench against the fake model.
func TestExampleReportProfile(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_DATA_DIR": t.TempDir()}
	code, out, errOut := runEnv(t, env, "score", "--profile", exampleReportProfile, "--llm", "openai:judge-model", "--no-cache", "--format", "text", "../../fixtures/reports/pass.md")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "PASS 9.25/10 (passes at 8)")
	assert.Contains(t, out, "- plain_words 2.25/3: grade 4 on 1-5", "grade 4 of 1-5 is 0.75, weighed at max 3")
	assert.Contains(t, out, "- answers_the_question 2/2: grade pass on pass/fail")

	// judge takes the judges a profile defines as it takes a judges file's.
	code, out, errOut = runEnv(t, env, "judge", "--judges", exampleReportProfile, "--metric", "plain_words", "--llm", "openai:judge-model", "--no-cache", "--format", "json", exampleSupport)
	require.Equal(t, 0, code, errOut)
	var judged []runpkg.Result
	require.NoError(t, json.Unmarshal([]byte(out), &judged), out)
	require.Len(t, judged, 4)
	for _, r := range judged {
		assert.Equal(t, "plain_words", r.Metric)
		assert.InDelta(t, 4, r.Points, 1e-9, "%s: the fake's grade 4 of 1-5, unweighed outside a card", r.ID)
	}

	run := filepath.Join(t.TempDir(), "run")
	before := srv.Calls()
	code, _, errOut = runEnv(t, env, "bench", "--profile", exampleReportProfile, "--llm", "openai:judge-model", "--no-cache", "-q", "--out", run, reportRecords(t, t.TempDir()))
	require.Equal(t, 0, code, errOut)
	cfg := readConfig(t, run)
	assert.Equal(t, 1, cfg.StepsUsage.Calls, "plain_words' steps, written once")
	b, err := os.ReadFile(filepath.Join(run, runpkg.FileSummary))
	require.NoError(t, err)
	var sum runpkg.Summary
	require.NoError(t, json.Unmarshal(b, &sum))
	assert.Equal(t, srv.Calls()-before, sum.Usage.Calls, "summary.json counts every call the run made, the steps' among them")
	assert.Equal(t, []string{"grounding", "plain_words", "answers_the_question", "total"}, cfg.Metrics)
	require.Len(t, cfg.Judges, 2)
	assert.True(t, cfg.Judges[0].Generated, "plain_words has no steps of its own")
	assert.False(t, cfg.Judges[1].Generated)
	assert.Equal(t, []string{"Read the question and say what a direct answer would state.", "Read the executive summary and find that statement, or its absence."}, cfg.Judges[1].Steps)

	code, shown, errOut := runEnv(t, env, "runs", "show", run)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, shown, "plain_words (version "+cfg.Judges[0].Version+"), steps the model wrote from the criterion: 1. Read the fields the criterion is about.")
	html, err := os.ReadFile(filepath.Join(run, runpkg.FileReport))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<li>Read the executive summary and find that statement, or its absence.</li>")
}

// TestGeneratedStepsKeptOnResume: a resumed run follows the steps its
// first attempt had the model write, kept in config.json, without asking
// again even with the cache off.
func TestGeneratedStepsKeptOnResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := reportRecords(t, dir)
	run := filepath.Join(dir, "run")
	// The first server writes the steps and refuses every grade: each
	// judgement defaults, and the run is left to resume.
	first := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == "defined_grade" {
			return llmtest.Reply{Status: 400, Body: `{"error":{"message":"no grades today","type":"invalid_request_error"}}`}
		}
		return llmtest.JudgeReplies(req)
	}))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": first.URL(), "ASSAY_DATA_DIR": t.TempDir()}
	code, _, errOut := runEnv(t, env, "bench", "--profile", exampleReportProfile, "--llm", "openai:judge-model", "--no-cache", "-q", "--out", run, data)
	require.Equal(t, exitInfra, code, errOut)
	assert.Equal(t, 1, schemaCounts(first)["defined_steps"])
	kept := readConfig(t, run).Judges
	require.Len(t, kept, 2)

	second := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env["OPENAI_BASE_URL"] = second.URL()
	code, _, errOut = runEnv(t, env, "bench", "--profile", exampleReportProfile, "--llm", "openai:judge-model", "--no-cache", "-q", "--out", run, "--resume", data)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, map[string]int{"defined_grade": 4}, schemaCounts(second), "the defaulted grades asked again, the steps not")
	for _, r := range second.Requests() {
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, "new to the field") {
			assert.Contains(t, r.Messages[len(r.Messages)-1].Content, kept[0].Steps[0], "the kept steps are the ones followed")
		}
	}
	assert.Equal(t, kept, readConfig(t, run).Judges)
}

// TestBadProfileJudgesAreExit2: a profile's judges are checked as a
// judges file's are, before any call: the file, the line and the key.
func TestBadProfileJudgesAreExit2(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_DATA_DIR": t.TempDir()}
	head := "name: p\nkind: context\npass: {threshold: 1}\nscorers:\n  - {metric: context_quality, max: 1}\njudges:\n"
	tests := map[string]struct{ judges, want string }{
		"unknown key":        {"  - name: tone\n    criterion: Polite.\n    scale: 1-5\n    colour: red\n", "p.yaml:10: judges[0].colour: unknown field"},
		"missing criterion":  {"  - name: tone\n    scale: 1-5\n", "p.yaml:7: judges[0].criterion: missing"},
		"unreadable scale":   {"  - name: tone\n    criterion: Polite.\n    scale: A-F\n", `p.yaml:9: judges[0].scale: cannot read scale "A-F"`},
		"a built-in's name":  {"  - name: grounding\n    criterion: Cited.\n    scale: 1-5\n", `p.yaml:7: judges[0].name: "grounding" is the name of a built-in metric`},
		"a field never had":  {"  - name: tone\n    criterion: Polite.\n    scale: 1-5\n    fields: [question, answer]\n", "p.yaml:10: judges[0].fields[1]: judge tone reads answer, which a profile of kind context never has"},
		"the default fields": {"  - name: tone\n    criterion: Polite.\n    scale: 1-5\n", "p.yaml:7: judges[0]: judge tone reads answer"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "p.yaml")
			require.NoError(t, os.WriteFile(path, []byte(head+tc.judges), 0o600))
			for _, args := range [][]string{
				{"score", "--profile", path, "--llm", "openai:judge-model", "../../fixtures/context/good.json"},
				{"bench", "--profile", path, "--llm", "openai:judge-model", "--out", filepath.Join(dir, "run"), contextRecords(t, dir)},
			} {
				code, _, errOut := runEnv(t, env, args...)
				assert.Equal(t, 2, code, "%s: %s", args[0], errOut)
				assert.Contains(t, errOut, tc.want, args[0])
			}
		})
	}
	assert.Equal(t, 0, srv.Calls(), "refused before any call")
}

// checkedReport is a report, its sources and a profile that weighs
// faithfulness on its card, for --checker in score and research.
const (
	checkedProfile = "name: checked-report\nkind: report\npass: {threshold: 4}\nscorers:\n  - {metric: grounding, max: 5}\n  - {metric: faithfulness, max: 2}\n"
	checkedSources = `[{"url": "https://example.org/library", "title": "City records", "text": "Records show the city library opened its doors in 1921. The reading room seats two hundred people."}]`
	checkedReport  = "# When did the city library open?\n\n## Executive Summary\n\n" +
		"The city library opened in 1921 [City records](https://example.org/library \"opened its doors in 1921\").\n\n" +
		"It was funded by a shipping magnate [City records](https://example.org/library \"opened its doors in 1921\").\n\n" +
		"## Sources\n\n- [City records](https://example.org/library)\n"
)

// TestCheckerInScore: --checker makes the faithfulness a profile weighs
// verify each claim with the fact-checking server; its calls are in the
// usage line and spend from --max-cost's budget: a budget they pass stops
// the calls, counted, exit 3. A profile that weighs no faithfulness is
// exit 2, naming --checker.
func TestCheckerInScore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	profile, sources, report := write("checked.yaml", checkedProfile), write("sources.json", checkedSources), write("report.md", checkedReport)
	// A check costs $0.10 or so: 1000 dollars a million tokens, about a
	// hundred tokens a check.
	prices := write("prices.yaml", "minicheck: {in: 1000, out: 1000}\n")
	checker := llmtest.New(t, llmtest.Func(checkerReply(t, true)))
	env := map[string]string{"ASSAY_CHECKER_BASE_URL": checker.URL(), "OPENAI_API_KEY": "k", "ASSAY_CACHE_DIR": t.TempDir()}

	t.Run("verified", func(t *testing.T) {
		before := checker.Calls()
		code, out, errOut := runEnv(t, env, "score", "--profile", profile, "--llm", "offline", "--checker", "openai:minicheck", "--sources", sources, "--format", "text", report)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "PASS 6/7 (passes at 4)", "grounding 5 of 5, one claim of two supported: 1 of 2")
		assert.Contains(t, out, "- faithfulness 1/2:")
		assert.Equal(t, before+2, checker.Calls(), "one check per claim")
		assert.Contains(t, errOut, "checker openai:minicheck: calls 2")
	})

	t.Run("over budget", func(t *testing.T) {
		code, _, errOut := runEnv(t, env, "score", "--profile", profile, "--llm", "offline", "--checker", "openai:minicheck", "--sources", sources,
			"--max-cost", "0.15", "--prices", prices, "--format", "text", report)
		assert.Equal(t, exitInfra, code, errOut)
		assert.Contains(t, errOut, "budget reached: 1 call(s) not made (--max-cost $0.15)")
		assert.Contains(t, errOut, "checker openai:minicheck: calls 1")
	})

	t.Run("unpriced under a budget", func(t *testing.T) {
		before := checker.Calls()
		code, _, errOut := runEnv(t, env, "score", "--profile", profile, "--llm", "offline", "--checker", "openai:minicheck", "--sources", sources, "--max-cost", "1", report)
		assert.Equal(t, 2, code, errOut)
		assert.Contains(t, errOut, "--checker: --max-cost: model minicheck is not in the price table")
		assert.Equal(t, before, checker.Calls())
	})

	t.Run("nothing to verify", func(t *testing.T) {
		for _, args := range [][]string{
			{"score", "--checker", "openai:minicheck", report},
			{"score", "--profile", "context", "--checker", "openai:minicheck", "../../fixtures/context/good.json"},
			{"research", "--checker", "openai:minicheck", "anything"},
		} {
			code, _, errOut := runEnv(t, env, args...)
			assert.Equal(t, 2, code, "%v: %s", args, errOut)
			assert.Contains(t, errOut, "--checker: verifies the claims of faithfulness and context_recall, and this run judges neither")
		}
	})
}

// TestCheckerInResearch: a research run whose profile weighs
// faithfulness verifies the report's claims against the sources it
// fetched with the fact checker, and counts its calls; a budget they pass
// stops the calls and the run, exit 3.
func TestCheckerInResearch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	profile := filepath.Join(dir, "checked.yaml")
	require.NoError(t, os.WriteFile(profile, []byte(strings.Replace(checkedProfile, "threshold: 4", "threshold: 1", 1)), 0o600))
	checker := llmtest.New(t, llmtest.Func(checkerReply(t, true)))
	env := map[string]string{"ASSAY_CHECKER_BASE_URL": checker.URL(), "OPENAI_API_KEY": "k", "ASSAY_CACHE_DIR": t.TempDir()}
	q := "How do heat pumps perform in cold climates?"

	code, out, errOut := runEnv(t, env, "research", "-q", "--now", "2026-11-23", "--llm", "offline", "--checker", "openai:minicheck", "--profile", profile, "--format", "json", q)
	require.Equal(t, 0, code, errOut)
	assert.Positive(t, checker.Calls())
	assert.Contains(t, errOut, "checker openai:minicheck: calls ")
	assert.Contains(t, out, `"method": "offline (approximate) + checker openai:minicheck"`)

	prices := filepath.Join(dir, "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte("minicheck: {in: 1000, out: 1000}\n"), 0o600))
	code, _, errOut = runEnv(t, env, "research", "-q", "--now", "2026-11-23", "--llm", "offline", "--checker", "openai:minicheck", "--profile", profile,
		"--max-cost", "0.01", "--prices", prices, q)
	assert.Equal(t, exitInfra, code, errOut)
	assert.Contains(t, errOut, "budget reached: ")
}
