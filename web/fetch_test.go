package web

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// Fake addresses the test resolver hands out. publicIP is a documentation
// address the Guard allows; the test dialer routes it (and privateIP) to the
// httptest listener, so the happy path runs under the strict guard while
// nothing leaves the machine.
var (
	publicIP   = netip.MustParseAddr("203.0.113.10")
	privateIP  = netip.MustParseAddr("10.0.0.5")
	metadataIP = netip.MustParseAddr("169.254.169.254")
)

var testHosts = map[string][]netip.Addr{
	"news.example.com":     {publicIP},
	"internal.example.com": {privateIP},
	"metadata.example.com": {metadataIP},
	"rebind.example.com":   {netip.MustParseAddr("127.0.0.1")},
	"mapped.example.com":   {netip.MustParseAddr("::ffff:169.254.169.254")},
	"dual.example.com":     {metadataIP, publicIP},
}

// countingConn counts the bytes the client reads off the wire.
type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// testFetcher returns a Fetcher whose names resolve through testHosts and
// whose connections to the fake addresses land on ts; read counts the bytes
// it receives.
func testFetcher(ts *httptest.Server, guard Guard, read *atomic.Int64) *Fetcher {
	listener := ts.Listener.Addr().String()
	return &Fetcher{
		Guard: guard,
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if addrs, ok := testHosts[host]; ok {
				return addrs, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return nil, err
			}
			if ap.Addr() != publicIP && ap.Addr() != privateIP {
				return nil, fmt.Errorf("test dialer: unexpected address %s", addr)
			}
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, listener)
			if err != nil {
				return nil, err
			}
			return countingConn{Conn: conn, read: read}, nil
		},
	}
}

// bigBody serves 50 MB and counts what it managed to write before the
// client hung up.
type bigBody struct {
	declareLength bool
	written       atomic.Int64
	done          chan struct{}
}

const fiftyMB = 50 << 20

func (b *bigBody) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer close(b.done)
	w.Header().Set("Content-Type", "text/plain")
	if b.declareLength {
		w.Header().Set("Content-Length", strconv.Itoa(fiftyMB))
	}
	chunk := []byte(strings.Repeat("all work and no play makes jack a dull boy\n", 744)) // ~32 KB
	for b.written.Load() < fiftyMB && r.Context().Err() == nil {
		n, err := w.Write(chunk[:min(len(chunk), fiftyMB-int(b.written.Load()))])
		b.written.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// wait blocks until the handler has returned, so its count is final.
func (b *bigBody) wait(t *testing.T) {
	t.Helper()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-b.done:
	case <-timer.C:
		t.Fatal("50 MB handler still writing 10s after the fetch gave up")
	}
}

// utf16Bytes encodes s as UTF-16, little- or big-endian, with or without
// a byte order mark.
func utf16Bytes(s string, bigEndian, bom bool) string {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	var b strings.Builder
	for _, u := range units {
		hi, lo := byte(u>>8), byte(u)
		if bigEndian {
			b.WriteByte(hi)
			b.WriteByte(lo)
		} else {
			b.WriteByte(lo)
			b.WriteByte(hi)
		}
	}
	return b.String()
}

func redirect(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to, http.StatusFound)
	}
}

