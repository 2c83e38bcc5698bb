package encode

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// marshalled is v as encoding/json writes it, HTML escaped or not.
func marshalled(t testing.TB, v any, escapeHTML bool) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	require.NoError(t, enc.Encode(v))
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestAppendStringIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"empty":                    "",
		"plain ASCII":              "Retrieval is correct (overall 0.918 >= 0.7): use it.",
		"quotes and backslashes":   `say "hi" \ there`,
		"control characters":       "a\tb\nc\rd\be\ff\x00g\x1fh",
		"HTML characters":          "<b>a & b</b>",
		"non-ASCII":                "naïve café, 東京",
		"line and paragraph seps":  "a\u2028b\u2029c",
		"invalid UTF-8":            "a\xffb\xc3",
		"DEL is not escaped":       "a\x7fb",
		"an escape after the text": "abcdef\"",
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, html := range []bool{false, true} {
				assert.Equal(t, marshalled(t, s, html), string(AppendString([]byte("x"), s, html))[1:], "escapeHTML %v", html)
			}
		})
	}
}

func TestAppendFloatIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	tests := map[string]float64{
		"zero":              0,
		"negative zero":     math.Copysign(0, -1),
		"one":               1,
		"a fraction":        0.9183106382978723,
		"float noise":       0.019200000000000002,
		"just below 1e-6":   9.99e-7,
		"1e-6 is decimal":   1e-6,
		"tiny":              1.5e-300,
		"smallest":          math.SmallestNonzeroFloat64,
		"just below 1e21":   999999999999999900000,
		"1e21 is exponent":  1e21,
		"huge":              math.MaxFloat64,
		"negative fraction": -0.25,
		"negative tiny":     -3e-9,
		"a large integer":   1234567890123,
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, marshalled(t, f, false), string(AppendFloat(nil, f)))
		})
	}
}

func TestFinite(t *testing.T) {
	t.Parallel()
	assert.True(t, Finite())
	assert.True(t, Finite(0, -1, math.MaxFloat64))
	assert.False(t, Finite(1, math.NaN()))
	assert.False(t, Finite(math.Inf(-1)))
}

func TestIndentedIsJSONs(t *testing.T) {
	t.Parallel()
	var w Indented
	w.Open('{')
	w.Key("a")
	w.B = AppendFloat(w.B, 1)
	w.Key("empty list")
	w.Open('[')
	w.Close(']')
	w.Key("empty object")
	w.Open('{')
	w.Close('}')
	w.Key("list")
	w.Open('[')
	for _, s := range []string{"x", "y"} {
		w.Elem()
		w.B = AppendString(w.B, s, false)
	}
	w.Elem()
	w.Open('{')
	w.Key("k")
	w.B = append(w.B, "true"...)
	w.Close('}')
	w.Close(']')
	w.Close('}')
	w.End()

	var want bytes.Buffer
	require.NoError(t, JSON(&want, map[string]any{"a": 1, "empty list": []int{}, "empty object": struct{}{},
		"list": []any{"x", "y", map[string]bool{"k": true}}}))
	assert.Equal(t, want.String(), string(w.B))
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\u2028", "\xff", "tab\there", `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			if got, want := string(AppendString(nil, s, html)), marshalled(t, s, html); got != want {
				t.Fatalf("escapeHTML %v: %q: got %s, want %s", html, s, got, want)
			}
		}
	})
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, 1, 0.1, 1e-7, 1e21, -2.5e-300} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if !Finite(x) {
			return
		}
		if got, want := string(AppendFloat(nil, x)), marshalled(t, x, false); got != want {
			t.Fatalf("%v: got %s, want %s", x, got, want)
		}
	})
}
