// Package assertions holds Assay's deterministic checks of an answer, the
// assertions a CI test makes (promptfoo's equals, contains, regex,
// is-json): each a metric of the registry that needs no model, scores 1
// when the answer passes and 0 when it fails, and runs the same offline
// and with a model, in assay judge, bench and agree alike.
//
// # Where an assertion's argument comes from
//
// From the sample, so that every record of a dataset carries its own
// expected value, as a test case does:
//
//   - equals and contains compare with the sample's reference answer;
//   - contains_any, contains_all, regex, json_schema and length read the
//     sample's metadata field of their own name: a list of strings, a
//     pattern, a JSON schema, an object {"min": N, "max": N};
//   - is_json takes none.
//
// A Go program may write an argument in Go's types ([]string, an int, a
// schema of map[string]any and []map[string]any): it is read as its JSON
// encoding would be, and one JSON cannot hold (NaN) is an input error.
//
// A record without the argument (no reference, no metadata field), or with
// one that cannot be used (a pattern that does not compile, a schema that
// does not resolve, is of a draft the validator does not read, has a
// multipleOf of 0 or below, a count (maxLength, minItems...) below 0 or
// a type JSON Schema has not ("Object", "int"), or refers back to itself
// without reading into the value, bounds the wrong way round), is an
// input error naming the file, line and field, found by the check pass
// before anything runs.
//
// A long pattern over a long answer stops when the context of Score is
// done (a request's deadline, an interrupt), with its error.
//
// Texts are compared in Unicode NFC, so that the same characters typed two
// ways (a precomposed letter, or a letter and its combining mark) compare
// equal (a regex pattern's letters too, though not a mark it writes as
// an escape, \x{301}); the answer and the reference are trimmed of surrounding white
// space (is_json and json_schema trim only JSON's: space, tab, line feed
// and carriage return, so that a no-break space or a form feed around the
// value is not JSON, as to a JSON parser). A missing answer is judged as
// the empty text.
//
// # JSON
//
// is_json checks the grammar of RFC 8259, in UTF-8: a number of any size
// is JSON, though nesting deeper than 10000 arrays and objects is not
// read (the answer fails, the reason saying so). json_schema reads numbers
// as 64-bit floats, so an answer with a number none holds (1e999, or
// 1e-400, which would round to 0) fails, its reason saying that it is out
// of range.
package assertions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/internal/textseg"
	"github.com/assaylabs/assay/metric"
)

// Metric names of the assertions.
const (
	MetricEquals      = "equals"
	MetricContains    = "contains"
	MetricContainsAny = "contains_any"
	MetricContainsAll = "contains_all"
	MetricRegex       = "regex"
	MetricIsJSON      = "is_json"
	MetricJSONSchema  = "json_schema"
	MetricLength      = "length"
)

// Method labels an assertion's score: deterministic and exact, not an
// approximation of a judge.
const Method = "assertion"

// AddBuiltins adds the assertions to r, each a deterministic metric that
// --metric takes.
func AddBuiltins(r *metric.Registry) error {
	for _, a := range all() {
		needs := metric.NeedsAnswer
		if a.reference {
			needs |= metric.NeedsReference
		}
		e := metric.Entry{
			Name: a.name, Kind: metric.KindHeuristic, Dataset: true, Needs: needs,
			Threshold: metric.Threshold{Offline: 1, Model: 1}, // a pass is 1
			Label:     a.label,
			Build:     func(metric.Model) eval.Scorer { return a },
		}
		if err := r.Add(e); err != nil {
			return fmt.Errorf("assertions: %w", err)
		}
	}
	return nil
}

