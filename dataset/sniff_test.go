package dataset_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/dataset"
)

// TestSniff: a dataset given where one report was expected is told apart
// from Markdown (even Markdown that starts with a link or a list of
// words) and from one retrieval sample, with its format and the profile
// of its samples.
func TestSniff(t *testing.T) {
	t.Parallel()
	rag := `{"user_input":"Who?","response":"Ada.","retrieved_contexts":["Ada did."]}`
	tests := map[string]struct {
		text string
		want dataset.Sniffed
	}{
		"json lines of rag samples":     {rag + "\n" + rag + "\n", dataset.Sniffed{Format: dataset.FormatJSONL}},
		"one rag sample on a line":      {"\xEF\xBB\xBF" + rag, dataset.Sniffed{Format: dataset.FormatJSONL}},
		"one rag sample, pretty":        {"{\n  \"question\": \"Who?\",\n  \"answer\": \"Ada.\"\n}\n", dataset.Sniffed{Format: dataset.FormatJSON}},
		"a json array on one line":      {"[" + rag + "," + rag + "]", dataset.Sniffed{Format: dataset.FormatJSON, Array: true}},
		"a json array, pretty":          {"[\n  " + rag + "\n]", dataset.Sniffed{Format: dataset.FormatJSON, Array: true}},
		"csv with a dataset's columns":  {"question,answer,contexts\nWho?,Ada.,\"['Ada did.']\"\n", dataset.Sniffed{Format: dataset.FormatCSV}},
		"tsv with a dataset's columns":  {"question\tanswer\tcontexts\nWho?\tAda, then.\tAda did.\n", dataset.Sniffed{Format: dataset.FormatTSV}},
		"csv separated by semicolons":   {"question;answer\nWho?;Ada, then.\n", dataset.Sniffed{Format: dataset.FormatCSV}},
		"research samples":              {`{"id":"r1","query":"q","report":"# R"}` + "\n" + `{"id":"r2","report":"# S"}`, dataset.Sniffed{Format: dataset.FormatJSONL, Profile: dataset.ProfileResearch}},
		"daily samples":                 {`{"id":"d1","report":"# R","truth":{}}`, dataset.Sniffed{Format: dataset.FormatJSONL, Profile: dataset.ProfileDaily}},
		"retrieval samples, two lines":  {`{"query":"q","chunks":[]}` + "\n" + `{"query":"r","chunks":[]}`, dataset.Sniffed{Format: dataset.FormatJSONL, Profile: dataset.ProfileContext}},
		"one retrieval sample":          {`{"query":"q","chunks":[]}` + "\n", dataset.Sniffed{}},
		"one retrieval sample, pretty":  {"{\n \"query\": \"q\",\n \"chunks\": []\n}", dataset.Sniffed{}},
		"markdown":                      {"# HTTP/3\n\nIt runs over QUIC [1].\n", dataset.Sniffed{}},
		"markdown starting with a link": {"[Intro](https://a.gov/x) says water boils at 100 degrees.\n", dataset.Sniffed{}},
		"markdown with commas first":    {"Summary, findings\nHTTP/3 runs over QUIC.\n", dataset.Sniffed{}},
		"csv without a dataset's names": {"name,score\nada,3\n", dataset.Sniffed{}},
		"a csv header alone":            {"question,answer\n", dataset.Sniffed{}},
		"json that is no sample":        {`{"title":"x","body":"y"}`, dataset.Sniffed{}},
		"an array of numbers":           {"[1, 2]", dataset.Sniffed{}},
		"an empty array":                {"[]", dataset.Sniffed{}},
		"nothing":                       {" \n", dataset.Sniffed{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, dataset.Sniff([]byte(tc.text)))
		})
	}
}
