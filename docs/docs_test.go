// Package docs_test keeps the documentation's examples true: every file a
// shell example in README.md or docs/*.md reads is shipped with the
// repository (or written by an earlier example of the same page), and
// every relative link points at a file that exists. That every
// `assay CMD --flag` they show names a real flag is checked against the
// command tree itself, in cmd/assay/docflags_test.go.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pages are the documents whose examples are checked, relative to the
// repository's root.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs, "no page in docs/")
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, filepath.Join("docs", d))
	}
	return out
}

var (
	quoted   = regexp.MustCompile(`'[^']*'|"[^"]*"`)
	pathLike = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*\.(jsonl|json|md|yaml|yml|csv)$|^(fixtures|examples)/\S+$`)
	link     = regexp.MustCompile(`\]\(([^)\s#]+)(#[^)]*)?\)`)
	codeSpan = regexp.MustCompile("`[^`]*`")
)

// outputFlags name what a command writes, not what it reads.
var outputFlags = map[string]bool{"--out": true, "-o": true, "--junit": true, "--summary-md": true, ">": true, ">>": true}

// commands are the shell lines of a page's sh blocks, continuation lines
// joined, comments cut.
func commands(t *testing.T, page string) []string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", page))
	require.NoError(t, err)
	var out []string
	inSh, cont := false, ""
	for line := range strings.Lines(string(text)) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = strings.TrimPrefix(line, "```") == "sh"
			continue
		case !inSh:
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cont += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		out = append(out, cont+line)
		cont = ""
	}
	return out
}

func TestExamplesReadShippedFiles(t *testing.T) {
	t.Parallel()
	for _, page := range pages(t) {
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			written := map[string]bool{}
			checked := 0
			for _, cmd := range commands(t, page) {
				words := strings.Fields(quoted.ReplaceAllString(cmd, "''"))
				for i, w := range words {
					w = strings.TrimPrefix(w, "@")
					if i > 0 && outputFlags[words[i-1]] {
						written[w] = true
						continue
					}
					if strings.HasPrefix(w, "bin/") || strings.Contains(w, "://") || strings.Contains(w, "$") {
						continue
					}
					if !pathLike.MatchString(w) && !written[w] {
						continue
					}
					checked++
					if written[w] {
						continue
					}
					_, err := os.Stat(filepath.Join("..", w))
					assert.NoError(t, err, "%s: the example %q reads %s, which the repository does not ship", page, cmd, w)
				}
			}
			if page == "README.md" {
				assert.Greater(t, checked, 5, "the README's examples name the files they read")
			}
		})
	}
}

func TestLinksResolve(t *testing.T) {
	t.Parallel()
	for _, page := range pages(t) {
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(filepath.Join("..", page))
			require.NoError(t, err)
			for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(string(body), ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				_, err := os.Stat(filepath.Join("..", filepath.Dir(page), target))
				assert.NoError(t, err, "%s links to %s, which does not exist", page, target)
			}
		})
	}
}
