package dataset

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// rows are three records as a Python script holds them before json.dump.
var rows = []map[string]any{
	{"question": "Where is the Louvre?", "answer": "In Paris.", "contexts": []string{"The Louvre is in Paris."}},
	{"user_input": "Who built it?", "response": "Philip II.", "retrieved_contexts": []string{"Philip II built a fortress."}},
	{"input": "When did it open?", "actual_output": "1793.", "retrieval_context": []string{"It opened in 1793."}},
}

// TestReadJSONArrayAsRows: a top-level JSON array is rows whether the file
// is .json or .jsonl, written on one line (json.dump, a DeepEval export)
// or pretty-printed; elements without an id are named after their line
// when it is theirs alone, else after their index.
func TestReadJSONArrayAsRows(t *testing.T) {
	t.Parallel()
	oneLine, err := json.Marshal(rows)
	require.NoError(t, err)
	pretty, err := json.MarshalIndent(rows, "", "  ")
	require.NoError(t, err)
	tests := map[string]struct {
		name, data string
		ids        []string
		lines      []int
	}{
		"one line, .json":          {"d.json", string(oneLine), []string{"item-0", "item-1", "item-2"}, []int{1, 1, 1}},
		"one line, .jsonl":         {"d.jsonl", string(oneLine) + "\n", []string{"item-0", "item-1", "item-2"}, []int{1, 1, 1}},
		"one line, no extension":   {"export", " \n" + string(oneLine), []string{"item-0", "item-1", "item-2"}, []int{2, 2, 2}},
		"pretty-printed, .jsonl":   {"d.jsonl", string(pretty), []string{"line-2", "line-9", "line-16"}, []int{2, 9, 16}},
		"pretty-printed, .json":    {"d.json", string(pretty), []string{"line-2", "line-9", "line-16"}, []int{2, 9, 16}},
		"with a bom, .jsonl":       {"d.jsonl", "\xEF\xBB\xBF" + string(oneLine), []string{"item-0", "item-1", "item-2"}, []int{1, 1, 1}},
		"two on a line, one alone": {"d.jsonl", "[" + `{"question":"a"}, {"question":"b"},` + "\n" + `{"question":"c"}]`, []string{"item-0", "item-1", "line-2"}, []int{1, 1, 2}},
		"ids given are kept":       {"d.jsonl", `[{"id":"x","question":"a"},{"id":7,"question":"b"},{"question":"c"}]`, []string{"x", "7", "item-2"}, []int{1, 1, 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Read(tc.name, strings.NewReader(tc.data))
			require.NoError(t, err)
			var ids, paths []string
			var lines []int
			for _, rec := range got {
				ids, lines, paths = append(ids, rec.ID), append(lines, rec.Line), append(paths, rec.Path)
				assert.Equal(t, rec.ID, rec.Sample.ID)
			}
			assert.Equal(t, tc.ids, ids)
			assert.Equal(t, tc.lines, lines)
			assert.Equal(t, []string{"[0]", "[1]", "[2]"}, paths)
			if strings.HasPrefix(name, "one line") {
				assert.Equal(t, eval.Sample{ID: "item-1", Query: "Who built it?", Answer: "Philip II.",
					Sources: []eval.Source{{ID: "c1", Text: "Philip II built a fortress."}}}, got[1].Sample)
			}
		})
	}
}

// TestReadJSONArrayErrorsNameTheRow: an error about an element of an array
// names the file, the line, the element's index and the field.
func TestReadJSONArrayErrorsNameTheRow(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name, data string
		want       string
		line       int
		field      string
	}{
		"a field of the wrong type": {"d.jsonl", `[{"question":"a"},{"question":"b"},{"question":"c","answer":1}]`,
			"d.jsonl:1: [2].answer: want a string, got number", 1, "[2].answer"},
		"a context of the wrong type": {"d.json", `[{"question":"a","contexts":["x",2]}]`,
			"d.json:1: [0].contexts[1]: want a string, got number", 1, "[0].contexts[1]"},
		"an element with nothing to judge": {"d.jsonl", "[\n" + `{"question":"a"},` + "\n" + `{"id":"z"}` + "\n]",
			"d.jsonl:3: [1]: record has no question, answer, contexts or messages", 3, "[1]"},
		"an id given twice": {"d.jsonl", `[{"id":"a","question":"a"},{"id":"a","question":"b"}]`,
			`d.jsonl:1: [1].id: duplicate id "a" (first on line 1)`, 1, "[1].id"},
		"an element that is not an object": {"d.jsonl", `[{"question":"a"},"b"]`,
			"d.jsonl:1: [1]: want a JSON object, got string", 1, "[1]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(tc.name, strings.NewReader(tc.data))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.name, ie.File)
			assert.Equal(t, tc.line, ie.Line)
			assert.Equal(t, tc.field, ie.Field)
		})
	}
}

// TestReadJSONLArrayAsItGoes: a .jsonl file holding an array is read
// element by element, each yielded before the input after it is read.
func TestReadJSONLArrayAsItGoes(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(`[{"id":"a","question":"q"},`), iotest.ErrReader(boom))
	var ids []string
	var last error
	for rec, err := range Records("d.jsonl", r) {
		if err != nil {
			last = err
			continue
		}
		ids = append(ids, rec.ID)
	}
	assert.Equal(t, []string{"a"}, ids)
	require.ErrorIs(t, last, boom)
}
