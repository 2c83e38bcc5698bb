package web_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/web"
)

// searxngServer serves reply (status, body) at /searx/search and counts the
// requests; it fails the test on a request SearxNG would not get.
func searxngServer(t *testing.T, status int, header http.Header, body string) (*web.SearxNG, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodGet || r.URL.Path != "/searx/search" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		q := r.URL.Query()
		if q.Get("format") != "json" || q.Get("pageno") != "1" || q.Get("q") == "" {
			http.Error(w, "bad query "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return &web.SearxNG{BaseURL: srv.URL + "/searx/", Client: srv.Client()}, &calls
}

// searxngRecorded is a SearxNG JSON reply of the kind a public instance
// sends: extra fields, a null publishedDate, dates with and without a zone,
// a duplicate URL from a second engine, and a non-web (magnet) result.
const searxngRecorded = `{
  "query": "heat pump efficiency cold climate",
  "number_of_results": 0,
  "results": [
    {
      "url": "https://www.energy.gov/energysaver/heat-pump-systems",
      "title": "Heat Pump Systems | Department of Energy",
      "content": "Heat pumps offer an energy-efficient alternative to furnaces and air conditioners for all climates.",
      "engine": "duckduckgo",
      "parsed_url": ["https", "www.energy.gov", "/energysaver/heat-pump-systems", "", "", ""],
      "template": "default.html",
      "engines": ["duckduckgo", "google"],
      "positions": [1, 2],
      "publishedDate": null,
      "score": 4.5,
      "category": "general"
    },
    {
      "url": "https://en.wikipedia.org/wiki/Heat_pump",
      "title": "Heat pump - Wikipedia",
      "content": "A heat pump is a device that consumes energy to transfer heat from a cold heat sink to a hot heat source.",
      "engine": "wikipedia",
      "engines": ["wikipedia", "google"],
      "positions": [1, 3],
      "score": 3.25,
      "category": "general"
    },
    {
      "url": "https://www.nrel.gov/docs/fy23osti/cold-climate-heat-pumps.pdf",
      "title": "Cold Climate  Heat Pump\nField Performance",
      "content": "Field results from cold climate heat pumps in 12 homes.",
      "engine": "bing",
      "engines": ["bing"],
      "positions": [4],
      "publishedDate": "2023-04-18T00:00:00",
      "score": 1.2,
      "category": "general"
    },
    {
      "url": "https://blog.heatpumps.example.com/cold-climate",
      "title": "Do heat pumps work in the cold?",
      "content": "Yes, and here is why.",
      "engine": "brave",
      "engines": ["brave"],
      "positions": [5],
      "publishedDate": "2024-01-09T08:30:00Z",
      "score": 0.9,
      "category": "general"
    },
    {
      "url": "https://en.wikipedia.org/wiki/Heat_pump",
      "title": "Heat pump - Wikipedia (duplicate)",
      "content": "Duplicate from another engine.",
      "engine": "qwant",
      "score": 0.5
    },
    {
      "url": "magnet:?xt=urn:btih:0000",
      "title": "Not a web page",
      "content": "",
      "engine": "torrent",
      "score": 0.4
    },
    {
      "url": "https://www.mit.edu/heat-pumps",
      "title": "Heat pumps at MIT",
      "content": "Research on heat pumps.",
      "engine": "google",
      "publishedDate": "2022-11-02",
      "score": 0.3
    }
  ],
  "answers": [],
  "corrections": [],
  "infoboxes": [],
  "suggestions": ["heat pump efficiency below zero"],
  "unresponsive_engines": [["startpage", "timeout"]]
}`

func TestSearxNGSearch(t *testing.T) {
	t.Parallel()
	recorded := searxngRecorded
	jsonHeader := http.Header{"Content-Type": {"application/json"}}

	t.Run("maps results in order, without duplicates or non-web URLs", func(t *testing.T) {
		t.Parallel()
		s, calls := searxngServer(t, http.StatusOK, jsonHeader, string(recorded))
		rs, err := s.Search(context.Background(), web.Query{Text: "heat pump efficiency cold climate"})
		require.NoError(t, err)
		require.Equal(t, int32(1), calls.Load())
		require.Equal(t, []string{
			"https://www.energy.gov/energysaver/heat-pump-systems",
			"https://en.wikipedia.org/wiki/Heat_pump",
			"https://www.nrel.gov/docs/fy23osti/cold-climate-heat-pumps.pdf",
			"https://blog.heatpumps.example.com/cold-climate",
			"https://www.mit.edu/heat-pumps",
		}, urls(rs))
		require.Equal(t, web.Result{
			URL:       "https://www.nrel.gov/docs/fy23osti/cold-climate-heat-pumps.pdf",
			Title:     "Cold Climate Heat Pump Field Performance",
			Snippet:   "Field results from cold climate heat pumps in 12 homes.",
			Published: time.Date(2023, 4, 18, 0, 0, 0, 0, time.UTC),
			Score:     1.2,
			Backend:   "searxng",
		}, rs[2])
		require.Equal(t, time.Date(2024, 1, 9, 8, 30, 0, 0, time.UTC), rs[3].Published)
		require.True(t, rs[0].Published.IsZero(), "publishedDate null")
		require.Empty(t, rs[0].Text, "SearxNG has no full text")
		require.Equal(t, "Heat pump - Wikipedia", rs[1].Title, "the first of two duplicates is kept")
	})

	tests := map[string]struct {
		q    web.Query
		want []string
	}{
		"limit": {
			q: web.Query{Text: "heat pumps", Limit: 2},
			want: []string{
				"https://www.energy.gov/energysaver/heat-pump-systems",
				"https://en.wikipedia.org/wiki/Heat_pump",
			},
		},
		"exclude domains": {
			q: web.Query{Text: "heat pumps", ExcludeDomains: []string{"wikipedia.org", "example.com", "www.mit.edu"}},
			want: []string{
				"https://www.energy.gov/energysaver/heat-pump-systems",
				"https://www.nrel.gov/docs/fy23osti/cold-climate-heat-pumps.pdf",
			},
		},
		"prefer .edu then .gov, limited": {
			q: web.Query{Text: "heat pumps", PreferDomains: []string{".edu", "gov"}, Limit: 3},
			want: []string{
				"https://www.energy.gov/energysaver/heat-pump-systems",
				"https://www.nrel.gov/docs/fy23osti/cold-climate-heat-pumps.pdf",
				"https://www.mit.edu/heat-pumps",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := searxngServer(t, http.StatusOK, jsonHeader, string(recorded))
			rs, err := s.Search(context.Background(), tc.q)
			require.NoError(t, err)
			require.Equal(t, tc.want, urls(rs))
		})
	}
}

func TestSearxNGFailures(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		status int
		header http.Header
		body   string
		// status of the *web.SearxNGError; 0 expects another error.
		wantStatus int
		wantErr    string
	}{
		"rate limited": {
			status: http.StatusTooManyRequests, header: http.Header{"Retry-After": {"7"}}, body: "Too Many Requests",
			wantStatus: 429, wantErr: "searxng: HTTP 429 Too Many Requests: Too Many Requests",
		},
		"server error": {
			status: http.StatusInternalServerError, body: "<html><body>Internal\n  Server Error</body></html>",
			wantStatus: 500, wantErr: "HTTP 500",
		},
		"json format disabled": {
			status: http.StatusForbidden, body: "Forbidden", wantStatus: 403, wantErr: "search.formats",
		},
		"malformed json": {
			status: http.StatusOK, header: http.Header{"Content-Type": {"application/json"}}, body: `{"results": [{"url": "https://a.example"`,
			wantErr: "reply is not SearxNG JSON",
		},
		"a reply larger than 8 MB": {
			status: http.StatusOK, header: http.Header{"Content-Type": {"application/json"}},
			body:    `{"results":[` + strings.Repeat(`{"url":"https://example.org/a","title":"A","content":"heat pumps"},`, 8<<20/64) + `{"url":"https://example.org/z"}]}`,
			wantErr: "searxng: reply larger than 8 MB",
		},
		"html instead of json": {
			status: http.StatusOK, header: http.Header{"Content-Type": {"text/html"}}, body: "<!doctype html><p>search page</p>",
			wantErr: "reply is not SearxNG JSON (text/html)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, calls := searxngServer(t, tc.status, tc.header, tc.body)
			rs, err := s.Search(context.Background(), web.Query{Text: "heat pumps"})
			require.Error(t, err)
			require.Nil(t, rs)
			require.Equal(t, int32(1), calls.Load(), "no retry here; the caller decides")
			require.ErrorContains(t, err, tc.wantErr)
			var ue *web.UnreachableError
			require.NotErrorAs(t, err, &ue, "the instance answered")
			var se *web.SearxNGError
			if tc.wantStatus == 0 {
				require.NotErrorAs(t, err, &se)
				return
			}
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.wantStatus, se.StatusCode)
			if tc.header.Get("Retry-After") != "" {
				require.Equal(t, tc.header.Get("Retry-After"), se.RetryAfter)
			}
		})
	}
}

