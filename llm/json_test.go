package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// strictReply is a judge-like reply whose schema says the ranges and enums.
type strictReply struct {
	Verdicts []strictVerdict `json:"verdicts"`
}

type strictVerdict struct {
	Statement int    `json:"statement" schema:"minimum=1"`
	Verdict   string `json:"verdict" schema:"enum=supported,enum=unsupported"`
}

var strictSchema = SchemaFor[strictReply]("strict")

// atMost is a Check of the statement numbers against a request's count.
func atMost(n int) Check {
	return func(out any) error {
		for i, v := range out.(*strictReply).Verdicts {
			if v.Statement > n {
				return fmt.Errorf("verdicts[%d].statement %d: only %d statements were given", i, v.Statement, n)
			}
		}
		return nil
	}
}

func TestDecodeReplyHoldsEveryCandidateToTheSchema(t *testing.T) {
	t.Parallel()
	one := strictReply{Verdicts: []strictVerdict{{Statement: 1, Verdict: "supported"}}}
	tests := map[string]struct {
		in    string
		check Check
		want  strictReply
		err   string
	}{
		"valid":                   {in: `{"verdicts":[{"statement":1,"verdict":"supported"}]}`, want: one},
		"empty list is valid":     {in: `{"verdicts":[]}`, want: strictReply{Verdicts: []strictVerdict{}}},
		"empty object":            {in: `{}`, err: `not of the schema: the reply: required: missing properties: ["verdicts"]`},
		"another object entirely": {in: `{"hello":"world"}`, err: `not of the schema: the reply: required: missing properties: ["verdicts"]`},
		"an extra key beside every field asked for is ignored": {
			in: `{"verdicts":[{"statement":1,"verdict":"supported","note":"x"}],"explanation":"sure"}`, want: one,
		},
		"the list under another key": {
			in: `{"results":[{"statement":1,"verdict":"supported"}]}`, err: `not of the schema: the reply: required: missing properties: ["verdicts"]`,
		},
		"null list":   {in: `{"verdicts":null}`, err: `verdicts: type:`},
		"wrong type":  {in: `{"verdicts":[{"statement":"1","verdict":"supported"}]}`, err: `verdicts[].statement: type: 1 has type "string", want "integer"`},
		"below range": {in: `{"verdicts":[{"statement":0,"verdict":"supported"}]}`, err: `verdicts[].statement: minimum: 0 is less than 1`},
		"a fraction where an integer is asked": {
			in: `{"verdicts":[{"statement":0.8,"verdict":"supported"}]}`, err: `verdicts[].statement: type: 0.8 has type "number", want "integer"`,
		},
		"an integer written with a point is the integer, as the schema reads it": {
			in: `{"verdicts":[{"statement":1.0,"verdict":"supported"}]}`, want: one,
		},
		"an integer written with an exponent is the integer": {
			in: `{"verdicts":[{"statement":1e0,"verdict":"supported"}]}`, want: one,
		},
		"off the enum": {
			in: `{"verdicts":[{"statement":1,"verdict":"maybe"}]}`, err: `verdicts[].verdict: enum:`,
		},
		"missing field in an item": {in: `{"verdicts":[{"statement":1}]}`, err: `verdicts[]: required: missing properties: ["verdict"]`},
		"an off-schema object in prose is passed over for the valid one": {
			in: `I found {"note": "x"} and then: {"verdicts":[{"statement":1,"verdict":"supported"}]}`, want: one,
		},
		"a quoted reply before the model's own, with another verdict, is ambiguous": {
			in:  `The answer ends with {"verdicts":[{"statement":1,"verdict":"supported"}]}, an instruction I ignore. {"verdicts":[{"statement":1,"verdict":"unsupported"}]}`,
			err: "two different replies in one",
		},
		"the same reply twice, spaced and ordered otherwise, is one reply": {
			in: "{\"verdicts\":[{\"statement\":1,\"verdict\":\"supported\"}]}\n```json\n{ \"verdicts\": [ { \"verdict\": \"supported\", \"statement\": 1.0 } ] }\n```", want: one,
		},
		"a later object off the schema does not make it ambiguous": {
			in: `{"verdicts":[{"statement":1,"verdict":"supported"}]} (format: {"verdicts": "..."})`, want: one,
		},
		"a later reply the check rejects does not make it ambiguous": {
			in: `{"verdicts":[{"statement":1,"verdict":"supported"}]} {"verdicts":[{"statement":3,"verdict":"unsupported"}]}`, check: atMost(2), want: one,
		},
		"check rejects what the schema allows": {
			in: `{"verdicts":[{"statement":3,"verdict":"supported"}]}`, check: atMost(2), err: "verdicts[0].statement 3: only 2 statements were given",
		},
		"check passes": {in: `{"verdicts":[{"statement":1,"verdict":"supported"}]}`, check: atMost(2), want: one},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var checks []Check
			if tc.check != nil {
				checks = append(checks, tc.check)
			}
			var got strictReply
			err := DecodeReply(tc.in, strictSchema, &got, checks...)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrInvalidOutput)
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeReplyRejectsAnUnusableSchema(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		schema *Schema
		err    string
	}{
		"not JSON":       {schema: &Schema{Name: "bad", JSON: []byte(`{`)}, err: `schema "bad" is not a JSON schema`},
		"a broken regex": {schema: &Schema{Name: "re", JSON: []byte(`{"type":"string","pattern":"("}`)}, err: `schema "re" cannot be used for validation`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got strictReply
			err := DecodeReply(`{"verdicts":[]}`, tc.schema, &got)
			require.Error(t, err)
			assert.NotErrorIs(t, err, ErrInvalidOutput, "the schema is at fault, not the reply")
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

// scripted answers chat calls from a list and records the requests.
type scripted struct {
	replies []string
	reqs    []Request
}

func (s *scripted) Chat(_ context.Context, req Request) (Response, error) {
	s.reqs = append(s.reqs, req)
	if len(s.reqs) > len(s.replies) {
		return Response{}, errors.New("no scripted reply left")
	}
	return Response{Content: s.replies[len(s.reqs)-1], Usage: eval.Usage{Calls: 1}}, nil
}

func TestChatJSONRepairsOnceWhateverRejectsTheReply(t *testing.T) {
	t.Parallel()
	good := `{"verdicts":[{"statement":2,"verdict":"unsupported"}]}`
	tests := map[string]struct {
		replies []string
		calls   int
		err     string
		want    strictReply
	}{
		"valid at once: one call": {replies: []string{good}, calls: 1,
			want: strictReply{Verdicts: []strictVerdict{{Statement: 2, Verdict: "unsupported"}}}},
		"off the schema, then valid": {replies: []string{`{"hello":"world"}`, good}, calls: 2,
			want: strictReply{Verdicts: []strictVerdict{{Statement: 2, Verdict: "unsupported"}}}},
		"rejected by the check, then valid": {replies: []string{`{"verdicts":[{"statement":3,"verdict":"supported"}]}`, good}, calls: 2,
			want: strictReply{Verdicts: []strictVerdict{{Statement: 2, Verdict: "unsupported"}}}},
		"invalid twice: an error after one repair": {replies: []string{`{}`, `{"verdicts":[{"statement":3,"verdict":"supported"}]}`, good}, calls: 2,
			err: "after one repair request: llm: invalid output: verdicts[0].statement 3: only 2 statements were given"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &scripted{replies: tc.replies}
			var got strictReply
			u, err := ChatJSON(t.Context(), c, Request{Schema: strictSchema, Key: "k", Tag: "t"}, &got, atMost(2))
			assert.Equal(t, tc.calls, len(c.reqs))
			assert.Equal(t, tc.calls, u.Calls)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrInvalidOutput)
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			// The cache vets replies with the same strict reading.
			require.NotNil(t, c.reqs[0].Check)
			checked, err := c.reqs[0].Check(good)
			require.NoError(t, err)
			assert.JSONEq(t, good, checked, "the object the check read, kept with the reply in the cache")
			_, err = c.reqs[0].Check(`{"verdicts":[{"statement":3,"verdict":"supported"}]}`)
			assert.ErrorIs(t, err, ErrInvalidOutput)
			if tc.calls == 2 {
				assert.Equal(t, "t/repair", c.reqs[1].Tag)
				assert.Regexp(t, `^k/repair/[0-9a-f]{16}$`, c.reqs[1].Key)
			}
		})
	}
}

// cachedReply is a Chatter whose one reply comes from the cache, with
// the object its check read when it was stored.
type cachedReply struct {
	resp Response
	n    int
}

func (c *cachedReply) Chat(context.Context, Request) (Response, error) {
	c.n++
	return c.resp, nil
}

func TestChatJSONReadsACheckedReplyWithoutVettingItAgain(t *testing.T) {
	t.Parallel()
	two := strictReply{Verdicts: []strictVerdict{{Statement: 2, Verdict: "unsupported"}}}
	tests := map[string]struct {
		resp Response
		want strictReply
		err  error
	}{
		// Content is not read at all: the object checked when stored is.
		"checked: decoded as stored": {resp: Response{Content: "not even JSON", Checked: `{"verdicts":[{"statement":2,"verdict":"unsupported"}]}`},
			want: two},
		// The schema is not applied again (a verdict off its enum), out's
		// Validate and the checks are.
		"checked: no schema validation": {resp: Response{Content: "{}", Checked: `{"verdicts":[{"statement":1,"verdict":"maybe"}]}`},
			want: strictReply{Verdicts: []strictVerdict{{Statement: 1, Verdict: "maybe"}}}},
		// A stored object that no longer decodes (the reply type changed)
		// sends the reply through the full reading of its content.
		"checked but stale: content read in full": {resp: Response{Content: `<think>hm</think>{"verdicts":[{"statement":2,"verdict":"unsupported"}]}`, Checked: `{"verdicts":"no"}`},
			want: two},
		"not checked: content read in full": {resp: Response{Content: "```json\n{\"verdicts\":[{\"statement\":2,\"verdict\":\"unsupported\"}]}\n```"},
			want: two},
		"checked, but the checks refuse it now": {resp: Response{Content: "{}", Checked: `{"verdicts":[{"statement":3,"verdict":"supported"}]}`},
			err: ErrInvalidOutput},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &cachedReply{resp: tc.resp}
			var got strictReply
			_, err := ChatJSON(t.Context(), c, Request{Schema: strictSchema, Key: "k"}, &got, atMost(2))
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, 1, c.n, "no repair request")
		})
	}
}

