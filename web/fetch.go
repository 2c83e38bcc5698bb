package web

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/assaylabs/assay/internal/termtext"
)

// Defaults for the zero fields of a Fetcher.
const (
	DefaultTimeout   = 15 * time.Second
	DefaultMaxBytes  = 5 << 20
	DefaultUserAgent = "Assay/1 (research agent; +https://github.com/assaylabs/assay)"
	// maxRedirects is how many redirects one fetch follows.
	maxRedirects = 5
)

// Fetcher downloads pages for the research workflow (stage 2) and extracts
// their main content (stage 3, see Extract). Every connection, including each
// redirect hop, goes through Guard; the environment's HTTP proxy settings are
// ignored, since a proxy would connect on our behalf where the Guard cannot
// see.
//
// The zero value is ready to use. A Fetcher is safe for concurrent use; do
// not copy or change its fields after the first Fetch.
type Fetcher struct {
	// Client sends the requests. Nil means one built on first use with a
	// transport that dials through DialContext, that is through Guard. A
	// caller's Client is used as is (copied, with our redirect policy), so
	// the Guard applies only if its transport dials with f.DialContext.
	Client *http.Client
	// Guard decides which addresses may be connected to. The zero value
	// blocks loopback, private and metadata addresses.
	Guard Guard
	// Timeout bounds one fetch, redirects and body included. Zero means
	// DefaultTimeout (15s).
	Timeout time.Duration
	// MaxBytes is the largest body accepted. Zero means DefaultMaxBytes
	// (5 MB).
	MaxBytes int64
	// UserAgent is sent with every request. Empty means DefaultUserAgent.
	UserAgent string
	// Resolve looks up a host name. Nil means net.DefaultResolver.
	// Tests map names to addresses with it.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an "ip:port" the Guard has already allowed. Nil
	// means a net.Dialer whose Control runs the Guard again at connect
	// time. Tests route addresses to an httptest listener with it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	once   sync.Once
	client *http.Client
}

// FetchError says why a URL yielded no Document. Reason is short and meant
// for a run's record of dropped sources ("status 404", "content type
// image/png", "larger than 5 MB", "blocked address 127.0.0.1: loopback");
// Err is the underlying error, when there is one.
type FetchError struct {
	URL    string
	Reason string
	Err    error
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("fetch %s: %s", e.URL, e.Detail())
}

// Detail is the error without the URL: the reason, and the cause when it
// adds to the reason ("blocked address 127.0.0.1: loopback", "request
// failed: dial tcp ...: connection refused"). What a server sent (a
// redirect's host name) can be part of it, so its control and
// bidirectional formatting characters are written as escapes
// (termtext.Visible): it is printed.
func (e *FetchError) Detail() string {
	if e.Err == nil || e.Err.Error() == e.Reason {
		return termtext.Visible(e.Reason)
	}
	return termtext.Visible(fmt.Sprintf("%s: %v", e.Reason, e.Err))
}

func (e *FetchError) Unwrap() error { return e.Err }

var _ error = (*FetchError)(nil)

// allowedTypes are the media types Fetch accepts.
var allowedTypes = map[string]bool{
	"text/html":             true,
	"application/xhtml+xml": true,
	"text/plain":            true,
	"text/markdown":         true,
}

