// Command fixedreply is the floor under scripts/load-context-node.sh: a
// net/http server on the loopback that reads each request's body and
// answers a fixed JSON reply the size of /v1/context-score's, doing no
// other work. What it costs a request, and its latency at a given rate,
// is what Go's HTTP server and this machine's kernel take before any
// decoding or scoring (scripts/load-floor.sh sets it beside Node's
// equivalent).
//
//	fixedreply -addr 127.0.0.1:18193
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18193", "the loopback address to listen on")
	size := flag.Int("size", 416, "the reply's size in bytes")
	flag.Parse()
	if err := run(*addr, *size); err != nil {
		fmt.Fprintln(os.Stderr, "fixedreply:", err)
		os.Exit(1)
	}
}

func run(addr string, size int) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %s: loopback only", addr)
	}
	if size < 2 || size > 1<<20 {
		return fmt.Errorf("-size %d: want 2 to 1048576 bytes", size)
	}
	// A JSON string padded to size bytes: {"pad":"xxx..."}.
	reply := []byte(`{"pad":"` + strings.Repeat("x", max(0, size-10)) + `"}`)
	length := strconv.Itoa(len(reply))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(reply)
	})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}
