package eval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func TestDecodeSourcesNamesLineAndFieldInJSONTerms(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		data string
		want string
	}{
		"a credibility that is text": {"[\n {\"url\": \"https://a.org\"},\n {\"url\": \"https://b.org\", \"credibility\": \"high\"}\n]",
			"s.json:3: credibility: must be a number, got string"},
		"references that are not whole": {"[\n {\"url\": \"https://a.org\", \"references\": 1.5}\n]",
			"s.json:2: references: must be a whole number, got number 1.5"},
		"author_verified as text": {"[\n {\"url\": \"https://a.org\", \"author_verified\": \"yes\"}\n]",
			"s.json:2: author_verified: must be true or false, got string"},
		"sources that are not an array": {`{"sources": "x"}`,
			"s.json:1: sources: must be an array, got string"},
		"an unknown field": {"[\n {\"url\": \"https://a.org\"},\n {\"url\": \"https://b.org\", \"refs\": 3}\n]",
			`s.json:3: refs: unknown field`},
		"credibility out of range": {"[\n {\"url\": \"https://a.org\"},\n {\"url\": \"https://b.org\", \"credibility\": 11}\n]",
			"s.json:3: sources[1].credibility: must be between 1 and 10, got 11"},
		"credibility_score out of range": {"[\n {\"url\": \"https://b.org\", \"credibility_score\": 0.5}\n]",
			"s.json:2: sources[0].credibility_score: must be between 1 and 10, got 0.5"},
		"no input": {"",
			"s.json: empty input: expected a JSON array of sources, or an object with sources"},
		"blank input": {" \n\t",
			"s.json: empty input: expected a JSON array of sources, or an object with sources"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := eval.DecodeSources("s.json", []byte(tc.data))
			require.Error(t, err)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
