package assertions

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
)

// A JSON schema can send a validator round in a circle: a "$ref" to
// itself, or an allOf whose member refers back to the schema holding it.
// Keywords that apply a subschema to the same value ($ref, allOf, not,
// if...) do not read into the value, so nothing ends such a circle, and
// the validator (github.com/google/jsonschema-go) recurses until the Go
// runtime kills the process. JSON Schema 2020-12 (core, section 9.4.1)
// asks validators to refuse such schemas; schemaLoop finds them before
// any answer is validated. A ref under properties or items is no circle:
// each turn reads one level deeper into the value, which is finite.

// inPlace are the keywords whose subschemas apply to the value the schema
// applies to: a single subschema, a list of them, or a map of them.
var (
	inPlaceOne  = []string{"not", "if", "then", "else"}
	inPlaceList = []string{"allOf", "anyOf", "oneOf"}
	inPlaceMap  = []string{"dependentSchemas", "dependencies"}
)

// deeper are the other keywords that hold subschemas, walked only to
// find every subschema a reference may name.
var (
	deeperOne  = []string{"items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties", "contains", "propertyNames", "contentSchema"}
	deeperList = []string{"items", "prefixItems"}
	deeperMap  = []string{"properties", "patternProperties", "$defs", "definitions"}
)

// schemaNode is one subschema: its place (a JSON pointer from the root),
// the base URI its references resolve against, and the subschemas it
// applies in place.
type schemaNode struct {
	obj     map[string]any
	at      string
	base    *url.URL
	inPlace []*schemaNode
}

// schemaIndex is every subschema of a schema, by the URIs that name it.
type schemaIndex struct {
	nodes []*schemaNode
	byURI map[string]*schemaNode
}

// schemaRoot is the base URI of a schema without an $id: a name of no
// real place, never fetched, so that relative $id and $ref resolve.
var schemaRoot = &url.URL{Scheme: "https", Host: "schema.invalid", Path: "/root.json"}

