package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeReplyNamesANull: a null where the schema wants a value is
// said to be null, in the error a result keeps and the repair request
// quotes, not in the validator's Go words ("<invalid reflect.Value>").
func TestDecodeReplyNamesANull(t *testing.T) {
	t.Parallel()
	type rating struct {
		Score int    `json:"score" schema:"minimum=0,maximum=10"`
		Why   string `json:"why"`
	}
	schema := SchemaFor[rating]("rating")
	tests := map[string]struct {
		reply, want string
	}{
		"a null number": {reply: `{"score": null, "why": "unsure"}`, want: `score: type: null has type "null", want "integer"`},
		"a null text":   {reply: `{"score": 7, "why": null}`, want: `why: type: null has type "null", want "string"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out rating
			err := DecodeReply(tc.reply, schema, &out)
			require.ErrorIs(t, err, ErrInvalidOutput)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "reflect")
		})
	}
}
