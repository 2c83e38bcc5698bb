package dashboard

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// Source gives the page its data.
type Source interface {
	Dashboard(ctx context.Context) (Data, error)
}

// SourceFunc is a function as a Source.
type SourceFunc func(ctx context.Context) (Data, error)

// Dashboard calls f.
func (f SourceFunc) Dashboard(ctx context.Context) (Data, error) { return f(ctx) }

// DefaultJSONPath is where assay serve mounts JSONHandler, and where the
// page refreshes from.
const DefaultJSONPath = "/v1/dashboard"

// DefaultRefresh is how often the page refreshes.
const DefaultRefresh = 10 * time.Second

//go:embed dashboard.html
var pageText string

// pageTemplate is parsed on the first page served, not at package load.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("dashboard").Parse(pageText))
})

// Page serves the dashboard. Handler gives one with the defaults.
type Page struct {
	Source Source
	// JSONPath is the JSON route the page refreshes from; "" means
	// DefaultJSONPath.
	JSONPath string
	// Refresh is how often it does; 0 means DefaultRefresh, below 0
	// never.
	Refresh time.Duration
}

// Handler serves the dashboard page of src, refreshing from
// DefaultJSONPath every DefaultRefresh.
func Handler(src Source) http.Handler { return Page{Source: src} }

// JSONHandler serves src's Data as JSON: the route the page refreshes
// from, and one for any other client.
func JSONHandler(src Source) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed(w, r) {
			return
		}
		d, ok := load(w, r, src)
		if !ok {
			return
		}
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(d); err != nil {
			fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		httpjson.Encoded(w, http.StatusOK, buf.Bytes())
	})
}

// ServeHTTP implements http.Handler.
func (p Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r) {
		return
	}
	d, ok := load(w, r, p.Source)
	if !ok {
		return
	}
	path, refresh := p.JSONPath, p.Refresh
	if path == "" {
		path = DefaultJSONPath
	}
	if refresh == 0 {
		refresh = DefaultRefresh
	}
	var buf bytes.Buffer
	err := pageTemplate().Execute(&buf, struct {
		Data      Data
		JSONPath  string
		RefreshMS int64
	}{d, path, max(refresh.Milliseconds(), 0)})
	if err != nil {
		fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page needs nothing from elsewhere: say so to the browser.
	w.Header().Set("Content-Security-Policy", httpjson.PagePolicy)
	_, _ = w.Write(buf.Bytes())
}

func allowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	httpjson.Error(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here: use GET")
	return false
}

func load(w http.ResponseWriter, r *http.Request, src Source) (Data, bool) {
	d, err := src.Dashboard(r.Context())
	if err != nil {
		fail(w, r, err)
		return Data{}, false
	}
	return d, true
}

func fail(w http.ResponseWriter, r *http.Request, err error) {
	slog.ErrorContext(r.Context(), "dashboard", "path", r.URL.Path, "err", err)
	httpjson.Error(w, http.StatusInternalServerError, "the dashboard could not be built: "+err.Error())
}
