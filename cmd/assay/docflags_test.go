package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
)

var (
	// docCommand is an `assay CMD ...` written in a page: a shell line, or
	// a code span of prose.
	docCommand = regexp.MustCompile("\\bassay((?:\\s+[a-z]+){1,2})([^`\\n|;&]*)")
	docSpan    = regexp.MustCompile("`([^`\\n]*)`")
	docQuoted  = regexp.MustCompile(`'[^']*'|"[^"]*"`)
	docFlag    = regexp.MustCompile(`(?:^|\s)(--?[A-Za-z][A-Za-z0-9-]*)`)
)

// docCommands are the `assay ...` commands of a page: every line of its
// sh blocks (continuations joined) and every code span of its prose.
func docCommands(text string) []string {
	var out []string
	inSh, cont := false, ""
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "```") {
			inSh = strings.TrimPrefix(line, "```") == "sh"
			continue
		}
		if !inSh {
			for _, m := range docSpan.FindAllStringSubmatch(line, -1) {
				out = append(out, m[1])
			}
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
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

// TestDocsNameRealFlags: every `assay CMD --flag` that README.md and
// docs/*.md show names a command and a flag that command has, so a
// renamed or removed flag cannot live on in the pages.
func TestDocsNameRealFlags(t *testing.T) {
	t.Parallel()
	root := newRoot(func(string) string { return "" }, agent.Builtins(), strings.NewReader(""), io.Discard, io.Discard)
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	require.NoError(t, err)
	pages = append(pages, filepath.Join("..", "..", "README.md"))
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, cmdline := range docCommands(string(text)) {
			for _, m := range docCommand.FindAllStringSubmatch(docQuoted.ReplaceAllString(cmdline, "''"), -1) {
				c, rest, err := root.Find(strings.Fields(m[1]))
				if err != nil || c == root {
					continue // prose: "assay serve's", "the assay worker processes"
				}
				for _, f := range docFlag.FindAllStringSubmatch(strings.Join(rest, " ")+m[2], -1) {
					checked++
					assert.True(t, hasFlag(c, f[1]), "%s: %q: assay %s has no flag %s", filepath.Base(page), cmdline, c.Name(), f[1])
				}
			}
		}
	}
	assert.Greater(t, checked, 100, "the pages' commands were read")
}

// hasFlag says whether c takes flag (--name or -s), its help included.
func hasFlag(c *cobra.Command, flag string) bool {
	c.InitDefaultHelpFlag()
	if name, ok := strings.CutPrefix(flag, "--"); ok {
		return c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil
	}
	short := strings.TrimPrefix(flag, "-")
	return len(short) == 1 && (c.Flags().ShorthandLookup(short) != nil || c.InheritedFlags().ShorthandLookup(short) != nil)
}
