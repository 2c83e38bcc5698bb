package encode_test

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/encode"
)

// undefined writes JSON null for NaN, as a statistic with nothing to
// measure does.
type undefined float64

func (u undefined) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(u)) {
		return []byte("null"), nil
	}
	return []byte("1.5"), nil
}

func TestYAMLOfJSON(t *testing.T) {
	t.Parallel()
	type inner struct {
		Name string `json:"name"`
	}
	tests := map[string]struct {
		v    any
		want string
	}{
		"json's key names in their order, not yaml's": {
			v: struct {
				Zed     int    `json:"zed_key"`
				Alpha   string `json:"alpha_key"`
				Skipped string `json:"skipped,omitempty"`
			}{Zed: 1, Alpha: "a"},
			want: "zed_key: 1\nalpha_key: a\n",
		},
		"what MarshalJSON writes, null included": {
			v:    map[string]undefined{"mean": undefined(math.NaN()), "std": 0},
			want: "mean: null\nstd: 1.5\n",
		},
		"a duration in nanoseconds and a time as JSON writes it": {
			v: struct {
				D time.Duration `json:"latency_ns"`
				T time.Time     `json:"started"`
			}{D: 1500 * time.Millisecond, T: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)},
			want: "latency_ns: 1500000000\nstarted: \"2026-11-01T09:00:00Z\"\n",
		},
		"strings that read as other things are quoted, the others not": {
			v:    []string{"true", "12", "", "null", "plain text", "a: b", "<b>&"},
			want: "- \"true\"\n- \"12\"\n- \"\"\n- \"null\"\n- plain text\n- 'a: b'\n- <b>&\n",
		},
		"nesting in block style": {
			v:    map[string][]inner{"runs": {{Name: "a"}, {Name: "b"}}, "none": {}},
			want: "none: []\nruns:\n  - name: a\n  - name: b\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			require.NoError(t, encode.YAMLOfJSON(&b, tc.v))
			assert.Equal(t, tc.want, b.String())
		})
	}
}
