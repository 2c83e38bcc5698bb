package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeReplyRefusesAKeyGivenTwice: a reply that names a field twice
// in one object says two things, and a JSON decoder would keep the last
// in silence (a grade of 1 then 5 read as 5): it is an invalid reply,
// repaired once, naming the field; a reply naming each once is read.
func TestDecodeReplyRefusesAKeyGivenTwice(t *testing.T) {
	t.Parallel()
	type finding struct {
		Claim   int    `json:"claim" schema:"minimum=1"`
		Verdict string `json:"verdict" schema:"enum=holds,enum=fails"`
	}
	type report struct {
		Score    int       `json:"score" schema:"minimum=1,maximum=5"`
		Findings []finding `json:"findings"`
	}
	schema := SchemaFor[report]("report")
	tests := map[string]struct {
		reply string
		want  string // "": read
		score int
	}{
		"a score given twice":               {reply: `{"score": 1, "findings": [], "score": 5}`, want: `score given twice`},
		"a verdict given twice in an item":  {reply: `{"score": 3, "findings": [{"claim": 1, "verdict": "holds", "verdict": "fails"}]}`, want: `findings[0].verdict given twice`},
		"in prose, the object given twice":  {reply: "Result:\n```json\n{\"score\": 2, \"score\": 4, \"findings\": []}\n```", want: `score given twice`},
		"each field once":                   {reply: `{"score": 4, "findings": [{"claim": 1, "verdict": "holds"}, {"claim": 2, "verdict": "holds"}]}`, score: 4},
		"the same key in two items is fine": {reply: `{"findings": [{"claim": 1, "verdict": "fails"}], "score": 2}`, score: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out report
			err := DecodeReply(tc.reply, schema, &out)
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.score, out.Score)
				return
			}
			require.ErrorIs(t, err, ErrInvalidOutput)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
