package serve

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeServe is the opening section of docs/serving.md: its curl lines
// and its Python program, the server's address replaced by url.
func readmeServe(t *testing.T, url string) (curls []string, python string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "serving.md"))
	require.NoError(t, err)
	sec, _, _ := strings.Cut(string(b), "\n## ")
	sec = strings.ReplaceAll(sec, "http://127.0.0.1:8080", url)
	for _, block := range strings.Split(sec, "```")[1:] {
		lang, code, _ := strings.Cut(block, "\n")
		switch lang {
		case "sh":
			for line := range strings.SplitSeq(code, "\n") {
				if strings.HasPrefix(line, "curl ") {
					curls = append(curls, line)
				}
			}
		case "python":
			python = code
		}
	}
	require.Len(t, curls, 3, "docs/serving.md's curl calls")
	require.NotEmpty(t, python, "docs/serving.md's Python")
	return curls, python
}

// TestClientsOfTheREADME drives the server with docs/serving.md's calls:
// curl, and Python with its standard library only.
func TestClientsOfTheREADME(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	curls, python := readmeServe(t, s.URL)
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(root, "fixtures", "context", "good.json"))
	require.NoError(t, err)
	_, card := call(t, "POST", s.URL+"/v1/context-score", string(want))

	t.Run("curl", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("curl is not installed: the README's curl calls are not run")
		}
		var outs []string
		for _, line := range curls {
			cmd := exec.CommandContext(t.Context(), "sh", "-c", line)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s\n%s", line, out)
			outs = append(outs, string(out))
		}
		assert.Equal(t, card, outs[0], "the context score")
		var tr TracesResponse
		require.NoError(t, json.Unmarshal([]byte(outs[1]), &tr), outs[1])
		assert.Equal(t, TracesResponse{Received: 1, Sampled: 1, QueueDepth: tr.QueueDepth}, tr)
		var sum TraceSummary
		require.NoError(t, json.Unmarshal([]byte(outs[2]), &sum), outs[2])
		assert.Equal(t, "tenant", sum.By)
	})
	t.Run("python", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed: the README's Python is not run")
		}
		prog := filepath.Join(t.TempDir(), "client.py")
		require.NoError(t, os.WriteFile(prog, []byte(python), 0o644))
		cmd := exec.CommandContext(t.Context(), "python3", "-I", prog) // -I: no user site packages
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		var v struct {
			Overall float64 `json:"overall"`
		}
		require.NoError(t, json.Unmarshal([]byte(card), &v))
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		require.Len(t, lines, 2, string(out))
		assert.Equal(t, jsonNumber(v.Overall)+" use_retrieved", lines[0])
		assert.Equal(t, "faithfulness 1", lines[1])
	})
}

// jsonNumber is a float as Python's repr prints it (the shortest form
// that reads back, as Go's 'g' -1 does for these values).
func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
