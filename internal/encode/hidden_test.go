package encode

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestYAMLEscapesHidden checks that a string holding a control or
// bidirectional formatting character is written with each as an escape,
// in double quotes, and reads back as it was; a multi-line string without
// one keeps its style, and JSON escapes the same way.
func TestYAMLEscapesHidden(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, yaml, json string
	}{
		"a bidi override":         {in: "a\u202eb", yaml: "id: \"a\\u202Eb\"\n", json: `{"id":"a\u202Eb"}`},
		"an isolate and a mark":   {in: "\u2066x\u200f", yaml: "id: \"\\u2066x\\u200F\"\n", json: `{"id":"\u2066x\u200F"}`},
		"DEL and a C1 control":    {in: "x\x7f\u009b", yaml: "id: \"x\\x7F\\x9B\"\n", json: `{"id":"x\u007F\u009B"}`},
		"a plain word":            {in: "no", yaml: "id: \"no\"\n", json: `{"id":"no"}`},
		"two lines, no other":     {in: "a\nb", yaml: "id: |-\n  a\n  b\n", json: `{"id":"a\nb"}`},
		"a leading dash and bidi": {in: "- \u202e#", yaml: "id: \"- \\u202E#\"\n", json: `{"id":"- \u202E#"}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := map[string]string{"id": tc.in}
			var b bytes.Buffer
			require.NoError(t, YAML(&b, v))
			assert.Equal(t, tc.yaml, b.String())
			var back map[string]string
			require.NoError(t, yaml.Unmarshal(b.Bytes(), &back))
			assert.Equal(t, v, back)
			js, err := json.Marshal(v)
			require.NoError(t, err)
			assert.Equal(t, tc.json, string(Escaped(js)))
			require.NoError(t, json.Unmarshal(Escaped(js), &back))
			assert.Equal(t, v, back)
		})
	}
}
