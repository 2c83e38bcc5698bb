package llmtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// driveBody is the chat request Drive sends: small, so that the client's
// own work per call is as little as net/http allows, and asking for the
// per-source grade, so that JudgeReplies (fakellm) answers it.
const driveBody = `{"model":"m","messages":[{"role":"user","content":"Grade this source."}],` +
	`"response_format":{"type":"json_schema","json_schema":{"name":"grade","strict":true,"schema":{"type":"object"}}}}`

// Drive sends calls chat completion requests to baseURL (ending in /v1),
// conc at a time, with client and no other work: no prompt, no JSON, no
// judge. It is the floor that the fan-out of a judge run is measured
// against: what a run takes beyond Drive's time is Assay's own cost, and
// what Drive takes beyond calls x latency / conc is the machine's and the
// server's. It returns how many calls failed (an error or a status other
// than 200) and the first failure.
func Drive(ctx context.Context, client *http.Client, baseURL string, calls, conc int) (failed int, err error) {
	url := strings.TrimSuffix(baseURL, "/") + "/chat/completions"
	var (
		nfail atomic.Int64
		once  sync.Once
		first error
	)
	fail := func(e error) {
		nfail.Add(1)
		once.Do(func() { first = e })
	}
	work := make(chan struct{})
	var wg sync.WaitGroup
	for range max(conc, 1) {
		wg.Go(func() {
			for range work {
				if e := call(ctx, client, url); e != nil {
					fail(e)
				}
			}
		})
	}
	for range calls {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	return int(nfail.Load()), first
}

// call makes one request and reads its reply to the end, so the
// connection goes back to the pool.
func call(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(driveBody))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below; nothing is left to lose
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
