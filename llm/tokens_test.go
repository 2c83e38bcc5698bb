package llm_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/llm"
)

func TestTokenizerFor(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		model, encoding string
	}{
		"gpt-4o uses o200k":                      {"gpt-4o", "o200k_base"},
		"a dated gpt-4o-mini uses o200k":         {"gpt-4o-mini-2024-07-18", "o200k_base"},
		"the backend prefix is ignored":          {"openai:gpt-4.1-mini", "o200k_base"},
		"gpt-4 uses cl100k":                      {"gpt-4", "cl100k_base"},
		"gpt-3.5-turbo uses cl100k":              {"gpt-3.5-turbo", "cl100k_base"},
		"a gpt-4o fine-tune uses its base":       {"ft:gpt-4o-mini-2024-07-18:acme::abc123", "o200k_base"},
		"a gpt-3.5 fine-tune uses its base":      {"ft:gpt-3.5-turbo-0125:acme::abc123", "cl100k_base"},
		"a local model falls back to o200k":      {"ollama:qwen2.5:7b", "o200k_base"},
		"an encoding not embedded falls back":    {"gpt2", "o200k_base"},
		"no model at all falls back":             {"", "o200k_base"},
		"an unknown name with colons falls back": {"langchain:anthropic:claude-3-5-haiku-latest", "o200k_base"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.encoding, llm.TokenizerFor(tc.model).Encoding())
		})
	}
}

// The counts were computed once with tiktoken-go/tokenizer v0.10.0; the two
// English sentences match OpenAI's published cl100k_base examples.
func TestTokenizerCount(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		model string
		text  string
		want  int
	}{
		"empty text has no tokens":              {"gpt-4o", "", 0},
		"o200k greeting":                        {"gpt-4o", "Hello, world!", 4},
		"o200k pangram":                         {"gpt-4o", "The quick brown fox jumps over the lazy dog.", 10},
		"o200k judge sentence":                  {"gpt-4o", "Assay scores RAG answers for faithfulness.", 10},
		"o200k Japanese":                        {"gpt-4o", "日本語のテキスト", 6},
		"o200k code with whitespace":            {"gpt-4o", "  indented\n\tcode();", 6},
		"cl100k greeting":                       {"gpt-4", "Hello, world!", 4},
		"cl100k pangram":                        {"gpt-4", "The quick brown fox jumps over the lazy dog.", 10},
		"cl100k judge sentence":                 {"gpt-4", "Assay scores RAG answers for faithfulness.", 10},
		"cl100k needs more tokens for Japanese": {"gpt-4", "日本語のテキスト", 8},
		"cl100k code with whitespace":           {"gpt-4", "  indented\n\tcode();", 6},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, llm.TokenizerFor(tc.model).Count(tc.text))
		})
	}
}

func TestTokenizerZeroValueCountsBytes(t *testing.T) {
	t.Parallel()
	var tok llm.Tokenizer
	require.Equal(t, "bytes/4", tok.Encoding())
	require.Equal(t, 0, tok.Count(""))
	require.Equal(t, 1, tok.Count("abc"))
	require.Equal(t, 4, tok.Count("Hello, world!")) // 13 bytes, rounded up
}

func TestTokenizerInvalidUTF8StillCounts(t *testing.T) {
	t.Parallel()
	require.Positive(t, llm.TokenizerFor("gpt-4o").Count("ok \xff\xfe bytes"))
}

func TestTokenizerConcurrent(t *testing.T) {
	t.Parallel()
	tok := llm.TokenizerFor("gpt-4o-mini")
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	want := tok.Count(text)
	var wg sync.WaitGroup
	counts := make([]int, 16)
	for i := range counts {
		wg.Go(func() { counts[i] = tok.Count(text) })
	}
	wg.Wait()
	for _, n := range counts {
		require.Equal(t, want, n)
	}
}
