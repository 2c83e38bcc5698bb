package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"sync"
)

// A request's cache key is the SHA-256 of three JSON lines, as
// json.Encoder writes them: the server's scope (Backend.Name, or its
// CacheScope when it has one), the prompt key (Request.Key, or the
// messages when there is none), and the parameters {"S": schema, "T":
// temperature, "M": max tokens, "Seed": seed}. Those bytes are the
// contract of every cache already filled: a key computed otherwise would
// miss every reply stored before it.
//
// A cached rerun computes a key for every call, so the lines that do not
// change from call to call are encoded once: the scope when the client is
// made, and the parameters line once per schema and parameters, where
// encoding/json would otherwise check and compact the schema's JSON again
// for every call.

// keyer computes the cache keys of one client's requests.
type keyer struct {
	scope []byte // the scope's line

	mu    sync.Mutex
	lines map[paramsKey]paramsLine
}

// paramsKey is what the parameters line is made of. A schema is known by
// its address; its name and JSON are checked on every use (paramsLine),
// so a schema changed after use is encoded again, never taken for the
// old one.
type paramsKey struct {
	schema  *Schema
	t       uint64 // the temperature's bits: -0 is written "-0", 0 "0"
	m       int
	seed    int
	hasSeed bool
}

// paramsLine is the parameters line encoded for a paramsKey, with the
// schema's name and JSON at the time.
type paramsLine struct {
	name string
	json []byte
	line []byte
}

// maxParamsLines bounds the lines kept: callers that build a schema for
// every call (each its own address) would otherwise grow the map without
// end. Past it the map starts again.
const maxParamsLines = 256

func newKeyer(b Backend) *keyer {
	scope := ""
	if b != nil {
		scope = b.Name()
		if s, ok := b.(interface{ CacheScope() string }); ok {
			scope = s.CacheScope()
		}
	}
	return &keyer{scope: encodeLine(scope), lines: map[paramsKey]paramsLine{}}
}

// key is the content address of req: backend, model, prompt key (or
// messages) and parameters.
func (k *keyer) key(req Request) string {
	h := sha256.New()
	h.Write(k.scope)
	if req.Key != "" {
		h.Write(encodeLine(req.Key))
	} else {
		h.Write(encodeLine(req.Messages))
	}
	h.Write(k.params(req))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// params is req's parameters line, encoded once per schema and values.
func (k *keyer) params(req Request) []byte {
	pk := paramsKey{schema: req.Schema, t: math.Float64bits(req.Temperature), m: req.MaxTokens}
	if req.Seed != nil {
		pk.seed, pk.hasSeed = *req.Seed, true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if pl, ok := k.lines[pk]; ok && (pk.schema == nil || pl.name == pk.schema.Name && bytes.Equal(pl.json, pk.schema.JSON)) {
		return pl.line
	}
	pl := paramsLine{line: encodeLine(struct {
		S    *Schema
		T    float64
		M    int
		Seed *int
	}{req.Schema, req.Temperature, req.MaxTokens, req.Seed})}
	if pk.schema != nil {
		pl.name, pl.json = pk.schema.Name, bytes.Clone(pk.schema.JSON)
	}
	if len(k.lines) >= maxParamsLines {
		clear(k.lines)
	}
	k.lines[pk] = pl
	return pl.line
}

// encodeLine is v as json.Encoder writes it: HTML escaped, with a
// newline; nothing when v cannot be encoded, as the encoder writes
// nothing then.
func encodeLine(v any) []byte {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	return buf.Bytes()
}

// key is the content address of req (see keyer).
func (c *Client) key(req Request) string { return c.keys.key(req) }
