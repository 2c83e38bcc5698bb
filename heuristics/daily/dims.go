package daily

import (
	"bytes"
	"encoding/json"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Dim is one dimension score of a scorer, 0-100.
type Dim struct {
	Name  string
	Score float64
}

// Dims are a scorer's dimension scores in the seed's order. They encode as
// a JSON object or a YAML mapping in that order.
type Dims []Dim

// Get returns the score of the named dimension.
func (d Dims) Get(name string) (float64, bool) {
	for _, x := range d {
		if x.Name == name {
			return x.Score, true
		}
	}
	return 0, false
}

// MarshalJSON implements json.Marshaler.
func (d Dims) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(x.Name)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(x.Score, 'f', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler (the order of the object).
func (d *Dims) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	*d = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v float64
		if err := dec.Decode(&v); err != nil {
			return err
		}
		k, _ := t.(string)
		*d = append(*d, Dim{k, v})
	}
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Dims) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, x := range d {
		n.Content = append(n.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: x.Name},
			&yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(x.Score, 'f', -1, 64)})
	}
	return n, nil
}

// weighted is the weighted sum of dimension scores by the weights, in
// order, rounded to one decimal.
func weighted(d Dims, w ...float64) float64 {
	s := 0.0
	for i, x := range d {
		s += x.Score * w[i]
	}
	return round1(s)
}

// clamp holds v to 0-100 and rounds it to one decimal.
func clamp(v float64) float64 { return round1(min(100, max(0, v))) }

// share is 100*n/of, or 100 when of is 0 (nothing to get wrong).
func share(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return round1(100 * float64(n) / float64(of))
}
