package assertions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/assertions"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/metric"
)

// md is a metadata object of one field.
func md(name string, v any) map[string]any { return map[string]any{name: v} }

// sch is a JSON schema written as JSON, decoded as a dataset's metadata is.
func sch(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

func TestAssertions(t *testing.T) {
	t.Parallel()
	schema := map[string]any{
		"type":     "object",
		"required": []any{"city", "population"},
		"properties": map[string]any{
			"city":       map[string]any{"type": "string"},
			"population": map[string]any{"type": "integer", "minimum": 0.0},
		},
	}
	// A schema may refer to itself under properties or items: each turn
	// reads one level deeper into the value.
	tree := `{"$defs": {"node": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"},
		"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}`
	tests := map[string]struct {
		metric string
		sample eval.Sample
		pass   bool
		reason string // a part of the reason
	}{
		// equals: the reference, trimmed, in NFC.
		"equals, same text":            {assertions.MetricEquals, eval.Sample{Answer: "Ljubljana", Reference: "Ljubljana"}, true, "equals the reference"},
		"equals, surrounding spaces":   {assertions.MetricEquals, eval.Sample{Answer: "  42\n", Reference: "42"}, true, "equals"},
		"equals, composed two ways":    {assertions.MetricEquals, eval.Sample{Answer: "Malm\u00f6", Reference: "Malmo\u0308"}, true, "equals"},
		"equals, Thai":                 {assertions.MetricEquals, eval.Sample{Answer: "เชียงใหม่", Reference: "เชียงใหม่"}, true, "equals"},
		"equals, case differs":         {assertions.MetricEquals, eval.Sample{Answer: "ljubljana", Reference: "Ljubljana"}, false, "from character 1"},
		"equals, says more":            {assertions.MetricEquals, eval.Sample{Answer: "42 kg", Reference: "42"}, false, "from character 3 (5 characters, the reference 2)"},
		"equals, Thai, third letter":   {assertions.MetricEquals, eval.Sample{Answer: "กขค", Reference: "กขง"}, false, "from character 3 (3 characters, the reference 3)"},
		"equals, accent differs":       {assertions.MetricEquals, eval.Sample{Answer: "café", Reference: "cafè"}, false, "from character 4 (4 characters"},
		"equals, emoji differs":        {assertions.MetricEquals, eval.Sample{Answer: "ok 🙂", Reference: "ok 🙃"}, false, "from character 4 (4 characters"},
		"equals, missing answer":       {assertions.MetricEquals, eval.Sample{Reference: "42"}, false, "differs"},
		"contains, inside a sentence":  {assertions.MetricContains, eval.Sample{Answer: "The boiling point is 100 °C at sea level.", Reference: "100 °C"}, true, "contains the reference"},
		"contains, Thai inside Thai":   {assertions.MetricContains, eval.Sample{Answer: "เมืองหลวงของไทยคือกรุงเทพมหานคร", Reference: "กรุงเทพ"}, true, "contains"},
		"contains, the whole answer":   {assertions.MetricContains, eval.Sample{Answer: "yes", Reference: " yes "}, true, "contains"},
		"contains, other number":       {assertions.MetricContains, eval.Sample{Answer: "It boils at 90 °C up there.", Reference: "100 °C"}, false, "does not contain"},
		"contains, reference is wider": {assertions.MetricContains, eval.Sample{Answer: "Oslo", Reference: "Oslo, Norway"}, false, "does not contain"},
		"contains, empty answer":       {assertions.MetricContains, eval.Sample{Answer: "", Reference: "x"}, false, "does not contain"},

		"contains_any, the second":  {assertions.MetricContainsAny, eval.Sample{Answer: "Refunds take 14 days.", Metadata: md("contains_any", []any{"two weeks", "14 days"})}, true, `contains "14 days"`},
		"contains_any, the first":   {assertions.MetricContainsAny, eval.Sample{Answer: "About two weeks.", Metadata: md("contains_any", []any{"two weeks", "14 days"})}, true, "two weeks"},
		"contains_any, Thai":        {assertions.MetricContainsAny, eval.Sample{Answer: "คืนเงินภายใน 14 วัน", Metadata: md("contains_any", []any{"สองสัปดาห์", "14 วัน"})}, true, "14 วัน"},
		"contains_any, none":        {assertions.MetricContainsAny, eval.Sample{Answer: "Refunds take a month.", Metadata: md("contains_any", []any{"two weeks", "14 days"})}, false, "none of the 2"},
		"contains_any, case counts": {assertions.MetricContainsAny, eval.Sample{Answer: "PARIS", Metadata: md("contains_any", []any{"Paris"})}, false, "none"},
		"contains_any, no answer":   {assertions.MetricContainsAny, eval.Sample{Metadata: md("contains_any", []any{"a"})}, false, "none"},

		"contains_all, all":         {assertions.MetricContainsAll, eval.Sample{Answer: "Bring a passport, a visa and a photo.", Metadata: md("contains_all", []any{"passport", "visa", "photo"})}, true, "all 3"},
		"contains_all, one":         {assertions.MetricContainsAll, eval.Sample{Answer: "passport", Metadata: md("contains_all", []any{"passport"})}, true, "all 1"},
		"contains_all, Thai":        {assertions.MetricContainsAll, eval.Sample{Answer: "ใช้หนังสือเดินทางและวีซ่า", Metadata: md("contains_all", []any{"หนังสือเดินทาง", "วีซ่า"})}, true, "all 2"},
		"contains_all, one missing": {assertions.MetricContainsAll, eval.Sample{Answer: "Bring a passport and a photo.", Metadata: md("contains_all", []any{"passport", "visa", "photo"})}, false, "lacks 1 of the 3"},
		"contains_all, all missing": {assertions.MetricContainsAll, eval.Sample{Answer: "Nothing needed.", Metadata: md("contains_all", []any{"passport", "visa"})}, false, "lacks 2 of the 2"},
		"contains_all, empty":       {assertions.MetricContainsAll, eval.Sample{Metadata: md("contains_all", []any{"passport"})}, false, "lacks 1"},

		"regex, a date":           {assertions.MetricRegex, eval.Sample{Answer: "Due on 2025-03-14.", Metadata: md("regex", `\d{4}-\d{2}-\d{2}`)}, true, `"2025-03-14"`},
		"regex, anchored whole":   {assertions.MetricRegex, eval.Sample{Answer: "  YES ", Metadata: md("regex", `^(?i)yes$`)}, true, "matches"},
		"regex, Thai digits":      {assertions.MetricRegex, eval.Sample{Answer: "ราคา ๑๒๐ บาท", Metadata: md("regex", `\p{Thai}+ บาท`)}, true, "matches"},
		"regex, no date":          {assertions.MetricRegex, eval.Sample{Answer: "Due next Friday.", Metadata: md("regex", `\d{4}-\d{2}-\d{2}`)}, false, "does not match"},
		"regex, anchored, longer": {assertions.MetricRegex, eval.Sample{Answer: "yes, I think", Metadata: md("regex", `^(?i)yes$`)}, false, "does not match"},
		"regex, empty answer":     {assertions.MetricRegex, eval.Sample{Metadata: md("regex", `.`)}, false, "does not match"},
		// A pattern's control characters are shown escaped, never sent to
		// the terminal that prints the reason.
		"regex, an escape in the pattern":             {assertions.MetricRegex, eval.Sample{Answer: "plain", Metadata: md("regex", "x\x1b\\[2J\ty")}, false, `does not match /x\x1b\[2J\ty/`},
		"regex, an accent typed apart in the pattern": {assertions.MetricRegex, eval.Sample{Answer: "cafe\u0301 au lait", Metadata: md("regex", "^cafe\u0301 ")}, true, `matches /^café /`},
		"regex, an accent typed apart in the answer":  {assertions.MetricRegex, eval.Sample{Answer: "cafe\u0301", Metadata: md("regex", "^café$")}, true, "matches"},
		"regex, a match, escaped":                     {assertions.MetricRegex, eval.Sample{Answer: "a\u202eb", Metadata: md("regex", "a\u202eb")}, true, `matches /a\u202eb/ ("a\u202eb")`},

		"is_json, an object":       {assertions.MetricIsJSON, eval.Sample{Answer: `{"ok": true, "items": [1, 2]}`}, true, "valid JSON"},
		"is_json, a list, spaced":  {assertions.MetricIsJSON, eval.Sample{Answer: "\n [\"a\", null]\n"}, true, "valid JSON"},
		"is_json, a bare number":   {assertions.MetricIsJSON, eval.Sample{Answer: "3.5"}, true, "valid JSON"},
		"is_json, in a code fence": {assertions.MetricIsJSON, eval.Sample{Answer: "```json\n{\"ok\": true}\n```"}, false, "not valid JSON"},
		"is_json, trailing comma":  {assertions.MetricIsJSON, eval.Sample{Answer: `{"a": 1,}`}, false, "not valid JSON"},
		"is_json, two values":      {assertions.MetricIsJSON, eval.Sample{Answer: `{"a": 1} {"b": 2}`}, false, "not valid JSON"},
		"is_json, prose":           {assertions.MetricIsJSON, eval.Sample{Answer: "Sure! Here it is."}, false, "not valid JSON"},
		"is_json, empty":           {assertions.MetricIsJSON, eval.Sample{}, false, "empty"},
		"is_json, Thai prose":      {assertions.MetricIsJSON, eval.Sample{Answer: "ตกลง {\"a\": 1}"}, false, `breaks at character 1 ("ตกลง {\"a\": 1}")`},
		"is_json, cut short":       {assertions.MetricIsJSON, eval.Sample{Answer: `{"a": [1, 2`}, false, "ends before the JSON value does"},
		// RFC 8259: the white space around a value is space, tab, line
		// feed and carriage return; a JSON parser refuses any other.
		"is_json, JSON's white space around":     {assertions.MetricIsJSON, eval.Sample{Answer: " \t\r\n[1]\r\n\t "}, true, "valid JSON"},
		"is_json, a no-break space before":       {assertions.MetricIsJSON, eval.Sample{Answer: "\u00a0{\"a\": 1}"}, false, "breaks at character 1"},
		"is_json, a form feed before":            {assertions.MetricIsJSON, eval.Sample{Answer: "\f[1]"}, false, "breaks at character 1"},
		"is_json, an ideographic space after":    {assertions.MetricIsJSON, eval.Sample{Answer: "[1]\u3000"}, false, "breaks at character 4"},
		"is_json, a line separator after":        {assertions.MetricIsJSON, eval.Sample{Answer: "true\u2028"}, false, "breaks at character 5"},
		"json_schema, a no-break space after":    {assertions.MetricJSONSchema, eval.Sample{Answer: "{\"city\": \"Lyon\", \"population\": 1}\u00a0", Metadata: md("json_schema", schema)}, false, "not valid JSON"},
		"json_schema, JSON's white space around": {assertions.MetricJSONSchema, eval.Sample{Answer: "\n{\"city\": \"Lyon\", \"population\": 1}\n", Metadata: md("json_schema", schema)}, true, "matches"},
		"is_json, breaks later":                  {assertions.MetricIsJSON, eval.Sample{Answer: `{"ชื่อ": "ก", x}`}, false, `breaks at character 15 ("x}")`},
		// RFC 8259 section 8.1: JSON text exchanged between systems is UTF-8.
		"is_json, invalid UTF-8 in a string": {assertions.MetricIsJSON, eval.Sample{Answer: "{\"a\": \"caf\xe9\"}"}, false, "not UTF-8 text: an invalid byte at character 11"},
		"is_json, invalid UTF-8 after Thai":  {assertions.MetricIsJSON, eval.Sample{Answer: "[\"ก\", \xff]"}, false, "at character 7"},
		// The grammar puts no bound on a number: 1e999 is JSON, though no
		// 64-bit float holds it.
		"is_json, a number past float64":     {assertions.MetricIsJSON, eval.Sample{Answer: `{"n": 1e999}`}, true, "valid JSON"},
		"is_json, a negative number past it": {assertions.MetricIsJSON, eval.Sample{Answer: `-1e400`}, true, "valid JSON"},
		"json_schema, a number past float64": {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": 1e999}`, Metadata: md("json_schema", schema)}, false, "the number 1e999 is out of the range of a 64-bit float"},
		// 1e-400 is above 0, but the nearest float64 is 0: read as 0, it
		// would fail a schema asking for a number above 0, named as 0.
		"json_schema, a number below a float64's least": {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": 1e-400}`, Metadata: md("json_schema", schema)}, false, "the number 1e-400 is out of the range of a 64-bit float"},
		"json_schema, a zero written long, kept":        {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": 0.000e-400}`, Metadata: md("json_schema", schema)}, true, "matches"},
		"json_schema, the least float64, kept":          {assertions.MetricJSONSchema, eval.Sample{Answer: `5e-324`, Metadata: md("json_schema", sch(`{"exclusiveMinimum": 0}`))}, true, "matches"},
		// The grammar bounds no depth either; the decoder reads 10000
		// levels, and the reason says so rather than point at a break.
		"is_json, deeper than the decoder reads": {assertions.MetricIsJSON, eval.Sample{Answer: strings.Repeat("[", 10001) + strings.Repeat("]", 10001)}, false, "it nests deeper than 10000 levels, the most the check reads"},
		"is_json, 10000 levels deep":             {assertions.MetricIsJSON, eval.Sample{Answer: strings.Repeat(`{"a":[`, 5000) + strings.Repeat("]}", 5000)}, true, "valid JSON"},
		"is_json, deep and broken before":        {assertions.MetricIsJSON, eval.Sample{Answer: "[x" + strings.Repeat("[", 10001)}, false, `breaks at character 2 ("x[[[`},
		"json_schema, a small number, kept":      {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": 1e3}`, Metadata: md("json_schema", schema)}, true, "matches"},
		"json_schema, invalid UTF-8":             {assertions.MetricJSONSchema, eval.Sample{Answer: "{\"city\": \"\xc3\"}", Metadata: md("json_schema", schema)}, false, "not UTF-8 text"},
		"json_schema, matches":                   {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": 522000}`, Metadata: md("json_schema", schema)}, true, "matches the schema"},
		"json_schema, extra keys":                {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": 0, "note": "x"}`, Metadata: md("json_schema", schema)}, true, "matches"},
		"json_schema, Thai value":                {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "ขอนแก่น", "population": 120000}`, Metadata: md("json_schema", schema)}, true, "matches"},
		"json_schema, missing key":               {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon"}`, Metadata: md("json_schema", schema)}, false, "does not match"},
		"json_schema, wrong type":                {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": "many"}`, Metadata: md("json_schema", schema)}, false, "does not match"},
		"json_schema, not integer":               {assertions.MetricJSONSchema, eval.Sample{Answer: `{"city": "Lyon", "population": 1.5}`, Metadata: md("json_schema", schema)}, false, "does not match"},
		"json_schema, not JSON":                  {assertions.MetricJSONSchema, eval.Sample{Answer: `city: Lyon`, Metadata: md("json_schema", schema)}, false, "not valid JSON"},
		"json_schema, a tree, nested":            {assertions.MetricJSONSchema, eval.Sample{Answer: `{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}`, Metadata: md("json_schema", sch(tree))}, true, "matches"},
		"json_schema, a tree, bad leaf":          {assertions.MetricJSONSchema, eval.Sample{Answer: `{"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}`, Metadata: md("json_schema", sch(tree))}, false, "does not match"},
		"json_schema, nullable string":           {assertions.MetricJSONSchema, eval.Sample{Answer: `null`, Metadata: md("json_schema", sch(`{"type": ["string", "null"]}`))}, true, "matches"},
		"json_schema, every type":                {assertions.MetricJSONSchema, eval.Sample{Answer: `[1, 2.5, "a", true, null, {}, []]`, Metadata: md("json_schema", sch(`{"type": "array", "items": {"type": ["integer", "number", "string", "boolean", "null", "object", "array"]}}`))}, true, "matches"},
		"json_schema, draft-07 by https":         {assertions.MetricJSONSchema, eval.Sample{Answer: `"x"`, Metadata: md("json_schema", sch(`{"$schema": "https://json-schema.org/draft-07/schema#", "type": "string"}`))}, true, "matches"},
		"length, within":                         {assertions.MetricLength, eval.Sample{Answer: "Short answer.", Metadata: md("length", map[string]any{"min": 5.0, "max": 20.0})}, true, "13 characters (5 to 20)"},
		"length, at the maximum":                 {assertions.MetricLength, eval.Sample{Answer: "abcde", Metadata: md("length", map[string]any{"max": 5.0})}, true, "at most 5"},
		"length, Thai by character":              {assertions.MetricLength, eval.Sample{Answer: "สวัสดี", Metadata: md("length", map[string]any{"min": 6.0, "max": 6.0})}, true, "6 characters"},
		"length, too long":                       {assertions.MetricLength, eval.Sample{Answer: "abcdef", Metadata: md("length", map[string]any{"max": 5.0})}, false, "above the maximum 5"},
		"length, too short":                      {assertions.MetricLength, eval.Sample{Answer: "ok", Metadata: md("length", map[string]any{"min": 3.0})}, false, "2 characters, below the minimum 3"},
		"length, empty answer":                   {assertions.MetricLength, eval.Sample{Metadata: md("length", map[string]any{"min": 1.0})}, false, "0 characters"},
		// An argument a Go program writes in Go's types is read as its JSON.
		"length, Go ints":              {assertions.MetricLength, eval.Sample{Answer: "abc", Metadata: md("length", map[string]int{"min": 2, "max": 3})}, true, "3 characters (2 to 3)"},
		"contains_any, a Go []string":  {assertions.MetricContainsAny, eval.Sample{Answer: "Refunds take 14 days.", Metadata: md("contains_any", []string{"two weeks", "14 days"})}, true, `contains "14 days"`},
		"contains_all, a Go []string":  {assertions.MetricContainsAll, eval.Sample{Answer: "a passport", Metadata: md("contains_all", []string{"passport", "visa"})}, false, "lacks 1 of the 2"},
		"json_schema, Go-typed schema": {assertions.MetricJSONSchema, eval.Sample{Answer: `{"n": 12}`, Metadata: md("json_schema", map[string]any{"properties": map[string]map[string]any{"n": {"type": "integer", "maximum": 10}}})}, false, "does not match"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := assertions.New(tc.metric)
			require.NoError(t, err)
			require.NoError(t, a.(metric.Checker).Check(tc.sample), "the sample has the argument")
			sc, err := a.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.Equal(t, tc.metric, sc.Metric)
			assert.Equal(t, assertions.Method, sc.Method)
			want := 0.0
			if tc.pass {
				want = 1
			}
			assert.InDelta(t, want, sc.Value, 0, sc.Reason)
			assert.InDelta(t, want, sc.Points, 0)
			assert.InDelta(t, 1.0, sc.Max, 0)
			assert.Contains(t, sc.Reason, tc.reason)
			assert.False(t, strings.ContainsFunc(sc.Reason, unicode.IsControl), "no control character in %q", sc.Reason)
			assert.True(t, utf8.ValidString(sc.Reason), "the reason is UTF-8: %q", sc.Reason)
		})
	}
}

func TestAssertionArgumentsAreCheckedBeforeAnything(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metric string
		sample eval.Sample
		field  string
		msg    string
	}{
		"equals, no reference":            {assertions.MetricEquals, eval.Sample{Answer: "a"}, "reference", "no reference answer"},
		"contains, blank reference":       {assertions.MetricContains, eval.Sample{Answer: "a", Reference: " \n"}, "reference", "no reference answer"},
		"contains_any, missing":           {assertions.MetricContainsAny, eval.Sample{Answer: "a"}, "metadata.contains_any", "missing"},
		"contains_any, a string":          {assertions.MetricContainsAny, eval.Sample{Answer: "a", Metadata: md("contains_any", "a")}, "metadata.contains_any", "want a non-empty list of strings, got a string"},
		"contains_all, empty list":        {assertions.MetricContainsAll, eval.Sample{Answer: "a", Metadata: md("contains_all", []any{})}, "metadata.contains_all", "non-empty list"},
		"contains_all, a number":          {assertions.MetricContainsAll, eval.Sample{Answer: "a", Metadata: md("contains_all", []any{"a", 3.0})}, "metadata.contains_all", "item 1: want a non-empty string, got a number"},
		"regex, missing":                  {assertions.MetricRegex, eval.Sample{Answer: "a", Metadata: md("other", "x")}, "metadata.regex", "missing"},
		"regex, does not compile":         {assertions.MetricRegex, eval.Sample{Answer: "a", Metadata: md("regex", "(unclosed")}, "metadata.regex", "does not compile"},
		"regex, an escape, not compiling": {assertions.MetricRegex, eval.Sample{Answer: "a", Metadata: md("regex", "a[\x1b")}, "metadata.regex", "missing closing ]: `[\\x1b`"},
		"regex, a lookahead":              {assertions.MetricRegex, eval.Sample{Answer: "a", Metadata: md("regex", "a(?=b)")}, "metadata.regex", "does not compile"},
		"json_schema, a string":           {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", "schema.json")}, "metadata.json_schema", "want a JSON schema object, got a string"},
		"json_schema, bad type":           {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", map[string]any{"type": 7.0})}, "metadata.json_schema", "not a JSON schema"},
		"json_schema, remote ref":         {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", map[string]any{"$ref": "https://example.com/s.json"})}, "metadata.json_schema", "cannot be used"},
		// A schema that refers back to itself without reading into the
		// value would recurse until the process dies; a draft the
		// validator does not read would fail every answer.
		"json_schema, ref to itself":      {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", sch(`{"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`))}, "metadata.json_schema", "(#/$defs/a → #/$defs/a)"},
		"json_schema, root in allOf":      {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", sch(`{"type": "object", "allOf": [{"$ref": "#"}]}`))}, "metadata.json_schema", "(# → #/allOf/0 → #)"},
		"json_schema, two refs in a ring": {assertions.MetricJSONSchema, eval.Sample{Answer: "1", Metadata: md("json_schema", sch(`{"definitions": {"a": {"not": {"$ref": "#/definitions/b"}}, "b": {"anyOf": [{"type": "string"}, {"$ref": "#/definitions/a"}]}}, "properties": {"x": {"$ref": "#/definitions/a"}}}`))}, "metadata.json_schema", "refers back to itself"},
		"json_schema, by anchor":          {assertions.MetricJSONSchema, eval.Sample{Answer: "1", Metadata: md("json_schema", sch(`{"$defs": {"n": {"$anchor": "node", "oneOf": [{"$ref": "#node"}]}}, "$ref": "#node"}`))}, "metadata.json_schema", "refers back to itself"},
		"json_schema, by $id":             {assertions.MetricJSONSchema, eval.Sample{Answer: "1", Metadata: md("json_schema", sch(`{"$id": "https://example.com/root.json", "$defs": {"n": {"$id": "n.json", "if": {"$ref": "n.json"}}}, "$ref": "n.json"}`))}, "metadata.json_schema", "refers back to itself"},
		"json_schema, draft-04":           {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", sch(`{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}`))}, "metadata.json_schema", `$schema "http://json-schema.org/draft-04/schema#" is a draft the validator does not read`},
		// JSON Schema: multipleOf MUST be a number strictly greater than 0;
		// 0 would fail every answer.
		"json_schema, multipleOf 0":        {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", sch(`{"properties": {"n": {"type": "number", "multipleOf": 0}}}`))}, "metadata.json_schema", "multipleOf at #/properties/n is 0: it must be a number above 0"},
		"json_schema, multipleOf negative": {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", sch(`{"multipleOf": -2}`))}, "metadata.json_schema", "multipleOf at # is -2: it must be a number above 0"},
		// The counts of JSON Schema (maxLength, minItems...) MUST be
		// whole numbers of 0 or more; -1 would fail every answer.
		"json_schema, maxLength negative": {assertions.MetricJSONSchema, eval.Sample{Answer: `"abc"`, Metadata: md("json_schema", sch(`{"type": "string", "maxLength": -1}`))}, "metadata.json_schema", "maxLength at # is -1: it must be a whole number of 0 or more"},
		"json_schema, minItems negative":  {assertions.MetricJSONSchema, eval.Sample{Answer: "[]", Metadata: md("json_schema", sch(`{"properties": {"l": {"minItems": -3}}}`))}, "metadata.json_schema", "minItems at #/properties/l is -3: it must be a whole number of 0 or more"},
		// A count that is not whole is named where it is, not by the
		// validator's decoder's "not an integer value".
		"json_schema, maxLength a fraction":   {assertions.MetricJSONSchema, eval.Sample{Answer: `"abc"`, Metadata: md("json_schema", sch(`{"properties": {"s": {"maxLength": 2.5}}}`))}, "metadata.json_schema", "maxLength at #/properties/s is 2.5: it must be a whole number of 0 or more"},
		"json_schema, maxProperties negative": {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", sch(`{"items": {"maxProperties": -1}}`))}, "metadata.json_schema", "maxProperties at #/items is -1: it must be a whole number of 0 or more"},
		"json_schema, minContains negative":   {assertions.MetricJSONSchema, eval.Sample{Answer: "[]", Metadata: md("json_schema", sch(`{"contains": {}, "minContains": -1}`))}, "metadata.json_schema", "minContains at # is -1: it must be a whole number of 0 or more"},
		// JSON Schema: type MUST name one of its seven types; another name
		// (a class's, Python's) would fail every answer.
		"json_schema, type Object":         {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", sch(`{"type": "Object"}`))}, "metadata.json_schema", `type at # is "Object", not a JSON Schema type: write one of array, boolean, integer, null, number, object, string`},
		"json_schema, a Python int":        {assertions.MetricJSONSchema, eval.Sample{Answer: `{"n": 1}`, Metadata: md("json_schema", sch(`{"type": "object", "properties": {"n": {"type": "int"}}}`))}, "metadata.json_schema", `type at #/properties/n is "int"`},
		"json_schema, a float in a list":   {assertions.MetricJSONSchema, eval.Sample{Answer: "1.5", Metadata: md("json_schema", sch(`{"type": ["string", "float"]}`))}, "metadata.json_schema", `type at # is "float"`},
		"json_schema, a type in $defs":     {assertions.MetricJSONSchema, eval.Sample{Answer: "[]", Metadata: md("json_schema", sch(`{"$defs": {"x": {"type": "list"}}, "items": {"$ref": "#/$defs/x"}}`))}, "metadata.json_schema", `type at #/$defs/x is "list"`},
		"json_schema, an escape in a type": {assertions.MetricJSONSchema, eval.Sample{Answer: "1", Metadata: md("json_schema", map[string]any{"type": "str\x1b[2J"})}, "metadata.json_schema", `is "str\x1b[2J"`},
		"length, no bound":                 {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{})}, "metadata.length", "give min, max or both"},
		"length, the wrong way":            {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"min": 9.0, "max": 3.0})}, "metadata.length", "min 9 is above max 3"},
		"length, a fraction":               {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"max": 2.5})}, "metadata.length", "max: want a whole number"},
		"length, unknown key":              {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"words": 3.0})}, "metadata.length", `unknown key "words"`},
		"length, a number":                 {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", 100.0)}, "metadata.length", "want an object"},
		// What was written is named as written: a number in quotes is a
		// string, shown quoted, not as the number it looks like.
		"length, a number in quotes":     {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"max": "300"})}, "metadata.length", `max: want a whole number of characters, 0 or more, got a string ("300")`},
		"length, null":                   {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"max": nil})}, "metadata.length", "max: want a whole number of characters, 0 or more, got null"},
		"length, negative":               {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"min": -1.0})}, "metadata.length", "min: want a whole number of characters, 0 or more, got a number (-1)"},
		"length, a boolean":              {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"min": true})}, "metadata.length", "got a boolean (true)"},
		"length, a whole number too big": {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"max": 1e300})}, "metadata.length", "max: 1e+300 is above 9007199254740992, the most characters a bound counts"},
		"length, an escape in a string":  {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"max": "\x1b[2J"})}, "metadata.length", `got a string ("\x1b[2J")`},
		"regex, empty":                   {assertions.MetricRegex, eval.Sample{Answer: "a", Metadata: md("regex", "")}, "metadata.regex", "want a non-empty pattern string, got an empty string"},
		"contains_any, a blank item":     {assertions.MetricContainsAny, eval.Sample{Answer: "a", Metadata: md("contains_any", []any{"a", " "})}, "metadata.contains_any", `item 1: want a non-empty string, got a blank string (" ")`},
		"contains_all, an empty list":    {assertions.MetricContainsAll, eval.Sample{Answer: "a", Metadata: md("contains_all", []any{})}, "metadata.contains_all", "want a non-empty list of strings, got an empty list"},
		// A schema a Go program writes is checked as its JSON is: a loop in
		// a []map[string]any would otherwise recurse until the process dies.
		"json_schema, Go-typed loop":    {assertions.MetricJSONSchema, eval.Sample{Answer: "{}", Metadata: md("json_schema", map[string]any{"type": "object", "allOf": []map[string]any{{"$ref": "#"}}})}, "metadata.json_schema", "(# → #/allOf/0 → #)"},
		"json_schema, Go int maxLength": {assertions.MetricJSONSchema, eval.Sample{Answer: `"abc"`, Metadata: md("json_schema", map[string]any{"maxLength": -1})}, "metadata.json_schema", "maxLength at # is -1"},
		"length, NaN":                   {assertions.MetricLength, eval.Sample{Answer: "a", Metadata: md("length", map[string]any{"max": math.NaN()})}, "metadata.length", "not a JSON value: unsupported value: NaN"},
		"regex, a Go func":              {assertions.MetricRegex, eval.Sample{Answer: "a", Metadata: md("regex", func() {})}, "metadata.regex", "not a JSON value: unsupported type: func()"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := assertions.New(tc.metric)
			require.NoError(t, err)
			cerr := a.(metric.Checker).Check(tc.sample)
			require.Error(t, cerr)
			_, serr := a.Score(t.Context(), tc.sample)
			assert.Equal(t, cerr, serr, "Score refuses the sample as Check does")

			// The check pass of a dataset names the file, the line and the field.
			err = dataset.CheckNeeds("data.jsonl", dataset.Record{Line: 7, Sample: tc.sample}, []eval.Scorer{a})
			ie, ok := errors.AsType[*eval.InputError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, "data.jsonl", ie.File)
			assert.Equal(t, 7, ie.Line)
			assert.Equal(t, tc.field, ie.Field)
			assert.Contains(t, ie.Error(), "data.jsonl:7: "+tc.field+": ")
			assert.Contains(t, ie.Error(), tc.msg)
			assert.False(t, strings.ContainsFunc(ie.Error(), unicode.IsControl), "no control character in %q", ie.Error())
		})
	}
}

