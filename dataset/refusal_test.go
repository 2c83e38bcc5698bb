package dataset_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
)

// TestContentPartsKeepWhatWasSaid: of a message's content parts, the
// text parts and an assistant's refusal (OpenAI's {"type": "refusal"})
// are what it said; an image is nothing a judge reads.
func TestContentPartsKeepWhatWasSaid(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		parts string
		want  string
	}{
		"a refusal alone":       {`[{"type":"refusal","refusal":"I can't help with that."}]`, "I can't help with that."},
		"text then a refusal":   {`[{"type":"text","text":"Sorry."},{"type":"refusal","refusal":"I can't book flights."}]`, "Sorry.\n\nI can't book flights."},
		"text and an image":     {`[{"type":"text","text":"Look."},{"type":"image_url","image_url":{"url":"x"}}]`, "Look."},
		"a part without a type": {`[{"text":"Plain."}]`, "Plain."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			line := `{"id":"r1","messages":[{"role":"user","content":"Book me a flight."},{"role":"assistant","content":` + tc.parts + `}]}`
			recs, err := dataset.Read("convs.jsonl", strings.NewReader(line+"\n"))
			require.NoError(t, err)
			require.Len(t, recs, 1)
			require.Len(t, recs[0].Sample.Messages, 2)
			assert.Equal(t, tc.want, recs[0].Sample.Messages[1].Content)
		})
	}
}

// TestARefusalIsNotAMalformedPart: a refusal part whose refusal is not a
// string is refused, naming the field.
func TestARefusalIsNotAMalformedPart(t *testing.T) {
	t.Parallel()
	line := `{"id":"r1","messages":[{"role":"assistant","content":[{"type":"refusal","refusal":5}]}]}`
	_, err := dataset.Read("convs.jsonl", strings.NewReader(line+"\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "convs.jsonl:1: messages[0].content[0].refusal: want a string, got number")
}
