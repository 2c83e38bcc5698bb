package judges

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/golden"
	"github.com/assaylabs/assay/llm"
)

var updateSchemas = flag.Bool("update", false, "rewrite the reply schemas' golden files")

// TestReplySchemasMatchGolden holds every reply schema the judges send to
// their golden file byte for byte: the schema is part of each request's
// cache key and of what the model is asked, so a change of library or of
// a reply type shows here first.
func TestReplySchemasMatchGolden(t *testing.T) {
	t.Parallel()
	scale := func(s string) func() *llm.Schema {
		return func() *llm.Schema {
			sc, err := ParseScale(s)
			require.NoError(t, err)
			return sc.schema()
		}
	}
	tests := map[string]struct {
		schema func() *llm.Schema
		name   string
	}{
		"grade":                  {gradeSchema, "grade"},
		"usefulness":             {usefulnessSchema, "usefulness"},
		"reasoning":              {reasoningSchema, "reasoning"},
		"turn_verdicts":          {turnSchema, "turn_verdicts"},
		"defined_steps":          {stepsSchema, definedStepsSchema},
		"defined_grade_1-5":      {scale("1-5"), definedGradeSchema},
		"defined_grade_0-10":     {scale("0-10"), definedGradeSchema},
		"defined_grade_passfail": {scale("pass/fail"), definedGradeSchema},
		"questions":              {generatedSchema, "questions"},
		"classification":         {classificationSchema, "classification"},
		"aspects":                {aspectSchema, "aspects"},
		"claims":                 {claimSchema, "claims"},
		"verdicts":               {verdictSchema, "verdicts"},
	}
	for file, tt := range tests {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			s := tt.schema()
			assert.Equal(t, tt.name, s.Name)
			golden.Equal(t, filepath.Join("testdata", "schemas", file+".json"), append(append([]byte(nil), s.JSON...), '\n'), *updateSchemas)
		})
	}
}