// An argument wrong in more than one place is refused for the same one
// on every run: the error a user reads does not change between runs.
func TestAssertionArgumentErrorIsTheSameEachRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metric string
		arg    any
		msg    string
	}{
		"length, both bounds strings":  {assertions.MetricLength, map[string]any{"min": "a", "max": "b"}, `metadata.length: max: want a whole number of characters, 0 or more, got a string ("b")`},
		"length, a key and a fraction": {assertions.MetricLength, map[string]any{"words": 3.0, "min": 0.5, "max": 9.0}, "metadata.length: min: want a whole number of characters, 0 or more, got a number (0.5)"},
		"length, two unknown keys":     {assertions.MetricLength, map[string]any{"words": 3.0, "chars": 9.0}, `metadata.length: unknown key "chars": want min and max`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := assertions.New(tc.metric)
			require.NoError(t, err)
			for range 64 {
				err := a.(metric.Checker).Check(eval.Sample{Answer: "a", Metadata: md(tc.metric, tc.arg)})
				require.EqualError(t, err, tc.msg)
			}
		})
	}
}

// A long pattern is shown cut, so that what matched still fits in the
// reason a result keeps and a trace carries (1024 bytes).
func TestRegexReasonShowsTheMatchOfALongPattern(t *testing.T) {
	t.Parallel()
	words := make([]string, 2000)
	for i := range words {
		words[i] = fmt.Sprintf("item%04d", i)
	}
	thai := strings.Repeat("ก", 3000)
	tests := map[string]struct {
		pattern, answer string
		pass            bool
		want            []string // parts of the reason
	}{
		"a long alternation, matching": {strings.Join(words, "|"), "see item1999 here", true, []string{"matches /item0000|item0001|", `…/ ("item1999")`}},
		"a long alternation, failing":  {strings.Join(words, "|"), "nothing", false, []string{"does not match /item0000|item0001|", "…/"}},
		"a long Thai pattern":          {thai + "|ข", "ข", true, []string{`…/ ("ข")`}},
		"a short pattern, whole":       {`\d+`, "7 days", true, []string{`matches /\d+/ ("7")`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := assertions.New(assertions.MetricRegex)
			require.NoError(t, err)
			sc, err := a.Score(t.Context(), eval.Sample{Answer: tc.answer, Metadata: md("regex", tc.pattern)})
			require.NoError(t, err)
			assert.Equal(t, tc.pass, sc.Value == 1, sc.Reason)
			for _, w := range tc.want {
				assert.Contains(t, sc.Reason, w)
			}
			assert.LessOrEqual(t, len(sc.Reason), 1024, sc.Reason)
		})
	}
}

