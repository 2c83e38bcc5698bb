// Command browse drives headless Chromium for the main module's browser
// tests (its internal/browsertest builds and runs it), so that chromedp
// stays out of the main module's build. Only the loopback answers: every
// other address goes to a proxy that is not there.
//
//	browse -chromium /usr/bin/chromium -width 1280 -height 900 [-url http://127.0.0.1:8080/]
//
// It reads steps from stdin, one JSON object each, runs each as it comes
// and writes one JSON object for it on stdout before it reads the next:
//
//	{"op":"navigate","url":"..."}             -> {}
//	{"op":"wait","sel":"#status"}             -> {}  (until the element is visible)
//	{"op":"click","sel":"..."}                -> {}
//	{"op":"keys","sel":"#token","keys":"..."} -> {}
//	{"op":"key","keys":"p"}                   -> {}  (key events to the page, "\u001b" is Esc)
//	{"op":"poll","script":"..."}              -> {}  (until the script is true, checked on each change of the page)
//	{"op":"submit","sel":"..."}               -> {}
//	{"op":"eval","script":"...","await":true} -> {"value":<the result as JSON>} or {"undefined":true}
//	{"op":"text","sel":"h1"}                  -> {"value":"<innerText>"} ("<missing>" when none)
//	{"op":"screenshot","sel":"..."}           -> {"png":"<base64>"} (no sel: the whole page)
//
// A step that fails answers {"error":"..."} and the session goes on. At
// the end of stdin the browser is stopped and browse exits 0; it exits 1
// when the browser cannot start, 2 on a line that is no step.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chromedp/chromedp"
)

// step is one line of the script.
type step struct {
	Op     string `json:"op"`
	URL    string `json:"url,omitempty"`
	Sel    string `json:"sel,omitempty"`
	Keys   string `json:"keys,omitempty"`
	Script string `json:"script,omitempty"`
	Await  bool   `json:"await,omitempty"`
}

// result is the answer to one step.
type result struct {
	Value     json.RawMessage `json:"value,omitempty"`
	Undefined bool            `json:"undefined,omitempty"`
	PNG       []byte          `json:"png,omitempty"`
	Error     string          `json:"error,omitempty"`
}

func main() {
	bin := flag.String("chromium", "chromium", "the Chromium or Chrome binary")
	width := flag.Int("width", 1280, "the window's width")
	height := flag.Int("height", 900, "the window's height")
	start := flag.String("url", "", "a page to open before the first step")
	limit := flag.Duration("timeout", 2*time.Minute, "a bound on the whole session (a stuck browser), not a timing check")
	flag.Parse()
	os.Exit(run(*bin, *width, *height, *start, *limit, os.Stdin, os.Stdout))
}

func run(bin string, width, height int, start string, limit time.Duration, in io.Reader, out io.Writer) int {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.WindowSize(width, height),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "127.0.0.1"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelLimit := context.WithTimeout(ctx, limit)
	defer cancelLimit()
	// The browser starts with the first action: start it now, so that a
	// missing or broken one is said once, before any step.
	if err := chromedp.Do(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "browse: start", bin+":", err)
		return 1
	}
	if start != "" {
		if err := chromedp.Do(ctx, chromedp.Navigate(start)); err != nil {
			fmt.Fprintln(os.Stderr, "browse: open", start+":", err)
			return 1
		}
	}
	dec := json.NewDecoder(bufio.NewReader(in))
	enc := json.NewEncoder(out)
	for {
		var s step
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "browse: read a step:", err)
			return 2
		}
		r := do(ctx, s)
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, "browse: write a result:", err)
			return 1
		}
	}
}

// do runs one step.
func do(ctx context.Context, s step) result {
	var err error
	var r result
	switch s.Op {
	case "navigate":
		err = chromedp.Do(ctx, chromedp.Navigate(s.URL))
	case "wait":
		err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(s.Sel)))
	case "click":
		err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(s.Sel)))
	case "keys":
		err = chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(s.Sel), s.Keys))
	case "submit":
		err = chromedp.Do(ctx, chromedp.Submit(chromedp.CSS(s.Sel)))
	case "key":
		err = chromedp.Do(ctx, chromedp.KeyEvent(s.Keys))
	case "poll":
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](s.Script, chromedp.WithPollingMutation()))
	case "eval":
		r, err = evaluate(ctx, s.Script, s.Await)
	case "text":
		sel, _ := json.Marshal(s.Sel) // a string always encodes
		r, err = evaluate(ctx, `(e => e ? e.innerText : "<missing>")(document.querySelector(`+string(sel)+`))`, false)
	case "screenshot":
		if s.Sel == "" {
			r.PNG, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
		} else {
			r.PNG, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(s.Sel)))
		}
	default:
		err = fmt.Errorf("unknown op %q (navigate, wait, click, keys, submit, key, poll, eval, text, screenshot)", s.Op)
	}
	if err != nil {
		return result{Error: err.Error()}
	}
	return r
}

// evaluate runs script on the page: its result as JSON, or undefined.
func evaluate(ctx context.Context, script string, await bool) (result, error) {
	var opts []chromedp.EvaluateOption
	if await {
		opts = append(opts, chromedp.EvalAwaitPromise)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](script, opts...))
	if err != nil {
		return result{}, err
	}
	if v == nil {
		return result{Undefined: true}, nil
	}
	return result{Value: v}, nil
}
