package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoExportedTables keeps what docs/development.md says of tables: no
// package of the module, outside its tests, exports a variable a caller
// could change under every other caller. A table is a function that hands
// out a copy, or unexported; the exceptions are sentinel errors (Err...)
// and files embedded with go:embed (embed.FS, read-only).
func TestNoExportedTables(t *testing.T) {
	t.Parallel()
	var found []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "tools", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, name := range exportedVars(f) {
			found = append(found, filepath.ToSlash(path)+": "+name)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "exported package-level variables: make each a function returning a copy, or unexported")
}

// exportedVars are the exported package-level variables of f other than
// sentinel errors and embedded files.
func exportedVars(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if sel, ok := vs.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "FS" {
				continue // embed.FS
			}
			for _, n := range vs.Names {
				if n.IsExported() && !strings.HasPrefix(n.Name, "Err") {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}
