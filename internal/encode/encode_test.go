package encode

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONKeepsAngleBrackets(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, JSON(&b, map[string]any{"q": "a < b & c"}))
	assert.Equal(t, "{\n  \"q\": \"a < b & c\"\n}\n", b.String())
}

func TestYAMLOfJSON(t *testing.T) {
	t.Parallel()
	type inner struct {
		Total time.Duration `json:"total_ns"`
	}
	tests := map[string]struct {
		v    any
		want string
	}{
		"a large integer stays whole": {
			v: struct {
				Q inner `json:"qos"`
			}{inner{Total: 1_234_567_890_123}},
			want: "qos:\n  total_ns: 1234567890123\n",
		},
		"a fraction stays a fraction": {
			v:    map[string]any{"cost_usd": 0.0037, "calls": 17},
			want: "calls: 17\ncost_usd: 0.0037\n",
		},
		"numbers in a list": {
			v:    map[string]any{"stages": []any{1, 2.5}},
			want: "stages:\n  - 1\n  - 2.5\n",
		},
		"the JSON keys, not the Go names": {
			v: struct {
				Name string `json:"name,omitempty"`
			}{Name: "x"},
			want: "name: x\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			require.NoError(t, YAMLOfJSON(&b, tc.v))
			assert.Equal(t, tc.want, b.String())
		})
	}
}
