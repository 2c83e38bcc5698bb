package encode

import (
	"math"
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
		"an exponent has a decimal point (YAML 1.1 reads 8e-05 as a string)": {
			v:    map[string]any{"cost_usd": 0.00008, "big": 1e21, "tiny": 1e-7, "neg": -2.5e-07, "plain": 0.5},
			want: "big: 1.0e+21\ncost_usd: 0.00008\nneg: -2.5e-7\nplain: 0.5\ntiny: 1.0e-7\n",
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

func TestYAMLFloats(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		v    any
		want string
	}{
		"a small float":            {v: struct{ X float64 }{0.00008}, want: "x: 8.0e-05\n"},
		"a large float":            {v: []float64{1e21, 1.5e300}, want: "- 1.0e+21\n- 1.5e+300\n"},
		"a plain float, untouched": {v: map[string]float64{"p": 0.25}, want: "p: 0.25\n"},
		"a string like a float":    {v: map[string]string{"s": "8e-05"}, want: "s: \"8e-05\"\n"},
		"infinity and NaN":         {v: []float64{math.Inf(1), math.NaN()}, want: "- .inf\n- .nan\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			require.NoError(t, YAML(&b, tc.v))
			assert.Equal(t, tc.want, b.String())
		})
	}
}

func TestObject(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		keys   []string
		values []any
		want   string
	}{
		"none":                    {want: `{}`},
		"keys keep their order":   {keys: []string{"z", "a", "m"}, values: []any{1, 2.5, "x"}, want: `{"z":1,"a":2.5,"m":"x"}`},
		"keys and values escaped": {keys: []string{`say "hi"`}, values: []any{[]string{"a\nb"}}, want: `{"say \"hi\"":["a\nb"]}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Object(len(tc.keys), func(i int) (string, any) { return tc.keys[i], tc.values[i] })
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
	_, err := Object(1, func(int) (string, any) { return "nan", math.NaN() })
	require.Error(t, err, "a value JSON cannot hold")
}