// schemaLoop returns, when schema has a circle of references and in-place
// subschemas, the places along it ("#/$defs/a → #/$defs/a"); else "".
func schemaLoop(schema map[string]any) string {
	ix := &schemaIndex{byURI: map[string]*schemaNode{}}
	root := ix.add(schema, "", schemaRoot, "")
	for _, n := range ix.nodes {
		for _, kw := range []string{"$ref", "$dynamicRef"} {
			if ref, ok := n.obj[kw].(string); ok {
				n.inPlace = append(n.inPlace, ix.targets(n, ref)...)
			}
		}
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[*schemaNode]int{}
	var path []*schemaNode
	var visit func(n *schemaNode) string
	visit = func(n *schemaNode) string {
		switch state[n] {
		case open:
			i := slices.Index(path, n)
			var at []string
			for _, p := range append(path[i:], n) {
				at = append(at, "#"+p.at)
			}
			return strings.Join(at, " → ")
		case done:
			return ""
		}
		state[n] = open
		path = append(path, n)
		for _, m := range n.inPlace {
			if loop := visit(m); loop != "" {
				return loop
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return ""
	}
	if loop := visit(root); loop != "" {
		return loop
	}
	for _, n := range ix.nodes {
		if loop := visit(n); loop != "" {
			return loop
		}
	}
	return ""
}

// add indexes the subschema obj at the JSON pointer at (from the root;
// local is from its resource, the nearest $id), under base, and its
// subschemas; it returns its node.
func (ix *schemaIndex) add(obj map[string]any, at string, base *url.URL, local string) *schemaNode {
	n := &schemaNode{obj: obj, at: at}
	if id, ok := obj["$id"].(string); ok && id != "" {
		if u, err := url.Parse(id); err == nil {
			if strings.HasPrefix(id, "#") { // draft-07: a plain-name fragment is an anchor
				ix.byURI[uriKey(base, u.Fragment)] = n
			} else {
				base, local = base.ResolveReference(u), ""
			}
		}
	}
	n.base = base
	ix.nodes = append(ix.nodes, n)
	ix.byURI[uriKey(base, local)] = n
	for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
		if a, ok := obj[kw].(string); ok && a != "" {
			ix.byURI[uriKey(base, a)] = n
		}
	}
	child := func(v any, token string, same bool) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		c := ix.add(m, at+"/"+token, base, local+"/"+token)
		if same {
			n.inPlace = append(n.inPlace, c)
		}
	}
	for _, kw := range append(slices.Clone(inPlaceOne), deeperOne...) {
		child(obj[kw], escapeToken(kw), slices.Contains(inPlaceOne, kw))
	}
	for _, kw := range append(slices.Clone(inPlaceList), deeperList...) {
		if list, ok := obj[kw].([]any); ok {
			for i, v := range list {
				child(v, escapeToken(kw)+"/"+fmt.Sprint(i), slices.Contains(inPlaceList, kw))
			}
		}
	}
	for _, kw := range append(slices.Clone(inPlaceMap), deeperMap...) {
		if m, ok := obj[kw].(map[string]any); ok {
			for _, k := range sortedKeys(m) {
				child(m[k], escapeToken(kw)+"/"+escapeToken(k), slices.Contains(inPlaceMap, kw))
			}
		}
	}
	return n
}

// uriKey is the URI of the fragment frag of base, as the index keys it.
func uriKey(base *url.URL, frag string) string {
	u := *base
	u.Fragment, u.RawFragment = "", ""
	return u.String() + "#" + frag
}

// targets are the subschemas ref, written in n, may lead to: the one it
// names, and for a $dynamicRef to an anchor, any subschema of that
// dynamic anchor (which one is decided while validating).
func (ix *schemaIndex) targets(n *schemaNode, ref string) []*schemaNode {
	u, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	abs := n.base.ResolveReference(u)
	var out []*schemaNode
	if t, ok := ix.byURI[uriKey(abs, abs.Fragment)]; ok {
		out = append(out, t)
	}
	if frag := abs.Fragment; frag != "" && !strings.HasPrefix(frag, "/") {
		for _, m := range ix.nodes {
			if a, ok := m.obj["$dynamicAnchor"].(string); ok && a == frag && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// escapeToken escapes a JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// schemaCounts are the keywords of JSON Schema whose value MUST be a whole
// number of 0 or more.
var schemaCounts = []string{"maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties"}

// schemaTypes are JSON Schema's type names, the only values its type
// keyword may hold.
var schemaTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// schemaBadValue says where schema has a value JSON Schema forbids and
// which would fail every answer or which the validator refuses without
// saying where: a multipleOf not above 0, a count (maxLength, minItems...)
// below 0 or not whole, or a type that is none of JSON's
// ("Object", "int", "list"); "" when there is none.
func schemaBadValue(schema map[string]any) string {
	ix := &schemaIndex{byURI: map[string]*schemaNode{}}
	ix.add(schema, "", schemaRoot, "")
	for _, n := range ix.nodes {
		if m, ok := n.obj["multipleOf"].(float64); ok && !(m > 0) {
			return fmt.Sprintf("multipleOf at #%s is %v: it must be a number above 0", n.at, m)
		}
		for _, k := range schemaCounts {
			if c, ok := n.obj[k].(float64); ok && (c < 0 || c != math.Trunc(c)) {
				return fmt.Sprintf("%s at #%s is %v: it must be a whole number of 0 or more", k, n.at, c)
			}
		}
		types := []any{n.obj["type"]}
		if list, ok := n.obj["type"].([]any); ok {
			types = list
		}
		for _, t := range types {
			if name, ok := t.(string); ok && !slices.Contains(schemaTypes, name) {
				return fmt.Sprintf("type at #%s is %q, not a JSON Schema type: write one of %s", n.at, name, strings.Join(schemaTypes, ", "))
			}
		}
	}
	return ""
}
