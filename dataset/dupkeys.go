package dataset

import "github.com/assaylabs/assay/internal/jsondup"

// duplicateKey finds the first key given twice in one object of the JSON
// value b (at any depth), which encoding/json would read as its last
// value in silence: it returns the key's path ("human.faithful") and the
// byte offsets of its two uses. b must be valid JSON (jsondup.Find).
func duplicateKey(b []byte) (path string, first, second int64, ok bool) {
	return jsondup.Find(b)
}
