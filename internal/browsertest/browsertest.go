// Package browsertest starts headless Chromium for the tests that look
// at a page as a person does (report.html, the dashboard), with every
// address but the loopback unreachable.
package browsertest

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path finds a Chromium or Chrome binary on PATH, "" when none.
func Path() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Open starts headless Chromium in a window of width x height and
// returns the context its actions run in; the browser is stopped when t
// ends. Only the loopback answers: a page that needs the network shows
// up as missing content. With no Chromium on PATH, t is skipped, saying
// what it would have checked (what) and how to install one.
func Open(t testing.TB, what string, width, height int) context.Context {
	t.Helper()
	bin := Path()
	if bin == "" {
		t.Skipf("no chromium, chromium-browser or google-chrome on PATH: install Debian's chromium package (apt-get install chromium) to check %s in a browser", what)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.WindowSize(width, height),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "127.0.0.1"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	// A bound on a stuck browser, not a timing check.
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	return ctx
}

// Text is the innerText of the first element sel selects on the page,
// "<missing>" when there is none.
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	b, err := json.Marshal(sel)
	if err != nil {
		t.Fatal(err)
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(e => e ? e.innerText : "<missing>")(document.querySelector(`+string(b)+`))`))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return s
}
