package encode

import (
	"encoding/json"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// YAMLOfJSON writes v as YAML with the keys and values of its JSON: the
// names its json tags give, in their order, and what its MarshalJSON
// methods write (null for an undefined statistic, nanoseconds for a
// duration). It is for values whose YAML must carry the keys of their JSON
// without a yaml tag beside every json tag.
func YAMLOfJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// JSON is YAML: read back as nodes, it keeps the order of its keys.
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("yaml of json: %w", err)
	}
	blockStyle(&doc)
	return YAML(w, &doc)
}

// blockStyle drops the styles JSON's syntax gave the nodes (flow
// collections, quoted strings), so that the encoder writes block YAML and
// quotes only the strings that need it.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
