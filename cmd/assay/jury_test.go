package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/stats"
)

// juryData is six records labelled faithful or not. The word kiwi in an
// answer makes the fake model judge-a find it supported, plum judge-b:
// judge-a's verdicts are 110010, judge-b's 100011, the labels 110010.
const juryData = `{"id":"r1","question":"Where is the tower?","answer":"The kiwi plum tower is in Paris.","contexts":["The tower stands in Paris."],"human":{"faithful":true}}
{"id":"r2","question":"Where is the tower?","answer":"The kiwi tower is in Paris.","contexts":["The tower stands in Paris."],"human":{"faithful":true}}
{"id":"r3","question":"Where is the tower?","answer":"The tower is in Rome.","contexts":["The tower stands in Paris."],"human":{"faithful":false}}
{"id":"r4","question":"Where is the tower?","answer":"The tower is in Oslo.","contexts":["The tower stands in Paris."],"human":{"faithful":false}}
{"id":"r5","question":"Where is the tower?","answer":"The kiwi plum tower is in France.","contexts":["The tower stands in Paris."],"human":{"faithful":true}}
{"id":"r6","question":"Where is the tower?","answer":"The plum tower is in Lyon.","contexts":["The tower stands in Paris."],"human":{"faithful":false}}
`

// juryReplies answers as the judges' usual fake, except that the one
// claim it extracts from an answer is supported only when the answer holds
// the requested model's word.
func juryReplies(req openai.ChatCompletionRequest) llmtest.Reply {
	schema := ""
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		schema = rf.JSONSchema.Name
	}
	last := req.Messages[len(req.Messages)-1].Content
	switch schema {
	case "claims":
		word := map[string]string{"judge-a": "kiwi", "judge-b": "plum"}[req.Model]
		if word != "" && strings.Contains(last, word) {
			return llmtest.Reply{Content: `{"claims":["A supported statement."]}`}
		}
		return llmtest.Reply{Content: `{"claims":["An unsupported statement."]}`}
	case "verdicts":
		if strings.Contains(last, "An unsupported statement.") {
			return llmtest.Reply{Content: `{"verdicts":[{"statement":1,"verdict":"unsupported","context":"","reason":"not in the contexts"}]}`}
		}
	}
	return llmtest.JudgeReplies(req) // its one statement supported
}

