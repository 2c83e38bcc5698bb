// Command loadserve drives `assay serve` on the loopback at a fixed
// request rate for a bounded time and prints the latency percentiles and
// the errors (scripts/load-serve.sh runs it; BENCHMARKS.md has its
// figures).
//
//	loadserve -url http://127.0.0.1:8080 -mode context -rate 1000 -duration 10s -body fixtures/context/good.json
//	loadserve -url http://127.0.0.1:8080 -mode traces -rate 1000 -duration 10s -sample-rate 0.1
//
// At a rate, the load is vegeta's (github.com/tsenart/vegeta): requests
// start on a fixed schedule (an open loop: a slow answer does not delay
// the next request, vegeta adds workers instead). With -rate 0 (a closed
// loop, for the most requests a second a server takes) it is fasthttp's
// client, whose cost a request is a fraction of vegeta's, so that the
// server runs out of CPU before the generator does. The percentiles are
// exact, taken from every request's latency. In traces mode each request carries one trace with a new id;
// afterwards it waits for the server to judge every trace it answered 202
// and sampled, and prints how many were lost (accepted, never judged),
// shed (429) and judged.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"github.com/valyala/fasthttp"
)

func main() {
	target := flag.String("url", "http://127.0.0.1:8080", "the server, on the loopback")
	mode := flag.String("mode", "context", "context (POST /v1/context-score) or traces (POST /v1/traces)")
	rate := flag.Int("rate", 1000, "requests per second; 0 sends as fast as -workers connections are answered (a closed loop, for the most requests per second a server takes)")
	workers := flag.Int("workers", 8, "with -rate 0: the connections sending at once")
	path := flag.String("path", "", "context mode: the path to POST to (default /v1/context-score)")
	duration := flag.Duration("duration", 10*time.Second, "how long to send (at most 2 minutes)")
	body := flag.String("body", "fixtures/context/good.json", "context mode: the request body")
	sampleRate := flag.Float64("sample-rate", 0.1, "traces mode: the server's --sample-rate, to report the expected share")
	wait := flag.Duration("wait", 2*time.Minute, "traces mode: how long to wait for the judgements after the load")
	flag.Parse()
	if err := run(*target, *mode, *path, *rate, *workers, *duration, *body, *sampleRate, *wait); err != nil {
		fmt.Fprintln(os.Stderr, "loadserve:", err)
		os.Exit(1)
	}
}

func run(target, mode, ctxPath string, rate, workers int, duration time.Duration, bodyFile string, sampleRate float64, wait time.Duration) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	if !isLoopback(u.Hostname()) {
		return fmt.Errorf("-url %s: loopback only", target)
	}
	if rate < 0 || (rate == 0 && (mode != "context" || workers < 1)) || duration <= 0 || duration > 2*time.Minute {
		return errors.New("-rate must be >= 1 (or 0 in context mode, with -workers >= 1) and -duration within (0, 2m]")
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute}}
	var makeBody func(i int) []byte
	path := "/v1/context-score"
	run := fmt.Sprintf("load-%d", time.Now().UnixNano())
	switch mode {
	case "context":
		b, err := os.ReadFile(bodyFile)
		if err != nil {
			return err
		}
		makeBody = func(int) []byte { return b }
		if ctxPath != "" {
			path = ctxPath
		}
	case "traces":
		path = "/v1/traces"
		makeBody = func(i int) []byte {
			b, _ := json.Marshal(map[string]any{"traces": []any{map[string]any{"trace_id": fmt.Sprintf("%s-%d", run, i), "sample": map[string]any{
				"question": "When was the Eiffel Tower completed?",
				"answer":   fmt.Sprintf("The Eiffel Tower was completed in 1889. Trace %d.", i),
				"contexts": []string{"The Eiffel Tower in Paris was completed in 1889."},
				"metadata": map[string]any{"load": run, "shard": i % 4},
			}}}})
			return b
		}
	default:
		return fmt.Errorf("-mode %q: want context or traces", mode)
	}
	var lat []time.Duration
	var status map[int]int
	var accepted int
	start := time.Now()
	if rate == 0 {
		b := makeBody(0)
		lat, status = closedLoop(u.Host, path, b, workers, duration)
	} else {
		lat, status, accepted = openLoop(target, path, run, makeBody, rate, duration)
	}
	took := time.Since(start)
	n := len(lat)
	if n == 0 {
		return errors.New("no request was sent")
	}
	slices.Sort(lat)
	pct := func(d []time.Duration, p float64) time.Duration {
		return round(d[min(len(d)-1, int(p*float64(len(d))))])
	}
	offered := fmt.Sprintf("%d/s", rate)
	if rate == 0 {
		offered = fmt.Sprintf("a closed loop of %d", workers)
	}
	fmt.Printf("%s: %d requests in %.1fs (%.0f/s offered at %s); latency p50 %s p90 %s p99 %s max %s; status %v; load average %s\n",
		path, n, took.Seconds(), float64(n)/took.Seconds(), offered, pct(lat, 0.50), pct(lat, 0.90), pct(lat, 0.99), round(lat[len(lat)-1]), status, loadavg())
	if mode != "traces" {
		if status[http.StatusOK] != n {
			return fmt.Errorf("%d of %d requests were not answered 200", n-status[http.StatusOK], n)
		}
		return nil
	}
	fmt.Printf("traces: %d sampled and accepted (%.1f%%, rate %g), %d shed (429), %d other errors\n",
		accepted, 100*float64(accepted)/float64(n), sampleRate, status[http.StatusTooManyRequests], n-status[http.StatusAccepted]-status[http.StatusTooManyRequests])
	judged, err := waitJudged(client, target, run, accepted, wait)
	if err != nil {
		return err
	}
	fmt.Printf("traces: %d judged, %d lost (accepted, not judged), %.1fs after the load\n", judged, accepted-judged, time.Since(start.Add(took)).Seconds())
	if judged != accepted {
		return fmt.Errorf("%d accepted traces not judged", accepted-judged)
	}
	return nil
}

