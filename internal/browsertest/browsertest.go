// Package browsertest starts headless Chromium for the tests that look
// at a page as a person does (report.html, the dashboard), with every
// address but the loopback unreachable.
//
// The browser is driven by tools/harness/browse, a program of the
// harness module, so that the main module builds without chromedp: the
// first Open of a test binary builds it (go -C tools/harness build), and
// each Open runs it, handing it steps and reading their results as JSON.
package browsertest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"
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

// Browser is one headless Chromium with one page. Its methods may be
// called from one test and its subtests, one at a time.
type Browser struct {
	mu     sync.Mutex
	enc    *json.Encoder
	dec    *json.Decoder
	stderr *lockedBuffer
}

// lockedBuffer is what the program says on stderr, written as it runs
// and read when a step fails.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Open starts headless Chromium in a window of width x height; the
// browser is stopped when t ends. Only the loopback answers: a page that
// needs the network shows up as missing content. With no Chromium on
// PATH, t is skipped, saying what it would have checked (what) and how
// to install one.
func Open(t testing.TB, what string, width, height int) *Browser {
	t.Helper()
	bin := Path()
	if bin == "" {
		t.Skipf("no chromium, chromium-browser or google-chrome on PATH: install Debian's chromium package (apt-get install chromium) to check %s in a browser", what)
	}
	prog, err := built()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	// Not t.Context(), cancelled before the cleanup below: the program is
	// stopped by the end of its steps, and killed only when it does not stop.
	ctx, kill := context.WithCancel(context.Background())
	t.Cleanup(kill)
	cmd := exec.CommandContext(ctx, prog, "-chromium", bin, "-width", fmt.Sprint(width), "-height", fmt.Sprint(height))
	b := &Browser{stderr: &lockedBuffer{}}
	cmd.Stderr = b.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("browsertest: start %s: %v", prog, err)
	}
	b.enc, b.dec = json.NewEncoder(in), json.NewDecoder(out)
	t.Cleanup(func() {
		// The end of its steps stops the browser and the program; a
		// program that does not stop is killed (a bound, not a timing check).
		_ = in.Close()
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			kill()
			<-done
		}
	})
	return b
}

// Action is one step of the page: Navigate, WaitVisible, Click,
// SendKeys, Submit, Key or WaitTrue.
type Action struct {
	Op     string `json:"op"`
	URL    string `json:"url,omitempty"`
	Sel    string `json:"sel,omitempty"`
	Keys   string `json:"keys,omitempty"`
	Script string `json:"script,omitempty"`
}

// Escape is the Esc key, for Key.
const Escape = "\u001b"

// Navigate opens url.
func Navigate(url string) Action { return Action{Op: "navigate", URL: url} }

// WaitVisible waits until the element sel selects (CSS) is visible.
func WaitVisible(sel string) Action { return Action{Op: "wait", Sel: sel} }

// Click clicks the element sel selects.
func Click(sel string) Action { return Action{Op: "click", Sel: sel} }

// SendKeys types keys into the element sel selects.
func SendKeys(sel, keys string) Action { return Action{Op: "keys", Sel: sel, Keys: keys} }

// Submit submits the form of the element sel selects.
func Submit(sel string) Action { return Action{Op: "submit", Sel: sel} }

// Key sends keys to the page as key events (to the element that has the
// focus), as a person types them; Escape is Esc.
func Key(keys string) Action { return Action{Op: "key", Keys: keys} }

// WaitTrue waits until script is true, checking it each time the page
// changes.
func WaitTrue(script string) Action { return Action{Op: "poll", Script: script} }

// Do runs the actions in order, stopping at the first that fails.
func (b *Browser) Do(actions ...Action) error {
	for _, a := range actions {
		if _, err := b.call(a); err != nil {
			return fmt.Errorf("%s %s: %w", a.Op, cmp.Or(a.Sel, a.URL, a.Script, a.Keys), err)
		}
	}
	return nil
}

// Evaluate runs script on the page and decodes its result into a T.
// A result that is null or undefined is an error unless a T can be nil.
func Evaluate[T any](b *Browser, script string) (T, error) {
	return evaluate[T](b, script, false)
}

// EvaluateAwait is Evaluate of a script whose result is a promise: the
// value it resolves to.
func EvaluateAwait[T any](b *Browser, script string) (T, error) {
	return evaluate[T](b, script, true)
}

func evaluate[T any](b *Browser, script string, await bool) (T, error) {
	var v T
	r, err := b.call(step{Op: "eval", Script: script, Await: await})
	if err != nil {
		return v, err
	}
	if r.Undefined || bytes.Equal(bytes.TrimSpace(r.Value), []byte("null")) {
		switch reflect.TypeFor[T]().Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			return v, nil
		}
		if r.Undefined {
			return v, errors.New("the script's result is undefined")
		}
		return v, errors.New("the script's result is null")
	}
	if err := json.Unmarshal(r.Value, &v); err != nil {
		return v, fmt.Errorf("the script's result %s: %w", r.Value, err)
	}
	return v, nil
}

// Text is the innerText of the first element sel selects on the page,
// "<missing>" when there is none.
func (b *Browser) Text(t testing.TB, sel string) string {
	t.Helper()
	r, err := b.call(step{Op: "text", Sel: sel})
	var s string
	if err == nil {
		err = json.Unmarshal(r.Value, &s)
	}
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return s
}

// Screenshot is a PNG of the element sel selects, or of the whole page
// when sel is "".
func (b *Browser) Screenshot(sel string) ([]byte, error) {
	r, err := b.call(step{Op: "screenshot", Sel: sel})
	return r.PNG, err
}

// step and result are the browse program's lines (tools/harness/browse).
type step struct {
	Op     string `json:"op"`
	Sel    string `json:"sel,omitempty"`
	Script string `json:"script,omitempty"`
	Await  bool   `json:"await,omitempty"`
}

type result struct {
	Value     json.RawMessage `json:"value"`
	Undefined bool            `json:"undefined"`
	PNG       []byte          `json:"png"`
	Error     string          `json:"error"`
}

// call sends one step (a step or an Action) and reads its result.
func (b *Browser) call(s any) (result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var r result
	if err := b.enc.Encode(s); err != nil {
		return r, fmt.Errorf("the browser has stopped: %w; it said: %s", err, b.stderr)
	}
	if err := b.dec.Decode(&r); err != nil {
		return r, fmt.Errorf("the browser has stopped: %w; it said: %s", err, b.stderr)
	}
	if r.Error != "" {
		return r, errors.New(r.Error)
	}
	return r, nil
}

// built is the browse program, built once per test binary.
var built = sync.OnceValues(build)

// build builds tools/harness/browse beside the test binary (in the
// folder go test makes for it and removes after it), or in a folder of
// its own when that one cannot be written to.
func build() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	out := exe + ".browse"
	if f, err := os.Create(out); err == nil {
		_ = f.Close()
	} else {
		dir, err := os.MkdirTemp("", "assay-browse-")
		if err != nil {
			return "", err
		}
		out = filepath.Join(dir, "browse")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go on PATH to build tools/harness/browse: %w", err)
	}
	cmd := exec.CommandContext(context.Background(), goBin, "-C", filepath.Join(root, "tools", "harness"), "build", "-o", out, "./browse")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build tools/harness/browse: %w\n%s", err, msg)
	}
	return out, nil
}

// moduleRoot is the main module's folder: the nearest one above the
// test's working folder (its package's) that holds tools/harness.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "harness", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no tools/harness/go.mod above the test's folder")
		}
		dir = parent
	}
}
