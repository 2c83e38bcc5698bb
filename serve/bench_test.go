package serve

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkContextScore is POST /v1/context-score through the server's
// whole handler (auth, bounds, metrics, decoding, scoring, encoding), no
// network: the hot path's own cost.
func BenchmarkContextScore(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("..", "fixtures", "context", "good.json"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	s, err := New(Config{DataDir: dir, Store: filepath.Join(dir, "runs.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	h := s.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(b.Context(), http.MethodPost, "http://127.0.0.1/v1/context-score", strings.NewReader(string(body))))
		if rec.Code != http.StatusOK {
			b.Fatalf("%d: %s", rec.Code, rec.Body)
		}
	}
}