func TestFetch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	streamed := &bigBody{done: make(chan struct{})}
	declared := &bigBody{declareLength: true, done: make(chan struct{})}
	pngBytes := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"

	mux := http.NewServeMux()
	serve := func(contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", contentType)
			_, _ = w.Write([]byte(body))
		}
	}
	mux.HandleFunc("/article", serve("text/html; charset=utf-8", articleHTML))
	mux.HandleFunc("/moved", redirect("/article"))
	mux.HandleFunc("/hops/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			serve("text/html", articleHTML)(w, r)
			return
		}
		http.Redirect(w, r, "/hops/"+strconv.Itoa(n-1), http.StatusFound)
	})
	mux.HandleFunc("/404", http.NotFound)
	mux.HandleFunc("/500", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		timer := time.NewTimer(30 * time.Second)
		defer timer.Stop()
		select {
		case <-r.Context().Done():
		case <-timer.C:
			serve("text/plain", "too late")(w, r)
		}
	})
	mux.Handle("/huge", streamed)
	mux.Handle("/huge-declared", declared)
	mux.HandleFunc("/png-as-html", serve("text/html", pngBytes))
	mux.HandleFunc("/nul-tail", serve("text/html", "<html><body><p>"+strings.Repeat("text ", 200)+"</p>"+strings.Repeat("\x00\x01", 500)))
	mux.HandleFunc("/image", serve("image/png", pngBytes))
	mux.HandleFunc("/pdf", serve("application/pdf", "%PDF-1.7\n"))
	mux.HandleFunc("/latin1", serve("text/html", "<html><body><p>Caf\xe9 au lait. "+strings.Repeat("Coffee is grown in the tropics. ", 20)+"</p></body></html>"))
	mux.HandleFunc("/app-shell", serve("text/html", `<html><head><title>Loading</title></head><body><div id="app"></div><script>boot()</script></body></html>`))
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = nil // suppress the server's own sniffing
		_, _ = w.Write([]byte(articleHTML))
	})
	mux.HandleFunc("/markdown", serve("text/markdown", "# Notes\n\nTides follow the moon.\n"))
	glacierPage := "<html><head><title>Glacier retreat</title></head><body><article><p>" +
		strings.Repeat("The glacier lost forty metres of ice in a single summer. ", 12) + "</p></article></body></html>"
	mux.HandleFunc("/utf16-bom", serve("text/html", utf16Bytes(glacierPage, false, true)))
	mux.HandleFunc("/utf16-be-untyped", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = nil
		_, _ = w.Write([]byte(utf16Bytes(glacierPage, true, true)))
	})
	mux.HandleFunc("/ucs2", serve("text/plain; charset=ucs-2", utf16Bytes("Glaciers in the Alps shrank by a tenth in two years.", false, false)))
	noise := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	mux.HandleFunc("/noise-as-utf16", serve("text/html; charset=utf-16", string(noise)))
	mux.HandleFunc("/png-as-utf16", serve("text/plain; charset=UTF-16BE", strings.Repeat(pngBytes, 40)))
	mux.HandleFunc("/broken-params", serve("text/html; charset", articleHTML))
	mux.HandleFunc("/broken-params-pdf", serve("application/pdf;;", "%PDF-1.7\n"))
	mux.HandleFunc("/loop", redirect("/loop"))
	mux.HandleFunc("/to-ftp", redirect("ftp://news.example.com/file.txt"))
	mux.HandleFunc("/to-metadata", redirect("http://169.254.169.254/latest/meta-data/"))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	_, port, err := net.SplitHostPort(ts.Listener.Addr().String())
	require.NoError(t, err)
	mux.HandleFunc("/to-loopback", redirect("http://127.0.0.1:"+port+"/article"))

	articleAsserts := func(t *testing.T, doc Document) {
		assert.Equal(t, "Reef survey finds coral recovery", doc.Title)
		assert.Equal(t, "Dana Reyes", doc.Author)
		assert.Equal(t, time.Date(2024, 3, 15, 9, 30, 0, 0, time.UTC), doc.Published.UTC())
		assert.Contains(t, doc.Text, "hard coral cover rose to 36 percent")
		assert.Regexp(t, `\[Acropora\]\(http://[a-z.]+example\.com/acropora\)`, doc.Text, "links made absolute")
		assert.NotContains(t, doc.Text, "Privacy")
		assert.Equal(t, "text/html", doc.ContentType)
		assert.Equal(t, len(articleHTML), doc.Bytes)
	}

	tests := map[string]struct {
		url        string // relative URLs are on http://news.example.com
		guard      Guard
		realDialer bool // no Resolve/Dial injection: the default dialer and Control
		timeout    time.Duration
		ctx        func(t *testing.T) context.Context
		wantReason string
		maxRead    int64 // bound on the bytes received, when set
		check      func(t *testing.T, doc Document)
	}{
		"200 html article": {url: "/article", check: func(t *testing.T, doc Document) {
			articleAsserts(t, doc)
			assert.Equal(t, "http://news.example.com/article", doc.FinalURL)
		}},
		"redirect followed and final URL kept": {url: "/moved", check: func(t *testing.T, doc Document) {
			assert.Equal(t, "http://news.example.com/moved", doc.URL)
			assert.Equal(t, "http://news.example.com/article", doc.FinalURL)
		}},
		"five redirects are allowed": {url: "/hops/5", check: articleAsserts},
		"six redirects are not":      {url: "/hops/6", wantReason: "more than 5 redirects"},
		"redirect loop":              {url: "/loop", wantReason: "redirect loop at http://news.example.com/loop"},
		"redirect to ftp":            {url: "/to-ftp", wantReason: `redirect to unsupported scheme "ftp"`},
		"404":                        {url: "/404", wantReason: "status 404"},
		"500":                        {url: "/500", wantReason: "status 500"},
		"timeout":                    {url: "/slow", timeout: 200 * time.Millisecond, wantReason: "timed out after 200ms"},
		"caller cancels": {url: "/slow", wantReason: "canceled", ctx: func(*testing.T) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
		"caller's deadline": {url: "/slow", wantReason: "caller's deadline exceeded", ctx: func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}},
		"50 MB streamed body":       {url: "/huge", wantReason: "larger than 5 MB", maxRead: DefaultMaxBytes + 256<<10},
		"50 MB declared body":       {url: "/huge-declared", wantReason: "larger than 5 MB", maxRead: 256 << 10},
		"png bytes labelled html":   {url: "/png-as-html", wantReason: "binary body (sniffed image/png)"},
		"binary after a text start": {url: "/nul-tail", wantReason: "binary body (NUL bytes)"},
		"image content type":        {url: "/image", wantReason: "content type image/png"},
		"pdf content type":          {url: "/pdf", wantReason: "content type application/pdf"},
		"invalid utf-8 repaired": {url: "/latin1", check: func(t *testing.T, doc Document) {
			assert.Contains(t, doc.Text, "Caf\uFFFD au lait")
			assert.Equal(t, []string{"invalid UTF-8 repaired"}, doc.Notes)
		}},
		"no main content": {url: "/app-shell", wantReason: "no main content"},
		"a content type with broken parameters keeps its media type": {url: "/broken-params", check: articleAsserts},
		"broken parameters do not make another type acceptable":      {url: "/broken-params-pdf", wantReason: "content type application/pdf"},
		"no content type is sniffed":                                 {url: "/untyped", check: articleAsserts},
		"utf-16 with a byte order mark": {url: "/utf16-bom", check: func(t *testing.T, doc Document) {
			assert.Equal(t, "Glacier retreat", doc.Title)
			assert.Contains(t, doc.Text, "The glacier lost forty metres of ice in a single summer.")
			assert.Equal(t, []string{"decoded from utf-16le"}, doc.Notes)
		}},
		"utf-16 big-endian without content type is sniffed once decoded": {url: "/utf16-be-untyped", check: func(t *testing.T, doc Document) {
			assert.Equal(t, "text/html", doc.ContentType)
			assert.Equal(t, "Glacier retreat", doc.Title)
			assert.NotContains(t, doc.Text, "<p>")
		}},
		"ucs-2 is a label of utf-16": {url: "/ucs2", check: func(t *testing.T, doc Document) {
			assert.Equal(t, "Glaciers in the Alps shrank by a tenth in two years.", doc.Text)
		}},
		"random bytes declared utf-16": {url: "/noise-as-utf16", wantReason: "binary body (not text as utf-16le)"},
		"png bytes declared utf-16":    {url: "/png-as-utf16", wantReason: "binary body (sniffed application/octet-stream)"},
		"markdown passes through": {url: "/markdown", check: func(t *testing.T, doc Document) {
			assert.Equal(t, "Notes", doc.Title)
			assert.Equal(t, "# Notes\n\nTides follow the moon.", doc.Text)
			assert.Equal(t, "text/markdown", doc.ContentType)
		}},
		"ftp URL":                     {url: "ftp://news.example.com/file.txt", wantReason: `unsupported scheme "ftp"`},
		"file URL":                    {url: "file:///etc/passwd", wantReason: `unsupported scheme "file"`},
		"no host":                     {url: "http:///article", wantReason: "invalid URL: no host"},
		"unknown host":                {url: "http://nowhere.example.com/", wantReason: "request failed"},
		"redirect to loopback":        {url: "/to-loopback", wantReason: "blocked address 127.0.0.1: loopback"},
		"redirect to metadata":        {url: "/to-metadata", guard: Guard{AllowPrivate: true}, wantReason: "blocked address 169.254.169.254: cloud metadata"},
		"name resolving to loopback":  {url: "http://rebind.example.com/", wantReason: "blocked address 127.0.0.1: loopback"},
		"name resolving to metadata":  {url: "http://metadata.example.com/latest/meta-data/", guard: Guard{AllowPrivate: true}, wantReason: "blocked address 169.254.169.254: cloud metadata"},
		"mapped metadata address":     {url: "http://mapped.example.com/", guard: Guard{AllowPrivate: true}, wantReason: "blocked address ::ffff:169.254.169.254: cloud metadata"},
		"metadata IP literal":         {url: "http://169.254.169.254/latest/meta-data/", guard: Guard{AllowPrivate: true}, wantReason: "blocked address 169.254.169.254: cloud metadata"},
		"private name, strict guard":  {url: "http://internal.example.com/article", wantReason: "blocked address 10.0.0.5: private"},
		"private name, allow private": {url: "http://internal.example.com/article", guard: Guard{AllowPrivate: true}, check: articleAsserts},
		"blocked address skipped":     {url: "http://dual.example.com/article", check: articleAsserts},
		"real dialer, strict guard":   {url: ts.URL + "/article", realDialer: true, wantReason: "blocked address 127.0.0.1: loopback"},
		"real dialer, allow private": {url: ts.URL + "/article", realDialer: true, guard: Guard{AllowPrivate: true}, check: func(t *testing.T, doc Document) {
			assert.Equal(t, "Dana Reyes", doc.Author)
		}},
	}

	t.Run("faults", func(t *testing.T) {
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var read atomic.Int64
				f := testFetcher(ts, tc.guard, &read)
				if tc.realDialer {
					f = &Fetcher{Guard: tc.guard}
				}
				f.Timeout = tc.timeout
				defer f.CloseIdleConnections()
				ctx := context.Background()
				if tc.ctx != nil {
					ctx = tc.ctx(t)
				}
				url := tc.url
				if strings.HasPrefix(url, "/") {
					url = "http://news.example.com" + url
				}

				doc, err := f.Fetch(ctx, url)
				if tc.wantReason == "" {
					require.NoError(t, err)
					assert.Equal(t, url, doc.URL)
					tc.check(t, doc)
					return
				}
				var fe *FetchError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tc.wantReason, fe.Reason)
				assert.Equal(t, url, fe.URL)
				assert.Equal(t, Document{}, doc)
				if tc.maxRead > 0 {
					t.Logf("received %d bytes", read.Load())
					assert.LessOrEqual(t, read.Load(), tc.maxRead, "read past the limit")
				}
			})
		}
	})

	// The 50 MB handlers stop once the fetcher hangs up (what they wrote
	// includes what the kernel buffered, so the bound is loose).
	streamed.wait(t)
	declared.wait(t)
	t.Logf("50 MB bodies: server wrote %d bytes streamed, %d declared", streamed.written.Load(), declared.written.Load())
	assert.Less(t, streamed.written.Load(), int64(fiftyMB/2))
	assert.Less(t, declared.written.Load(), int64(fiftyMB/2))
}

