package eval_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func contextScorePtr(f float64) *float64 { return &f }

func TestDecodeContextSampleAcceptsSeedSamples(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want eval.Sample
	}{
		"full sample keeps chunk order and every field": {
			in: `{
  "query": "How do rerankers change recall?",
  "chunks": [
    {"content": "Rerankers reorder.", "score": 0.82, "rerankScore": 0.91, "documentId": "doc-7",
     "metadata": {"sectionTitle": "Results", "page": 3, "tags": ["a", true, null]}},
    {"content": "", "score": 1.7, "rerankScore": null, "documentId": "doc-2"}
  ],
  "context": {"text": "Rerankers reorder.", "tokenCount": 512}
}`,
			want: eval.Sample{
				Query: "How do rerankers change recall?",
				Sources: []eval.Source{
					{ID: "doc-7", Text: "Rerankers reorder.", Score: 0.82, RerankScore: contextScorePtr(0.91),
						Metadata: map[string]any{"sectionTitle": "Results", "page": 3.0, "tags": []any{"a", true, nil}}},
					{ID: "doc-2", Text: "", Score: 1.7},
				},
				Context: &eval.Context{Text: "Rerankers reorder.", TokenCount: 512},
			},
		},
		"minimal sample has no context": {
			in:   `{"query": "", "chunks": []}`,
			want: eval.Sample{Sources: []eval.Source{}},
		},
		"null context and null metadata mean none": {
			in:   `{"query": "q", "chunks": [{"content": "c", "score": 0, "documentId": "d", "metadata": null}], "context": null}`,
			want: eval.Sample{Query: "q", Sources: []eval.Source{{ID: "d", Text: "c"}}},
		},
		"byte order mark is skipped": {
			in:   "\xEF\xBB\xBF{\"query\": \"q\", \"chunks\": []}",
			want: eval.Sample{Query: "q", Sources: []eval.Source{}},
		},
		"unknown chunk and context fields are ignored": {
			in: `{"query": "q", "chunks": [{"chunkId": "c1", "rank": {"n": [1, 2]}, "content": "c", "score": 0.5, "documentId": "d"}],
			      "context": {"chunks": [], "text": "t", "tokenCount": 3, "citations": null}}`,
			want: eval.Sample{Query: "q", Sources: []eval.Source{{ID: "d", Text: "c", Score: 0.5}},
				Context: &eval.Context{Text: "t", TokenCount: 3}},
		},
		"whole token counts may be written as floats": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": 1e3}}`,
			want: eval.Sample{Query: "q", Sources: []eval.Source{}, Context: &eval.Context{Text: "t", TokenCount: 1000}},
		},
		"repeated metadata key keeps the last value as JSON.parse does": {
			in: `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": {"sectionTitle": "A", "sectionTitle": 2}}]}`,
			want: eval.Sample{Query: "q", Sources: []eval.Source{{ID: "d", Text: "c", Score: 1,
				Metadata: map[string]any{"sectionTitle": 2.0}}}},
		},
		"lone surrogate escape becomes U+FFFD": {
			in:   `{"query": "a\ud800b", "chunks": []}`,
			want: eval.Sample{Query: "a\uFFFDb", Sources: []eval.Source{}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := eval.DecodeContextSample("sample.json", []byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeContextSampleRejectsBadInput(t *testing.T) {
	t.Parallel()
	// A chunk list spread over lines, with a bad value on line 7.
	multiLine := func(bad string) string {
		return "{\n" + // 1
			"  \"query\": \"q\",\n" + // 2
			"  \"chunks\": [\n" + // 3
			"    {\"content\": \"a\", \"score\": 0.5, \"documentId\": \"d1\"},\n" + // 4
			"    {\"content\": \"b\", \"score\": 0.4, \"documentId\": \"d2\"},\n" + // 5
			"    {\"content\": \"c\",\n" + // 6
			"     \"score\": " + bad + ", \"documentId\": \"d3\"}\n" + // 7: value at column 15
			"  ]\n" +
			"}\n"
	}
	deep := `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": ` +
		strings.Repeat(`{"a": `, 65) + "1" + strings.Repeat("}", 65) + `}]}`
	tests := map[string]struct {
		in   string
		want string
	}{
		"empty input": {
			in: "", want: "sample.json: empty input: expected a JSON object",
		},
		"whitespace only": {
			in: " \n\t", want: "sample.json: empty input: expected a JSON object",
		},
		"invalid UTF-8 names its byte": {
			// `{"query": "caf` is 14 bytes, so the bad byte is column 15.
			in: "{\"query\": \"caf\xE9\", \"chunks\": []}", want: "sample.json:1:15: invalid UTF-8",
		},
		"not JSON": {
			in: "query: x", want: "sample.json:1:1: invalid JSON: invalid character 'q' looking for beginning of value",
		},
		"truncated document points past its end": {
			in: `{"query": "q",`, want: "sample.json:1:15: invalid JSON: unexpected end of JSON input",
		},
		"trailing garbage": {
			in:   `{"query": "q", "chunks": []} []`,
			want: "sample.json:1:30: invalid JSON: invalid character '[' after top-level value",
		},
		"top level is not an object": {
			in:   `[{"query": "q"}]`,
			want: "sample.json:1:1: must be a JSON object with query, chunks and context, got an array",
		},
		"unknown top-level field": {
			in:   `{"query": "q", "chunks": [], "answer": "x"}`,
			want: `sample.json:1:30: unknown field "answer" (want query, chunks and context)`,
		},
		"missing query": {
			in: `{"chunks": []}`, want: "sample.json:1:1: query: required field is missing",
		},
		"missing chunks": {
			in: "\n  {\"query\": \"q\"}", want: "sample.json:2:3: chunks: required field is missing",
		},
		"query of the wrong type": {
			in: `{"query": 42, "chunks": []}`, want: "sample.json:1:11: query: must be a string, got 42",
		},
		"duplicate query": {
			in: `{"query": "a", "query": "b", "chunks": []}`, want: "sample.json:1:16: query: duplicate field",
		},
		"chunks not an array": {
			in: `{"query": "q", "chunks": {}}`, want: "sample.json:1:26: chunks: must be an array, got an object",
		},
		"chunk not an object": {
			in: `{"query": "q", "chunks": ["text"]}`, want: `sample.json:1:27: chunks[0]: must be an object, got "text"`,
		},
		"score as a word, on line 7": {
			in: multiLine(`"high"`), want: `sample.json:7:15: chunks[2].score: must be a finite number, got "high"`,
		},
		"score given as a boolean": {
			in: multiLine(`true`), want: `sample.json:7:15: chunks[2].score: must be a finite number, got true`,
		},
		"score beyond float64": {
			in: multiLine(`1e999`), want: `sample.json:7:15: chunks[2].score: must be a finite number, got 1e999`,
		},
		"null score": {
			in: multiLine(`null`), want: `sample.json:7:15: chunks[2].score: must be a finite number, got null`,
		},
		"rerank score of the wrong type": {
			in:   `{"query": "q", "chunks": [{"content": "c", "score": 1, "rerankScore": "x", "documentId": "d"}]}`,
			want: `sample.json:1:71: chunks[0].rerankScore: must be null or a finite number, got "x"`,
		},
		"missing score": {
			in:   `{"query": "q", "chunks": [{"content": "c", "documentId": "d"}]}`,
			want: "sample.json:1:27: chunks[0].score: required field is missing",
		},
		"missing documentId": {
			in:   `{"query": "q", "chunks": [{"content": "c", "score": 1}]}`,
			want: "sample.json:1:27: chunks[0].documentId: required field is missing",
		},
		"empty documentId": {
			in:   `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": ""}]}`,
			want: `sample.json:1:70: chunks[0].documentId: must be a non-empty string, got ""`,
		},
		"missing content": {
			in:   `{"query": "q", "chunks": [{"score": 1, "documentId": "d"}]}`,
			want: "sample.json:1:27: chunks[0].content: required field is missing",
		},
		"duplicate chunk field": {
			in:   `{"query": "q", "chunks": [{"content": "a", "content": "b", "score": 1, "documentId": "d"}]}`,
			want: "sample.json:1:44: chunks[0].content: duplicate field",
		},
		"metadata not an object": {
			in:   `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": [1]}]}`,
			want: "sample.json:1:87: chunks[0].metadata: must be an object or null, got an array",
		},
		"metadata number beyond float64": {
			in:   `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": {"a": [0, 1e400]}}]}`,
			want: "sample.json:1:97: chunks[0].metadata.a[1]: number out of range, got 1e400",
		},
		"metadata nested too deep": {
			in:   deep,
			want: "sample.json:1:471: chunks[0].metadata.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a: nested more than 64 levels deep",
		},
		"context of the wrong type": {
			in: `{"query": "q", "chunks": [], "context": "abc"}`, want: `sample.json:1:41: context: must be an object or null, got "abc"`,
		},
		"context text of the wrong type": {
			in: `{"query": "q", "chunks": [], "context": {"text": 3, "tokenCount": 1}}`, want: "sample.json:1:50: context.text: must be a string or null, got 3",
		},
		"non-empty context text without token count": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "retrieved passage"}}`,
			want: "sample.json:1:41: context.tokenCount: required field is missing (context.text is not empty)",
		},
		"non-empty context text with a null token count": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "ข้อความที่ดึงมา", "tokenCount": null}}`,
			want: "sample.json:1:41: context.tokenCount: required field is missing (context.text is not empty)",
		},
		"negative token count": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": -5}}`,
			want: "sample.json:1:69: context.tokenCount: must be a whole number >= 0, got -5",
		},
		"fractional token count": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": 2.5}}`,
			want: "sample.json:1:69: context.tokenCount: must be a whole number >= 0, got 2.5",
		},
		"token count as a string": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": "100"}}`,
			want: `sample.json:1:69: context.tokenCount: must be a whole number >= 0, got "100"`,
		},
		"token count beyond 2^53": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": 1e300}}`,
			want: "sample.json:1:69: context.tokenCount: must be at most 2^53, got 1e300",
		},
		"long string values are shortened in messages": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": "` + strings.Repeat("x", 50) + `"}}`,
			want: `sample.json:1:69: context.tokenCount: must be a whole number >= 0, got "` + strings.Repeat("x", 39) + `…"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := eval.DecodeContextSample("sample.json", []byte(tc.in))
			require.Error(t, err)
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want *eval.InputError, got %T", err)
			assert.Equal(t, "sample.json", ie.File)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

func TestDecodeContextSampleSyntaxErrorUnwraps(t *testing.T) {
	t.Parallel()
	_, err := eval.DecodeContextSample("s.json", []byte(`{"query": }`))
	var se *json.SyntaxError
	require.True(t, errors.As(err, &se))
}

func TestInputErrorLeavesOutWhatIsUnknown(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  eval.InputError
		want string
	}{
		"everything":        {eval.InputError{File: "a.json", Line: 3, Col: 9, Field: "x", Msg: "bad"}, "a.json:3:9: x: bad"},
		"no column":         {eval.InputError{File: "a.json", Line: 3, Field: "x", Msg: "bad"}, "a.json:3: x: bad"},
		"no line":           {eval.InputError{File: "a.json", Col: 9, Msg: "bad"}, "a.json: bad"},
		"no file":           {eval.InputError{Line: 2, Col: 1, Msg: "bad"}, "2:1: bad"},
		"nothing but a msg": {eval.InputError{Msg: "bad"}, "bad"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.err.Error())
		})
	}
}

// seed002Chunk and seed002Sample write a Sample back in seed 002's format.
type seed002Chunk struct {
	Content     string         `json:"content"`
	Score       float64        `json:"score"`
	RerankScore *float64       `json:"rerankScore"`
	DocumentID  string         `json:"documentId"`
	Metadata    map[string]any `json:"metadata"`
}

type seed002Sample struct {
	Query   string         `json:"query"`
	Chunks  []seed002Chunk `json:"chunks"`
	Context *eval.Context  `json:"context,omitempty"`
	// MissingText is a context written back without its text.
	MissingText *struct {
		TokenCount int `json:"tokenCount"`
	} `json:"-"`
}

// MarshalJSON writes MissingText, when set, as the context.
func (s seed002Sample) MarshalJSON() ([]byte, error) {
	type plain seed002Sample
	if s.MissingText == nil {
		return json.Marshal(plain(s))
	}
	return json.Marshal(struct {
		plain
		Context any `json:"context"`
	}{plain(s), s.MissingText})
}

func FuzzDecodeContextSample(f *testing.F) {
	f.Add([]byte(`{"query": "q", "chunks": [{"content": "c", "score": 0.5, "rerankScore": null, "documentId": "d", "metadata": {"sectionTitle": 1}}], "context": {"text": "t", "tokenCount": 7}}`))
	f.Add([]byte(`{"query": "", "chunks": []}`))
	f.Add([]byte(`{"query": "q", "chunks": [{"content": "c", "score": -1, "documentId": "d"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := eval.DecodeContextSample("fuzz.json", data)
		if err != nil {
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want *eval.InputError, got %T: %v", err, err)
			require.Equal(t, "fuzz.json", ie.File)
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.json"), err.Error())
			require.GreaterOrEqual(t, ie.Line, 0)
			if ie.Line > 0 {
				require.GreaterOrEqual(t, ie.Col, 1)
			}
			require.NotEmpty(t, ie.Msg)
			return
		}
		require.True(t, utf8.ValidString(s.Query))
		out := seed002Sample{Query: s.Query, Context: s.Context}
		if s.Context != nil && s.Context.TextMissing {
			out.Context = nil
			out.MissingText = &struct {
				TokenCount int `json:"tokenCount"`
			}{s.Context.TokenCount}
		}
		for _, c := range s.Sources {
			require.False(t, math.IsNaN(c.Score) || math.IsInf(c.Score, 0), "score %v", c.Score)
			if c.RerankScore != nil {
				r := *c.RerankScore
				require.False(t, math.IsNaN(r) || math.IsInf(r, 0), "rerank score %v", r)
			}
			require.NotEmpty(t, c.ID)
			require.True(t, utf8.ValidString(c.Text))
			out.Chunks = append(out.Chunks, seed002Chunk{Content: c.Text, Score: c.Score, RerankScore: c.RerankScore, DocumentID: c.ID, Metadata: c.Metadata})
		}
		if s.Context != nil {
			require.GreaterOrEqual(t, s.Context.TokenCount, 0)
		}
		// What was read, written back, reads the same.
		if out.Chunks == nil {
			out.Chunks = []seed002Chunk{}
		}
		again, err := json.Marshal(out)
		require.NoError(t, err)
		s2, err := eval.DecodeContextSample("fuzz.json", again)
		require.NoError(t, err, "re-reading %s", again)
		require.Equal(t, s, s2)
	})
}