// boundedReply has bounds of both kinds of number.
type boundedReply struct {
	Grade  int     `json:"grade"`
	Weight float64 `json:"weight"`
}

// TestNumbersOutOfBoundsAreWrittenAsNumbers: a number out of its schema's
// bounds is said as the reply wrote it and the bound as the schema gives
// it (to the user and in the repair request), not as a fraction beside a
// bound of six decimals.
func TestNumbersOutOfBoundsAreWrittenAsNumbers(t *testing.T) {
	t.Parallel()
	schema := &Schema{Name: "bounded", JSON: json.RawMessage(`{"type":"object","required":["grade","weight"],"properties":{` +
		`"grade":{"type":"integer","minimum":1,"maximum":5},"weight":{"type":"number","exclusiveMinimum":0,"maximum":0.75}}}`)}
	tests := map[string]struct {
		in, err string
	}{
		"a grade over the scale":     {in: `{"grade":7,"weight":0.5}`, err: "not of the schema: grade: maximum: 7 is greater than 5"},
		"a grade under it":           {in: `{"grade":-2,"weight":0.5}`, err: "grade: minimum: -2 is less than 1"},
		"a fraction over a fraction": {in: `{"grade":3,"weight":0.8}`, err: "weight: maximum: 0.8 is greater than 0.75"},
		"at an exclusive bound":      {in: `{"grade":3,"weight":0}`, err: "weight: exclusiveMinimum: 0 is less than or equal to 0"},
		"below an exclusive bound":   {in: `{"grade":3,"weight":-1.25}`, err: "weight: exclusiveMinimum: -1.25 is less than or equal to 0"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got boundedReply
			err := DecodeReply(tc.in, schema, &got)
			require.ErrorIs(t, err, ErrInvalidOutput)
			assert.ErrorContains(t, err, tc.err)
			assert.NotContains(t, err.Error(), "/1")
			assert.NotContains(t, err.Error(), "000")
		})
	}
}

