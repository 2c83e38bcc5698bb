package judging

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/llm"
)

// TestReportWritesTheLimit: the usage line says what the adaptive limit
// did when it moved or the server held calls back, and nothing when it
// stayed where it started.
func TestReportWritesTheLimit(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		limit *llm.LimitReport
		want  string
	}{
		"no model": {want: "neutral defaults 0\n"},
		"unmoved": {
			limit: &llm.LimitReport{Adaptive: true, Ceiling: 8, Initial: 8, Low: 8, High: 8, Final: 8},
			want:  "neutral defaults 0\n",
		},
		"fixed": {
			limit: &llm.LimitReport{Ceiling: 8, Initial: 8, Low: 8, High: 8, Final: 8},
			want:  "neutral defaults 0\n",
		},
		"grown": {
			limit: &llm.LimitReport{Adaptive: true, Ceiling: 32, Initial: 16, Low: 16, High: 32, Final: 32},
			want:  "neutral defaults 0; in flight: limit 16 at first, 16 to 32, 32 at the end (of --concurrency 32)\n",
		},
		"halved and held": {
			limit: &llm.LimitReport{Adaptive: true, Ceiling: 64, Initial: 32, Low: 6, High: 64, Final: 64, Decreases: 4, Holds: 3, Held: 1234567 * time.Microsecond},
			want: "neutral defaults 0; in flight: limit 32 at first, 6 to 64, 64 at the end (of --concurrency 64), halved 4 time(s) on 429s or timeouts, " +
				"held back 3 time(s) (1.235s) by the server's Retry-After or rate-limit headers\n",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			Report{Judge: "llm:openai:m", Limit: tt.limit}.Write(&b)
			assert.Contains(t, b.String(), tt.want)
		})
	}
}
