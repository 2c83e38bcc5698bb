package dataset

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// full is the record every naming convention below describes.
var full = Record{
	ID: "s1", Line: 1,
	Sample: eval.Sample{
		ID: "s1", Query: "Who wrote it?", Answer: "Ada wrote it.",
		Sources:   []eval.Source{{ID: "c1", Text: "Ada wrote it in 1843."}, {ID: "c2", Text: "Notes, \"G\"."}},
		Reference: "Ada Lovelace.",
	},
	Human: map[string]any{"faithful": true},
}

func TestReadAcceptsEachNamingConvention(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name, data string
	}{
		"assay jsonl":        {"d.jsonl", `{"id":"s1","query":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843.","Notes, \"G\"."],"reference":"Ada Lovelace.","human":{"faithful":true}}`},
		"ragas v1 jsonl":     {"d.jsonl", `{"id":"s1","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843.","Notes, \"G\"."],"ground_truth":"Ada Lovelace.","human":{"faithful":true},"meta":{"x":1}}`},
		"ragas v2 jsonl":     {"d.jsonl", `{"id":"s1","user_input":"Who wrote it?","response":"Ada wrote it.","retrieved_contexts":["Ada wrote it in 1843.","Notes, \"G\"."],"reference":"Ada Lovelace.","human":{"faithful":true}}`},
		"deepeval jsonl":     {"d.jsonl", `{"id":"s1","input":"Who wrote it?","actual_output":"Ada wrote it.","retrieval_context":["Ada wrote it in 1843.","Notes, \"G\"."],"expected_output":"Ada Lovelace.","human":{"faithful":true}}`},
		"json array":         {"d.json", "[\n" + `{"id":"s1","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843.","Notes, \"G\"."],"ground_truth":"Ada Lovelace.","human":{"faithful":true}}` + "\n]"},
		"json holding lines": {"d.json", `{"id":"s1","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843.","Notes, \"G\"."],"ground_truth":"Ada Lovelace.","human":{"faithful":true}}`},
		"no extension is jsonl, with bom and crlf": {"d", "\xEF\xBB\xBF" + `{"id":"s1","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843.","Notes, \"G\"."],"ground_truth":"Ada Lovelace.","human":{"faithful":true}}` + "\r\n\r\n"},
		"ragas v1 csv with a json array of contexts": {"d.csv", "id,question,answer,contexts,ground_truth,human\n" +
			`s1,Who wrote it?,Ada wrote it.,"[""Ada wrote it in 1843."",""Notes, \""G\"".""]",Ada Lovelace.,"{""faithful"":true}"` + "\n"},
		"ragas v2 csv": {"d.csv", "id,user_input,response,retrieved_contexts,reference,human\n" +
			`s1,Who wrote it?,Ada wrote it.,"[""Ada wrote it in 1843."",""Notes, \""G\"".""]",Ada Lovelace.,"{""faithful"":true}"` + "\n"},
		"deepeval csv": {"d.CSV", "id,input,actual_output,retrieval_context,expected_output,human\n" +
			`s1,Who wrote it?,Ada wrote it.,"[""Ada wrote it in 1843."",""Notes, \""G\"".""]",Ada Lovelace.,"{""faithful"":true}"` + "\n"},
		"ragas v1 tsv, as pandas writes it with sep tab": {"d.tsv", "id\tquestion\tanswer\tcontexts\tground_truth\thuman\n" +
			"s1\tWho wrote it?\tAda wrote it.\t\"['Ada wrote it in 1843.', 'Notes, \"\"G\"\".']\"\tAda Lovelace.\t\"{\"\"faithful\"\": true}\"\n"},
		"deepeval tsv with crlf and a byte order mark": {"D.TSV", "\xEF\xBB\xBFid\tinput\tactual_output\tretrieval_context\texpected_output\thuman\r\n" +
			`s1` + "\t" + `Who wrote it?` + "\t" + `Ada wrote it.` + "\t" + `"[""Ada wrote it in 1843."",""Notes, \""G\"".""]"` + "\t" + `Ada Lovelace.` + "\t" + `"{""faithful"":true}"` + "\r\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Read(tc.name, strings.NewReader(tc.data))
			require.NoError(t, err)
			require.Len(t, got, 1)
			want := full
			if strings.HasPrefix(tc.data, "[") || strings.HasSuffix(strings.ToLower(tc.name), ".csv") || strings.HasSuffix(strings.ToLower(tc.name), ".tsv") {
				want.Line = 2 // after the bracket or the header
			}
			if strings.HasPrefix(tc.data, "[") {
				want.Path = "[0]"
			}
			assert.Equal(t, want, got[0])
		})
	}
}

