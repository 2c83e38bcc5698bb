package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
)

// profileWithJudge is a report profile that defines a judge in block
// style with a rubric and weighs it, and faithfulness, on its card.
const profileWithJudge = `name: cited
kind: report
pass:
  threshold: 4
scorers:
  - metric: grounding
    max: 5
  - metric: faithfulness
    max: 1
  - metric: plain
    max: 2
judges:
  - name: plain
    criterion: A newcomer can follow the report.
    scale: 1-5
    rubric:
      1: jargon throughout
      5: plain throughout
`

// TestProfileDefinesJudges: a profile's judges are metrics of the
// registry it keeps (a copy: the one it was read with is unchanged),
// model-only, on a card of its kind, built and weighed to their max.
func TestProfileDefinesJudges(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile("cited.yaml", []byte(profileWithJudge))
	require.NoError(t, err)
	assert.Equal(t, []string{"grounding", "faithfulness", "plain"}, p.Names())
	e, ok := p.Metrics().Lookup("plain")
	require.True(t, ok)
	assert.True(t, e.ModelOnly)
	assert.Equal(t, []string{KindReport, KindContext}, e.Profiles)
	d, ok := judges.DefinitionOf(e)
	require.True(t, ok)
	assert.Equal(t, "cited.yaml", d.File)
	assert.Equal(t, 13, d.Line)
	_, inBuiltins := Builtins().Lookup("plain")
	assert.False(t, inBuiltins, "the built-in registry is not changed")
	require.ErrorContains(t, p.Metrics().CheckModel(p.Names(), nil), "plain is a judge defined in a judges file or a profile")

	// Offline, faithfulness on a report card checks the report's claims,
	// not its headings, and is weighed to its max of 1.
	s := eval.Sample{Answer: "# Title\n\nThe library opened in 1921 [r](https://example.org/r \"opened in 1921\").\n",
		Sources: []eval.Source{{URL: "https://example.org/r", Text: "The library opened in 1921."}}}
	sc := p.Scorers(Options{})[1]
	got, err := scoreOne(t.Context(), sc, s, heuristics.ParseOnce(s))
	require.NoError(t, err)
	assert.InDelta(t, 1, got.Value, 1e-9, "its one claim is supported")
	assert.InDelta(t, 1, got.Points, 1e-9)
	assert.InDelta(t, 1, got.Max, 1e-9)
}

// TestProfileJudgesRefused: a profile's judges are checked as a judges
// file's, and against what the profile's kind reads; errors name the
// file, the line and the key.
func TestProfileJudgesRefused(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		profile string
		want    string
	}{
		"a judge no scorer can name": {"name: p\nkind: report\npass: {threshold: 1}\nscorers: [{metric: tone, max: 1}]\n",
			`p.yaml:4: scorers[0].metric: unknown metric "tone" for kind report`},
		"a reference in a report": {"name: p\nkind: report\npass: {threshold: 1}\nscorers: [{metric: grounding, max: 1}]\njudges: [{name: tone, criterion: c, scale: 1-5, fields: [answer, reference]}]\n",
			"p.yaml:5: judges[0].fields[1]: judge tone reads reference, which a profile of kind report never has"},
		"metadata in a context": {"name: p\nkind: context\npass: {threshold: 1}\nscorers: [{metric: context_quality, max: 1}]\njudges: [{name: tone, criterion: c, scale: 1-5, fields: [metadata.tier]}]\n",
			"judges[0].fields[0]: judge tone reads metadata.tier"},
		"a threshold off the scale": {"name: p\nkind: report\npass: {threshold: 1}\nscorers: [{metric: grounding, max: 1}]\njudges:\n  - {name: tone, criterion: c, scale: 1-5, threshold: 9}\n",
			"p.yaml:6: judges[0].threshold: want a grade from 1 to 5"},
		"two of one name": {"name: p\nkind: report\npass: {threshold: 1}\nscorers: [{metric: grounding, max: 1}]\njudges:\n  - {name: tone, criterion: c, scale: 1-5}\n  - {name: tone, criterion: d, scale: 1-5}\n",
			`p.yaml:7: judges[1].name: "tone" names two judges of the list`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("p.yaml", []byte(tc.profile))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			var ie *eval.InputError
			assert.ErrorAs(t, err, &ie)
		})
	}
}
