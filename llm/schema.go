package llm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/assaylabs/assay/internal/encode"
)

// SchemaFor generates the JSON schema of T in the shape OpenAI's strict
// structured outputs want: every property required, no additional
// properties, no $schema or $ref. A field's `schema` tag adds what its Go
// type cannot say, as comma-separated keyword=value pairs: minimum,
// maximum (numbers), minItems, maxItems (lists) and enum (one allowed
// string each, repeated: `schema:"enum=TP,enum=FP"`). A list is a list,
// never null.
//
// The schema's bytes are part of each request's cache key, so their form
// is fixed here rather than left to a library's: keywords in one order,
// properties in field order, and the $id of a named type.
func SchemaFor[T any](name string) *Schema {
	data, err := schemaJSON(reflect.TypeFor[T]())
	if err != nil {
		// Reflecting a Go type we wrote cannot fail at run time; a type
		// that cannot be described is a programming error.
		panic(fmt.Sprintf("llm: schema %q for %v: %v", name, reflect.TypeFor[T](), err))
	}
	return &Schema{Name: name, JSON: data}
}

// schemaJSON infers t's schema, applies its fields' schema tags and
// writes it in its wire form.
func schemaJSON(t reflect.Type) ([]byte, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, err
	}
	if err := constrain(t, s); err != nil {
		return nil, err
	}
	w, err := toWire(s)
	if err != nil {
		return nil, err
	}
	if t.Name() != "" && t.PkgPath() != "" {
		w.ID = "https://" + t.PkgPath() + "/" + dashed(t.Name())
	}
	return json.Marshal(w)
}

// constrain walks t beside its inferred schema s: a slice's schema loses
// the null the inference allows, and each struct field's schema tag is
// applied to its property.
func constrain(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if slices.Equal(s.Types, []string{"null", "array"}) {
			s.Type, s.Types = "array", nil
		}
		return constrain(t.Elem(), s.Items)
	case reflect.Map:
		return constrain(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			p := s.Properties[jsonName(f)]
			if !f.IsExported() || f.Anonymous || p == nil {
				continue
			}
			if tag, ok := f.Tag.Lookup("schema"); ok {
				if err := applyTag(p, tag); err != nil {
					return fmt.Errorf("field %s.%s: %w", t, f.Name, err)
				}
			}
			if err := constrain(f.Type, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonName is the key encoding/json writes field f under.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// applyTag sets the keywords of a schema tag on p.
func applyTag(p *jsonschema.Schema, tag string) error {
	for kv := range strings.SplitSeq(tag, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return fmt.Errorf("schema tag %q: want keyword=value, got %q", tag, kv)
		}
		var err error
		switch k {
		case "enum":
			p.Enum = append(p.Enum, v)
		case "minimum":
			p.Minimum, err = number(v)
		case "maximum":
			p.Maximum, err = number(v)
		case "minItems":
			p.MinItems, err = count(v)
		case "maxItems":
			p.MaxItems, err = count(v)
		default:
			return fmt.Errorf("schema tag %q: unknown keyword %q (minimum, maximum, minItems, maxItems, enum)", tag, k)
		}
		if err != nil {
			return fmt.Errorf("schema tag %q: %s: %w", tag, k, err)
		}
	}
	return nil
}

func number(v string) (*float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	return &f, err
}

func count(v string) (*int, error) {
	n, err := strconv.Atoi(v)
	if err == nil && n < 0 {
		err = fmt.Errorf("%d is negative", n)
	}
	return &n, err
}

// wire is a reply schema as it is sent, its keywords in this order; the
// keywords a reply type can produce are all it has.
type wire struct {
	ID                   string          `json:"$id,omitempty"`
	Items                *wire           `json:"items,omitempty"`
	Properties           *properties     `json:"properties,omitempty"`
	AdditionalProperties json.RawMessage `json:"additionalProperties,omitempty"`
	Type                 any             `json:"type,omitempty"`
	Enum                 []any           `json:"enum,omitempty"`
	Maximum              *float64        `json:"maximum,omitempty"`
	Minimum              *float64        `json:"minimum,omitempty"`
	MaxItems             *int            `json:"maxItems,omitempty"`
	MinItems             *int            `json:"minItems,omitempty"`
	Required             []string        `json:"required,omitempty"`
	Description          string          `json:"description,omitempty"`
}

// properties are an object's property schemas in field order.
type properties struct {
	names   []string
	schemas []*wire
}

func (p *properties) MarshalJSON() ([]byte, error) {
	return encode.Object(len(p.names), func(i int) (string, any) { return p.names[i], p.schemas[i] })
}

// toWire is s in its wire form; a keyword wire does not carry is an error,
// so nothing inferred is silently dropped.
func toWire(s *jsonschema.Schema) (*wire, error) {
	rest := *s
	rest.Type, rest.Types, rest.Items, rest.Properties, rest.PropertyOrder = "", nil, nil, nil, nil
	rest.AdditionalProperties, rest.Enum, rest.Maximum, rest.Minimum = nil, nil, nil, nil
	rest.MaxItems, rest.MinItems, rest.Required, rest.Description = nil, nil, nil, ""
	if b, err := json.Marshal(rest); err != nil || string(b) != "true" {
		return nil, fmt.Errorf("a reply schema cannot carry %s", b)
	}
	w := &wire{Enum: s.Enum, Maximum: s.Maximum, Minimum: s.Minimum, MaxItems: s.MaxItems, MinItems: s.MinItems,
		Required: s.Required, Description: s.Description}
	switch {
	case s.Type != "":
		w.Type = s.Type
	case s.Types != nil:
		w.Type = s.Types
	}
	var err error
	if s.Items != nil {
		if w.Items, err = toWire(s.Items); err != nil {
			return nil, err
		}
	}
	if s.Properties != nil {
		w.Properties = &properties{}
		for _, name := range s.PropertyOrder {
			p, err := toWire(s.Properties[name])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			w.Properties.names = append(w.Properties.names, name)
			w.Properties.schemas = append(w.Properties.schemas, p)
		}
	}
	if err := additional(w, s.AdditionalProperties); err != nil {
		return nil, err
	}
	return w, nil
}

// additional sets w's additionalProperties from a: false, or the schema
// of a map's values.
func additional(w *wire, a *jsonschema.Schema) error {
	if a == nil {
		return nil
	}
	if a.Not != nil {
		if b, _ := json.Marshal(a); string(b) == "false" {
			w.AdditionalProperties = json.RawMessage("false")
			return nil
		}
	}
	v, err := toWire(a)
	if err != nil {
		return err
	}
	w.AdditionalProperties, err = json.Marshal(v)
	return err
}

// dashed is a Go type name in lower case with a dash at each word's
// start: aspectList is aspect-list, URLList url-list.
func dashed(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
