package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/internal/jsondup"
)

// Arguments decodes a call's arguments, a JSON object written as text,
// keeping numbers as written (json.Number) so that Equal compares them
// by value. Blank text is the empty object; an object that names a key
// twice is an error.
func Arguments(text string) (map[string]any, error) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON object: invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a JSON object: more than one JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object: got %s", kindOf(v))
	}
	// A key given twice would be read as its last value in silence.
	if path, _, _, dup := jsondup.Find([]byte(text)); dup {
		return nil, fmt.Errorf("%s: given twice in one object", path)
	}
	return m, nil
}

// Equal reports whether two decoded JSON values are the same value:
// objects whatever the order of their keys, arrays element by element,
// numbers by value (1 is 1.0 is 1e0), and a string never equal to a
// number ("5" is not 5). It is Diff finding no difference.
func Equal(a, b any) bool { return Diff(a, b) == "" }

// Diff returns where two decoded JSON values first differ, as a path from
// the root and the two values ("city: want \"Paris\", got \"paris\""),
// or "" when they are equal. Object keys are visited in sorted order, so
// the difference named is always the same one.
func Diff(want, got any) string { return diff("", want, got) }

func diff(path string, want, got any) string {
	at := func(msg string) string {
		if path == "" {
			return msg
		}
		return path + ": " + msg
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return at("want an object, got " + show(got))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			wv, wok := w[k]
			gv, gok := g[k]
			p := join(path, k)
			switch {
			case !gok:
				return p + ": missing (want " + show(wv) + ")"
			case !wok:
				return p + ": not expected (got " + show(gv) + ")"
			}
			if d := diff(p, wv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return at("want an array, got " + show(got))
		}
		for i := range min(len(w), len(g)) {
			if d := diff(path+"["+strconv.Itoa(i)+"]", w[i], g[i]); d != "" {
				return d
			}
		}
		if len(w) != len(g) {
			return at(fmt.Sprintf("want %d elements, got %d", len(w), len(g)))
		}
		return ""
	case json.Number:
		g, ok := got.(json.Number)
		if !ok || !sameNumber(w, g) {
			return at("want " + show(want) + ", got " + show(got))
		}
		return ""
	default: // string, bool, nil
		if want != got {
			return at("want " + show(want) + ", got " + show(got))
		}
		return ""
	}
}

// join puts key after path; a key that is not a plain name is quoted.
func join(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// sameNumber compares two JSON numbers exactly, by value.
func sameNumber(a, b json.Number) bool {
	return a == b || numberKey(string(a)) == numberKey(string(b))
}

// numberKey writes a JSON number so that two numbers have the same key
// exactly when they have the same value, whatever their exponent: its
// sign, its significant digits and the power of ten that puts the point
// before the first ("-12.50e1" is -0.125e3: "-125e3"; zero is "0").
// Arithmetic on the exponent alone keeps it exact and cheap, where
// math/big would raise 10 to it (and refuses past a million).
func numberKey(text string) string {
	neg := strings.HasPrefix(text, "-")
	n := strings.TrimPrefix(text, "-")
	mant, exp := n, "0"
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		mant, exp = n[:i], strings.TrimPrefix(n[i+1:], "+")
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	point := len(whole)
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		return "0"
	}
	var e string
	if x, err := strconv.ParseInt(exp, 10, 64); err == nil && x > math.MinInt64/2 && x < math.MaxInt64/2 {
		e = strconv.FormatInt(x+int64(point), 10)
	} else if x, ok := new(big.Int).SetString(exp, 10); ok {
		e = x.Add(x, big.NewInt(int64(point))).String()
	} else {
		return text // not a JSON number: only equal to itself
	}
	if neg {
		digits = "-" + digits
	}
	return digits + "e" + e
}

// argsKey writes decoded arguments so that two have the same key exactly
// when they are Equal: object keys sorted, numbers by numberKey. A call's
// key is written once, so that comparing calls compares two strings.
func argsKey(args map[string]any) string {
	var b strings.Builder
	writeKey(&b, args)
	return b.String()
}

func writeKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeKey(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			writeKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case json.Number:
		b.WriteString("n" + numberKey(string(x)))
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default: // nil
		b.WriteString("null")
	}
}

// show writes a decoded JSON value as JSON, for messages.
func show(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(b.String())
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

// kindOf names the JSON type of a decoded value.
func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	return "an object"
}
