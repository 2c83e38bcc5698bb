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

	"github.com/assaylabs/assay/agent"
)

// shipped is a path into the folders of example inputs the repository
// ships, as a command's help names one.
var shipped = regexp.MustCompile(`\b(?:examples|fixtures)/[\w./-]*\w`)

// TestHelpExamplesReadShippedFiles: every file of examples/ or fixtures/
// a command's help example reads is in the repository, and an align
// example names the model its defined judge needs (there is no offline
// one).
func TestHelpExamplesReadShippedFiles(t *testing.T) {
	t.Parallel()
	root := newRoot(func(string) string { return "" }, agent.Builtins(), strings.NewReader(""), io.Discard, io.Discard)
	var walk func(*cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, path := range shipped.FindAllString(c.Example, -1) {
			checked++
			_, err := os.Stat(filepath.Join("..", "..", path))
			assert.NoError(t, err, "assay %s --help: its example reads %s, which the repository does not ship", c.Name(), path)
		}
		if c.Name() == "align" {
			assert.Contains(t, c.Example, "--llm ", "assay align --help: a defined judge has no offline counterpart")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	assert.Greater(t, checked, 2)
}
