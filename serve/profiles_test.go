package serve

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// secretLine is the first line of a file no request may read.
const secretLine = "root:*:20228:0:99999:7:::SECRET-7f3a"

// attack is one request carrying @P@, a path, in one of its fields.
type attack struct {
	method, target, body string
	form, bearer         bool
}

// attacks put a path in every string field of every route.
func attacks() map[string]attack {
	const s = `{"id": "s1", "question": "q", "answer": "a", "contexts": ["c"]}`
	post := func(target, body string) attack { return attack{method: http.MethodPost, target: target, body: body} }
	get := func(target string) attack { return attack{method: http.MethodGet, target: target} }
	sampleFields := map[string]string{
		"id":          `{"id": "@P@", "question": "q", "answer": "a", "contexts": ["c"]}`,
		"question":    `{"question": "@P@", "answer": "a", "contexts": ["c"]}`,
		"answer":      `{"question": "q", "answer": "@P@", "contexts": ["c"]}`,
		"contexts":    `{"question": "q", "answer": "a", "contexts": ["@P@"]}`,
		"reference":   `{"question": "q", "answer": "a", "contexts": ["c"], "reference": "@P@"}`,
		"metadata":    `{"question": "q", "answer": "a", "contexts": ["c"], "metadata": {"file": "@P@"}}`,
		"sources.url": `{"question": "q", "answer": "a", "sources": [{"url": "@P@", "text": "c"}]}`,
	}
	out := map[string]attack{
		"runs profile":           post("/v1/runs", `{"profile": "@P@", "samples": [`+s+`]}`),
		"runs metrics":           post("/v1/runs", `{"metrics": ["@P@"], "samples": [`+s+`]}`),
		"runs dataset":           post("/v1/runs", `{"metrics": ["faithfulness"], "dataset": "@P@"}`),
		"runs format":            post("/v1/runs", `{"metrics": ["faithfulness"], "dataset": "{}", "format": "@P@"}`),
		"runs min":               post("/v1/runs", `{"metrics": ["faithfulness"], "samples": [`+s+`], "min": "@P@"}`),
		"runs gates":             post("/v1/runs", `{"metrics": ["faithfulness"], "samples": [`+s+`], "gates": ["@P@"]}`),
		"score profile":          post("/v1/score", `{"profile": "@P@", "report": "# R\n\nText."}`),
		"score report":           post("/v1/score", `{"report": "@P@"}`),
		"score query":            post("/v1/score", `{"report": "# R\n\nText.", "query": "@P@"}`),
		"score sources":          post("/v1/score", `{"report": "# R\n\nText.", "sources": "@P@"}`),
		"score sources url":      post("/v1/score", `{"report": "# R\n\n[a](@P@)", "sources": [{"url": "@P@", "text": "t"}]}`),
		"score truth":            post("/v1/score", `{"profile": "daily", "report": "# R", "truth": "@P@", "telemetry": "@P@"}`),
		"judge metrics":          post("/v1/judge", `{"sample": `+s+`, "metrics": ["@P@"]}`),
		"context query":          post("/v1/context-score", `{"query": "@P@", "chunks": []}`),
		"context chunk":          post("/v1/context-score", `{"query": "q", "chunks": [{"content": "@P@", "score": 0.5, "documentId": "@P@"}]}`),
		"context text":           post("/v1/context-score", `{"query": "q", "chunks": [], "context": {"text": "@P@", "tokenCount": 1}}`),
		"traces metrics":         post("/v1/traces", `{"metrics": ["@P@"], "traces": [{"trace_id": "t-m", "sample": `+s+`}]}`),
		"traces trace_id":        post("/v1/traces", `{"traces": [{"trace_id": "@P@", "sample": `+s+`}]}`),
		"run by id":              get("/v1/runs/@P@"),
		"trace by id":            get("/v1/traces/@P@"),
		"summary by":             get("/v1/traces/summary?by=@P@"),
		"summary metric and day": get("/v1/traces/summary?metric=@P@&from=@P@&to=@P@"),
		"alerts limit":           get("/v1/alerts?limit=@P@"),
		"dashboard data":         get("/v1/dashboard?run=@P@"),
		"login form":             {method: http.MethodPost, target: "/login", body: "token=@P@", form: true},
		"bearer token":           {method: http.MethodGet, target: "/v1/runs", bearer: true},
	}
	for field, sample := range sampleFields {
		out["judge sample "+field] = post("/v1/judge", `{"sample": `+sample+`, "metrics": ["faithfulness"]}`)
		out["runs samples "+field] = post("/v1/runs", `{"metrics": ["faithfulness"], "samples": [`+sample+`]}`)
		out["traces sample "+field] = post("/v1/traces", `{"traces": [{"trace_id": "t-`+field+`", "sample": `+sample+`}]}`)
	}
	return out
}