// New returns the scorer of the named assertion.
func New(name string) (eval.Scorer, error) {
	for _, a := range all() {
		if a.name == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("%w %q", metric.ErrUnknownMetric, name)
}

// assertion is one assertion: its argument read from a sample (arg: nil
// when it takes none, the error an *eval.InputError naming the field),
// and its test of the answer with that argument, which says why it passed
// or failed.
type assertion struct {
	name, label string
	reference   bool // its argument is the sample's reference
	// readsJSON: it reads the answer as a JSON text, trimmed of JSON's white
	// space only (RFC 8259: space, tab, line feed, carriage return), as
	// a JSON parser reads it; any other space around it is not JSON.
	readsJSON bool
	arg       func(s eval.Sample) (any, error)
	// test says whether the answer passes with arg, and why; it stops
	// with ctx's error when ctx is done before it ends, which only a test
	// whose work grows with its argument too (regex) can take long enough
	// to need.
	test func(ctx context.Context, answer string, arg any) (pass bool, reason string, issues []string, err error)
}

var (
	_ eval.Scorer    = assertion{}
	_ metric.Checker = assertion{}
)

// Check implements metric.Checker: the sample has the assertion's
// argument, and it can be used.
func (a assertion) Check(s eval.Sample) error {
	if a.arg == nil {
		return nil
	}
	_, err := a.arg(s)
	return err
}

// Score implements eval.Scorer.
func (a assertion) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	var arg any
	if a.arg != nil {
		var err error
		if arg, err = a.arg(s); err != nil {
			return eval.Score{}, err
		}
	}
	answer := text(s.Answer)
	if a.readsJSON {
		answer = jsonText(s.Answer)
	}
	pass, reason, issues, err := a.test(ctx, answer, arg)
	if err != nil {
		return eval.Score{}, fmt.Errorf("%s: %w", a.name, err)
	}
	v := 0.0
	if pass {
		v = 1
	}
	return eval.Score{
		Metric: a.name, Value: v, Points: v, Max: 1, Method: Method, Reason: reason,
		Evidence: eval.Evidence{Issues: issues},
	}, nil
}

// text is s as assertions compare it: trimmed of surrounding white space,
// in Unicode NFC.
func text(s string) string { return textseg.Normalize(strings.TrimSpace(s)) }

// jsonText is s as the JSON assertions read it: trimmed of the white space
// JSON's grammar allows around a value, in Unicode NFC.
func jsonText(s string) string { return textseg.Normalize(strings.Trim(s, " \t\n\r")) }

// all are the assertions, in the order they are added.
func all() []assertion {
	return []assertion{
		{name: MetricEquals, label: "Equals reference", reference: true, arg: reference(MetricEquals), test: equals},
		{name: MetricContains, label: "Contains reference", reference: true, arg: reference(MetricContains), test: contains},
		{name: MetricContainsAny, label: "Contains any", arg: stringsArg(MetricContainsAny), test: containsAny},
		{name: MetricContainsAll, label: "Contains all", arg: stringsArg(MetricContainsAll), test: containsAll},
		{name: MetricRegex, label: "Regex", arg: regexArg, test: matches},
		{name: MetricIsJSON, label: "Is JSON", readsJSON: true, test: isJSON},
		{name: MetricJSONSchema, label: "JSON schema", readsJSON: true, arg: schemaArg, test: matchesSchema},
		{name: MetricLength, label: "Length", arg: boundsArg, test: withinBounds},
	}
}

// reference reads the sample's reference, the argument of equals and
// contains; its error wraps metric.ErrNoReference.
func reference(name string) func(eval.Sample) (any, error) {
	return func(s eval.Sample) (any, error) {
		if err := metric.NeedsReference.Check(name, s); err != nil {
			return nil, err
		}
		return text(s.Reference), nil
	}
}

// argError is the input error of an assertion's metadata argument.
func argError(name, format string, a ...any) error {
	return &eval.InputError{Field: "metadata." + name, Msg: fmt.Sprintf(format, a...)}
}

