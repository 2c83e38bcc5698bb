package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeContextSample reads one sample of seed 002 (the QualityInput of its
// context-quality scorer) from a JSON document:
//
//	{
//	  "query": "How do rerankers change recall?",
//	  "chunks": [
//	    {"content": "...", "score": 0.82, "rerankScore": 0.91,
//	     "documentId": "doc-7", "metadata": {"sectionTitle": "Results"}}
//	  ],
//	  "context": {"text": "...", "tokenCount": 512}
//	}
//
// The chunks become Sources in the same order (content to Text, score to
// Score, rerankScore to RerankScore, documentId to ID, metadata to
// Metadata), and the context becomes Context. The rules:
//
//   - "query" (a string, possibly empty) and "chunks" (an array, possibly
//     empty) are required. Any other top-level field is an error.
//   - A chunk needs "content" (a string; "" is allowed: it adds no facts),
//     "score" and "documentId" (a non-empty string). Its other fields are
//     ignored, since retrieval pipelines add their own.
//   - "score" must be a finite number: negative, zero and above 1 are all
//     used as they are, as the seed does not clamp them (cross-encoders
//     emit logits). "rerankScore" is optional and may be null; when present
//     it must be a finite number too. See contextrules.go.
//   - "metadata" is optional and may be null; when present it is an object,
//     kept as decoded (numbers as float64; for a repeated key the last value
//     wins, as in JSON.parse). Its "sectionTitle" may be of any type.
//   - "context" is optional: missing or null means no assembled context
//     (empty text, 0 tokens). When present, "text" is a string, or missing
//     or null (then Context.TextMissing is set and the text is empty), and
//     "tokenCount" a whole number >= 0 (1.0 and 1e3 are whole numbers),
//     needed only when the text is not empty (null counts as missing).
//     Its other fields are ignored.
//   - A field named twice in the query, chunk or context objects is an
//     error. A UTF-8 byte order mark at the start is skipped.
//
// Every error is an *InputError naming name, the line and column (in bytes)
// and the field path: "sample.json:7:16: chunks[2].score: must be a finite
// number >= 0, got \"high\"".
func DecodeContextSample(name string, data []byte) (Sample, error) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	// Valid input is read in one pass; anything else is read again by
	// the full decoder below, which words the error.
	if s, ok := decodeContextFast(data); ok {
		return s, nil
	}
	return decodeContextFull(name, data)
}

// decodeContextFull is DecodeContextSample for any input: a syntax check
// first, then a walk over the tokens that names what is wrong where.
func decodeContextFull(name string, data []byte) (Sample, error) {
	r := &contextSampleReader{name: name, data: data}
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return Sample{}, &InputError{File: name, Msg: "empty input: expected a JSON object"}
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			c, n := utf8.DecodeRune(data[off:])
			if c == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return Sample{}, r.errAt(off, "", "invalid UTF-8")
	}
	// A full syntax check first: json.Decoder.Token reports the offsets of
	// syntax errors unreliably, Unmarshal exactly.
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return Sample{}, &InputError{File: name, Msg: "invalid JSON: " + err.Error(), Err: err}
		}
		off := int(se.Offset) - 1 // the offending byte
		if strings.HasPrefix(se.Error(), "unexpected end") {
			off = len(data)
		}
		e := r.errAt(max(off, 0), "", "invalid JSON: "+se.Error())
		e.Err = err
		return Sample{}, e
	}
	r.dec = json.NewDecoder(bytes.NewReader(data))
	r.dec.UseNumber()
	return r.sample()
}

// contextSampleReader walks the tokens of a syntactically valid document,
// keeping track of offsets for error positions.
type contextSampleReader struct {
	name string
	data []byte
	dec  *json.Decoder
}

// maxMetadataDepth bounds the nesting of metadata values.
const maxMetadataDepth = 64

// maxTokenCount is the largest token count accepted: 2^53, beyond which
// float64 (and JavaScript) can no longer tell whole numbers apart.
const maxTokenCount = 1 << 53

func (r *contextSampleReader) errAt(off int, field, msg string) *InputError {
	off = min(off, len(r.data))
	line := bytes.Count(r.data[:off], []byte{'\n'}) + 1
	col := off - bytes.LastIndexByte(r.data[:off], '\n')
	return &InputError{File: r.name, Line: line, Col: col, Field: field, Msg: msg}
}

