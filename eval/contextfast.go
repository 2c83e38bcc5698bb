package eval

import (
	"bytes"
	"io"
	"math"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeContextFast reads a valid seed 002 sample in one pass over its
// tokens (jsontext checks the syntax, UTF-8 and repeated names as it
// reads), and reports false at the first thing that is not a valid
// sample, whatever it is: the full decoder then reads the input again and
// words the error, with its position. On valid input the two give the
// same Sample (TestFastContextDecodingMatchesTheFullDecoder); a repeated
// metadata key, valid for the full decoder (the last value wins), also
// goes to it.
func decodeContextFast(data []byte) (Sample, bool) {
	// A bytes.Buffer is read in place by jsontext, not copied into a buffer
	// of its own; data is only read.
	d := fastContext{dec: jsontext.NewDecoder(bytes.NewBuffer(data))}
	s, ok := d.sample()
	if !ok {
		return Sample{}, false
	}
	if _, err := d.dec.ReadToken(); err != io.EOF { //nolint:errorlint // io.EOF is returned as it is
		return Sample{}, false // something after the object
	}
	return s, true
}

type fastContext struct {
	dec *jsontext.Decoder
}

// kind reads the next token and returns it with its kind, 0 on an error.
func (d fastContext) next() (jsontext.Token, jsontext.Kind) {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return jsontext.Token{}, 0
	}
	return tok, tok.Kind()
}

// object reads the members of an object whose '{' was read, calling field
// with each name; field reads the value. jsontext refuses a repeated name.
// The sample's own names are plain ASCII: a name written with escapes is
// left to the full decoder.
func (d fastContext) object(field func(name string) bool) bool {
	for d.dec.PeekKind() != '}' {
		if d.dec.PeekKind() != '"' {
			return false
		}
		raw, err := d.dec.ReadValue()
		if err != nil || bytes.IndexByte(raw, '\\') >= 0 {
			return false
		}
		if !field(string(raw[1 : len(raw)-1])) {
			return false
		}
	}
	_, k := d.next()
	return k == '}'
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

func (d fastContext) str(nonEmpty bool) (string, bool) {
	tok, k := d.next()
	if k != '"' {
		return "", false
	}
	s := tok.String()
	return s, !nonEmpty || s != ""
}

// number reads a number as json.Number.Float64 would (strconv on its
// text), false when it is not a finite number >= 0.
func (d fastContext) number(tok jsontext.Token) (float64, bool) {
	f, err := strconv.ParseFloat(tok.String(), 64)
	return f, err == nil && f >= 0 && !math.IsInf(f, 0)
}

// chunkScore reads a chunk score, false when it is not one the seed
// scores (validChunkScore: any finite number).
func (d fastContext) chunkScore(tok jsontext.Token) (float64, bool) {
	f, err := strconv.ParseFloat(tok.String(), 64)
	return f, err == nil && validChunkScore(f)
}

func (d fastContext) chunks() ([]Source, bool) {
	if _, k := d.next(); k != '[' {
		return nil, false
	}
	out := []Source{}
	for d.dec.PeekKind() != ']' {
		c, ok := d.chunk()
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	_, k := d.next()
	return out, k == ']'
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
			tok, k := d.next()
			if k != '0' {
				return false
			}
			var ok bool
			c.Score, ok = d.chunkScore(tok)
			return ok
		case "rerankScore":
			tok, k := d.next()
			switch k {
			case 'n':
				return true
			case '0':
				f, ok := d.chunkScore(tok)
				c.RerankScore = &f
				return ok
			}
			return false
		case "documentId":
			hasID = true
			var ok bool
			c.ID, ok = d.str(true)
			return ok
		case "metadata":
			tok, k := d.next()
			switch k {
			case 'n':
				return true
			case '{':
				v, ok := d.value(tok, k, 1)
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

// value builds the JSON value that starts with tok, as the full decoder's
// value does; deeper than maxMetadataDepth, or a number out of range, is
// left to it.
func (d fastContext) value(tok jsontext.Token, k jsontext.Kind, depth int) (any, bool) {
	if depth > maxMetadataDepth {
		return nil, false
	}
	switch k {
	case '"':
		return tok.String(), true
	case '0':
		f, err := strconv.ParseFloat(tok.String(), 64)
		return f, err == nil
	case 't', 'f':
		return k == 't', true
	case 'n':
		return nil, true
	case '[':
		arr := []any{}
		for d.dec.PeekKind() != ']' {
			tok, k := d.next()
			v, ok := d.value(tok, k, depth+1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
		}
		_, k := d.next()
		return arr, k == ']'
	case '{':
		obj := map[string]any{}
		ok := d.object(func(name string) bool {
			tok, k := d.next()
			v, ok := d.value(tok, k, depth+1)
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
			tok, k := d.next()
			if k == 'n' {
				return true // null counts as missing
			}
			hasTokens = true
			if k != '0' {
				return false
			}
			f, ok := d.number(tok)
			if !ok || f != math.Trunc(f) || f > maxTokenCount {
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