func TestFetchErrorUnwraps(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	f := &Fetcher{}
	defer f.CloseIdleConnections()

	_, err := f.Fetch(context.Background(), ts.URL)
	var blocked *BlockedError
	require.ErrorAs(t, err, &blocked, "the cause of a blocked fetch is the guard's error")
	assert.Equal(t, reasonLoopback, blocked.Reason)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = f.Fetch(ctx, "http://example.invalid/")
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}

func TestFetcherUsesCallerClient(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ts := httptest.NewServer(redirect("/loop"))
	defer ts.Close()
	client := ts.Client()
	f := &Fetcher{Client: client}
	defer f.CloseIdleConnections()

	_, err := f.Fetch(context.Background(), ts.URL+"/loop")
	var fe *FetchError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "redirect loop at "+ts.URL+"/loop", fe.Reason, "our redirect policy applies to a caller's client")
	assert.Nil(t, client.CheckRedirect, "the caller's client is not modified")
}

// TestFetchErrorShowsHiddenCharacters: a redirect to a host name holding
// a bidirectional override, whose lookup fails, is reported with the
// override written as an escape, since the reason is printed.
func TestFetchErrorShowsHiddenCharacters(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ts := httptest.NewServer(redirect("http://ev\u202eil.example/x"))
	defer ts.Close()
	f := &Fetcher{
		Guard: Guard{AllowPrivate: true},
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == "127.0.0.1" {
				return []netip.Addr{netip.MustParseAddr(host)}, nil
			}
			return nil, fmt.Errorf("no such host %s", host)
		},
	}
	defer f.CloseIdleConnections()

	_, err := f.Fetch(context.Background(), ts.URL)
	var fe *FetchError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, `request failed: dial ev\u202eil.example:80: resolve: no such host ev\u202eil.example`, fe.Detail())
	assert.Equal(t, "fetch "+ts.URL+": "+fe.Detail(), fe.Error())
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{5 << 20: "5 MB", 64 << 10: "64 KB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		assert.Equal(t, want, formatSize(n))
	}
}

func ExampleFetcher_Fetch() {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/notes.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Notes\n\nTides follow the moon.")
		default:
			w.Header().Set("Content-Type", "image/png")
		}
	}))
	defer ts.Close()

	// The test server listens on loopback, which the default Guard refuses.
	f := &Fetcher{Guard: Guard{AllowPrivate: true}}
	defer f.CloseIdleConnections()
	doc, err := f.Fetch(context.Background(), ts.URL+"/notes.md")
	fmt.Println(doc.Title, err)

	_, err = f.Fetch(context.Background(), ts.URL+"/logo.png")
	var fe *FetchError
	if errors.As(err, &fe) {
		fmt.Println("dropped:", fe.Reason)
	}
	_, err = (&Fetcher{}).Fetch(context.Background(), ts.URL+"/notes.md")
	if errors.As(err, &fe) {
		fmt.Println("dropped:", fe.Reason)
	}
	// Output:
	// Notes <nil>
	// dropped: content type image/png
	// dropped: blocked address 127.0.0.1: loopback
}
