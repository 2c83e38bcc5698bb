package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/internal/sqlitedb"
)

// serveProcess is `assay serve` started as a process of the test binary.
type serveProcess struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan error
}

// startServe starts `assay serve` on a free loopback port with args and
// env, and returns once it listens.
func startServe(t *testing.T, env []string, args ...string) *serveProcess {
	t.Helper()
	p := &serveProcess{done: make(chan error, 1)}
	p.cmd = exec.CommandContext(t.Context(), os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	p.cmd.Env = append(os.Environ(), append([]string{mainEnv + "=1"}, env...)...)
	pipe, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "assay serve: listening on "); ok {
				url, _, _ := strings.Cut(rest, " ")
				listening <- url
			}
		}
		p.done <- p.cmd.Wait()
	}()
	select {
	case p.url = <-listening:
	case err := <-p.done:
		t.Fatalf("assay serve exited: %v\n%s", err, p.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("assay serve did not listen within a minute\n%s", p.log())
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

func (p *serveProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// stop sends SIGTERM and waits for the exit.
func (p *serveProcess) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.done:
		require.NoError(t, err, p.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("assay serve did not stop within a minute of SIGTERM\n%s", p.log())
	}
}

// postTrace posts one trace; sampled reports a 202 that journaled it.
func postTrace(ctx context.Context, url, id string) (code int, sampled bool, err error) {
	body := fmt.Sprintf(`{"traces": [{"trace_id": %q, "sample": {"question": "When was the Eiffel Tower completed?", "answer": "It was completed in 1889.", "contexts": ["The Eiffel Tower was completed in 1889."], "metadata": {"shard": %q}}}]}`, id, id[len(id)-1:])
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/traces", strings.NewReader(body))
	if err != nil {
		return 0, false, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		return resp.StatusCode, false, err
	}
	var r struct {
		Sampled int `json:"sampled"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return resp.StatusCode, false, err
	}
	return resp.StatusCode, r.Sampled == 1, nil
}

// TestServeSIGTERMKeepsEveryAcceptedTrace posts traces to `assay serve`
// while it judges them against a slow model, sends SIGTERM in the middle
// of the load, starts it again, and finds every trace answered 202 and
// sampled judged exactly once in the store.
func TestServeSIGTERMKeepsEveryAcceptedTrace(t *testing.T) {
	t.Parallel()
	model := llmtest.New(t, llmtest.Quiet(), llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(20*time.Millisecond))
	data := t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + model.URL(), "OPENAI_API_KEY=test", "ASSAY_DATA_DIR=" + data, "ASSAY_CACHE_DIR=" + t.TempDir()}
	args := []string{"--sample-rate", "0.5", "--queue", "40", "--workers", "2", "--concurrency", "2", "--trace-metric", "faithfulness",
		"--no-cache", "--shutdown-timeout", "30s"} // queued traces stay in the journal however long the requests in flight are given
	first := startServe(t, env, args...)

	var mu sync.Mutex
	accepted := map[string]bool{}
	shed := 0
	loadCtx, stopLoad := context.WithCancel(t.Context())
	defer stopLoad()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; loadCtx.Err() == nil; i++ {
				id := fmt.Sprintf("w%d-trace-%d", w, i)
				code, sampled, err := postTrace(loadCtx, first.url, id)
				if err != nil {
					return // the server stopped listening
				}
				mu.Lock()
				if sampled {
					accepted[id] = true
				}
				if code == http.StatusTooManyRequests {
					shed++
				}
				mu.Unlock()
			}
		})
	}
	// SIGTERM in the middle of the load, once enough are accepted.
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		n := len(accepted)
		mu.Unlock()
		if n >= 60 {
			break
		}
		require.True(t, time.Now().Before(deadline), "only %d traces accepted in a minute\n%s", n, first.log())
		time.Sleep(5 * time.Millisecond)
	}
	first.stop(t)
	stopLoad()
	wg.Wait()
	t.Logf("first server: %d accepted, %d shed; %s", len(accepted), shed, strings.TrimSpace(first.log()))

	second := startServe(t, env, args...)
	for id := range accepted {
		for {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, second.url+"/v1/traces/"+id, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			var tr struct {
				Judged bool `json:"judged"`
			}
			err = json.NewDecoder(resp.Body).Decode(&tr)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, "trace %s was answered 202 and is not in the journal", id)
			require.NoError(t, err)
			if tr.Judged {
				break
			}
			require.True(t, time.Now().Before(deadline.Add(60*time.Second)), "trace %s not judged after the restart\n%s", id, second.log())
			time.Sleep(5 * time.Millisecond)
		}
	}
	second.stop(t)

	db, err := sqlitedb.Open(filepath.Join(data, "serve", "serve.db"))
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	rows, err := db.QueryContext(t.Context(), `SELECT trace_id, COUNT(*), SUM(outcome = 'scored') FROM trace_scores GROUP BY trace_id`)
	require.NoError(t, err)
	judged := map[string]int{}
	for rows.Next() {
		var id string
		var n, scored int
		require.NoError(t, rows.Scan(&id, &n, &scored))
		judged[id] = n
		assert.Equal(t, 1, scored, "trace %s: judged by the model, not defaulted", id)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	for id := range accepted {
		assert.Equal(t, 1, judged[id], "trace %s judged once", id)
	}
	var pending int
	require.NoError(t, db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM trace_samples WHERE done = 0`).Scan(&pending))
	assert.Zero(t, pending, "every journaled trace judged")
}

func TestServeLiveFlagsAreChecked(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"an unknown baseline":     {[]string{"--baseline", "nope"}, `--baseline nope: not a run folder`},
		"latest":                  {[]string{"--baseline", "latest"}, "--baseline: latest means the last run of a dataset"},
		"a webhook not http":      {[]string{"--webhook", "ftp://hooks.example.com"}, "--webhook: want an http or https URL"},
		"a negative window":       {[]string{"--alert-window", "-1"}, "--alert-window: want a number >= 0"},
		"a negative stall":        {[]string{"--stall-after", "-1s"}, "--stall-after: want a duration >= 0"},
		"a queue past memory":     {[]string{"--queue", "1000000000"}, "--queue: want at most 1048576 sampled traces waiting, got 1000000000"},
		"workers past any use":    {[]string{"--workers", "100000000"}, "--workers: want at most 4096 traces judged at once, got 100000000"},
		"a queue of nothing":      {[]string{"--queue", "many"}, `--queue: want the number of sampled traces that may wait (1024), or a NATS URL (nats://HOST:4222), got "many"`},
		"a queue not NATS":        {[]string{"--queue", "http://127.0.0.1:4222"}, `--queue: want a NATS URL such as nats://HOST:4222`},
		"a queue of no port":      {[]string{"--queue", "nats://127.0.0.1:99999"}, `--queue: "nats://127.0.0.1:99999": want a port from 1 to 65535`},
		"a host that is a URL":    {[]string{"--allow-host", "https://assay.internal/"}, `--allow-host: want a host name as a browser's address bar has it`},
		"a negative read time":    {[]string{"--read-timeout", "-1s"}, "--read-timeout: want a duration >= 0 (0: 10s)"},
		"no profiles folder":      {[]string{"--profiles", "/nonexistent-assay-folder"}, "--profiles: want a folder of profile files (.yaml)"},
		"a port below 0":          {[]string{"--addr", "127.0.0.1:-1"}, `--addr: want HOST:PORT with a port from 0 to 65535 (127.0.0.1:8080), got "127.0.0.1:-1"`},
		"a port past 65535":       {[]string{"--addr", "127.0.0.1:99999"}, `--addr: want HOST:PORT with a port from 0 to 65535 (127.0.0.1:8080), got "127.0.0.1:99999"`},
		"a huge port":             {[]string{"--addr", "127.0.0.1:99999999999999999999"}, `--addr: want HOST:PORT with a port from 0 to 65535`},
		"a data folder a file":    {[]string{"--data-dir", "serve_test.go"}, "--data-dir: serve_test.go: not a folder, or a file stands in its path: give a folder"},
		"a data folder in a file": {[]string{"--data-dir", "serve_test.go/data"}, "--data-dir: serve_test.go/data: not a folder, or a file stands in its path: give a folder"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := t.TempDir()
			env := func(k string) string { return map[string]string{"ASSAY_DATA_DIR": data}[k] }
			var out, errb bytes.Buffer
			code := run(t.Context(), append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...), env, strings.NewReader(""), &out, &errb)
			assert.Equal(t, 2, code, errb.String())
			assert.Contains(t, errb.String(), tc.want)
		})
	}
}

// TestServeProfilesAreChecked: a bad profile in --profiles stops the
// server before it listens, exit 2, naming the file, the line and the
// field.
func TestServeProfilesAreChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "weekly.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: weekly\nkind: report\nscorers:\n  - metric: grounding\n    max: 5\n    colour: red\n"), 0o644))
	data := t.TempDir()
	env := func(k string) string { return map[string]string{"ASSAY_DATA_DIR": data}[k] }
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--profiles", dir}, env, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 2, code, errb.String())
	assert.Contains(t, errb.String(), bad+":6")
	assert.Contains(t, errb.String(), "colour")
	assert.NotContains(t, errb.String(), "listening")
}

// TestServeQueueUnreachable: a --queue no NATS server answers is an
// infrastructure failure (exit 3) that names it.
func TestServeQueueUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	data := t.TempDir()
	env := func(k string) string { return map[string]string{"ASSAY_DATA_DIR": data}[k] }
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--queue", "nats://" + addr}, env, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 3, code, errb.String())
	assert.Contains(t, errb.String(), "--queue: queue: connecting to nats://"+addr)
}
