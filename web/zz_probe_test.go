package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestProbeFetch(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	_, _ = zw.Write([]byte("<html><body><p>"))
	zeros := bytes.Repeat([]byte("a"), 1<<20)
	for range 200 {
		_, _ = zw.Write(zeros)
	}
	_ = zw.Close()
	t.Logf("bomb %d bytes", bomb.Len())
	page := "<html><body><article><p>" + strings.Repeat("The glacier lost forty metres of ice in a single summer. ", 12) + "</p></article></body></html>"
	mux := http.NewServeMux()
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb.Bytes())
	})
	mux.HandleFunc("/short-cl", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("/long-cl", func(w http.ResponseWriter, r *http.Request) {
		hj, _ := w.(http.Hijacker)
		c, buf, _ := hj.Hijack()
		defer c.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n" + page)
		buf.Flush()
	})
	mux.HandleFunc("/neg-cl", func(w http.ResponseWriter, r *http.Request) {
		hj, _ := w.(http.Hijacker)
		c, buf, _ := hj.Hijack()
		defer c.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: -5\r\n\r\n" + page)
		buf.Flush()
	})
	mux.HandleFunc("/drip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for {
			if _, err := w.Write([]byte("<p>x</p>")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("/bidi-redirect", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://evil\u202e.example.com/x")
		w.WriteHeader(302)
	})
	mux.HandleFunc("/charset-lie", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-2022-jp")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("/charset-utf32", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-32")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("/ct-weird", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "TEXT/HTML; Charset=\"UTF-8\"")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("/no-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><head><title>x</title></head>" + strings.Repeat("The glacier lost forty metres. ", 30)))
	})
	mux.HandleFunc("/204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	mux.HandleFunc("/frameset", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><frameset><frame src=/a></frameset></html>"))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	for _, p := range []string{"/bomb", "/short-cl", "/long-cl", "/neg-cl", "/drip", "/bidi-redirect", "/charset-lie", "/charset-utf32", "/ct-weird", "/no-body", "/204", "/frameset"} {
		var read atomic.Int64
		f := testFetcher(ts, Guard{}, &read)
		f.Timeout = 2 * time.Second
		start := time.Now()
		doc, err := f.Fetch(context.Background(), "http://news.example.com"+p)
		t.Logf("%-15s %v read=%d err=%v text=%q", p, time.Since(start).Round(time.Millisecond), read.Load(), err, doc.Text[:min(60, len(doc.Text))])
		f.CloseIdleConnections()
	}
}