// openLoop sends requests at rate a second for duration, on vegeta's
// schedule (a slow answer does not delay the next request: vegeta adds
// workers instead), and returns every request's latency, the count of
// each status (-1: no answer), and the 202s whose trace was sampled.
func openLoop(target, path, run string, makeBody func(int) []byte, rate int, duration time.Duration) ([]time.Duration, map[int]int, int) {
	var next atomic.Int64
	targeter := func(t *vegeta.Target) error {
		i := int(next.Add(1) - 1)
		t.Method, t.URL, t.Body = http.MethodPost, target+path, makeBody(i)
		t.Header = http.Header{"Content-Type": {"application/json"}}
		return nil
	}
	atk := vegeta.NewAttacker(vegeta.Timeout(30*time.Second), vegeta.KeepAlive(true), vegeta.Connections(1024))
	var lat []time.Duration
	status := map[int]int{}
	accepted := 0
	for res := range atk.Attack(targeter, vegeta.Rate{Freq: rate, Per: time.Second}, duration, run) {
		lat = append(lat, res.Latency)
		code := int(res.Code)
		if res.Error != "" && code == 0 {
			code = -1
		}
		status[code]++
		if code == http.StatusAccepted && sampledBody(res.Body) {
			accepted++
		}
	}
	return lat, status, accepted
}

// closedLoop POSTs body to path on host from workers connections, each
// sending its next request when its last is answered, for duration, and
// returns every request's latency and the count of each status (-1: no
// answer). The client is fasthttp's, not net/http's: a request costs it
// a fraction of what it costs vegeta (net/http's client), so that the
// server's core, not the generator's, is what runs out first, and the
// requests a second are the server's most.
func closedLoop(host, path string, body []byte, workers int, duration time.Duration) ([]time.Duration, map[int]int) {
	c := &fasthttp.HostClient{Addr: host, MaxConns: workers, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	lats := make([][]time.Duration, workers)
	codes := make([]map[int]int, workers)
	end := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI("http://" + host + path)
			req.Header.SetMethod(http.MethodPost)
			req.Header.SetContentType("application/json")
			req.SetBodyRaw(body)
			codes[w] = map[int]int{}
			for {
				t0 := time.Now()
				if t0.After(end) {
					return
				}
				code := -1
				if err := c.Do(req, resp); err == nil {
					code = resp.StatusCode()
				}
				lats[w] = append(lats[w], time.Since(t0))
				codes[w][code]++
			}
		})
	}
	wg.Wait()
	var lat []time.Duration
	status := map[int]int{}
	for w := range workers {
		lat = append(lat, lats[w]...)
		for code, n := range codes[w] {
			status[code] += n
		}
	}
	return lat, status
}

// sampledBody reports whether a 202's body says its trace was sampled.
func sampledBody(b []byte) bool {
	var r struct {
		Sampled int `json:"sampled"`
	}
	return json.Unmarshal(b, &r) == nil && r.Sampled == 1
}

// waitJudged polls the summary of this load's traces (grouped by its
// "load" metadata) until want are judged or wait passes.
func waitJudged(c *http.Client, target, run string, want int, wait time.Duration) (int, error) {
	deadline := time.Now().Add(wait)
	for {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, target+"/v1/traces/summary?by=load", nil)
		if err != nil {
			return 0, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		var sum struct {
			Groups []struct {
				Metric string  `json:"metric"`
				Group  *string `json:"group"`
				N      int     `json:"n"`
			} `json:"groups"`
		}
		err = json.NewDecoder(resp.Body).Decode(&sum)
		_ = resp.Body.Close()
		if err != nil {
			return 0, err
		}
		per := map[string]int{}
		for _, g := range sum.Groups {
			if g.Group != nil && *g.Group == run {
				per[g.Metric] += g.N
			}
		}
		judged := -1
		for _, n := range per {
			if judged < 0 || n < judged {
				judged = n // a trace is judged when its every metric is
			}
		}
		judged = max(judged, 0)
		if judged >= want || time.Now().After(deadline) {
			return judged, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// loadavg is the machine's 1-minute load average, which says how much
// else competed for its cores.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := bytes.Fields(b)
	if len(f) == 0 {
		return "unknown"
	}
	return string(f[0])
}

func round(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

// isLoopback reports whether host names the loopback interface. The main
// module's internal/loopback is out of this module's reach (an internal
// package of another module), so the tool keeps its own three lines.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