// Fetch downloads rawURL and returns its main content as a Document. Only
// http and https are fetched; at most 5 redirects are followed, each to
// http or https only; the status must be 2xx, the media type one of
// text/html, application/xhtml+xml, text/plain and text/markdown (its
// parameters ignored when they do not parse), the body
// at most MaxBytes and not binary (a UTF-16 body is judged on its decoded
// text). Invalid UTF-8 is repaired, not refused (see Extract and
// Document.Notes). Every failure is a *FetchError.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Document, error) {
	fail := func(reason string, err error) (Document, error) {
		return Document{}, &FetchError{URL: rawURL, Reason: reason, Err: err}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return fail("invalid URL", err)
	}
	if !httpScheme(u.Scheme) {
		return fail("unsupported scheme "+strconv.Quote(u.Scheme), nil)
	}
	if u.Hostname() == "" {
		return fail("invalid URL: no host", nil)
	}

	timeout := cmp.Or(f.Timeout, DefaultTimeout)
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail("invalid URL", err)
	}
	req.Header.Set("User-Agent", cmp.Or(f.UserAgent, DefaultUserAgent))
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8")

	resp, err := f.httpClient().Do(req)
	if err != nil {
		reason, cause := classify(ctx, reqCtx, timeout, err)
		return fail(reason, cause)
	}
	defer func() { _ = resp.Body.Close() }() // a body read as far as wanted; its close says nothing of the page

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fail("status "+strconv.Itoa(resp.StatusCode), nil)
	}
	header := resp.Header.Get("Content-Type")
	media := ""
	if header != "" {
		media, _, err = mime.ParseMediaType(header)
		if errors.Is(err, mime.ErrInvalidMediaParameter) {
			// "text/html; charset" or "text/html;;": the type is
			// clear, as browsers take it; the charset is then found
			// in the page or guessed.
			header, err = media, nil
		}
		if err != nil {
			return fail("content type "+strconv.Quote(header), err)
		}
		if !allowedTypes[media] {
			return fail("content type "+media, nil)
		}
	}

	limit := cmp.Or(f.MaxBytes, DefaultMaxBytes)
	tooLarge := "larger than " + formatSize(limit)
	if resp.ContentLength > limit {
		return fail(tooLarge, nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		reason, cause := classify(ctx, reqCtx, timeout, err)
		return fail("reading body: "+reason, cause)
	}
	if int64(len(body)) > limit {
		return fail(tooLarge, nil)
	}

	sniffed, binary := sniff(body, header)
	switch {
	case binary != "":
		return fail(binary, nil)
	case media == "":
		// No Content-Type header: go by the sniffed type.
		if !allowedTypes[sniffed] {
			return fail("content type "+sniffed+" (sniffed)", nil)
		}
		media, header = sniffed, sniffed
	}

	final := resp.Request.URL.String()
	doc, err := Extract(final, header, body)
	if err != nil {
		if errors.Is(err, ErrNoContent) {
			return fail(ErrNoContent.Error(), nil)
		}
		return fail("extraction failed", err)
	}
	doc.URL, doc.FinalURL = rawURL, final
	doc.ContentType, doc.Bytes = media, len(body)
	return doc, nil
}

// sniff returns the media type a body's bytes suggest and, when they are
// not text, the reason to refuse them: a sniffed type other than text/*,
// or text at the start and binary after it (more than 1% NUL bytes). A
// UTF-16 body (a byte order mark, or a charset naming UTF-16 by any of its
// labels: utf-16, utf-16le, ucs-2, unicode...) is judged on its text as
// Extract decodes it, since half the bytes of its ASCII are NULs; and its
// text must read as text, since any even run of bytes decodes as UTF-16.
func sniff(body []byte, contentType string) (sniffed, binary string) {
	text := body
	_, enc, _ := charset.DetermineEncoding(body, contentType)
	utf16 := enc == "utf-16le" || enc == "utf-16be"
	if utf16 {
		decoded, _ := decodeCharset(body, contentType, false)
		text = []byte(decoded)
	}
	sniffed, _, _ = mime.ParseMediaType(http.DetectContentType(text))
	switch {
	case !strings.HasPrefix(sniffed, "text/"):
		return sniffed, "binary body (sniffed " + sniffed + ")"
	case bytes.Count(text, []byte{0}) > len(text)/100:
		return sniffed, "binary body (NUL bytes)"
	case utf16 && !readable(text):
		return sniffed, "binary body (not text as " + enc + ")"
	}
	return sniffed, ""
}