// send is a's request with path in its fields, and the answer's status
// and body.
func (a attack) send(t *testing.T, base, path string) (int, string) {
	t.Helper()
	target := strings.ReplaceAll(a.target, "@P@", url.PathEscape(path))
	if strings.Contains(a.target, "?") {
		target = strings.ReplaceAll(a.target, "@P@", url.QueryEscape(path))
	}
	switch {
	case a.form:
		return call(t, a.method, base+target, strings.ReplaceAll(a.body, "@P@", url.QueryEscape(path)), "Content-Type", "application/x-www-form-urlencoded")
	case a.bearer:
		return call(t, a.method, base+target, "", "Authorization", "Bearer "+path)
	}
	return call(t, a.method, base+target, strings.ReplaceAll(a.body, "@P@", path))
}

// TestNoRequestFieldIsAServerPath: a path (absolute, relative, climbing
// with .., a file: URL, /etc/passwd) in any string field of any route
// opens no file (inotify watches the folder of the secret), never shows
// a file's content, and is answered the same whether the file exists or
// not, so that no answer tells which files there are.
func TestNoRequestFieldIsAServerPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.yaml")
	require.NoError(t, os.WriteFile(secret, []byte(secretLine+"\nname: x\n"), 0o644))
	missing := filepath.Join(dir, "missing.yaml")
	cwd, err := os.Getwd()
	require.NoError(t, err)
	rel := func(p string) string {
		r, err := filepath.Rel(cwd, p)
		require.NoError(t, err)
		return r
	}
	opened := watchOpens(t, dir)
	clk := &clock{}
	clk.advance(time.Duration(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).UnixNano()))
	open := start(t, Config{Now: clk.Now})
	locked := start(t, Config{Now: clk.Now, Token: "sesame"})

	paths := map[string][2]string{ // a file that exists, one that does not
		"absolute":    {secret, missing},
		"relative":    {rel(secret), rel(missing)},
		"dot-dot":     {strings.Repeat("../", 12) + strings.TrimPrefix(secret, "/"), strings.Repeat("../", 12) + strings.TrimPrefix(missing, "/")},
		"yaml name":   {"../" + filepath.Base(dir) + "/secret.yaml", "../" + filepath.Base(dir) + "/missing.yaml"},
		"file URL":    {"file://" + secret, "file://" + missing},
		"system file": {"/etc/passwd", "/etc/no-such-file-of-assay"},
	}
	for name, a := range attacks() {
		base := open.URL
		if a.form || a.bearer {
			base = locked.URL
		}
		for kind, pair := range paths {
			t.Run(name+"/"+kind, func(t *testing.T) {
				var codes [2]int
				var errs [2]string
				for i, p := range pair {
					clk.advance(time.Minute) // no throttle between the two
					code, body := a.send(t, base, p)
					assert.NotContains(t, body, "SECRET-7f3a")
					assert.NotContains(t, body, "root:x:0:0")
					assert.NotContains(t, body, "root:*:")
					assert.NotContains(t, body, "no such file")
					assert.NotContains(t, body, "permission denied")
					codes[i] = code
					if code >= 400 {
						errs[i] = errorText(body, p)
					}
				}
				assert.Equal(t, codes[0], codes[1], "the same status whether %s exists or not", pair[0])
				assert.Equal(t, errs[0], errs[1], "the same error whether %s exists or not", pair[0])
			})
		}
	}
	assert.Empty(t, opened(), "a request opened a file of %s", dir)
}

// errorText is an error answer's message and field, with the path it
// names as @P@ (its offset and column move with the path's length); an
// answer that is not an ErrorBody (the login page) as it is.
func errorText(body, path string) string {
	var eb ErrorBody
	if json.Unmarshal([]byte(body), &eb) == nil && eb.Error != "" {
		body = eb.Field + ": " + eb.Error
	}
	for _, p := range []string{path, url.QueryEscape(path), url.PathEscape(path)} {
		// An error quotes the start of what it was sent (httpjson.Echo).
		body = strings.ReplaceAll(body, httpjson.Echo(p), `"@P@"`)
		body = strings.ReplaceAll(body, p, "@P@")
	}
	return body
}

