package llm

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type schemaNote struct {
	Tags  map[string]int `json:"tags"`
	Score *float64       `json:"score" schema:"minimum=0,maximum=1"`
	Items []string       `json:"items" schema:"minItems=1,maxItems=3"`
	Kind  string         `json:"kind" schema:"enum=a,enum=b" jsonschema:"which kind"`
	Skip  string         `json:"-"`
	Opt   string         `json:"opt,omitempty"`
}

type URLList struct {
	URLs []string `json:"urls"`
}

type badKeyword struct {
	N int `json:"n" schema:"pattern=x"`
}

type badPair struct {
	N int `json:"n" schema:"minimum"`
}

type badNumber struct {
	N int `json:"n" schema:"maximum=ten"`
}

type badCount struct {
	L []int `json:"l" schema:"minItems=-1"`
}

type badNested struct {
	Inner []badKeyword `json:"inner"`
}

func TestSchemaForWritesTheWireForm(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		typ  reflect.Type
		want string
		err  string
	}{
		"tags, pointers, maps and omitted fields": {typ: reflect.TypeFor[schemaNote](), want: `{"$id":"https://github.com/assaylabs/assay/llm/schema-note","properties":{` +
			`"tags":{"additionalProperties":{"type":"integer"},"type":"object"},` +
			`"score":{"type":["null","number"],"maximum":1,"minimum":0},` +
			`"items":{"items":{"type":"string"},"type":"array","maxItems":3,"minItems":1},` +
			`"kind":{"type":"string","enum":["a","b"],"description":"which kind"},` +
			`"opt":{"type":"string"}},` +
			`"additionalProperties":false,"type":"object","required":["tags","score","items","kind"]}`},
		"an initialism in the name": {typ: reflect.TypeFor[URLList](), want: `{"$id":"https://github.com/assaylabs/assay/llm/url-list",` +
			`"properties":{"urls":{"items":{"type":"string"},"type":"array"}},"additionalProperties":false,"type":"object","required":["urls"]}`},
		"an anonymous struct has no $id": {typ: reflect.TypeFor[struct {
			A bool `json:"a"`
		}](), want: `{"properties":{"a":{"type":"boolean"}},"additionalProperties":false,"type":"object","required":["a"]}`},
		"an unknown keyword":         {typ: reflect.TypeFor[badKeyword](), err: `unknown keyword "pattern"`},
		"a keyword without a value":  {typ: reflect.TypeFor[badPair](), err: `want keyword=value, got "minimum"`},
		"a bound that is no number":  {typ: reflect.TypeFor[badNumber](), err: `maximum: strconv.ParseFloat`},
		"a negative count":           {typ: reflect.TypeFor[badCount](), err: `minItems: -1 is negative`},
		"a bad tag of a nested type": {typ: reflect.TypeFor[badNested](), err: `field llm.badKeyword.N`},
		"a type with no schema":      {typ: reflect.TypeFor[struct{ C chan int }](), err: "unsupported"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := schemaJSON(tt.typ)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			_, err = resolve(&Schema{Name: name, JSON: got})
			assert.NoError(t, err, "the schema validates replies")
		})
	}
}

func TestSchemaForPanicsOnATypeItCannotDescribe(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, `llm: schema "bad" for llm.badKeyword: field llm.badKeyword.N: schema tag "pattern=x": unknown keyword "pattern" (minimum, maximum, minItems, maxItems, enum)`,
		func() { SchemaFor[badKeyword]("bad") })
}
