package eval

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeContextFast reads a valid seed 002 sample in one pass over its
// tokens (jsontext checks the syntax and UTF-8 as it reads; object finds
// repeated names), and reports false at the first thing that is not a valid
// sample, whatever it is: the full decoder then reads the input again and
// words the error, with its position. On valid input the two give the
// same Sample (TestFastContextDecodingMatchesTheFullDecoder); a repeated
// metadata key, valid for the full decoder (the last value wins), also
// goes to it.
//
// The input is copied once into a string, and the sample's strings (and
// the numbers' text) are pieces of it where the JSON has no escape; the
// decoder and its name tables are kept in a pool between calls.
func decodeContextFast(data []byte) (Sample, bool) {
	pd := decoders.Get().(*pooledDecoder)
	defer pd.release()
	// A bytes.Buffer is read in place by jsontext, not copied into a
	// buffer of its own; data is only read.
	pd.in = *bytes.NewBuffer(data)
	pd.dec.Reset(&pd.in, allowRepeatedNames)
	d := fastContext{dec: &pd.dec, in: string(data)}
	s, ok := d.sample()
	if !ok {
		return Sample{}, false
	}
	if _, err := d.dec.ReadToken(); err != io.EOF { //nolint:errorlint // io.EOF is returned as it is
		return Sample{}, false // something after the object
	}
	return s, true
}

// pooledDecoder is a decoder kept for the next sample: jsontext's tables
// of the names seen in each object are reused, not made again.
type pooledDecoder struct {
	dec jsontext.Decoder
	in  bytes.Buffer
}

var decoders = sync.Pool{New: func() any { return new(pooledDecoder) }}

// allowRepeatedNames turns off jsontext's own table of each object's
// names: object keeps the few names of an object on the stack instead.
var allowRepeatedNames = jsontext.AllowDuplicateNames(true)

// maxObjectNames is the most names object reads in one object; an object
// with more (none of the sample's own has) is left to the full decoder.
const maxObjectNames = 32

// release puts pd back in the pool, holding nothing of the input.
func (pd *pooledDecoder) release() {
	pd.in = bytes.Buffer{}
	pd.dec.Reset(&pd.in)
	decoders.Put(pd)
}

type fastContext struct {
	dec *jsontext.Decoder
	// in is the input, as a string: a string value without escapes is
	// a piece of it.
	in string
}

// next reads the next token and returns it with its kind, 0 on an error.
func (d fastContext) next() (jsontext.Token, jsontext.Kind) {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return jsontext.Token{}, 0
	}
	return tok, tok.Kind()
}

// raw reads the next value and returns its text: a piece of the input
// (a string without its quotes), unless a string holds escapes (escaped
// is then true and the text is unquoted). quoted says the value was a
// string.
func (d fastContext) raw() (text string, quoted, escaped, ok bool) {
	v, err := d.dec.ReadValue()
	if err != nil {
		return "", false, false, false
	}
	end := int(d.dec.InputOffset())
	start := end - len(v)
	if v[0] != '"' {
		return d.in[start:end], false, false, true
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return d.in[start+1 : end-1], true, false, true
	}
	b, err := jsontext.AppendUnquote(nil, v)
	return string(b), true, true, err == nil
}

// object reads the members of an object whose '{' was read, calling field
// with each name; field reads the value. A repeated name, valid for the
// full decoder in metadata only (the last value wins) and an error
// elsewhere, is left to it, as is an object of more than maxObjectNames
// names. The sample's own names are plain ASCII: a name written with
// escapes is left to the full decoder too, so that names are compared as
// they are written.
func (d fastContext) object(field func(name string) bool) bool {
	var names [maxObjectNames]string
	n := 0
	for {
		switch d.dec.PeekKind() {
		case '}':
			_, k := d.next()
			return k == '}'
		case '"':
		default:
			return false
		}
		name, _, escaped, ok := d.raw()
		if !ok || escaped || n == len(names) || slices.Contains(names[:n], name) {
			return false
		}
		names[n] = name
		n++
		if !field(name) {
			return false
		}
	}
}

func (d fastContext) sample() (Sample, bool) {
	var s Sample
	if _, k := d.next(); k != '{' {
		return s, false
	}
	var hasQuery, hasChunks bool
	ok := d.object(func(name string) bool {
		ok := false
		switch name {
		case "query":
			hasQuery = true
			s.Query, ok = d.str(false)
		case "chunks":
			hasChunks = true
			s.Sources, ok = d.chunks()
		case "context":
			s.Context, ok = d.context()
		}
		return ok
	})
	return s, ok && hasQuery && hasChunks
}

