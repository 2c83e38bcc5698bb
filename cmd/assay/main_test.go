package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// noEnv is an empty environment: tests do not see the developer's keys.
func noEnv(string) string { return "" }

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, noEnv, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestGoldenCards(t *testing.T) {
	t.Parallel()
	q := "How does HTTP/3 differ from HTTP/2?"
	tests := map[string]struct {
		args []string
		code int
	}{
		"pass.yaml":          {[]string{"score", "--now", "2026-11-23", "--query", q, "../../fixtures/reports/pass.md"}, 0},
		"pass.json":          {[]string{"score", "--now", "2026-11-23", "--format", "json", "--query", q, "../../fixtures/reports/pass.md"}, 0},
		"iterate.yaml":       {[]string{"score", "--now", "2026-11-23", "--query", q, "../../fixtures/reports/iterate.md"}, 1},
		"iterate.md":         {[]string{"score", "--now", "2026-11-23", "--format", "md", "--query", q, "../../fixtures/reports/iterate.md"}, 1},
		"fail.json":          {[]string{"score", "--now", "2026-11-23", "--format", "json", "--query", q, "../../fixtures/reports/fail.md"}, 1},
		"context-good.json":  {[]string{"score", "--profile", "context", "--format", "json", "../../fixtures/context/good.json"}, 0},
		"context-ambig.json": {[]string{"score", "--profile", "context", "--format", "json", "../../fixtures/context/ambiguous.json"}, 1},
		"context-poor.json":  {[]string{"score", "--profile", "context", "--format", "json", "../../fixtures/context/poor.json"}, 1},
		"iterate.txt":        {[]string{"score", "--now", "2026-11-23", "--format", "text", "--query", q, "../../fixtures/reports/iterate.md"}, 1},
		"context-ambig.txt":  {[]string{"score", "--profile", "context", "--format", "text", "../../fixtures/context/ambiguous.json"}, 1},
		"context-poor.yaml":  {[]string{"score", "--profile", "context", "../../fixtures/context/poor.json"}, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), out)
		})
	}
}

func TestBadInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	empty := write("empty.md", nil)
	binary := write("bin.md", []byte("# T\n\x00\x01\x02"))
	utf16 := write("u16.md", []byte("#\x00 \x00T\x00\n\x00"))
	badUTF8 := write("utf8.md", []byte("# T\n\nok line\nbad \xff byte\n"))
	huge := write("huge.md", bytes.Repeat([]byte("A claim sentence here. "), 20<<20/23+1))
	unterminated := write("unterminated.md", []byte("# T\n\nA claim with [an unterminated link](https://a.gov/x \"quote\n"))
	wrongTypes := write("types.json", []byte("{\n  \"query\": \"q\",\n  \"chunks\": [{\"content\": \"c\", \"score\": \"high\", \"documentId\": \"d\"}]\n}\n"))
	wordScore := write("wordscore.json", []byte(`{"query": "q", "chunks": [{"content": "c", "score": "0.5", "documentId": "d"}], "context": {"text": "t", "tokenCount": 3}}`))
	negTokens := write("tok.json", []byte(`{"query": "q", "chunks": [], "context": {"text": "t", "tokenCount": -1}}`))
	noDoc := write("nodoc.json", []byte(`{"query": "q", "chunks": [{"content": "c", "score": 0.5}], "context": {"text": "t", "tokenCount": 3}}`))
	nanScore := write("nan.json", []byte(`{"query": "q", "chunks": [{"content": "c", "score": NaN, "documentId": "d"}]}`))
	badProfile := write("p.yaml", []byte("name: mine\nkind: report\npass:\n  threshold: 8\nscorers:\n  - metric: grounding\n    max: -5\n"))
	unknownField := write("p2.yaml", []byte("name: mine\nkind: report\nscorers:\n  - metric: grounding\n    max: 5\n    colour: red\n"))
	badSources := write("s.json", []byte("[\n  {\"url\": \"https://a.gov\", \"credibility_score\": 14}\n]\n"))
	unreadable := filepath.Join(dir, "missing.md")
	escaped := filepath.Join(dir, "no\x1b[2Jfile.md") // a name a terminal would obey

	tests := map[string]struct {
		args   []string
		stdin  string
		code   int
		stderr string // substring of the message
	}{
		"empty file":               {[]string{"score", empty}, "", 2, "empty.md: empty input"},
		"binary file":              {[]string{"score", binary}, "", 2, "bin.md:2: binary data"},
		"UTF-16 file, no mark":     {[]string{"score", utf16}, "", 2, "u16.md:1: UTF-16 text (little-endian, a NUL byte beside each ASCII character): save it as UTF-8"},
		"invalid UTF-8":            {[]string{"score", badUTF8}, "", 2, "utf8.md:4:5: invalid UTF-8"},
		"20 MB report":             {[]string{"score", huge}, "", 2, "huge.md: larger than the 10 MB limit"},
		"unreadable file":          {[]string{"score", unreadable}, "", 2, "missing.md: cannot read: no such file or directory"},
		"an escape in a file name": {[]string{"score", escaped}, "", 2, `no\x1b[2Jfile.md: cannot read`},
		"directory":                {[]string{"score", dir}, "", 2, "is a directory"},
		"unknown profile":          {[]string{"score", "--profile", "nope", empty}, "", 2, `unknown profile "nope"`},
		"bad profile value":        {[]string{"score", "--profile", badProfile, empty}, "", 2, "p.yaml:7: scorers[0].max: must be a positive number, got -5"},
		"unknown profile field":    {[]string{"score", "--profile", unknownField, empty}, "", 2, "p2.yaml:6: scorers[0].colour: unknown field"},
		"bad format":               {[]string{"score", "--format", "xml", empty}, "", 2, "--format: must be yaml, json, md or text"},
		"bad --now":                {[]string{"score", "--now", "yesterday", empty}, "", 2, "--now: want YYYY-MM-DD"},
		"credibility out of range": {[]string{"score", "--sources", badSources, unterminated}, "", 2, "s.json:2: sources[0].credibility_score: must be between 1 and 10, got 14"},
		"no file argument":         {[]string{"score"}, "", 2, "accepts 1 arg(s)"},
		"unknown flag":             {[]string{"score", "--colour", "x.md"}, "", 2, "unknown flag: --colour"},
		"empty stdin":              {[]string{"score", "-"}, "  \n", 2, "<stdin>: empty input"},
		"wrong JSON types":         {[]string{"score", "--profile", "context", wrongTypes}, "", 2, "types.json:3"},
		"score given as a string":  {[]string{"score", "--profile", "context", wordScore}, "", 2, "chunks[0].score"},
		"negative tokenCount":      {[]string{"score", "--profile", "context", negTokens}, "", 2, "context.tokenCount"},
		"missing documentId":       {[]string{"score", "--profile", "context", noDoc}, "", 2, "chunks[0].documentId"},
		"NaN score":                {[]string{"score", "--profile", "context", nanScore}, "", 2, "nan.json:1"},
		// Not an error: an unterminated link is text in CommonMark, so the
		// sentence is an uncited claim and the report fails grounding.
		"unterminated link is scored": {[]string{"score", unterminated}, "", 1, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runCLI(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, tc.stderr)
			assert.NotContains(t, errOut, "panic")
			assert.NotContains(t, errOut, "\x1b", "no control character reaches the terminal raw")
		})
	}
}