// RE2 is linear in the pattern and in the answer, not in both: a long
// pattern of loops over a long answer takes hours, so a regex stops when
// its context is done (a request's deadline, an interrupt), and gives
// the same verdict as ever when it is not.
func TestRegexStopsWhenItsContextIsDone(t *testing.T) {
	t.Parallel()
	loops := strings.Repeat("(a*)", 2000) + "b" // each a of the answer keeps every loop alive
	items := make([]string, 1000)
	for i := range items {
		items[i] = fmt.Sprintf("item%04d", i)
	}
	list := strings.Join(items, "|")
	tests := map[string]struct {
		pattern, answer string
		cancel          bool
		pass            bool
		want            string // a part of the reason, or of the error
	}{
		"loops over a long answer, cancelled":   {loops, strings.Repeat("a", 8000), true, false, "regex: context canceled"},
		"loops over a long answer, matching":    {loops, strings.Repeat("a", 3000) + "b", false, true, `("` + strings.Repeat("a", 60) + `…")`},
		"a long list, the last item at the end": {list, strings.Repeat("x ", 3000) + "item0999", false, true, `("item0999")`},
		"a long list, anchored at the end":      {"(" + list + ")$", strings.Repeat("ก ", 3000) + "item0500", false, true, `("item0500")`},
		"a long list, after Thai":               {list, strings.Repeat("ก", 3000) + "item0007ข", false, true, `("item0007")`},
		"a long list, none":                     {list, strings.Repeat("x ", 3000), false, false, "does not match"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := assertions.New(assertions.MetricRegex)
			require.NoError(t, err)
			ctx := t.Context()
			if tc.cancel {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			sc, err := a.Score(ctx, eval.Sample{Answer: tc.answer, Metadata: md("regex", tc.pattern)})
			if tc.want == "regex: context canceled" {
				require.ErrorIs(t, err, context.Canceled)
				assert.EqualError(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.pass, sc.Value == 1, sc.Reason)
			assert.Contains(t, sc.Reason, tc.want)
		})
	}
}

func TestAddBuiltins(t *testing.T) {
	t.Parallel()
	var r metric.Registry
	require.NoError(t, assertions.AddBuiltins(&r))
	want := []string{"contains", "contains_all", "contains_any", "equals", "is_json", "json_schema", "length", "regex"}
	assert.Equal(t, want, r.Metrics())
	for _, name := range want {
		e, ok := r.Lookup(name)
		require.True(t, ok)
		assert.False(t, e.CallsModel(), "%s needs no model", name)
		assert.InDelta(t, 1.0, r.DefaultThreshold(name, nil), 0, "a pass is 1")
		sc, err := r.New(name, nil)
		require.NoError(t, err)
		_, ok = sc.(metric.Checker)
		assert.True(t, ok, "%s checks its argument", name)
	}
	e, _ := r.Lookup(assertions.MetricEquals)
	assert.Equal(t, metric.NeedsAnswer|metric.NeedsReference, e.Needs)
	require.ErrorContains(t, assertions.AddBuiltins(&r), "assertions: metric: equals is added twice")
	_, err := assertions.New("icontains")
	require.ErrorIs(t, err, metric.ErrUnknownMetric)
}