// readable reports whether decoded text reads as text: at most 1% of its
// characters are U+FFFD or neither graphic, white space nor format
// characters (controls, unassigned and private-use code points), which is
// what bytes that are no text become when decoded.
func readable(text []byte) bool {
	n, bad := 0, 0
	for _, r := range string(text) {
		n++
		if r == utf8.RuneError || !unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) {
			bad++
		}
	}
	return bad <= n/100
}

// CloseIdleConnections closes the kept-alive connections of the Fetcher's
// client. Call it when done fetching, or in tests before checking for
// leaked goroutines.
func (f *Fetcher) CloseIdleConnections() {
	f.httpClient().CloseIdleConnections()
}

// DialContext connects to addr ("host:port") for an HTTP transport: it
// resolves the host (Resolve), drops every address the Guard blocks, and
// dials the first allowed one that answers (Dial). When every address is
// blocked the error is the first *BlockedError. The address dialled is the
// address checked, so a DNS answer that changes between check and connect
// changes nothing.
func (f *Fetcher) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("dial %s: port: %w", addr, err)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = f.resolve(ctx, host); err != nil {
		return nil, fmt.Errorf("dial %s: resolve: %w", addr, err)
	}

	var blocked, dialErr error
	for _, ip := range ips {
		if err := f.Guard.Check(ip); err != nil {
			blocked = cmp.Or(blocked, err)
			continue
		}
		conn, err := f.dial(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		dialErr = err
	}
	switch {
	case dialErr != nil:
		return nil, dialErr
	case blocked != nil:
		return nil, blocked
	}
	return nil, fmt.Errorf("dial %s: no addresses for %s", addr, host)
}

func (f *Fetcher) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if f.Resolve != nil {
		return f.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if f.Dial != nil {
		return f.Dial(ctx, network, addr)
	}
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: f.Guard.Control}
	return d.DialContext(ctx, network, addr)
}

func (f *Fetcher) httpClient() *http.Client {
	f.once.Do(func() {
		if f.Client != nil {
			c := *f.Client
			c.CheckRedirect = checkRedirect
			f.client = &c
			return
		}
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil
		t.DialContext = f.DialContext
		f.client = &http.Client{Transport: t, CheckRedirect: checkRedirect}
	})
	return f.client
}

// redirectError is a redirect refused by checkRedirect.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }

// checkRedirect follows at most maxRedirects redirects, to http or https
// only, and stops at the first URL seen twice. The Guard still checks the
// address of every hop when it is dialled.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if !httpScheme(req.URL.Scheme) {
		return &redirectError{"redirect to unsupported scheme " + strconv.Quote(req.URL.Scheme)}
	}
	next := req.URL.String()
	for _, prev := range via {
		if prev.URL.String() == next {
			return &redirectError{"redirect loop at " + next}
		}
	}
	if len(via) > maxRedirects {
		return &redirectError{fmt.Sprintf("more than %d redirects", maxRedirects)}
	}
	return nil
}

// classify turns a transport error into a FetchError reason and cause.
// parent is the caller's context, reqCtx the one carrying our timeout.
func classify(parent, reqCtx context.Context, timeout time.Duration, err error) (string, error) {
	var redirect *redirectError
	var blocked *BlockedError
	switch {
	case errors.As(err, &redirect):
		return redirect.reason, nil
	case errors.As(err, &blocked):
		return blocked.Error(), blocked
	case errors.Is(parent.Err(), context.DeadlineExceeded):
		return "caller's deadline exceeded", parent.Err()
	case parent.Err() != nil:
		return "canceled", parent.Err()
	case errors.Is(reqCtx.Err(), context.DeadlineExceeded):
		return "timed out after " + timeout.String(), reqCtx.Err()
	}
	// The request's method and URL are the FetchError's already.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "request failed", err
}

func httpScheme(s string) bool {
	return strings.EqualFold(s, "http") || strings.EqualFold(s, "https")
}

// formatSize writes n bytes as "5 MB", "64 KB" or "100 bytes".
func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
