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
	var negScore, negRerank, bigScore, bigRerank []int
	for i, c := range s.Sources {
		if c.Score < 0 {
			negScore = append(negScore, i)
		}
		if c.RerankScore != nil && *c.RerankScore < 0 {
			negRerank = append(negRerank, i)
		}
		// Above 1, a score counts where it ranks the chunk (no rerankScore
		// in its place): estimated faithfulness caps the top one at 1.
		if c.RerankScore == nil && c.Score > 1 {
			bigScore = append(bigScore, i)
		}
		if c.RerankScore != nil && *c.RerankScore > 1 {
			bigRerank = append(bigRerank, i)
		}
	}
	if len(negScore) > 0 {
		notes = append(notes, "negative score in "+chunkList(negScore)+
			": used as given (the seed does not clamp), so retrieval confidence and estimated faithfulness can fall below 0")
	}
	if len(negRerank) > 0 {
		notes = append(notes, "negative rerankScore in "+chunkList(negRerank)+
			": used as given in place of score (cross-encoder logits are not normalised), so retrieval confidence can fall below 0")
	}
	if len(bigScore) > 0 {
		notes = append(notes, "score above 1 in "+chunkList(bigScore)+
			": used as given (the seed does not clamp), so retrieval confidence and the overall score can exceed 1")
	}
	if len(bigRerank) > 0 {
		notes = append(notes, "rerankScore above 1 in "+chunkList(bigRerank)+
			": used as given in place of score (cross-encoder logits are not normalised), so retrieval confidence and the overall score can exceed 1")
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
