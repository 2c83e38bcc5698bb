package serve

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSetGC: the service collects at GCPercent unless GOGC says otherwise.
// Not parallel: it sets the environment and the process's collector.
func TestSetGC(t *testing.T) {
	tests := map[string]struct {
		gogc string
		want int
	}{
		"GOGC unset (empty): GCPercent": {gogc: "", want: GCPercent},
		"GOGC set: the runtime's":       {gogc: "150", want: 77},
		"GOGC=off: the runtime's":       {gogc: "off", want: 77},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			old := debug.SetGCPercent(77) // as if the runtime had read 77
			defer debug.SetGCPercent(old)
			SetGC()
			assert.Equal(t, tc.want, debug.SetGCPercent(77))
		})
	}
}