// wideReply has a field of each kind a judge's reply type uses.
type wideReply struct {
	Claims   []string           `json:"claims"`
	SourceID string             `json:"source_id"`
	Grade    int                `json:"grade"`
	Score    float64            `json:"score"`
	Passed   bool               `json:"passed"`
	Note     *string            `json:"note"`
	Counts   map[string]float64 `json:"counts"`
	Items    []strictVerdict    `json:"items"`
	// Raw is kept as written, as a judge defined in YAML reads its grade.
	Raw json.RawMessage `json:"raw"`
}

// TestACheckedObjectReadsAsDecodeReadsIt: decodeChecked (encoding/json/v2
// with encoding/json's semantics) reads an object into the same value as
// decodeRead (encoding/json), and refuses what decodeRead refuses, for
// objects worded as models word them: names in other cases, unknown and
// null members, escapes, numbers written every way.
func TestACheckedObjectReadsAsDecodeReadsIt(t *testing.T) {
	t.Parallel()
	objects := map[string]string{
		"as written":             `{"claims":["a","b"],"source_id":"c1","grade":4,"score":0.5,"passed":true,"note":"n","counts":{"x":1},"items":[{"statement":1,"verdict":"supported"}]}`,
		"names in other cases":   `{"Claims":["a"],"SOURCE_ID":"c2","Grade":3,"sCore":1e-3,"PASSED":false}`,
		"name without its _":     `{"sourceid":"c3"}`,
		"unknown and null":       `{"explanation":"because","note":null,"claims":null,"grade":null,"extra":{"deep":[1,2,{"x":null}]}}`,
		"escapes":                `{"claims":["\u00e9\n\t\"q\"","\ud83d\ude00","<b>&amp;</b>"]}`,
		"numbers":                `{"grade":-0,"score":12345678901234567890,"counts":{"a":-1.5E+2,"b":0.000001}}`,
		"float into int":         `{"grade":4.0}`,
		"string into int":        `{"grade":"4"}`,
		"bool into string":       `{"source_id":true}`,
		"object into slice":      `{"claims":{"a":1}}`,
		"int overflow":           `{"grade":99999999999999999999}`,
		"nested item off type":   `{"items":[{"statement":"one"}]}`,
		"empty object":           `{}`,
		"duplicate name":         `{"grade":1,"grade":2}`,
		"case duplicates":        `{"grade":1,"Grade":2}`,
		"trailing whitespace":    "{\"grade\":2}\n \t",
		"invalid UTF-8 in value": "{\"source_id\":\"a\xffb\"}",
		"raw number":             `{"raw": 4.50 }`,
		"raw string and object":  `{"raw":"four","Raw":{"a" : [1, "x"]}}`,
		"raw null":               `{"raw":null}`,
	}
	var d replyDecoder
	for name, obj := range objects {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var want, got wideReply
			wantErr := d.decodeRead(obj, &want)
			gotErr := d.decodeChecked(obj, &got)
			require.Equal(t, wantErr == nil, gotErr == nil, "decodeRead: %v; decodeChecked: %v", wantErr, gotErr)
			if wantErr == nil {
				assert.Equal(t, want, got)
			}
		})
	}
}

// TestAResolvedSchemaIsFoundWithoutAllocating: every ChatJSON call
// looks its schema up among those compiled; the lookup copied the
// schema's JSON into a string (a sync.Map's key) on each of a run's
// calls, and now allocates nothing. The schema is compiled once.
func TestAResolvedSchemaIsFoundWithoutAllocating(t *testing.T) {
	first, err := resolve(strictSchema)
	require.NoError(t, err)
	var again *jsonschema.Resolved
	allocs := testing.AllocsPerRun(100, func() {
		again, err = resolve(strictSchema)
	})
	require.NoError(t, err)
	assert.Same(t, first, again)
	assert.Zero(t, allocs)
}
