package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// referenceKey is the cache key as it was first written: every part of the
// request through json.Encoder. Keys must never change, or every cache
// already filled would miss; key must give the same hex for every request.
func referenceKey(c *Client, req Request) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	scope := c.Name()
	if s, ok := c.cfg.Backend.(interface{ CacheScope() string }); ok {
		scope = s.CacheScope()
	}
	_ = enc.Encode(scope)
	if req.Key != "" {
		_ = enc.Encode(req.Key)
	} else {
		_ = enc.Encode(req.Messages)
	}
	_ = enc.Encode(struct {
		S    *Schema
		T    float64
		M    int
		Seed *int
	}{req.Schema, req.Temperature, req.MaxTokens, req.Seed})
	return hex.EncodeToString(h.Sum(nil))
}

type keyReply struct {
	Verdict string  `json:"verdict" jsonschema:"yes, no or <unsure> & such"`
	Score   float64 `json:"score"`
}

func TestKeyIsTheReferenceEncoding(t *testing.T) {
	seven, zero, neg := 7, 0, -3
	typed := SchemaFor[keyReply]("verdict")
	spaced := &Schema{Name: "spaced <&>", JSON: json.RawMessage("{ \"type\" : \"object\",\n \"description\": \"a <b> & c\\u2028\" }")}
	tests := []struct {
		name string
		req  Request
	}{
		{"messages only", Request{Messages: []Message{{Role: System, Content: "judge <this> & that"}, {Role: User, Content: "line\nbreak \u2028 \"quoted\""}}}},
		{"no messages", Request{}},
		{"prompt key", Request{Key: "faithfulness@v3:ab12", Schema: typed}},
		{"prompt key with html", Request{Key: "k<&>", Schema: spaced}},
		{"temperature", Request{Key: "k", Temperature: 0.7}},
		{"tiny temperature", Request{Key: "k", Temperature: 1e-7}},
		{"huge temperature", Request{Key: "k", Temperature: 1e21}},
		{"negative zero", Request{Key: "k", Temperature: math.Copysign(0, -1)}},
		{"max tokens", Request{Key: "k", MaxTokens: 512}},
		{"seed", Request{Key: "k", Seed: &seven}},
		{"zero seed", Request{Key: "k", Seed: &zero, Schema: typed}},
		{"negative seed", Request{Key: "k", Seed: &neg, MaxTokens: -1}},
		{"empty schema", Request{Key: "k", Schema: &Schema{}}},
		{"not a number", Request{Key: "k", Temperature: math.NaN()}},
		{"top logprobs left out", Request{Key: "k", TopLogprobs: 5}},
	}
	for _, scope := range []string{"", "openai:m@http://127.0.0.1:8000/v1#json", "a\"b<c>"} {
		c := New(Config{Backend: &scopedBackend{scope: scope}})
		for _, tt := range tests {
			t.Run(scope+"/"+tt.name, func(t *testing.T) {
				want := referenceKey(c, tt.req)
				assert.Equal(t, want, c.key(tt.req))
				assert.Equal(t, want, c.key(tt.req), "asked again")
			})
		}
	}
}

// BenchmarkKey is the cache key of one judge call: a prompt key and a
// schema, as a cached rerun computes it for every call.
func BenchmarkKey(b *testing.B) {
	c := New(Config{Backend: &scopedBackend{scope: "openai:gpt-4o-mini@https://api.openai.com/v1#structured"}})
	req := Request{Key: "faithfulness.verdicts@v3:0f3c5d0e9b1a", Schema: SchemaFor[keyReply]("verdicts")}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.key(req)
	}
}

// TestKeyFollowsASchemaChangedInPlace: a schema whose JSON or name is
// changed after a call keys the next call by what it says now.
func TestKeyFollowsASchemaChangedInPlace(t *testing.T) {
	c := New(Config{Backend: &scopedBackend{scope: "s"}})
	s := &Schema{Name: "a", JSON: json.RawMessage(`{"type":"object"}`)}
	req := Request{Key: "k", Schema: s}
	first := c.key(req)
	s.JSON = json.RawMessage(`{"type":"array"}`)
	second := c.key(req)
	s.Name = "b"
	third := c.key(req)
	assert.Equal(t, referenceKey(c, req), third)
	assert.NotEqual(t, first, second)
	assert.NotEqual(t, second, third)
}