// metadata returns the sample's metadata field name as JSON decodes it
// (jsonValue), or the error that it is missing or no JSON value.
func metadata(s eval.Sample, name, want string) (any, error) {
	v, ok := s.Metadata[name]
	if !ok || v == nil {
		return nil, argError(name, "missing: the %s assertion reads its argument here, %s", name, want)
	}
	v, err := jsonValue(v)
	if err != nil {
		return nil, argError(name, "not a JSON value: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return v, nil
}

// jsonValue is v as encoding/json decodes a JSON value into an any
// (strings, float64, bools, nil, []any, map[string]any), so that an
// argument a Go program wrote ([]string, an int, a []map[string]any of
// subschemas) is read as the same argument in a dataset; an error for
// what JSON cannot hold (NaN, a channel).
func jsonValue(v any) (any, error) {
	if decoded(v) {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// decoded reports whether v is already as encoding/json decodes JSON.
func decoded(v any) bool {
	switch x := v.(type) {
	case nil, string, bool:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if !decoded(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !decoded(e) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonKind names a decoded JSON value for messages: its type, whether
// it is empty, and a string's or a number's value (quoted and escaped),
// so that "300" written for 300 is told apart.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		switch {
		case x == "":
			return "an empty string"
		case strings.TrimSpace(x) == "":
			return fmt.Sprintf("a blank string (%q)", clip(x, 40))
		}
		return fmt.Sprintf("a string (%q)", clip(x, 40))
	case float64:
		return "a number (" + strconv.FormatFloat(x, 'g', -1, 64) + ")"
	case bool:
		return fmt.Sprintf("a boolean (%t)", x)
	case []any:
		if len(x) == 0 {
			return "an empty list"
		}
		return "a list"
	case map[string]any:
		if len(x) == 0 {
			return "an empty object"
		}
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func equals(_ context.Context, answer string, arg any) (bool, string, []string, error) {
	ref := arg.(string)
	if answer == ref {
		return true, "the answer equals the reference", nil, nil
	}
	i := 0
	for i < len(answer) && i < len(ref) && answer[i] == ref[i] {
		i++
	}
	// Two characters that differ may share their first bytes (ก and ข,
	// é and è): the difference starts where the character does.
	for i > 0 && i < len(answer) && !utf8.RuneStart(answer[i]) {
		i--
	}
	at := utf8.RuneCountInString(answer[:i]) + 1
	return false, fmt.Sprintf("the answer differs from the reference from character %d (%d characters, the reference %d)",
		at, utf8.RuneCountInString(answer), utf8.RuneCountInString(ref)), nil, nil
}

func contains(_ context.Context, answer string, arg any) (bool, string, []string, error) {
	if strings.Contains(answer, arg.(string)) {
		return true, "the answer contains the reference", nil, nil
	}
	return false, "the answer does not contain the reference", nil, nil
}

// stringsArg reads a non-empty list of non-empty strings.
func stringsArg(name string) func(eval.Sample) (any, error) {
	return func(s eval.Sample) (any, error) {
		v, err := metadata(s, name, `a list of strings, ["..."]`)
		if err != nil {
			return nil, err
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return nil, argError(name, "want a non-empty list of strings, got %s", jsonKind(v))
		}
		out := make([]string, len(list))
		for i, e := range list {
			str, ok := e.(string)
			if !ok || strings.TrimSpace(str) == "" {
				return nil, argError(name, "item %d: want a non-empty string, got %s", i, jsonKind(e))
			}
			out[i] = text(str)
		}
		return out, nil
	}
}

func containsAny(_ context.Context, answer string, arg any) (bool, string, []string, error) {
	want := arg.([]string)
	for _, w := range want {
		if strings.Contains(answer, w) {
			return true, fmt.Sprintf("the answer contains %q", w), nil, nil
		}
	}
	return false, fmt.Sprintf("the answer contains none of the %d strings", len(want)), quoted("missing", want), nil
}

func containsAll(_ context.Context, answer string, arg any) (bool, string, []string, error) {
	want := arg.([]string)
	var missing []string
	for _, w := range want {
		if !strings.Contains(answer, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return true, fmt.Sprintf("the answer contains all %d strings", len(want)), nil, nil
	}
	return false, fmt.Sprintf("the answer lacks %d of the %d strings", len(missing), len(want)), quoted("missing", missing), nil
}

// quoted is one issue per string: what, and the string quoted.
func quoted(what string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%s: %q", what, s)
	}
	return out
}

// regexArg reads and compiles the pattern (Go's RE2 syntax).
func regexArg(s eval.Sample) (any, error) {
	v, err := metadata(s, MetricRegex, "a pattern in Go's RE2 syntax")
	if err != nil {
		return nil, err
	}
	p, ok := v.(string)
	if !ok || p == "" {
		return nil, argError(MetricRegex, "want a non-empty pattern string, got %s", jsonKind(v))
	}
	// In NFC as the answer is, so that a letter and its accent typed
	// apart in the pattern (as a file from macOS may have them) match
	// the same letter in the answer.
	re, err := regexp.Compile(textseg.Normalize(p))
	if err != nil {
		return nil, argError(MetricRegex, "the pattern does not compile: %s", termtext.Visible(strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
	}
	return re, nil
}

// maxPatternShown is the most characters of a pattern a reason shows: a
// long alternation would otherwise push what matched past the end of the
// reason a result keeps (eval.MaxText).
const maxPatternShown = 200

func matches(ctx context.Context, answer string, arg any) (bool, string, []string, error) {
	re := arg.(*regexp.Regexp)
	p := termtext.Visible(clip(re.String(), maxPatternShown))
	loc, err := find(ctx, re, answer)
	if err != nil {
		return false, "", nil, err
	}
	if loc != nil {
		return true, fmt.Sprintf("the answer matches /%s/ (%q)", p, clip(answer[loc[0]:loc[1]], 60)), nil, nil
	}
	return false, fmt.Sprintf("the answer does not match /%s/", p), nil, nil
}

// findCheckedWork is the size of a match (the pattern's length times
// the answer's, in bytes) above which find reads the answer in steps
// that see whether ctx is done: RE2 is linear in each, so a long pattern
// of loops ((a*)(a*)...) over a long answer takes hours, which a request's
// deadline or an interrupt must be able to stop.
const findCheckedWork = 1 << 22

// findCheckEvery is how many characters find reads between two looks at
// ctx.
const findCheckEvery = 64

// find is re.FindStringIndex(answer), which stops with ctx's error when
// ctx is done first.
func find(ctx context.Context, re *regexp.Regexp, answer string) ([]int, error) {
	if len(re.String())*len(answer) <= findCheckedWork {
		return re.FindStringIndex(answer), nil
	}
	r := &ctxRuneReader{stop: ctx.Err, r: strings.NewReader(answer)}
	loc := re.FindReaderIndex(r)
	if r.err != nil {
		return nil, r.err
	}
	return loc, nil
}

// ctxRuneReader reads runes from r until stop (a context's Err) returns
// an error, then ends as if at the end of the text, keeping the error.
type ctxRuneReader struct {
	stop func() error
	r    *strings.Reader
	n    int
	err  error
}

func (c *ctxRuneReader) ReadRune() (rune, int, error) {
	if c.n++; c.n%findCheckEvery == 0 && c.err == nil {
		c.err = c.stop()
	}
	if c.err != nil {
		return 0, 0, io.EOF
	}
	return c.r.ReadRune()
}

// checkJSON says why the answer is not one JSON text (RFC 8259: an
// object, an array, a string, a number, true, false or null, with nothing
// after it, in UTF-8), or nil when it is one. The grammar puts no bound on
// a number, so 1e999 is JSON.
func checkJSON(answer string) error {
	if answer == "" {
		return errors.New("the answer is empty")
	}
	if !utf8.ValidString(answer) {
		// RFC 8259, section 8.1: JSON text exchanged between systems is
		// UTF-8; a decoder would put U+FFFD in place of the byte in silence.
		at := 0
		for at < len(answer) {
			r, w := utf8.DecodeRuneInString(answer[at:])
			if r == utf8.RuneError && w <= 1 {
				break
			}
			at += w
		}
		return fmt.Errorf("it is not UTF-8 text: an invalid byte at character %d", utf8.RuneCountInString(answer[:at])+1)
	}
	// A RawMessage takes any value: only the grammar is checked.
	err := json.Unmarshal([]byte(answer), new(json.RawMessage))
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		// Where it breaks, in characters, and the text from there: the
		// decoder's message quotes a byte, which is no character in Thai.
		at := max(int(se.Offset)-1, 0)
		if tooDeep(answer[:min(int(se.Offset), len(answer))]) {
			return fmt.Errorf("it nests deeper than %d levels, the most the check reads", jsonMaxDepth)
		}
		for at > 0 && !utf8.RuneStart(answer[at]) {
			at--
		}
		if at >= len(answer) || strings.HasPrefix(se.Error(), "unexpected end") {
			return errors.New("it ends before the JSON value does")
		}
		return fmt.Errorf("it breaks at character %d (%q)", utf8.RuneCountInString(answer[:at])+1, clip(answer[at:], 20))
	}
	return err
}

// parseJSON reads the answer as one JSON value (checkJSON) for a schema
// to validate, its numbers as 64-bit floats; a number no float holds
// (1e999) is said to be out of range, as no schema could check it.
func parseJSON(answer string) (any, error) {
	if err := checkJSON(answer); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(answer))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return floats(v)
}

// floats is v with each json.Number as a float64, or the error naming a
// number out of a float64's range.
func floats(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || f == 0 && !zero(string(x)) { // 1e-400 rounds to 0
			return nil, fmt.Errorf("the number %s is out of the range of a 64-bit float (about ±1.8e308), so no schema can check it", clip(string(x), 40))
		}
		return f, nil
	case []any:
		for i, e := range x {
			f, err := floats(e)
			if err != nil {
				return nil, err
			}
			x[i] = f
		}
	case map[string]any:
		for k, e := range x {
			f, err := floats(e)
			if err != nil {
				return nil, err
			}
			x[k] = f
		}
	}
	return v, nil
}

// zero reports whether the JSON number n is written as a zero: no digit
// of its mantissa is above 0.
func zero(n string) bool {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		n = n[:i]
	}
	return !strings.ContainsAny(n, "123456789")
}

// jsonMaxDepth is the deepest nesting of arrays and objects that
// encoding/json reads.
const jsonMaxDepth = 10000

// tooDeep reports whether the JSON text s opens more than jsonMaxDepth
// arrays and objects at once (outside its strings).
func tooDeep(s string) bool {
	depth, in, esc := 0, false, false
	for i := range len(s) {
		c := s[i]
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case in:
		case c == '[' || c == '{':
			if depth++; depth > jsonMaxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

func isJSON(_ context.Context, answer string, _ any) (bool, string, []string, error) {
	if err := checkJSON(answer); err != nil {
		return false, "the answer is not valid JSON: " + err.Error(), nil, nil
	}
	return true, "the answer is valid JSON", nil, nil
}

// schemaArg reads the JSON schema and resolves it; references to other
// documents are refused, as nothing is fetched.
func schemaArg(s eval.Sample) (any, error) {
	v, err := metadata(s, MetricJSONSchema, "a JSON schema object")
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, argError(MetricJSONSchema, "want a JSON schema object, got %s", jsonKind(v))
	}
	// Before the validator's decoder, whose errors do not say where.
	if bad := schemaBadValue(v.(map[string]any)); bad != "" {
		return nil, argError(MetricJSONSchema, "the schema cannot be used: %s", bad)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, argError(MetricJSONSchema, "%v", err)
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(b, &js); err != nil {
		return nil, argError(MetricJSONSchema, "not a JSON schema: %v", err)
	}
	rs, err := js.Resolve(nil)
	if err != nil {
		return nil, argError(MetricJSONSchema, "the schema cannot be used: %v", err)
	}
	if d := js.Schema; !slices.Contains(schemaDrafts, d) {
		return nil, argError(MetricJSONSchema, "the schema cannot be used: $schema %q is a draft the validator does not read: write %q (draft 2020-12) or %q (draft-07), or leave $schema out", d, schemaDrafts[1], schemaDrafts[2])
	}
	if loop := schemaLoop(v.(map[string]any)); loop != "" {
		return nil, argError(MetricJSONSchema, "the schema cannot be used: it refers back to itself without reading into the value (%s), so no validation could end", loop)
	}
	return rs, nil
}

// schemaDrafts are the $schema values the validator reads: none (draft
// 2020-12), draft 2020-12 and draft-07 (as http or https).
var schemaDrafts = []string{"", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#"}

func matchesSchema(_ context.Context, answer string, arg any) (bool, string, []string, error) {
	if err := checkJSON(answer); err != nil {
		return false, "the answer is not valid JSON: " + err.Error(), nil, nil
	}
	v, err := parseJSON(answer)
	if err != nil {
		return false, "the answer's JSON cannot be checked: " + err.Error(), nil, nil
	}
	if err := arg.(*jsonschema.Resolved).Validate(v); err != nil {
		return false, "the answer's JSON does not match the schema", []string{err.Error()}, nil
	}
	return true, "the answer's JSON matches the schema", nil, nil
}

// bounds are length's limits in characters; a negative one is unset.
type bounds struct{ min, max int }

// maxBound is the largest bound length takes: 2^53, the largest whole
// number a JSON number (a 64-bit float) holds exactly.
const maxBound = 1 << 53

// boundsArg reads {"min": N, "max": N}, at least one of them, whole
// numbers >= 0, min <= max.
func boundsArg(s eval.Sample) (any, error) {
	v, err := metadata(s, MetricLength, `{"min": N, "max": N} in characters`)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, argError(MetricLength, `want an object {"min": N, "max": N}, got %s`, jsonKind(v))
	}
	b := bounds{-1, -1}
	for _, k := range sortedKeys(obj) { // the first wrong key, the same each run
		if k != "min" && k != "max" {
			return nil, argError(MetricLength, "unknown key %q: want min and max", k)
		}
		n, ok := obj[k].(float64)
		switch {
		case !ok || n < 0 || n != math.Trunc(n):
			return nil, argError(MetricLength, "%s: want a whole number of characters, 0 or more, got %s", k, jsonKind(obj[k]))
		case n > maxBound:
			return nil, argError(MetricLength, "%s: %g is above %d, the most characters a bound counts", k, n, maxBound)
		}
		if k == "min" {
			b.min = int(n)
		} else {
			b.max = int(n)
		}
	}
	switch {
	case b.min < 0 && b.max < 0:
		return nil, argError(MetricLength, "give min, max or both")
	case b.max >= 0 && b.min > b.max:
		return nil, argError(MetricLength, "min %d is above max %d", b.min, b.max)
	}
	return b, nil
}

func withinBounds(_ context.Context, answer string, arg any) (bool, string, []string, error) {
	b, n := arg.(bounds), utf8.RuneCountInString(answer)
	switch {
	case b.min >= 0 && n < b.min:
		return false, fmt.Sprintf("the answer has %d characters, below the minimum %d", n, b.min), nil, nil
	case b.max >= 0 && n > b.max:
		return false, fmt.Sprintf("the answer has %d characters, above the maximum %d", n, b.max), nil, nil
	}
	return true, fmt.Sprintf("the answer has %d characters (%s)", n, b), nil, nil
}

// String is the bounds as a reason names them.
func (b bounds) String() string {
	switch {
	case b.min < 0:
		return fmt.Sprintf("at most %d", b.max)
	case b.max < 0:
		return fmt.Sprintf("at least %d", b.min)
	}
	return fmt.Sprintf("%d to %d", b.min, b.max)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
