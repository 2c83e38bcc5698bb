package eval

import "math"

// The rules below say which values of seed 002's QualityInput are scored.
// They follow what the seed's TypeScript computes a number for, not what a
// tidy pipeline would send: anything the seed scores to a finite figure is
// accepted, and what was missing is reported by the scorer as a note
// (Evidence.Notes), never silently.
//
//   - A chunk score or rerank score is any finite number. Cross-encoders
//     emit logits, so negative and zero scores are ordinary; the seed uses
//     them as they are (retrieval confidence and estimated faithfulness
//     can then fall below 0), and so does Assay.
//   - context.text may be missing or null: the seed's `if (!context.text)
//     return 0` gives a context sufficiency of 0 without reading
//     tokenCount. Context.TextMissing records it.
//   - context.tokenCount is needed only when context.text is a non-empty
//     string, the one case where the seed reads it (without it the seed
//     computes NaN). When present it must be a whole number >= 0.

// chunkScoreWant is the error message for a chunk score that is not a
// finite number.
const (
	chunkScoreWant         = "must be a finite number, got "
	chunkScoreNullableWant = "must be null or a finite number, got "
)

// validChunkScore reports whether f is a score the seed computes a finite
// result from: any finite number, negative and zero included.
func validChunkScore(f float64) bool {
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

// contextTextRule is the rule for context's fields once the object is
// read: hasText and textNull say how "text" appeared, text is its value,
// hasTokens whether "tokenCount" was given. It returns the field at fault
// and the message, or "" when the context is scored.
func contextTextRule(hasText, textNull bool, text string, hasTokens bool) (field, msg string) {
	if hasTokens || !hasText || textNull || text == "" {
		return "", ""
	}
	return "context.tokenCount", "required field is missing (context.text is not empty)"
}

// nullableText reads context.text: a string, or null (reported as isNull).
func (r *contextSampleReader) nullableText(field string) (s string, isNull bool, err error) {
	tok, off, err := r.next()
	if err != nil {
		return "", false, err
	}
	switch t := tok.(type) {
	case nil:
		return "", true, nil
	case string:
		return t, false, nil
	}
	return "", false, r.errAt(off, field, "must be a string or null, got "+sampleTokenText(tok))
}
