package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
)

// docOutputs are the flags whose value is a file or folder a command
// writes.
var docOutputs = map[string]bool{"--out": true, "-o": true, "--junit": true}

// shellWords splits one shell line into its words, as sh would for the
// quoting the pages use: single and double quotes, no escapes.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// offlineExample is args when the page's line is an assay command that
// runs offline on the files the repository ships, with what it reads
// moved under the repository's root and what it writes moved to dir
// (written records those paths, for the page's later commands; a bench
// without --out writes run-n there); ok is
// false for a line that needs a model, a server, a network, a shell or a
// run the page names by a placeholder.
func offlineExample(line, dir string, n int, written map[string]string) (args []string, ok bool) {
	if strings.ContainsAny(line, "|&>$~") || strings.Contains(line, "://") {
		return nil, false
	}
	words := shellWords(line)
	if len(words) < 3 || words[0] != "bin/assay" { // not a command prose only names
		return nil, false
	}
	switch words[1] {
	case "serve", "worker":
		return nil, false
	case "runs":
		if !slices.Equal(words[2:], []string{"list"}) {
			return nil, false // a run named by a placeholder (RUN_A)
		}
	}
	hasOut := false
	for i, w := range words[2:] {
		prev := words[1+i]
		switch {
		case prev == "--llm" && w != "offline", prev == "--checker", w == "--cluster", strings.HasPrefix(w, "--cluster="), w == "--workers":
			return nil, false
		case docOutputs[prev]:
			hasOut = hasOut || prev == "--out"
			written[w] = filepath.Join(dir, w)
			w = written[w]
		case written[w] != "":
			w = written[w]
		default:
			_, err := os.Stat(filepath.Join("..", "..", w))
			switch {
			case err == nil && w != ".":
				w = filepath.Join("..", "..", w)
			case err != nil && slices.Contains([]string{".json", ".jsonl", ".csv", ".tsv", ".md", ".yaml"}, filepath.Ext(w)):
				return nil, false // a file an earlier step fetched (curl -o labels.jsonl)
			}
		}
		args = append(args, w)
	}
	if words[1] == "bench" && !hasOut {
		args = append(args, "--out", filepath.Join(dir, fmt.Sprintf("run-%d", n)))
	}
	return append([]string{words[1]}, args...), true
}

// TestDocExamplesRunOffline runs every assay command of the README's and
// docs' sh blocks that needs no model, server or network, as a new user
// would on a fresh machine: none may be a usage or input error (exit 2),
// as an example whose flag needs a model it does not name, or whose
// folder holds files the command refuses, would be.
func TestDocExamplesRunOffline(t *testing.T) {
	t.Parallel()
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	require.NoError(t, err)
	ran := 0
	for _, page := range append([]string{filepath.Join("..", "..", "README.md")}, docs...) {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		dir := t.TempDir()
		env := func(k string) string {
			switch k {
			case "ASSAY_DATA_DIR":
				return filepath.Join(dir, "data")
			case "ASSAY_CACHE_DIR":
				return filepath.Join(dir, "cache")
			}
			return ""
		}
		written := map[string]string{}
		for _, line := range docCommands(string(text)) {
			args, ok := offlineExample(strings.TrimSpace(line), dir, ran, written)
			if !ok {
				continue
			}
			ran++
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, env, strings.NewReader(""), &stdout, &stderr)
			assert.NotEqual(t, exitInput, code, "%s: %q exits 2: %s", filepath.Base(page), line, stderr.String())
		}
	}
	assert.Greater(t, ran, 20, "the pages' offline examples")
}

// TestRootHelpNamesTheExitFlags: every flag the README's exit-code table
// names (--min, --max-default-rate, --strict, --max-skip-rate) is named
// by `assay --help`'s exit codes too, so the two say the same.
func TestRootHelpNamesTheExitFlags(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(readme), "## Exit codes")
	require.True(t, ok, "README.md has no exit-code table")
	var rows strings.Builder
	for line := range strings.Lines(table) {
		if !strings.HasPrefix(line, "|") {
			if rows.Len() > 0 {
				break
			}
			continue
		}
		rows.WriteString(line)
	}
	root := newRoot(noEnv, agent.Builtins(), strings.NewReader(""), io.Discard, io.Discard)
	_, help, ok := strings.Cut(root.Long, "Exit codes:")
	require.True(t, ok, "assay --help names no exit codes")
	flags := regexp.MustCompile(`--[a-z][a-z-]*`).FindAllString(rows.String(), -1)
	require.NotEmpty(t, flags)
	for _, f := range flags {
		assert.Contains(t, help, f, "README.md's exit codes name %s; assay --help's do not", f)
	}
}