func TestSearxNGEdgeCases(t *testing.T) {
	t.Parallel()

	t.Run("empty results", func(t *testing.T) {
		t.Parallel()
		s, _ := searxngServer(t, http.StatusOK, nil, `{"query":"zzz","number_of_results":0,"results":[],"unresponsive_engines":[]}`)
		rs, err := s.Search(context.Background(), web.Query{Text: "zzz"})
		require.NoError(t, err)
		require.Empty(t, rs)
	})

	t.Run("empty query sends no request", func(t *testing.T) {
		t.Parallel()
		s, calls := searxngServer(t, http.StatusOK, nil, `{"results":[]}`)
		rs, err := s.Search(context.Background(), web.Query{Text: "  "})
		require.NoError(t, err)
		require.Empty(t, rs)
		require.Zero(t, calls.Load())
	})

	t.Run("bad base URL", func(t *testing.T) {
		t.Parallel()
		_, err := (&web.SearxNG{BaseURL: "localhost:8888"}).Search(context.Background(), web.Query{Text: "x"})
		require.ErrorContains(t, err, "not an http(s) URL")
	})

	t.Run("cancelled context", func(t *testing.T) {
		t.Parallel()
		s, _ := searxngServer(t, http.StatusOK, nil, `{"results":[]}`)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := s.Search(ctx, web.Query{Text: "x"})
		require.ErrorIs(t, err, context.Canceled)
	})

	t.Run("an instance that refuses connections is unreachable", func(t *testing.T) {
		t.Parallel()
		base := "http://" + closedPort(t)
		_, err := (&web.SearxNG{BaseURL: base}).Search(context.Background(), web.Query{Text: "x"})
		var ue *web.UnreachableError
		require.ErrorAs(t, err, &ue)
		require.Equal(t, "searxng:"+base, ue.Backend)
		require.ErrorIs(t, err, syscall.ECONNREFUSED)
		require.ErrorContains(t, err, "search backend searxng:"+base+" unreachable: dial tcp")
		require.NotContains(t, err.Error(), "GET", "the backend is named once, not the request")
	})

	t.Run("an instance that never replies is unreachable after the timeout", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // accepts the request and never answers
		}))
		defer srv.Close()
		s := &web.SearxNG{BaseURL: srv.URL, Timeout: time.Millisecond}
		_, err := s.Search(context.Background(), web.Query{Text: "x"})
		var ue *web.UnreachableError
		require.ErrorAs(t, err, &ue)
		require.Equal(t, "search backend searxng:"+srv.URL+" unreachable: no reply within 1ms", err.Error())
	})

	t.Run("a cancelled search is not an unreachable backend", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := (&web.SearxNG{BaseURL: "http://" + closedPort(t)}).Search(ctx, web.Query{Text: "x"})
		require.ErrorIs(t, err, context.Canceled)
		var ue *web.UnreachableError
		require.NotErrorAs(t, err, &ue)
	})

	t.Run("control and bidi characters of titles and snippets are removed", func(t *testing.T) {
		t.Parallel()
		s, _ := searxngServer(t, http.StatusOK, nil, `{"results":[{"url":"https://example.org/a","title":"Heat\u001b[2J \u202epumps\u202c","content":"Cold\r\n\u0007climates\u2066."}]}`)
		rs, err := s.Search(context.Background(), web.Query{Text: "heat pumps"})
		require.NoError(t, err)
		require.Len(t, rs, 1)
		require.Equal(t, "Heat[2J pumps", rs[0].Title)
		require.Equal(t, "Cold climates.", rs[0].Snippet)
	})

	t.Run("one page under two URLs is one result", func(t *testing.T) {
		t.Parallel()
		s, _ := searxngServer(t, http.StatusOK, nil, `{"results":[
			{"url":"https://example.org/a","title":"A"},
			{"url":"https://Example.org:443/a#section-2","title":"A again"},
			{"url":"https://example.org/b","title":"B"}]}`)
		rs, err := s.Search(context.Background(), web.Query{Text: "a"})
		require.NoError(t, err)
		require.Len(t, rs, 2)
		require.Equal(t, []string{"https://example.org/a", "https://example.org/b"}, []string{rs[0].URL, rs[1].URL})
		require.Equal(t, "A", rs[0].Title, "the first is kept")
	})

	t.Run("query text is escaped", func(t *testing.T) {
		t.Parallel()
		var got string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = r.URL.Query().Get("q")
			_, _ = w.Write([]byte(`{"results":[]}`))
		}))
		defer srv.Close()
		s := &web.SearxNG{BaseURL: srv.URL, Client: srv.Client()}
		_, err := s.Search(context.Background(), web.Query{Text: `a&b=c #d "e" ü`})
		require.NoError(t, err)
		require.Equal(t, `a&b=c #d "e" ü`, got)
		require.Equal(t, "searxng", s.Name())
	})
}

// closedPort returns a loopback address nothing listens on: a port that
// was just free, whose listener is closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}