func TestReadMapsTheOtherFields(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name, data string
		want       []Record
	}{
		"null answer and a number label, as in a relevance set": {
			"d.jsonl",
			`{"id":"m-1","source":"msmarco","question":"what is rba","answer":null,"contexts":["RBA is..."],"reference":null,"human":{"relevant":1}}`,
			[]Record{{ID: "m-1", Line: 1, Sample: eval.Sample{ID: "m-1", Query: "what is rba", Sources: []eval.Source{{ID: "c1", Text: "RBA is..."}}}, Human: map[string]any{"relevant": 1.0}}},
		},
		"empty contexts, no question, default ids by line": {
			"d.jsonl",
			`{"question":null,"answer":"x","contexts":[]}` + "\n\n" + `{"answer":"y"}`,
			[]Record{
				{ID: "line-1", Line: 1, Sample: eval.Sample{ID: "line-1", Answer: "x"}},
				{ID: "line-3", Line: 3, Sample: eval.Sample{ID: "line-3", Answer: "y"}},
			},
		},
		"assay's own sources, ground truth numbers, metadata and a number id": {
			"d.jsonl",
			`{"id":7,"query":"q","sources":[{"id":"d1","url":"https://a.example","text":"t","score":0.5}],"ground_truth":{"rate":0.25},"metadata":{"k":"v"}}`,
			[]Record{{ID: "7", Line: 1, Sample: eval.Sample{ID: "7", Query: "q",
				Sources:     []eval.Source{{ID: "d1", URL: "https://a.example", Text: "t", Score: 0.5}},
				GroundTruth: map[string]float64{"rate": 0.25}, Metadata: map[string]any{"k": "v"}}}},
		},
		"the same value under two names": {
			"d.jsonl",
			`{"query":"q","question":"q"}`,
			[]Record{{ID: "line-1", Line: 1, Sample: eval.Sample{ID: "line-1", Query: "q"}}},
		},
		"csv: a plain context, empty cells, human columns, quoted newline": {
			"d.csv",
			"question,answer,contexts,human.relevant,notes\n" +
				"\"two\nlines\",,[citation needed] is plain text,yes,x\n" +
				"q2,a2,,,\n",
			[]Record{
				{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: "two\nlines", Sources: []eval.Source{{ID: "c1", Text: "[citation needed] is plain text"}}}, Human: map[string]any{"relevant": "yes"}},
				{ID: "line-4", Line: 4, Sample: eval.Sample{ID: "line-4", Query: "q2", Answer: "a2"}},
			},
		},
		"json lines joined from files that each start with a byte order mark": {
			"d.jsonl",
			"\xEF\xBB\xBF{\"question\":\"q\"}\r\n\xEF\xBB\xBF{\"question\":\"q2\"}\r\n",
			[]Record{
				{ID: "line-1", Line: 1, Sample: eval.Sample{ID: "line-1", Query: "q"}},
				{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: "q2"}},
			},
		},
		"csv: separated by semicolons, as Excel saves it in much of Europe": {
			"d.csv",
			"\xEF\xBB\xBFquestion;answer;contexts\r\nWhy, then?;\"Because; so\";\"['a, b']\"\r\n",
			[]Record{{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: "Why, then?", Answer: "Because; so", Sources: []eval.Source{{ID: "c1", Text: "a, b"}}}}},
		},
		"csv: rows of empty cells, as Excel leaves below the data, are blank lines": {
			"d.csv",
			"question,answer,contexts\r\nq,a,\r\n,,\r\n , ,\"\"\r\n",
			[]Record{{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: "q", Answer: "a"}}},
		},
		"csv: separated by tabs": {
			"d.csv",
			"question\tanswer\nWhy, then?\tBecause, so\n",
			[]Record{{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: "Why, then?", Answer: "Because, so"}}},
		},
		"tsv: commas and semicolons in cells, an empty cell, a quoted tab and newline": {
			"d.tsv",
			"question\tanswer\tcontexts\thuman.relevant\n" +
				"Why, then; and how?\t\tParis, France\tyes\n" +
				"\"a\ttab\nand a line\"\tBecause, so\t\t\n",
			[]Record{
				{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: "Why, then; and how?", Sources: []eval.Source{{ID: "c1", Text: "Paris, France"}}}, Human: map[string]any{"relevant": "yes"}},
				{ID: "line-3", Line: 3, Sample: eval.Sample{ID: "line-3", Query: "a\ttab\nand a line", Answer: "Because, so"}},
			},
		},
		"tsv: quotes inside a cell are text, a cell that starts with one is quoted": {
			"d.tsv",
			"question\tanswer\tcontexts\n" +
				"He said \"hi\"\tthe \"best\" one\t5\" long\n" +
				"\"\"\"Hi\"\" first\"\t\"a\ttab\"\t\"\"\n" +
				"a \"\tb\"\tc\"\"d\r\n",
			[]Record{
				{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: `He said "hi"`, Answer: `the "best" one`, Sources: []eval.Source{{ID: "c1", Text: `5" long`}}}},
				{ID: "line-3", Line: 3, Sample: eval.Sample{ID: "line-3", Query: `"Hi" first`, Answer: "a\ttab"}},
				{ID: "line-4", Line: 4, Sample: eval.Sample{ID: "line-4", Query: `a "`, Answer: `b"`, Sources: []eval.Source{{ID: "c1", Text: `c""d`}}}},
			},
		},
		"tsv: a header of one column": {
			"d.tsv",
			"question\nWhy, then?\n",
			[]Record{{ID: "line-2", Line: 2, Sample: eval.Sample{ID: "line-2", Query: "Why, then?"}}},
		},
		"csv: Excel's sep= line names the separator": {
			"d.csv",
			"sep=;\r\nquestion;answer\r\nq;a, b\r\n",
			[]Record{{ID: "line-3", Line: 3, Sample: eval.Sample{ID: "line-3", Query: "q", Answer: "a, b"}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Read(tc.name, strings.NewReader(tc.data))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestReadRejectsBadInput(t *testing.T) {
	t.Parallel()
	ok := `{"id":"a","question":"q"}`
	tests := map[string]struct {
		name, data string
		want       string
		line, col  int
		field      string
	}{
		"contexts of the wrong type": {"data.jsonl", ok + "\n" + `{"question":"q","contexts":3}`,
			"data.jsonl:2: contexts: want an array of strings, got number", 2, 0, "contexts"},
		"a context that is not a string": {"data.jsonl", `{"question":"q","retrieved_contexts":["a",{"t":1}]}`,
			"data.jsonl:1: retrieved_contexts[1]: want a string, got object", 1, 0, "retrieved_contexts[1]"},
		"a question that is not a string": {"data.jsonl", `{"question":["q"]}`,
			"data.jsonl:1: question: want a string, got array", 1, 0, "question"},
		"a line that is not JSON": {"data.jsonl", ok + "\n" + `{"question": q}`,
			"data.jsonl:2:14: invalid JSON: invalid character 'q' looking for beginning of value", 2, 14, ""},
		"a NaN, as Python's json.dumps writes one": {"data.jsonl", `{"question": "q", "human": {"score": NaN}}`,
			"data.jsonl:1:38: invalid JSON: invalid character 'N' looking for beginning of value (NaN is not JSON, though Python's json.dumps writes it: write null for a missing value)", 1, 38, ""},
		"an Infinity in a json array": {"data.json", "[\n" + `{"question": "q", "human": {"score": -Infinity}}` + "\n]",
			"data.json:2:39: invalid JSON: invalid character 'I' in numeric literal (Infinity is not JSON, though Python's json.dumps writes it: write null for a missing value)", 2, 39, ""},
		"a record written with Python's str()": {"data.jsonl", `{'question': 'q', 'answer': None}`,
			"data.jsonl:1:2: invalid JSON: invalid character '\\'' looking for beginning of object key string (Python's text of a dict, not JSON: write each record with json.dumps)", 1, 2, ""},
		"a Python None": {"data.jsonl", `{"question": "q", "answer": None}`,
			"data.jsonl:1:29: invalid JSON: invalid character 'N' looking for beginning of value (None is Python's, not JSON: write null, as json.dumps does)", 1, 29, ""},
		"a truncated line": {"data.jsonl", `{"question": "q"`,
			"data.jsonl:1:17: invalid JSON: unexpected end of JSON input", 1, 17, ""},
		"a line that is not an object": {"data.jsonl", `{"question":"q"}` + "\n" + `["q"]`,
			"data.jsonl:2: want a JSON object, got array", 2, 0, ""},
		"an array whose element is not an object": {"data.jsonl", `["q"]`,
			"data.jsonl:1: [0]: want a JSON object, got string", 1, 0, "[0]"},
		"a null line": {"data.jsonl", `null`,
			"data.jsonl:1: want a JSON object, got null", 1, 0, ""},
		"an empty file": {"data.jsonl", "\n \n",
			"data.jsonl: empty dataset: no records", 0, 0, ""},
		"an empty csv": {"data.csv", "",
			"data.csv: empty dataset: no records", 0, 0, ""},
		"a header only": {"data.csv", "question,answer\n",
			"data.csv: empty dataset: no records", 0, 0, ""},
		"nothing to judge": {"data.jsonl", `{"id":"x","reference":"r","human":{"faithful":true}}`,
			"data.jsonl:1: record has no question, answer, contexts or messages", 1, 0, ""},
		"duplicate ids": {"data.jsonl", ok + "\n" + `{"id":"b","answer":"x"}` + "\n" + ok,
			`data.jsonl:3: id: duplicate id "a" (first on line 1)`, 3, 0, "id"},
		"a human that is not an object": {"data.jsonl", `{"question":"q","human":"yes"}`,
			"data.jsonl:1: human: want an object, got string", 1, 0, "human"},
		"a metadata number beyond a float's range": {"data.jsonl", `{"question":"q","metadata":{"tokens":{"n":[1,-1e400]}}}`,
			"data.jsonl:1: metadata: number -1e400 is beyond the range of a 64-bit float (about ±1.8e308)", 1, 0, "metadata"},
		"an id that is an object": {"data.jsonl", `{"question":"q","id":{}}`,
			"data.jsonl:1: id: want a string or a number, got object", 1, 0, "id"},
		"two names with different values": {"data.jsonl", `{"question":"q","user_input":"other"}`,
			"data.jsonl:1: user_input: conflicts with question", 1, 0, "user_input"},
		"contexts and sources": {"data.jsonl", `{"contexts":["a"],"sources":[]}`,
			"data.jsonl:1: sources: conflicts with contexts", 1, 0, "sources"},
		"ground truth with a text value": {"data.jsonl", `{"question":"q","ground_truth":{"rate":"high"}}`,
			"data.jsonl:1: ground_truth.rate: want a number, got string", 1, 0, "ground_truth.rate"},
		"a line over 10 MB": {"data.jsonl", ok + "\n" + `{"question":"` + strings.Repeat("x", MaxLine) + `"}`,
			"data.jsonl:2: line longer than 10 MB", 2, 0, ""},
		"a json array with a bad element": {"data.json", "[\n" + ok + ",\n" + `  {"answer": 1}` + "\n]",
			"data.json:3: [1].answer: want a string, got number", 3, 0, "[1].answer"},
		"a json array that is cut short": {"data.json", "[\n" + ok + ",\n",
			"data.json:3:1: invalid JSON: unexpected end of JSON input", 3, 1, ""},
		"a pretty-printed json object with a missing comma": {"data.json", "{\n  \"question\": \"q\",\n  \"answer\": \"a\"\n  \"contexts\": [\"c\"]\n}\n",
			`data.json:4:3: invalid JSON: invalid character '"' after object key:value pair`, 4, 3, ""},
		"a pretty-printed json object that is cut short": {"data.json", "{\n  \"question\": \"q\",\n",
			"data.json:3:1: invalid JSON: unexpected end of JSON input", 3, 1, ""},
		"a yaml file": {"data.yaml", "id: a\nquestion: q\n",
			"data.yaml:1:1: invalid JSON: invalid character 'i' looking for beginning of value (datasets are JSON, JSON Lines, CSV or TSV; YAML is not read)", 1, 1, ""},
		"csv: a human cell that is not JSON": {"data.csv", "question,human\nq,faithful\n",
			"data.csv:2:3: human: want a JSON object, got text that is not one", 2, 3, "human"},
		"csv: a context array with a number": {"data.csv", "question,contexts\nq,\"[\"\"a\"\", 2]\"\n",
			"data.csv:2:3: contexts[1]: want a string, got number", 2, 3, "contexts[1]"},
		"csv: a short row": {"data.csv", "question,answer\nq,a\nq\n",
			"data.csv:3:1: invalid CSV: wrong number of fields", 3, 1, ""},
		"csv: a duplicate column": {"data.csv", "question,answer,question\nq,a,q\n",
			"data.csv:1: question: duplicate column", 1, 0, "question"},
		"csv: duplicate ids": {"data.csv", "id,question\n1,q\n1,q\n",
			`data.csv:3: id: duplicate id "1" (first on line 2)`, 3, 0, "id"},
		"csv: the header row repeated (two files joined)": {"data.csv", "question,answer\nq,a\n question,answer\nq2,a2\n",
			"data.csv:3: the header row again (CSV files joined with their headers?): remove the line", 3, 0, ""},
		"csv: the header row repeated with its byte order mark": {"data.csv", "\xEF\xBB\xBFquestion,answer\nq,a\n\xEF\xBB\xBFquestion,answer\n",
			"data.csv:3: the header row again (CSV files joined with their headers?): remove the line", 3, 0, ""},
		"csv: a semicolon row under a comma header": {"data.csv", "question,answer\nq;a\n",
			"data.csv:2:1: invalid CSV: wrong number of fields", 2, 1, ""},
		"tsv: a short row": {"data.tsv", "question\tanswer\nq\ta\nq\n",
			"data.tsv:3:1: invalid TSV: wrong number of fields", 3, 1, ""},
		"tsv: a human cell that is not JSON": {"data.tsv", "question\thuman\nq, r\tfaithful\n",
			"data.tsv:2:6: human: want a JSON object, got text that is not one", 2, 6, "human"},
		"tsv: a context list that does not parse": {"data.tsv", "question\tcontexts\nq\t['a', 'b'\n",
			"data.tsv:2:3: contexts: starts as a list but is not a list of strings (JSON, or Python's as pandas writes it): at its end: want , or ] after item 2", 2, 3, "contexts"},
		"tsv: duplicate ids": {"data.tsv", "id\tquestion\n1\tq\n1\tq\n",
			`data.tsv:3: id: duplicate id "1" (first on line 2)`, 3, 0, "id"},
		"tsv: the header row repeated": {"data.tsv", "question\tanswer\nq\ta\nquestion\tanswer\n",
			"data.tsv:3: the header row again (TSV files joined with their headers?): remove the line", 3, 0, ""},
		"tsv: a CSV file named .tsv": {"data.tsv", "question,answer\nq,a\n",
			"data.tsv:1: the header row holds commas and no tab: a .tsv file's cells are separated by tabs (is it CSV? name it .csv)", 1, 0, ""},
		"tsv: a cell that starts with a quote and goes on after its close": {"data.tsv", "question\tanswer\nq\t\"hi\" he said\n",
			"data.tsv:2:3: invalid TSV: " + errTSVQuote.Error(), 2, 3, ""},
		"tsv: a quoted cell that never closes": {"data.tsv", "question\tanswer\nq\t\"hi\nq\ta\n",
			"data.tsv:2:3: invalid TSV: " + errTSVQuote.Error(), 2, 3, ""},
		"tsv: a long row after a quoted line break": {"data.tsv", "question\tanswer\n\"q\nr\"\ta\tb\n",
			"data.tsv:2:1: invalid TSV: wrong number of fields", 2, 1, ""},
		"csv: a ground_truth object that is a Python dict": {"data.csv", "question,ground_truth\nq,\"{'revenue': 1.5}\"\n",
			"data.csv:2:3: ground_truth: starts as an object but is not JSON (a Python dict?): write an object of numbers as JSON, or a reference without the braces", 2, 3, "ground_truth"},
		"csv: a ground_truth object with a number written with commas": {"data.csv", "question,ground_truth\nq,\"{\"\"revenue\"\": 1,234}\"\n",
			"data.csv:2:3: ground_truth: starts as an object but is not JSON (a Python dict?): write an object of numbers as JSON, or a reference without the braces", 2, 3, "ground_truth"},
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
			assert.Equal(t, tc.col, ie.Col)
			assert.Equal(t, tc.field, ie.Field)
		})
	}
}

func TestReadWrapsReaderErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, name := range []string{"d.jsonl", "d.json", "d.csv", "d.tsv"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(name, iotest.ErrReader(boom))
			require.ErrorIs(t, err, boom)
			var ie *eval.InputError
			assert.False(t, errors.As(err, &ie), "a reader failure is not bad input")
		})
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "set.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"id":"x","question":"q","human":{"hallucinated":"no"}}`+"\n"), 0o600))

	got, err := Load(path)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "q", got[0].Sample.Query)
	l, ok := got[0].Label("hallucinated")
	assert.True(t, ok)
	assert.False(t, l)

	missing := filepath.Join(dir, "nope.jsonl")
	_, err = Load(missing)
	var ie *eval.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, missing+": cannot open: no such file or directory", err.Error())
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestRecordLabel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		value     any
		want, has bool
	}{
		"true":                {true, true, true},
		"false":               {false, false, true},
		"one":                 {1.0, true, true},
		"zero":                {0.0, false, true},
		"int one":             {1, true, true},
		"yes":                 {"yes", true, true},
		"No with space":       {" No ", false, true},
		"string true":         {"TRUE", true, true},
		"string 0":            {"0", false, true},
		"pandas' float one":   {"1.0", true, true},
		"pandas' float zero":  {" 0.0", false, true},
		"a float two is not":  {"2.0", false, false},
		"a float half is not": {"0.50", false, false},
		"not a number is not": {"NaN", false, false},
		"a fraction is not":   {0.5, false, false},
		"two is not":          {2.0, false, false},
		"maybe is not":        {"maybe", false, false},
		"null is absent":      {nil, false, false},
		"an object is absent": {map[string]any{}, false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := Record{Human: map[string]any{"faithful": tc.value}}.Label("faithful")
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.has, ok)
		})
	}
	t.Run("a name after ! reads the label negated", func(t *testing.T) {
		t.Parallel()
		r := Record{Human: map[string]any{"hallucinated": "yes", "relevant": 0.0}}
		for field, want := range map[string]bool{"!hallucinated": false, "!relevant": true, "! relevant": true} {
			got, ok := r.Label(field)
			assert.True(t, ok, field)
			assert.Equal(t, want, got, field)
		}
		_, ok := r.Label("!faithful")
		assert.False(t, ok, "a negated absent label is absent")
	})
	t.Run("absent", func(t *testing.T) {
		t.Parallel()
		_, ok := Record{Human: map[string]any{"relevant": true}}.Label("faithful")
		assert.False(t, ok)
		_, ok = Record{}.Label("faithful")
		assert.False(t, ok)
	})
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","question":"q","answer":"a","contexts":["c"],"human":{"faithful":true}}`,
		`{"user_input":"q","retrieved_contexts":["a",1]}` + "\n" + `[1]`,
		`{"ground_truth":{"x":1e999},"query":"q"}`,
		"[\n" + `{"answer":"x"}` + ",\n]",
		"question,contexts,human\nq,\"[\"\"a\"\"]\",\"{}\"\n",
		"\xEF\xBB\xBFid,human.faithful\n1,yes\n",
	} {
		for _, name := range []string{"f.jsonl", "f.json", "f.csv"} {
			f.Add(name, s)
		}
	}
	f.Fuzz(func(t *testing.T, name, data string) {
		recs, err := Read(name, strings.NewReader(data))
		if err != nil {
			var ie *eval.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error is not an *eval.InputError: %v", err)
			}
			return
		}
		ids := map[string]bool{}
		for _, r := range recs {
			if r.ID == "" || ids[r.ID] || r.Line < 1 || r.Sample.ID != r.ID {
				t.Fatalf("bad record %+v", r)
			}
			ids[r.ID] = true
		}
	})
}

