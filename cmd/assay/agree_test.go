package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// labelledLines is n labelled JSON Lines records, the first n/2 faithful.
func labelledLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(`{"id":"r` + strconv.Itoa(i) + `","question":"Where is the tower?","answer":"The tower is in Paris.",` +
			`"contexts":["The tower stands in Paris."],"human":{"faithful":` + strconv.FormatBool(i < n/2) + "}}\n")
	}
	return b.String()
}

// TestAgreeChecksTheWholeFileBeforeAnyCall: a bad record far into a
// dataset, in a file or on standard input, is an input error naming the
// file, line and field, and no model call is made.
func TestAgreeChecksTheWholeFileBeforeAnyCall(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	dir := t.TempDir()
	const n = 2000
	tests := map[string]struct {
		last, want string // the record after n good ones; the error
	}{
		"a field":       {`{"id":"bad","question":"q","contexts":7,"human":{"faithful":true}}`, ":2001: contexts: want an array of strings, got number"},
		"invalid JSON":  {`{"id":"bad","question":"q",`, ":2001:28: invalid JSON: unexpected end of JSON input"},
		"a duplicate":   {`{"id":"r7","question":"q","human":{"faithful":true}}`, `:2001: id: duplicate id "r7" (first on line 8)`},
		"no query":      {`{"id":"bad","human":{"faithful":true}}`, ":2001: record has no question, answer or contexts"},
		"not UTF-8":     {`{"id":"bad","question":"caf` + "\xe9" + `","human":{"faithful":true}}`, ":2001:28: invalid UTF-8: expected UTF-8 text"},
		"a bad context": {`{"id":"bad","question":"q","contexts":["a",1],"human":{"faithful":true}}`, ":2001: contexts[1]: want a string, got number"},
	}
	for name, tc := range tests {
		data := labelledLines(n) + tc.last + "\n"
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
		for _, file := range []string{path, "-"} {
			t.Run(name+" in "+displayName(file), func(t *testing.T) {
				t.Parallel()
				var out, errb bytes.Buffer
				code := run(context.Background(), []string{"agree", "--no-cache", "--metric", "faithfulness", "--label", "faithful", file},
					func(k string) string { return env[k] }, strings.NewReader(data), &out, &errb)
				assert.Equal(t, exitInput, code, errb.String())
				assert.Contains(t, errb.String(), "assay: "+displayName(file)+tc.want)
				assert.Empty(t, out.String())
			})
		}
	}
	t.Cleanup(func() { assert.Zero(t, srv.Calls(), "no model call") })
}

// TestAgreeStdin: a dataset on standard input gives the file's result,
// named <stdin>.
func TestAgreeStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../fixtures/rag/labelled.jsonl")
	require.NoError(t, err)
	for _, format := range []string{"md", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			args := []string{"agree", "--metric", "faithfulness", "--label", "faithful", "--baseline", "--format", format}
			code, want, errOut := runCLI(t, "", append(args, "../../fixtures/rag/labelled.jsonl")...)
			require.Equal(t, exitPass, code, errOut)
			code, got, errOut := runCLI(t, string(data), append(args, "-")...)
			require.Equal(t, exitPass, code, errOut)
			assert.Equal(t, strings.Replace(want, "../../fixtures/rag/labelled.jsonl", "<stdin>", 1), got)
		})
	}
}

// TestAgreeGolden: values read from the file (--score), binary and
// graded, whole and per group, in Markdown and JSON, are fixed figures.
func TestAgreeGolden(t *testing.T) {
	t.Parallel()
	const graded = "../../fixtures/rag/graded.jsonl"
	tests := map[string][]string{
		"agree-score.md":        {"agree", "--score", "meta.judge_score", "--label", "relevant", "--by", "meta.model", "--calibration", graded},
		"agree-score.json":      {"agree", "--score", "meta.judge_score", "--label", "relevant", "--by", "meta.model", "--format", "json", graded},
		"agree-graded.md":       {"agree", "--score", "meta.judge_grade", "--label", "relevance", "--by", "meta.model", graded},
		"agree-graded.json":     {"agree", "--score", "meta.judge_grade", "--label", "relevance", "--format", "json", graded},
		"agree-graded-judge.md": {"agree", "--metric", "source_relevance", "--label", "relevance", "--grades", "1,2,3,4,5", graded},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", args...)
			require.Equal(t, exitPass, code, errOut)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), out)
		})
	}
}

// TestAgreeGradedFixture: the README's graded example prints the output
// kept beside its dataset.
func TestAgreeGradedFixture(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "", "agree", "--score", "meta.judge_grade", "--label", "relevance", "--by", "meta.model", "../../fixtures/rag/graded.jsonl")
	require.Equal(t, exitPass, code, errOut)
	out = strings.ReplaceAll(out, "../../fixtures/", "fixtures/")
	const expected = "../../fixtures/rag/graded.expected.md"
	if *update {
		require.NoError(t, os.WriteFile(expected, []byte(out), 0o644))
	}
	want, err := os.ReadFile(expected)
	require.NoError(t, err)
	assert.Equal(t, string(want), out)
	assert.Contains(t, out, "| meta.judge_grade | relevance | all | 16 | 0 | 0 | 0 | as given | 0.880 ")
}