func TestAgreeJury(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(juryReplies))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL()}
	path := filepath.Join(t.TempDir(), "jury.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(juryData), 0o600))
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"agree", "--no-cache", "-q", "--metric", "faithfulness", "--label", "faithful",
		"--llm", "openai:judge-a, openai:judge-b", "--format", "json", path}, func(k string) string { return env[k] }, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var got struct {
		Results []agree.Result   `json:"results"`
		Jury    agree.JuryResult `json:"jury"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())

	a, b := "faithfulness (openai:judge-a)", "faithfulness (openai:judge-b)"
	require.Len(t, got.Results, 2)
	tests := map[string]struct {
		res            agree.Result
		metric         string
		values         []float64
		tp, fp, tn, fn int
	}{
		"juror a":  {got.Results[0], a, []float64{1, 1, 0, 0, 1, 0}, 3, 0, 3, 0},
		"juror b":  {got.Results[1], b, []float64{1, 0, 0, 0, 1, 1}, 2, 1, 2, 1},
		"the jury": {got.Jury.Jury, agree.JuryMetric, []float64{1, 0.5, 0, 0, 1, 0.5}, 2, 0, 3, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.metric, tc.res.Metric)
			require.Len(t, tc.res.Rows, len(tc.values))
			for i, v := range tc.values {
				assert.InDelta(t, v, tc.res.Rows[i].Value, 1e-12, "row %s", tc.res.Rows[i].ID)
			}
			require.NotNil(t, tc.res.Fixed)
			assert.InDelta(t, 1, tc.res.Fixed.Threshold, 1e-12, "the model faithfulness threshold")
			c := tc.res.Fixed.Confusion
			assert.Equal(t, [4]int{tc.tp, tc.fp, tc.tn, tc.fn}, [4]int{c.TP, c.FP, c.TN, c.FN})
		})
	}
	assert.Equal(t, []string{a, b}, got.Jury.Jurors)
	require.Len(t, got.Jury.Pairwise, 1)
	// 4 of 6 verdicts agree, each juror says yes to 3: chance agreement
	// 1/2, kappa = (2/3 - 1/2) / (1/2) = 1/3.
	assert.Equal(t, 6, got.Jury.Pairwise[0].N)
	assert.InDelta(t, 1.0/3, float64(got.Jury.Pairwise[0].Kappa), 1e-12)
	// Each juror extracted the claims of every record itself: its own
	// client, nothing shared. (Identical verdict prompts may be answered
	// once per client, so only the claims calls have a fixed count.)
	claims := map[string]int{}
	for _, r := range srv.Requests() {
		if r.ResponseFormat != nil && r.ResponseFormat.JSONSchema != nil && r.ResponseFormat.JSONSchema.Name == "claims" {
			claims[r.Model]++
		}
	}
	assert.Equal(t, map[string]int{"judge-a": 6, "judge-b": 6}, claims)
	assert.Equal(t, 2, strings.Count(errb.String(), "judge: "), "a usage line per juror: %s", errb.String())

	t.Run("markdown", func(t *testing.T) {
		t.Parallel()
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"agree", "--no-cache", "-q", "--metric", "faithfulness", "--label", "faithful",
			"--llm", "openai:judge-a,openai:judge-b", path}, func(k string) string { return env[k] }, nil, &out, &errb)
		require.Equal(t, 0, code, errb.String())
		md := out.String()
		ia, ib, ij := strings.Index(md, "| "+a+" |"), strings.Index(md, "| "+b+" |"), strings.Index(md, "| jury |")
		assert.True(t, ia >= 0 && ia < ib && ib < ij, "juror rows, then the jury's: %s", md)
		assert.Contains(t, md, "| "+a+" | "+b+" | 6 | 0.333 |")
	})
}

func TestJuryFlagErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(juryReplies))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL()}
	path := filepath.Join(t.TempDir(), "jury.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(juryData), 0o600))
	tests := map[string]struct {
		args []string
		want string
	}{
		"judge":          {[]string{"judge", "--no-cache", "--metric", "faithfulness", "--llm", "openai:judge-a,openai:judge-b", path}, "--llm: one model here; juries are for assay agree"},
		"score":          {[]string{"score", "--no-cache", "--llm", "openai:judge-a,openai:judge-b", "../../fixtures/reports/pass.md"}, "--llm: one model here; juries are for assay agree"},
		"bench":          {[]string{"bench", "--no-cache", "--metric", "faithfulness", "--out", filepath.Join(t.TempDir(), "run"), "--llm", "openai:judge-a,openai:judge-b", path}, "--llm: one model here; juries are for assay agree"},
		"research":       {[]string{"research", "--no-cache", "--llm", "openai:judge-a,openai:judge-b", "where is the tower"}, "--llm: one model here; juries are for assay agree"},
		"agree --score":  {[]string{"agree", "--score", "meta.x", "--label", "faithful", "--llm", "openai:judge-a,openai:judge-b", path}, "a jury judges now: give --metric NAME"},
		"an empty model": {[]string{"agree", "--metric", "faithfulness", "--label", "faithful", "--llm", "openai:judge-a,,openai:judge-b", path}, "an empty model between commas"},
		"a model twice":  {[]string{"agree", "--metric", "faithfulness", "--label", "faithful", "--llm", "openai:judge-a,openai:judge-a", path}, "openai:judge-a is given twice"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, func(k string) string { return env[k] }, nil, &out, &errb)
			assert.Equal(t, exitInput, code, errb.String())
			assert.Contains(t, errb.String(), tc.want)
		})
	}
	t.Cleanup(func() { assert.Zero(t, srv.Calls(), "no model call") })
}

// gradeReplies grades a source 1-5: judge-a 5 when the prompt speaks of
// cold, else 3; judge-b always 4.
func gradeReplies(req openai.ChatCompletionRequest) llmtest.Reply {
	if rf := req.ResponseFormat; rf == nil || rf.JSONSchema == nil || rf.JSONSchema.Name != "grade" {
		return llmtest.JudgeReplies(req)
	}
	grade := "4"
	if req.Model == "judge-a" {
		grade = "3"
		if strings.Contains(strings.ToLower(req.Messages[len(req.Messages)-1].Content), "cold") {
			grade = "5"
		}
	}
	return llmtest.Reply{Content: `{"grade":` + grade + `,"reason":"as the fake grades"}`}
}

// TestAgreeJuryGraded: for a graded label the jury's value is the lower of
// two jurors' grades that differ, and the jurors' agreement is their alpha.
func TestAgreeJuryGraded(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(gradeReplies))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL()}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"agree", "--no-cache", "-q", "--metric", "source_relevance", "--label", "relevance", "--grades", "1,2,3,4,5",
		"--llm", "openai:judge-a,openai:judge-b", "--format", "json", "../../fixtures/rag/graded.jsonl"}, func(k string) string { return env[k] }, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var got struct {
		Results []agree.Result   `json:"results"`
		Jury    agree.JuryResult `json:"jury"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	require.Len(t, got.Results, 2)
	a, b, jury := got.Results[0], got.Results[1], got.Jury.Jury
	require.NotNil(t, jury.GradedStats)
	assert.Equal(t, "as given", jury.JudgeOnGrades)
	assert.Equal(t, "points", a.JudgeOnGrades)
	require.Len(t, jury.Rows, len(a.Rows))
	units := make([][]float64, len(a.Rows))
	sawFive, sawThree := false, false
	for i := range a.Rows {
		ga, gb := a.Rows[i].Points, b.Rows[i].Points
		require.Contains(t, []float64{3, 5}, ga)
		require.InDelta(t, 4, gb, 0)
		sawFive, sawThree = sawFive || ga == 5, sawThree || ga == 3
		assert.InDelta(t, min(ga, gb), jury.Rows[i].Value, 0, "record %s: a tie takes the lower grade", a.Rows[i].ID)
		units[i] = []float64{ga, gb}
	}
	assert.True(t, sawFive && sawThree, "the fake gave judge-a both grades")
	require.NotNil(t, got.Jury.AlphaOrdinal)
	assert.InDelta(t, stats.KrippendorffAlpha(units, stats.Ordinal), float64(*got.Jury.AlphaOrdinal), 1e-12)
	assert.InDelta(t, stats.KrippendorffAlpha(units, stats.Interval), float64(*got.Jury.AlphaInterval), 1e-12)
	assert.Empty(t, got.Jury.Pairwise)
}