func TestStdin(t *testing.T) {
	t.Parallel()
	report, err := os.ReadFile("../../fixtures/reports/pass.md")
	require.NoError(t, err)
	code, out, _ := runCLI(t, string(report), "score", "--now", "2026-11-23", "--format", "json", "-")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, `"status": "pass"`)
}

func TestJudgeStdin(t *testing.T) {
	t.Parallel()
	sample, err := os.ReadFile("../../fixtures/rag/eiffel.json")
	require.NoError(t, err)
	tests := map[string]struct {
		stdin  string
		code   int
		stderr string
	}{
		"a pretty-printed object":    {string(sample), 0, ""},
		"an array":                   {`[{"id":"a","question":"q","answer":"a","contexts":["c"]}]`, 0, ""},
		"JSON Lines":                 {`{"id":"a","question":"q","contexts":["c"]}` + "\n" + `{"id":"b","question":"q","contexts":["c"]}`, 0, ""},
		"a bad line names stdin":     {`{"id":"a","question":"q","contexts":["c"]}` + "\n" + `{"id":"b","question":"q"`, 2, "assay: <stdin>:2:25: invalid JSON: unexpected end of JSON input"},
		"a bad field names stdin":    {`{"id":"a","question":"q","contexts":"c"}`, 2, "assay: <stdin>:1: contexts: want an array of strings, got string"},
		"a missing need names stdin": {`{"id":"a","question":"q","answer":"a"}`, 2, "assay: <stdin>:1: contexts: context_precision: sample has no contexts or sources"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runCLI(t, tc.stdin, "judge", "--metric", "context_precision", "-")
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, tc.stderr)
			assert.NotContains(t, errOut, "stdin.json")
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		"a tagged module with its commit": {&debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "f272e604bfeb"}, {Key: "vcs.modified", Value: "false"}}}, true, "v1.2.0 (commit f272e604bfeb)"},
		"a dirty tree": {&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124213100-f272e604bfeb+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "f272e604bfeb"}, {Key: "vcs.modified", Value: "true"}}}, true,
			"v0.0.0-20261124213100-f272e604bfeb+dirty (commit f272e604bfeb+dirty)"},
		"built without vcs stamping": {&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "(devel)"},
		"no build info":              {nil, false, "(unknown version: built without module information)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, version(tc.info, tc.ok))
		})
	}
	code, out, errOut := runCLI(t, "", "--version")
	assert.Equal(t, exitPass, code, errOut)
	assert.Equal(t, "assay "+version(debug.ReadBuildInfo())+"\n", out)
}