// next returns the next token and the offset where it starts.
func (r *contextSampleReader) next() (json.Token, int, error) {
	off := int(r.dec.InputOffset())
	for off < len(r.data) && strings.IndexByte(" \t\r\n,:", r.data[off]) >= 0 {
		off++
	}
	tok, err := r.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		e := r.errAt(off, "", "invalid JSON: "+err.Error())
		e.Err = err
		return nil, off, e
	}
	return tok, off, nil
}

// sampleTokenText renders a token for "got ..." in messages. For an object or an
// array it names the kind.
func sampleTokenText(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return "an array"
	case string:
		if utf8.RuneCountInString(t) > 40 {
			t = string([]rune(t)[:39]) + "…"
		}
		return strconv.Quote(t)
	case json.Number:
		return string(t)
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// object reads an object whose opening brace was just read, calling field
// for each key; field must consume the value. Repeated keys are an error.
func (r *contextSampleReader) object(path string, field func(key string, keyOff int) error) error {
	seen := map[string]bool{}
	for r.dec.More() {
		tok, off, err := r.next()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return r.errAt(off, sampleFieldPath(path, key), "duplicate field")
		}
		seen[key] = true
		if err := field(key, off); err != nil {
			return err
		}
	}
	_, _, err := r.next() // the closing brace
	return err
}

func sampleFieldPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (r *contextSampleReader) sample() (Sample, error) {
	var s Sample
	tok, start, err := r.next()
	if err != nil {
		return s, err
	}
	if tok != json.Delim('{') {
		return s, r.errAt(start, "", "must be a JSON object with query, chunks and context, got "+sampleTokenText(tok))
	}
	var hasQuery, hasChunks bool
	err = r.object("", func(key string, keyOff int) error {
		var err error
		switch key {
		case "query":
			hasQuery = true
			s.Query, err = r.str("query", false)
		case "chunks":
			hasChunks = true
			s.Sources, err = r.chunks()
		case "context":
			s.Context, err = r.context()
		default:
			return r.errAt(keyOff, "", fmt.Sprintf("unknown field %q (want query, chunks and context)", key))
		}
		return err
	})
	if err != nil {
		return Sample{}, err
	}
	switch {
	case !hasQuery:
		return Sample{}, r.errAt(start, "query", "required field is missing")
	case !hasChunks:
		return Sample{}, r.errAt(start, "chunks", "required field is missing")
	}
	return s, nil
}

// str reads a string value.
func (r *contextSampleReader) str(field string, nonEmpty bool) (string, error) {
	tok, off, err := r.next()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	switch {
	case !ok:
		if nonEmpty {
			return "", r.errAt(off, field, "must be a non-empty string, got "+sampleTokenText(tok))
		}
		return "", r.errAt(off, field, "must be a string, got "+sampleTokenText(tok))
	case nonEmpty && s == "":
		return "", r.errAt(off, field, `must be a non-empty string, got ""`)
	}
	return s, nil
}

// score reads a chunk score (validChunkScore); with nullable, null gives
// nil.
func (r *contextSampleReader) score(field string, nullable bool) (*float64, error) {
	tok, off, err := r.next()
	if err != nil {
		return nil, err
	}
	if tok == nil && nullable {
		return nil, nil
	}
	want := chunkScoreWant
	if nullable {
		want = chunkScoreNullableWant
	}
	n, ok := tok.(json.Number)
	if !ok {
		return nil, r.errAt(off, field, want+sampleTokenText(tok))
	}
	f, err := n.Float64()
	if err != nil || !validChunkScore(f) {
		return nil, r.errAt(off, field, want+sampleTokenText(tok))
	}
	return &f, nil
}