// TestRecordsYieldsWhatReadReturns: the iterator gives Read's records, in
// order, and ends with Read's error (file, line, column, field) for JSON
// Lines, a .json array or object, and CSV.
func TestRecordsYieldsWhatReadReturns(t *testing.T) {
	t.Parallel()
	ok := `{"id":"a","question":"q"}`
	tests := map[string]struct {
		name, data string
	}{
		"jsonl":                         {"d.jsonl", ok + "\n\n" + `{"answer":"y","human":{"faithful":1}}` + "\n"},
		"jsonl with a bad third line":   {"d.jsonl", ok + "\n" + `{"answer":"y"}` + "\n" + `{"question":"q","contexts":3}`},
		"jsonl with a duplicate id":     {"d.jsonl", ok + "\n" + ok},
		"jsonl cut short":               {"d.jsonl", ok + "\n" + `{"question": "q"`},
		"json array":                    {"d.json", "[\n" + ok + ",\n  " + `{"answer":"x","id":2}` + "\n]\n"},
		"json array with a bad element": {"d.json", "[\n" + ok + ",\n" + `  {"answer": 1}` + "\n]"},
		"json array cut short":          {"d.json", "[\n" + ok + ",\n"},
		"json array missing a comma":    {"d.json", "[\n" + ok + "\n" + ok + "]"},
		"json array, then more":         {"d.json", "[" + ok + "] x"},
		"json array of a bad word":      {"d.json", "[" + ok + ", tru]"},
		"json pretty object":            {"d.json", "{\n  \"question\": \"q\",\n  \"answer\": \"a\"\n}\n"},
		"json pretty object, bad":       {"d.json", "{\n  \"question\": \"q\",\n  \"answer\": \"a\"\n  \"contexts\": [\"c\"]\n}\n"},
		"json holding lines":            {"d.json", ok + "\n" + `{"answer":"y"}`},
		"json, empty array":             {"d.json", " [ ] "},
		"csv":                           {"d.csv", "question,answer,contexts,human.relevant\n\"two\nlines\",,plain,yes\nq2,a2,,\n"},
		"csv with a bad cell":           {"d.csv", "question,contexts\nq,c\nq,\"[\"\"a\"\", 2]\"\n"},
		"csv with a short row":          {"d.csv", "question,answer\nq,a\nq\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, wantErr := Read(tc.name, strings.NewReader(tc.data))
			var got []Record
			var errs []error
			for rec, err := range Records(tc.name, strings.NewReader(tc.data)) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				require.Empty(t, errs, "a record after the error")
				got = append(got, rec)
			}
			if wantErr == nil {
				assert.Empty(t, errs)
				assert.Equal(t, want, got)
				return
			}
			require.Len(t, errs, 1, "one error, last")
			var wantIE, gotIE *eval.InputError
			require.ErrorAs(t, wantErr, &wantIE)
			require.ErrorAs(t, errs[0], &gotIE)
			assert.Equal(t, *wantIE, *gotIE)
			assert.NotEmpty(t, gotIE.File)
		})
	}
}

// TestRecordsReadsAsItGoes: each record is yielded before the rest of the
// input is read, so a failure later in the file comes after the records
// before it, in every format.
func TestRecordsReadsAsItGoes(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := map[string]struct {
		name, head string
	}{
		"jsonl":      {"d.jsonl", `{"id":"a","question":"q"}` + "\n"},
		"json array": {"d.json", "[\n" + `{"id":"a","question":"q"}` + ",\n"},
		"csv":        {"d.csv", "id,question\na,q\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := io.MultiReader(strings.NewReader(tc.head), iotest.ErrReader(boom))
			var ids []string
			var last error
			for rec, err := range Records(tc.name, r) {
				if err != nil {
					last = err
					continue
				}
				ids = append(ids, rec.ID)
			}
			assert.Equal(t, []string{"a"}, ids)
			require.ErrorIs(t, last, boom)
		})
	}
	t.Run("breaking off stops reading", func(t *testing.T) {
		t.Parallel()
		r := io.MultiReader(strings.NewReader(`{"question":"q"}`+"\n"), iotest.ErrReader(boom))
		n := 0
		for _, err := range Records("d.jsonl", r) {
			require.NoError(t, err)
			n++
			break
		}
		assert.Equal(t, 1, n)
	})
}
