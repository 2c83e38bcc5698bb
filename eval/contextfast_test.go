package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// contextInputs are documents the fast decoder must read exactly as the
// full one does, or leave to it.
var contextInputs = map[string]string{
	"full":             `{"query": "q", "chunks": [{"content": "c", "score": 0.82, "rerankScore": 0.91, "documentId": "d", "metadata": {"sectionTitle": "R", "page": 3, "tags": ["a", true, null, {"x": [1e2]}]}}], "context": {"text": "t", "tokenCount": 512}}`,
	"minimal":          `{"query": "", "chunks": []}`,
	"nulls":            `{"query": "q", "chunks": [{"content": "c", "score": 0, "documentId": "d", "metadata": null, "rerankScore": null}], "context": null}`,
	"unknown fields":   `{"query": "q", "chunks": [{"chunkId": "c1", "rank": {"n": [1, 2]}, "content": "c", "score": 0.5, "documentId": "d"}], "context": {"chunks": [], "text": "t", "tokenCount": 3, "citations": null}}`,
	"float tokens":     `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": 1e3}}`,
	"escapes":          `{"query": "caf\u00e9 \"quoted\" \n tab\t", "chunks": [{"content": "\ud83d\ude00", "score": 1, "documentId": "\/d"}]}`,
	"repeated meta":    `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": {"a": 1, "a": 2}}]}`,
	"lone surrogate":   `{"query": "a\ud800b", "chunks": []}`,
	"tiny number":      `{"query": "q", "chunks": [{"content": "c", "score": 1e-400, "documentId": "d"}]}`,
	"big number":       `{"query": "q", "chunks": [{"content": "c", "score": 1e400, "documentId": "d"}]}`,
	"negative":         `{"query": "q", "chunks": [{"content": "c", "score": -1, "documentId": "d"}]}`,
	"logits":           `{"query": "q", "chunks": [{"content": "c", "score": 0.4, "rerankScore": -3.25, "documentId": "d"}, {"content": "e", "score": 0, "rerankScore": 0, "documentId": "f"}]}`,
	"no context text":  `{"query": "q", "chunks": [], "context": {"tokenCount": 9}}`,
	"null text":        `{"query": "q", "chunks": [], "context": {"text": null, "tokenCount": null}}`,
	"text, no count":   `{"query": "q", "chunks": [], "context": {"text": "t"}}`,
	"text, null count": `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": null}}`,
	"empty id":         `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": ""}]}`,
	"missing query":    `{"chunks": []}`,
	"missing score":    `{"query": "q", "chunks": [{"content": "c", "documentId": "d"}]}`,
	"repeated query":   `{"query": "q", "query": "r", "chunks": []}`,
	"repeated unknown": `{"query": "q", "chunks": [{"rank": 1, "content": "c", "score": 1, "documentId": "d", "rank": 2}]}`,
	"repeated rerank":  `{"query": "q", "chunks": [{"content": "c", "score": 1, "rerankScore": null, "documentId": "d", "rerankScore": 0.5}]}`,
	"repeated context": `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": 3, "text": "u"}}`,
	"repeated deep":    `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": {"a": {"b": 1, "c": [{"b": 1, "b": 2}]}}}]}`,
	"same name apart":  `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": {"query": {"query": 1}, "content": "x"}}]}`,
	"unknown top":      `{"query": "q", "chunks": [], "extra": 1}`,
	"trailing":         `{"query": "q", "chunks": []} {}`,
	"fractional count": `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": 1.5}}`,
	"huge count":       `{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": 1e300}}`,
	"not an object":    `[]`,
	"bad utf-8":        "{\"query\": \"\xff\", \"chunks\": []}",
	"truncated":        `{"query": "q", "chunks": [`,
	"empty":            ``,
	// Names written with escapes are read by the full decoder alone.
	"escaped name":     `{"\u0071uery": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d"}]}`,
	"escaped meta key": `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": {"p\u0061ge": 3}}]}`,
}

func TestFastContextDecodingMatchesTheFullDecoder(t *testing.T) {
	t.Parallel()
	inputs := map[string]string{}
	for k, v := range contextInputs {
		inputs[k] = v
	}
	// Metadata of many keys: the fast decoder reads up to maxObjectNames
	// names in an object, and leaves one more to the full decoder.
	inputs["many keys"], inputs["too many keys"] = metadataOfKeys(maxObjectNames), metadataOfKeys(maxObjectNames+1)
	fixtures, err := filepath.Glob("../fixtures/context/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for _, f := range fixtures {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		inputs[filepath.Base(f)] = string(b)
	}
	// Which inputs the fast decoder must take itself (the rest it leaves
	// to the full decoder: errors, and what only the full one reads).
	fast := map[string]bool{"full": true, "minimal": true, "nulls": true, "unknown fields": true, "float tokens": true,
		"escapes": true, "tiny number": true, "good.json": true, "poor.json": true, "ambiguous.json": true,
		"negative": true, "logits": true, "no context text": true, "null text": true, "same name apart": true, "many keys": true}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := decodeContextFast([]byte(in))
			want, err := decodeContextFull("x.json", []byte(in))
			assert.Equal(t, fast[name], ok, "read by the fast decoder")
			if ok {
				require.NoError(t, err, "the fast decoder took what the full one refuses")
				assert.Equal(t, want, got)
			}
		})
	}
}

// metadataOfKeys is a sample of one chunk whose metadata has n keys.
func metadataOfKeys(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d": %d`, i, i)
	}
	return `{"query": "q", "chunks": [{"content": "c", "score": 1, "documentId": "d", "metadata": {` + strings.Join(keys, ", ") + `}}]}`
}

// FuzzFastContextDecoding: whatever the fast decoder reads, the full one
// reads the same; whatever the full one refuses, the fast one leaves.
func FuzzFastContextDecoding(f *testing.F) {
	for _, in := range contextInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeContextFast(data)
		want, err := decodeContextFull("fuzz.json", data)
		if !ok {
			return
		}
		require.NoError(t, err, "fast decoder took %q", data)
		require.Equal(t, want, got)
	})
}

// BenchmarkDecodeContextSample is /v1/context-score's request decoding of
// seed 002's good fixture (4 chunks, 1.6 KB): DecodeContextSample (the fast
// decoder) against the full decoder alone (before).
func BenchmarkDecodeContextSample(b *testing.B) {
	data, err := os.ReadFile("../fixtures/context/good.json")
	require.NoError(b, err)
	for _, bc := range []struct {
		name string
		fn   func(string, []byte) (Sample, error)
	}{{"fast", DecodeContextSample}, {"full", decodeContextFull}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.fn("good.json", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
