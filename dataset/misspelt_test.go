package dataset

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func TestReadRefusesAMisspeltFieldItWouldIgnore(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name, data string
		want       string
		line, col  int
		field      string
	}{
		"contexts without its t": {"rag.jsonl",
			`{"id":"k1","question":"Which port?","answer":"Port 8080.","contexs":["The service listens on 8080."]}`,
			`rag.jsonl:1: contexs: not a field Assay reads, and the record has no contexts: is it "contexts"? (contexts are read from contexts, retrieved_contexts or retrieval_context)`,
			1, 0, "contexs"},
		"ragas v1's list of ground truths": {"rag.jsonl",
			`{"question":"Which port?","answer":"Port 8080.","contexts":["8080"]}` + "\n" +
				`{"question":"Which host?","answer":"db1.","contexts":["db1"],"ground_truths":["db1"]}`,
			`rag.jsonl:2: ground_truths: not a field Assay reads, and the record has no reference: is it "ground_truth"? (a reference is read from reference, ground_truth or expected_output, one string)`,
			2, 0, "ground_truths"},
		"answers for answer": {"rag.jsonl",
			`{"question":"Which port?","answers":"Port 8080.","contexts":["8080"]}`,
			`rag.jsonl:1: answers: not a field Assay reads, and the record has no answer: is it "answer"? (an answer is read from answer, response or actual_output)`,
			1, 0, "answers"},
		"a capitalised column of a csv": {"rag.csv",
			"id,Question,answer\nk1,Which port?,Port 8080.\n",
			`rag.csv:2:4: Question: not a field Assay reads, and the record has no query: is it "question"? (a query is read from query, question, user_input or input)`,
			2, 4, "Question"},
		"a json array's element with a retrieved context": {"rag.json",
			"[\n" + `{"user_input":"Which port?","response":"Port 8080.","retrieved_context":["8080"]}` + "\n]",
			`rag.json:2: [0].retrieved_context: not a field Assay reads, and the record has no contexts: is it "retrieved_contexts"? (contexts are read from contexts, retrieved_contexts or retrieval_context)`,
			2, 0, "[0].retrieved_context"},
		"an ID in capitals": {"rag.jsonl",
			`{"ID":"k1","question":"Which port?","answer":"Port 8080."}`,
			`rag.jsonl:1: ID: not a field Assay reads, and the record has no id: is it "id"? (an id is read from id)`,
			1, 0, "ID"},
		"a retrieval sample of the context profile": {"rag.jsonl",
			`{"query":"Which port?","chunks":[{"text":"8080","score":0.9}],"context":"8080"}`,
			`rag.jsonl:1: context: not a field Assay reads, and the record has no contexts: is it "contexts"? (contexts are read from contexts, retrieved_contexts or retrieval_context); a record of query, chunks and context is a retrieval sample, judged with --profile context`,
			1, 0, "context"},
		"labels under a capital": {"rag.jsonl",
			`{"question":"Which port?","answer":"Port 8080.","Human":{"faithful":true}}`,
			`rag.jsonl:1: Human: not a field Assay reads, and the record has no human: is it "human"? (labels are read from human, an object)`,
			1, 0, "Human"},
		"metadata with a separator": {"rag.jsonl",
			`{"question":"Which port?","answer":"Port 8080.","meta_data":{"team":"infra"}}`,
			`rag.jsonl:1: meta_data: not a field Assay reads, and the record has no metadata: is it "metadata"? (metadata is read from metadata, an object)`,
			1, 0, "meta_data"},
		"only misspelt fields": {"rag.jsonl",
			`{"questoin":"Which port?","anwser":"Port 8080."}`,
			`rag.jsonl:1: anwser: not a field Assay reads, and the record has no answer: is it "answer"? (an answer is read from answer, response or actual_output)`,
			1, 0, "anwser"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(tc.name, strings.NewReader(tc.data))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.line, ie.Line)
			assert.Equal(t, tc.col, ie.Col)
			assert.Equal(t, tc.field, ie.Field)
		})
	}
}

func TestReadKeepsIgnoringFieldsThatAreNoMisspelling(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		// The role is there under its own name: the near name is data.
		"answers beside an answer":          `{"question":"Which port?","answer":"Port 8080.","answers":["8080","port 8080"]}`,
		"deepeval's ideal context":          `{"input":"Which port?","actual_output":"Port 8080.","context":["8080"],"retrieval_context":["8080"]}`,
		"a source name and no contexts":     `{"question":"Which port?","answer":"Port 8080.","source":"wiki"}`,
		"names far from any":                `{"question":"Which port?","answer":"Port 8080.","answered":true,"idx":3,"_id":"x","question_id":"q7","reference_contexts":["a"]}`,
		"ground truth numbers and a string": `{"question":"Which port?","answer":"Port 8080.","ground_truth":{"port":8080},"ground_truths":"8080"}`,
		// Optional parts stand only for their name written otherwise.
		"a message column of its own": `{"question":"Which port?","answer":"Port 8080.","message":"from the on-call log"}`,
		"a metadata-like field":       `{"question":"Which port?","answer":"Port 8080.","metadate":"2026-12-01","humans":2}`,
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			recs, err := Read("rag.jsonl", strings.NewReader(data))
			require.NoError(t, err)
			require.Len(t, recs, 1)
		})
	}
}

func TestSniffSaysADatasetWithAMisspeltFieldIsOne(t *testing.T) {
	t.Parallel()
	got := Sniff([]byte(`{"question":"Which port?","answer":"Port 8080.","contexs":["8080"]}` + "\n" + `{"question":"Which host?","answer":"db1."}`))
	assert.Equal(t, FormatJSONL, got.Format)
}
