package progress

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		cfg  Config
		want string
	}{
		"plain: the ended stages, a line each": {
			want: "[0] search new=2\n[0] score total=8\n",
		},
		"live: every line redrawn in place, then cleared": {
			cfg:  Config{Live: true},
			want: "\r\033[K[0] search...\r\033[K[0] search new=2\r\033[K[0] score...\r\033[K[0] score total=8\r\033[K",
		},
		"quiet: nothing":           {cfg: Config{Quiet: true}},
		"quiet wins over live too": {cfg: Config{Quiet: true, Live: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			s := NewStatus(&b, tc.cfg)
			s.Begin("[0] search...")
			s.End("[0] search new=2")
			s.Begin("[0] score...")
			s.End("[0] score total=8")
			s.Close()
			assert.Equal(t, tc.want, b.String())
		})
	}
}

// TestStatusConcurrent checks lines shown from several goroutines are
// whole (run with -race).
func TestStatusConcurrent(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	s := NewStatus(&b, Config{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				s.End("[0] fetch fetched=1")
			}
		})
	}
	wg.Wait()
	assert.Equal(t, strings.Repeat("[0] fetch fetched=1\n", 400), b.String())
}
