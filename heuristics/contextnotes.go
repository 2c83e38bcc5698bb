package heuristics

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// maxNotedChunks is how many chunk positions a note lists before "and N
// more".
const maxNotedChunks = 5

// outOfRange are the chunk scores outside [0, 1] the notes name, each the
// chunks it holds for and how the seed's code reads them. Above 1, a score
// counts where it ranks its chunk (no rerankScore in its place): estimated
// faithfulness caps the top one at 1.
var outOfRange = []struct {
	what, read string
	is         func(eval.Source) bool
}{
	{"negative score", "used as given (the seed does not clamp), so retrieval confidence and estimated faithfulness can fall below 0",
		func(c eval.Source) bool { return c.Score < 0 }},
	{"negative rerankScore", "used as given in place of score (cross-encoder logits are not normalised), so retrieval confidence can fall below 0",
		func(c eval.Source) bool { return c.RerankScore != nil && *c.RerankScore < 0 }},
	{"score above 1", "used as given (the seed does not clamp), so retrieval confidence and the overall score can exceed 1",
		func(c eval.Source) bool { return c.RerankScore == nil && c.Score > 1 }},
	{"rerankScore above 1", "used as given in place of score (cross-encoder logits are not normalised), so retrieval confidence and the overall score can exceed 1",
		func(c eval.Source) bool { return c.RerankScore != nil && *c.RerankScore > 1 }},
}

// contextNotes says what seed 002's scorer found missing in a sample or
// outside the usual range, and how it was read. The figures do not depend
// on the notes: each note describes what the seed's code does anyway.
func contextNotes(s eval.Sample) []string {
	var notes []string
	switch {
	case s.Context == nil:
		notes = append(notes, "context is missing: context sufficiency is 0, as for an empty context")
	case s.Context.TextMissing:
		notes = append(notes, "context.text is missing or null: context sufficiency is 0, as for an empty context")
	}
	for _, o := range outOfRange {
		var at []int
		for i, c := range s.Sources {
			if o.is(c) {
				at = append(at, i)
			}
		}
		if len(at) > 0 {
			notes = append(notes, o.what+" in "+chunkList(at)+": "+o.read)
		}
	}
	if len(s.Sources) > 0 {
		if top := chunkRankScore(s.Sources[0]); top <= 0 {
			field := "score"
			if s.Sources[0].RerankScore != nil {
				field = "rerankScore"
			}
			notes = append(notes, fmt.Sprintf("chunks[0].%s is %s, not positive: the score spread (last over first) counts as 0",
				field, strconv.FormatFloat(top, 'g', -1, 64)))
		}
	}
	return notes
}

// chunkList names chunk positions: "chunks[0], chunks[3] and 2 more".
func chunkList(idx []int) string {
	var b strings.Builder
	for i, n := range idx {
		if i == maxNotedChunks {
			fmt.Fprintf(&b, " and %d more", len(idx)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "chunks[%d]", n)
	}
	return b.String()
}
