// Package yamlpath finds where a field of a YAML document stands, so that
// an error in a profile or a judges file names its line, and rewords the
// YAML decoder's errors to name it too.
package yamlpath

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
)

// ExtraDocument reports whether dec, which has read a file's first
// document, finds another that holds anything (more than comments or a
// null after a ---), and its line. A file read for its first document
// alone would leave the rest out without a word: callers refuse it.
func ExtraDocument(dec *yaml.Decoder) (line int, found bool) {
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		if errors.Is(err, io.EOF) {
			return 0, false
		}
		if err != nil || !emptyDocument(&next) {
			return next.Line, true
		}
	}
}

// emptyDocument reports whether doc holds nothing: no node, or a null
// (a trailing --- with only comments after it).
func emptyDocument(doc *yaml.Node) bool {
	for _, n := range doc.Content {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!null" {
			return false
		}
	}
	return true
}

// Line finds the line of a dotted field path ("scorers[1].max") in a YAML
// document, or the deepest part of it that exists.
func Line(n *yaml.Node, field string) int {
	line := n.Line
	for _, part := range strings.Split(strings.ReplaceAll(field, "[", ".["), ".") {
		if part == "" {
			continue
		}
		switch {
		case strings.HasPrefix(part, "["):
			var i int
			if _, err := fmt.Sscanf(part, "[%d]", &i); err != nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
		default:
			if n.Kind != yaml.MappingNode {
				return line
			}
			var next *yaml.Node
			for k := 0; k+1 < len(n.Content); k += 2 {
				if n.Content[k].Value == part {
					next = n.Content[k+1]
					line = n.Content[k].Line
				}
			}
			if next == nil {
				return line
			}
			n = next
		}
		line = max(line, n.Line)
	}
	return line
}

// The YAML decoder's messages that DecodeError rewords, compiled on first
// use: only a file that does not decode needs them.
var (
	yamlErrLine    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): (.*)$`) })
	yamlUnknown    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type `) })
	yamlDupKey     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^mapping key "(.*)" already defined at line \d+$`) })
	yamlWrongType  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^cannot unmarshal !!\\w+ `(.*)` into (\\S+)$") })
	yamlWrongKind  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cannot unmarshal !!(seq|map) into (\S+)$`) })
	yamlIndex      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\d+\]$`) })
	yamlNumberType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(u?int|float)\d*$`) })
)

// DecodeError turns one of the YAML decoder's type errors ("line 4: cannot
// unmarshal !!str `eight` into float64") into an *eval.InputError that
// names the line and the field, in words rather than Go types.
func DecodeError(file string, doc *yaml.Node, msg string) error {
	ie := &eval.InputError{File: file, Msg: msg}
	m := yamlErrLine().FindStringSubmatch(msg)
	if m == nil {
		return ie
	}
	ie.Line, _ = strconv.Atoi(m[1])
	ie.Msg = m[2]
	ie.Field = fieldAt(doc, ie.Line, "")
	if u := yamlUnknown().FindStringSubmatch(m[2]); u != nil {
		ie.Msg = "unknown field"
		// The key itself, not a key or item of its value on its line.
		if k := keyAt(doc, ie.Line, u[1], ""); k != "" {
			ie.Field = k
		}
		if ie.Field == "" {
			ie.Field = u[1]
		}
		return ie
	}
	if d := yamlDupKey().FindStringSubmatch(m[2]); d != nil {
		// The key written twice, not the last key on its line.
		if k := keyAt(doc, ie.Line, d[1], ""); k != "" {
			ie.Field = k
		}
		return ie
	}
	if t := yamlWrongType().FindStringSubmatch(m[2]); t != nil {
		// Of the values on the line (a JSON file has one line), the one
		// written as the message quotes it.
		if f := valueAt(doc, ie.Line, "", func(v *yaml.Node, _ bool) bool { return v.Kind == yaml.ScalarNode && v.Value == t[1] }); f != "" {
			ie.Field = f
		}
		switch into := t[2]; {
		case strings.HasPrefix(into, "[]"):
			ie.Msg = "must be a list"
		case strings.HasPrefix(into, "float"):
			ie.Msg = fmt.Sprintf("must be a number, got %q", t[1])
		case yamlNumberType().MatchString(into):
			ie.Msg = fmt.Sprintf("must be a whole number, got %q", t[1])
		case into == "string":
			ie.Msg = fmt.Sprintf("must be text, got %q", t[1])
		case into == "bool":
			ie.Msg = fmt.Sprintf("must be true or false, got %q", t[1])
		default:
			ie.Msg = "must be a mapping of fields"
		}
	}
	if k := yamlWrongKind().FindStringSubmatch(m[2]); k != nil && !strings.HasPrefix(k[2], "[]") {
		// A list or mapping where one value belongs: the key, not the
		// item on its line, is at fault.
		got := map[string]string{"seq": "a list", "map": "a mapping"}[k[1]]
		kind := map[string]yaml.Kind{"seq": yaml.SequenceNode, "map": yaml.MappingNode}[k[1]]
		if f := valueAt(doc, ie.Line, "", func(v *yaml.Node, _ bool) bool { return v.Kind == kind }); f != "" && f != ie.Field {
			ie.Field = f
		} else {
			ie.Field = yamlIndex().ReplaceAllString(ie.Field, "")
		}
		switch into := k[2]; {
		case into == "string":
			ie.Msg = "must be text, got " + got
		case strings.HasPrefix(into, "float") || yamlNumberType().MatchString(into):
			ie.Msg = "must be a number, got " + got
		}
	}
	return ie
}

// fieldAt returns the dotted path ("scorers[0].max") of the deepest key
// on the given line of a YAML document, or of a plain list item there,
// or "".
func fieldAt(n *yaml.Node, line int, path string) string {
	return valueAt(n, line, path, func(v *yaml.Node, item bool) bool { return !item || v.Kind == yaml.ScalarNode })
}

// keyAt returns the dotted path of the mapping key named name on the
// given line of a YAML document, or "".
func keyAt(n *yaml.Node, line int, name, path string) string {
	switch n.Kind {
	case yaml.MappingNode:
		for k := 0; k+1 < len(n.Content); k += 2 {
			key, val := n.Content[k], n.Content[k+1]
			p := join(path, key.Value)
			if key.Line == line && key.Value == name {
				return p
			}
			if f := keyAt(val, line, name, p); f != "" {
				return f
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if f := keyAt(c, line, name, fmt.Sprintf("%s[%d]", path, i)); f != "" {
				return f
			}
		}
	}
	return ""
}

// join is the dotted path of key under path ("" at the top).
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// valueAt is the path of the last value (in the order written) that a
// key or list item on line holds and that ok accepts (item says it is a
// list item), "" when none does: of the values a line holds (all of a
// JSON file's), the one a decoding error describes.
func valueAt(n *yaml.Node, line int, path string, ok func(v *yaml.Node, item bool) bool) string {
	found := ""
	switch n.Kind {
	case yaml.MappingNode:
		for k := 0; k+1 < len(n.Content); k += 2 {
			key, val := n.Content[k], n.Content[k+1]
			p := join(path, key.Value)
			if key.Line == line && ok(val, false) {
				found = p
			}
			if f := valueAt(val, line, p, ok); f != "" {
				found = f
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if c.Line == line && ok(c, true) {
				found = p
			}
			if f := valueAt(c, line, p, ok); f != "" {
				found = f
			}
		}
	}
	return found
}