func (r *contextSampleReader) chunks() ([]Source, error) {
	tok, off, err := r.next()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('[') {
		return nil, r.errAt(off, "chunks", "must be an array, got "+sampleTokenText(tok))
	}
	out := []Source{}
	for i := 0; r.dec.More(); i++ {
		c, err := r.chunk(fmt.Sprintf("chunks[%d]", i))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	_, _, err = r.next() // the closing bracket
	return out, err
}

func (r *contextSampleReader) chunk(path string) (Source, error) {
	var c Source
	tok, start, err := r.next()
	if err != nil {
		return c, err
	}
	if tok != json.Delim('{') {
		return c, r.errAt(start, path, "must be an object, got "+sampleTokenText(tok))
	}
	var hasContent, hasScore, hasID bool
	err = r.object(path, func(key string, _ int) error {
		field := path + "." + key
		var err error
		switch key {
		case "content":
			hasContent = true
			c.Text, err = r.str(field, false)
		case "score":
			hasScore = true
			var f *float64
			if f, err = r.score(field, false); f != nil {
				c.Score = *f
			}
		case "rerankScore":
			c.RerankScore, err = r.score(field, true)
		case "documentId":
			hasID = true
			c.ID, err = r.str(field, true)
		case "metadata":
			c.Metadata, err = r.metadata(field)
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return c, err
	}
	for _, req := range []struct {
		ok   bool
		name string
	}{{hasContent, "content"}, {hasScore, "score"}, {hasID, "documentId"}} {
		if !req.ok {
			return c, r.errAt(start, path+"."+req.name, "required field is missing")
		}
	}
	return c, nil
}

func (r *contextSampleReader) metadata(field string) (map[string]any, error) {
	tok, off, err := r.next()
	if err != nil {
		return nil, err
	}
	switch tok {
	case nil:
		return nil, nil
	case json.Delim('{'):
		v, err := r.value(field, tok, off, 1)
		if err != nil {
			return nil, err
		}
		return v.(map[string]any), nil
	}
	return nil, r.errAt(off, field, "must be an object or null, got "+sampleTokenText(tok))
}

// value builds the JSON value that starts with tok, as json.Unmarshal into
// an interface would, except that a repeated key keeps its last value.
func (r *contextSampleReader) value(field string, tok json.Token, off, depth int) (any, error) {
	if depth > maxMetadataDepth {
		return nil, r.errAt(off, field, fmt.Sprintf("nested more than %d levels deep", maxMetadataDepth))
	}
	switch t := tok.(type) {
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return nil, r.errAt(off, field, "number out of range, got "+string(t))
		}
		return f, nil
	case json.Delim:
		if t == '[' {
			arr := []any{}
			for i := 0; r.dec.More(); i++ {
				path := fmt.Sprintf("%s[%d]", field, i)
				tok, off, err := r.next()
				if err != nil {
					return nil, err
				}
				v, err := r.value(path, tok, off, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, _, err := r.next()
			return arr, err
		}
		obj := map[string]any{}
		for r.dec.More() {
			k, _, err := r.next()
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			tok, off, err := r.next()
			if err != nil {
				return nil, err
			}
			v, err := r.value(field+"."+key, tok, off, depth+1)
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		_, _, err := r.next()
		return obj, err
	}
	return tok, nil // string, bool or nil
}

// skip reads and discards one value.
func (r *contextSampleReader) skip() error {
	depth := 0
	for {
		tok, _, err := r.next()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func (r *contextSampleReader) context() (*Context, error) {
	tok, start, err := r.next()
	if err != nil {
		return nil, err
	}
	switch tok {
	case nil:
		return nil, nil
	case json.Delim('{'):
	default:
		return nil, r.errAt(start, "context", "must be an object or null, got "+sampleTokenText(tok))
	}
	var c Context
	var hasText, textNull, hasTokens bool
	err = r.object("context", func(key string, _ int) error {
		var err error
		switch key {
		case "text":
			hasText = true
			c.Text, textNull, err = r.nullableText("context.text")
		case "tokenCount":
			var null bool
			c.TokenCount, null, err = r.tokenCount()
			hasTokens = !null
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if field, msg := contextTextRule(hasText, textNull, c.Text, hasTokens); field != "" {
		return nil, r.errAt(start, field, msg)
	}
	c.TextMissing = !hasText || textNull
	return &c, nil
}

// tokenCount reads context.tokenCount; null gives isNull.
func (r *contextSampleReader) tokenCount() (count int, isNull bool, err error) {
	tok, off, err := r.next()
	if err != nil || tok == nil {
		return 0, tok == nil && err == nil, err
	}
	const want = "must be a whole number >= 0, got "
	n, ok := tok.(json.Number)
	if !ok {
		return 0, false, r.errAt(off, "context.tokenCount", want+sampleTokenText(tok))
	}
	f, err := n.Float64()
	if err != nil || !(f >= 0) || f != math.Trunc(f) {
		return 0, false, r.errAt(off, "context.tokenCount", want+sampleTokenText(tok))
	}
	if f > maxTokenCount {
		return 0, false, r.errAt(off, "context.tokenCount", "must be at most 2^53, got "+sampleTokenText(tok))
	}
	return int(f), false, nil
}
