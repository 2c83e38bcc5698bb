package llm

import (
	"errors"
	"testing"
)

// FuzzDecodeJSON feeds arbitrary model replies to the tolerant decoder: it
// must never panic, and every failure must wrap ErrInvalidOutput.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"claims":["a","b"]}`, "```json\n{\"grade\":3}\n```", `{"a":`, `}{`, `{"a":"}"}`, `prose {"x":[1,{"y":"\""}]} more`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var out struct {
			Claims []string `json:"claims"`
			Grade  int      `json:"grade"`
		}
		if err := DecodeJSON(s, &out); err != nil && !errors.Is(err, ErrInvalidOutput) {
			t.Fatalf("error does not wrap ErrInvalidOutput: %v", err)
		}
	})
}
