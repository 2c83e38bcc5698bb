// Package yamlpath finds where a field of a YAML document stands, so that
// an error in a profile names its line.
package yamlpath

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

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
