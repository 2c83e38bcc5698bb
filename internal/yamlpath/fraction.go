package yamlpath

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
)

// Fraction returns the error of a number with a fraction (4.9, 2.5e0)
// written in doc where v, the value doc was decoded into, holds a whole
// number: the YAML decoder truncates it to the integer without a word
// (a min_unique of 4.9 read as 4, a relevance cutoff of 2.5 as 2). The
// error names file, the line and the field. Nil when there is none.
func Fraction(file string, doc *yaml.Node, v any) error {
	field, n := fraction(doc, reflect.TypeOf(v), "", 0)
	if n == nil {
		return nil
	}
	return &eval.InputError{File: file, Line: n.Line, Field: field, Msg: fmt.Sprintf("must be a whole number, got %s", n.Value)}
}

// unmarshaler is yaml.Unmarshaler: a type that decodes itself is left to
// its own rules.
var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// fraction walks node n with t, the type it decodes into, and returns
// the path and node of the first number with a fraction where t holds
// an integer. depth bounds the walk (a type that holds itself).
func fraction(n *yaml.Node, t reflect.Type, path string, depth int) (string, *yaml.Node) {
	if n == nil || t == nil || depth > 64 {
		return "", nil
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return fraction(n.Content[0], t, path, depth+1)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		return "", nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if hasFraction(n) {
			return path, n
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return "", nil
		}
		for i, c := range n.Content {
			if p, bad := fraction(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1); bad != nil {
				return p, bad
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return "", nil
		}
		for k := 0; k+1 < len(n.Content); k += 2 {
			if p, bad := fraction(n.Content[k+1], t.Elem(), join(path, n.Content[k].Value), depth+1); bad != nil {
				return p, bad
			}
		}
	case reflect.Struct:
		return structFraction(n, t, path, depth)
	}
	return "", nil
}

// hasFraction reports whether scalar n is a number with a fraction.
func hasFraction(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!float" {
		return false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	return err != nil || f != math.Trunc(f)
}

// structFraction is fraction of a mapping node n decoded into struct t:
// each key's value with the type of the field it fills (by its yaml tag,
// or its lowercased name; an inline field's keys are the struct's own).
func structFraction(n *yaml.Node, t reflect.Type, path string, depth int) (string, *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return "", nil
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			if p, bad := fraction(n, sf.Type, path, depth+1); bad != nil {
				return p, bad
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		for k := 0; k+1 < len(n.Content); k += 2 {
			if n.Content[k].Value == name {
				if p, bad := fraction(n.Content[k+1], sf.Type, join(path, name), depth+1); bad != nil {
					return p, bad
				}
			}
		}
	}
	return "", nil
}