// str reads a string. Its kind is checked once the value is read: a
// value of another kind fails the sample all the same.
func (d fastContext) str(nonEmpty bool) (string, bool) {
	s, quoted, _, ok := d.raw()
	return s, ok && quoted && (!nonEmpty || s != "")
}

// float reads a number as json.Number.Float64 would (strconv on its
// text), false when the next value is not a number.
func (d fastContext) float() (float64, bool) {
	text, quoted, _, ok := d.raw()
	if !ok || quoted || (text[0] != '-' && (text[0] < '0' || text[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	return f, err == nil
}

// chunkScore reads a chunk score, false when it is not one the seed
// scores (validChunkScore: any finite number).
func (d fastContext) chunkScore() (float64, bool) {
	f, ok := d.float()
	return f, ok && validChunkScore(f)
}

func (d fastContext) chunks() ([]Source, bool) {
	if _, k := d.next(); k != '[' {
		return nil, false
	}
	// The chunks are gathered on the stack, then copied once to a slice
	// of their number.
	var few [8]Source
	out := few[:0]
	for d.dec.PeekKind() != ']' {
		c, ok := d.chunk()
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	if _, k := d.next(); k != ']' {
		return nil, false
	}
	return append(make([]Source, 0, len(out)), out...), true
}

func (d fastContext) chunk() (Source, bool) {
	var c Source
	if _, k := d.next(); k != '{' {
		return c, false
	}
	var hasContent, hasScore, hasID bool
	ok := d.object(func(name string) bool {
		switch name {
		case "content":
			hasContent = true
			var ok bool
			c.Text, ok = d.str(false)
			return ok
		case "score":
			hasScore = true
			var ok bool
			c.Score, ok = d.chunkScore()
			return ok
		case "rerankScore":
			if d.dec.PeekKind() == 'n' {
				_, k := d.next()
				return k == 'n'
			}
			f, ok := d.chunkScore()
			c.RerankScore = &f
			return ok
		case "documentId":
			hasID = true
			var ok bool
			c.ID, ok = d.str(true)
			return ok
		case "metadata":
			switch d.dec.PeekKind() {
			case 'n':
				_, k := d.next()
				return k == 'n'
			case '{':
				v, ok := d.value(1)
				if ok {
					c.Metadata = v.(map[string]any)
				}
				return ok
			}
			return false
		}
		return d.dec.SkipValue() == nil
	})
	return c, ok && hasContent && hasScore && hasID
}

// value builds the next JSON value, as the full decoder's value does;
// deeper than maxMetadataDepth, or a number out of range, is left to it.
func (d fastContext) value(depth int) (any, bool) {
	if depth > maxMetadataDepth {
		return nil, false
	}
	switch k := d.dec.PeekKind(); k {
	case '"':
		return d.str(false)
	case '0':
		return d.float()
	case 't', 'f', 'n':
		_, got := d.next()
		if k == 'n' {
			return nil, got == 'n'
		}
		return got == 't', got == k
	case '[':
		d.next()
		arr := []any{}
		for d.dec.PeekKind() != ']' {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
		}
		_, k := d.next()
		return arr, k == ']'
	case '{':
		d.next()
		obj := map[string]any{}
		ok := d.object(func(name string) bool {
			v, ok := d.value(depth + 1)
			obj[name] = v
			return ok
		})
		return obj, ok
	}
	return nil, false
}

func (d fastContext) context() (*Context, bool) {
	_, k := d.next()
	switch k {
	case 'n':
		return nil, true
	case '{':
	default:
		return nil, false
	}
	var c Context
	var hasText, textNull, hasTokens bool
	ok := d.object(func(name string) bool {
		switch name {
		case "text":
			hasText = true
			if d.dec.PeekKind() == 'n' {
				textNull = true
				_, k := d.next()
				return k == 'n'
			}
			var ok bool
			c.Text, ok = d.str(false)
			return ok
		case "tokenCount":
			if d.dec.PeekKind() == 'n' {
				_, k := d.next()
				return k == 'n' // null counts as missing
			}
			hasTokens = true
			f, ok := d.float()
			if !ok || f < 0 || math.IsInf(f, 0) || f != math.Trunc(f) || f > maxTokenCount {
				return false
			}
			c.TokenCount = int(f)
			return true
		}
		return d.dec.SkipValue() == nil
	})
	if field, _ := contextTextRule(hasText, textNull, c.Text, hasTokens); !ok || field != "" {
		return nil, false
	}
	c.TextMissing = !hasText || textNull
	return &c, true
}