// TestAProfileIsNamedFromTheServersFolder: a request names a profile of
// the operator's --profiles folder by its name, for a run and a score;
// its file's name or path is refused, saying which names there are; a
// bad profile in the folder stops the server from starting, named with
// its line.
func TestAProfileIsNamedFromTheServersFolder(t *testing.T) {
	t.Parallel()
	folder := t.TempDir()
	research, err := os.ReadFile(filepath.Join("..", "agent", "profiles", "research.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(folder, "team.yaml"), research, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "notes.txt"), []byte("not a profile"), 0o644))
	s := start(t, Config{Profiles: folder})

	report := mustJSON(t, map[string]any{"id": "r1", "query": "What is QUIC?", "report": "# QUIC\n\nQUIC runs over UDP [RFC 9000](https://www.rfc-editor.org/rfc/rfc9000 \"QUIC runs over UDP\").\n"})
	tests := map[string]struct {
		path, body string
		code       int
		msg        string
	}{
		"a run of the folder's profile": {path: "/v1/runs", body: `{"profile": "team", "dataset": ` + mustJSON(t, report) + `}`, code: http.StatusAccepted},
		"a score of it":                 {path: "/v1/score", body: `{"profile": "team", "report": "# QUIC\n\nQUIC runs over UDP."}`, code: http.StatusOK},
		"a built-in one":                {path: "/v1/score", body: `{"profile": "research", "report": "# QUIC\n\nQUIC runs over UDP."}`, code: http.StatusOK},
		"its file's name": {path: "/v1/runs", body: `{"profile": "team.yaml", "dataset": ` + mustJSON(t, report) + `}`, code: http.StatusBadRequest,
			msg: `profile: want research, daily or context, or a profile of the server's --profiles folder (team): a name, never a path`},
		"its path": {path: "/v1/score", body: `{"profile": ` + mustJSON(t, filepath.Join(folder, "team.yaml")) + `, "report": "# R"}`, code: http.StatusBadRequest,
			msg: "a name, never a path"},
		"a file that is not a profile": {path: "/v1/score", body: `{"profile": "notes", "report": "# R"}`, code: http.StatusBadRequest, msg: "(team)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, body := call(t, http.MethodPost, s.URL+tc.path, tc.body)
			require.Equal(t, tc.code, code, body)
			if tc.msg != "" {
				var eb ErrorBody
				require.NoError(t, json.Unmarshal([]byte(body), &eb))
				assert.Equal(t, "profile", eb.Field)
				assert.Contains(t, eb.Error, tc.msg)
				assert.NotContains(t, eb.Error, folder, "the error echoes the request's path")
				assert.NotContains(t, eb.Error, "team.yaml", "the error echoes the request's name")
			}
		})
	}

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "weekly.yaml"), []byte("name: weekly\nkind: report\nscorers:\n  - metric: nope\n    max: 5\n"), 0o644))
	clash := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(clash, "context.yml"), research, 0o644))
	for name, tc := range map[string]struct {
		dir  string
		file string
		msg  string
	}{
		"a bad profile":        {dir: bad, file: filepath.Join(bad, "weekly.yaml"), msg: "nope"},
		"a built-in's name":    {dir: clash, file: filepath.Join(clash, "context.yml"), msg: "has the name of a built-in profile"},
		"no folder":            {dir: filepath.Join(bad, "none"), msg: "want a folder of profile files"},
		"a file, not a folder": {dir: filepath.Join(bad, "weekly.yaml"), msg: "want a folder of profile files"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := New(Config{Profiles: tc.dir, DataDir: t.TempDir(), Store: filepath.Join(t.TempDir(), "runs.db")})
			require.Error(t, err)
			ie, ok := err.(*eval.InputError) //nolint:errorlint // New returns the input error itself
			require.True(t, ok, "%T %v", err, err)
			assert.Equal(t, tc.file, ie.File)
			assert.Contains(t, ie.Error(), tc.msg)
			if tc.file == "" {
				assert.Equal(t, "--profiles", ie.Field)
			}
		})
	}
}

// TestTheShippedProfilesFolderServes keeps serving.md's example true: the
// folder it gives --profiles holds profiles only, so the server starts on
// it and offers the profile by the file's name.
func TestTheShippedProfilesFolderServes(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Profiles: filepath.Join("..", "examples", "profiles")})
	code, body := call(t, http.MethodPost, s.URL+"/v1/score", `{"profile": "nope", "report": "# QUIC\n\nQUIC runs over UDP."}`)
	require.Equal(t, http.StatusBadRequest, code, body)
	var eb ErrorBody
	require.NoError(t, json.Unmarshal([]byte(body), &eb))
	assert.Equal(t, "profile", eb.Field)
	assert.Contains(t, eb.Error, "--profiles folder (plain-report)")
}
