package llm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOllamaURL(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                        "http://127.0.0.1:11434",
		"0.0.0.0":                 "http://0.0.0.0:11434",
		"gpu-box":                 "http://gpu-box:11434",
		"gpu-box:11500":           "http://gpu-box:11500",
		"http://gpu-box":          "http://gpu-box:80",
		"https://ollama.example/": "https://ollama.example:443",
		"https://proxy:8443/olla": "https://proxy:8443/olla",
		"[::1]:11434":             "http://[::1]:11434",
		"  127.0.0.1:11434  ":     "http://127.0.0.1:11434",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, OllamaURL(in))
		})
	}
}
