package agree_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/stats"
)

// jurorOf is a juror named metric whose rows are ids with values and
// binary labels (grades when graded).
func jurorOf(metric string, values, labels []float64, graded bool, th float64) agree.Juror {
	rows := make([]agree.Row, len(values))
	for i, v := range values {
		rows[i] = agree.Row{ID: string(rune('a' + i)), Line: i + 1, Value: v, Label: !graded && labels[i] == 1}
		if graded {
			g := labels[i]
			rows[i].Grade = &g
		}
		if math.IsNaN(v) {
			rows[i] = agree.Row{ID: rows[i].ID, Line: i + 1, Label: rows[i].Label, Grade: rows[i].Grade, Defaulted: true, Err: "model down"}
		}
	}
	return agree.Juror{Result: agree.Rows(metric, rows, 0, agree.Options{Label: "l", Graded: graded, Threshold: &th}), Threshold: th}
}

func TestJuryBinary(t *testing.T) {
	t.Parallel()
	labels := []float64{1, 1, 0, 0, 1, 0}
	nan := math.NaN()
	tests := map[string]struct {
		a, b      []float64
		thB       float64
		kappa     float64
		n         int
		jury      []float64
		defaulted int
	}{
		// Verdicts A 110010, B 100011: 4 of 6 agree, each says yes 3 times,
		// so chance agreement is 1/2 and kappa = (2/3 - 1/2) / (1/2) = 1/3.
		"same threshold": {
			a: []float64{0.9, 0.8, 0.2, 0.1, 0.7, 0.3}, b: []float64{0.9, 0.2, 0.3, 0.1, 0.8, 0.9}, thB: 0.5,
			kappa: 1.0 / 3, n: 6, jury: []float64{0.9, 0.5, 0.25, 0.1, 0.75, 0.6},
		},
		// B at 0.25 says 101011: 3 of 6 agree, A yes 3/6, B yes 4/6:
		// chance = 1/2*2/3 + 1/2*1/3 = 1/2, so kappa = 0.
		"own thresholds": {
			a: []float64{0.9, 0.8, 0.2, 0.1, 0.7, 0.3}, b: []float64{0.9, 0.2, 0.3, 0.1, 0.8, 0.9}, thB: 0.25,
			kappa: 0, n: 6, jury: []float64{0.9, 0.5, 0.25, 0.1, 0.75, 0.6},
		},
		// A defaulted on the second record: the pair has 5 records, verdicts
		// A 1_0010, B 1_0011: 4 of 5 agree; A yes 2/5, B yes 3/5; chance =
		// 6/25 + 6/25 = 12/25; kappa = (20/25 - 12/25) / (13/25) = 8/13.
		"a default": {
			a: []float64{0.9, nan, 0.2, 0.1, 0.7, 0.3}, b: []float64{0.9, 0.2, 0.3, 0.1, 0.8, 0.9}, thB: 0.5,
			kappa: 8.0 / 13, n: 5, jury: []float64{0.9, 0.2, 0.25, 0.1, 0.75, 0.6},
		},
		// No juror counted the second record: the jury defaults it too, and
		// the pair's kappa is the previous case's.
		"both defaulted": {
			a: []float64{0.9, nan, 0.2, 0.1, 0.7, 0.3}, b: []float64{0.9, nan, 0.3, 0.1, 0.8, 0.9}, thB: 0.5,
			kappa: 8.0 / 13, n: 5, jury: []float64{0.9, 0, 0.25, 0.1, 0.75, 0.6}, defaulted: 1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := agree.Jury([]agree.Juror{jurorOf("A", tc.a, labels, false, 0.5), jurorOf("B", tc.b, labels, false, tc.thB)}, agree.Options{Label: "l"})
			require.NoError(t, err)
			assert.Equal(t, []string{"A", "B"}, res.Jurors)
			require.Len(t, res.Pairwise, 1)
			assert.Equal(t, tc.n, res.Pairwise[0].N)
			assert.InDelta(t, tc.kappa, float64(res.Pairwise[0].Kappa), 1e-12)
			assert.Nil(t, res.AlphaOrdinal)
			assert.Equal(t, agree.JuryMetric, res.Jury.Metric)
			require.Len(t, res.Jury.Rows, len(tc.jury))
			for i, want := range tc.jury {
				assert.InDelta(t, want, res.Jury.Rows[i].Value, 1e-12, "row %d", i)
			}
			assert.Equal(t, tc.defaulted, res.Jury.Defaulted)
			assert.Equal(t, 6-tc.defaulted, res.Jury.N)
			require.NotNil(t, res.Jury.Fixed)
			assert.InDelta(t, (0.5+tc.thB)/2, res.Jury.Fixed.Threshold, 1e-12)
		})
	}
}

func TestJuryGraded(t *testing.T) {
	t.Parallel()
	labels := []float64{1, 2, 3, 4, 5, 3}
	tests := map[string]struct {
		jurors [][]float64
		jury   []float64
	}{
		// Two jurors tie on every disagreement: the lower grade wins.
		"a tie takes the lower": {
			jurors: [][]float64{{1, 2, 3, 4, 5, 3}, {2, 2, 4, 5, 5, 1}},
			jury:   []float64{1, 2, 3, 4, 5, 1},
		},
		"the majority": {
			jurors: [][]float64{{1, 2, 3, 4, 5, 3}, {2, 2, 4, 5, 5, 1}, {2, 3, 4, 4, 1, 1}},
			jury:   []float64{2, 2, 4, 4, 5, 1},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var jurors []agree.Juror
			for i, vs := range tc.jurors {
				jurors = append(jurors, jurorOf(string(rune('A'+i)), vs, labels, true, 0))
			}
			opts := agree.Options{Label: "l", Graded: true, Grades: []float64{1, 2, 3, 4, 5}}
			res, err := agree.Jury(jurors, opts)
			require.NoError(t, err)
			assert.Empty(t, res.Pairwise)
			require.NotNil(t, res.AlphaOrdinal)
			units := make([][]float64, len(labels))
			for i := range labels {
				for _, vs := range tc.jurors {
					units[i] = append(units[i], vs[i])
				}
			}
			// The alphas are those of the jurors' grades as they are (the
			// grades are the label's scale, so none is mapped).
			assert.InDelta(t, stats.KrippendorffAlpha(units, stats.Ordinal), float64(*res.AlphaOrdinal), 1e-12)
			assert.InDelta(t, stats.KrippendorffAlpha(units, stats.Interval), float64(*res.AlphaInterval), 1e-12)
			for i, g := range tc.jury {
				assert.Equal(t, g, res.Jury.Rows[i].Value, "row %d", i)
			}
			require.NotNil(t, res.Jury.GradedStats)
			assert.Equal(t, "as given", res.Jury.JudgeOnGrades)
		})
	}
}

func TestJuryRefusesMismatchedJurors(t *testing.T) {
	t.Parallel()
	a := jurorOf("A", []float64{0.9, 0.1}, []float64{1, 0}, false, 0.5)
	b := jurorOf("B", []float64{0.9}, []float64{1}, false, 0.5)
	_, err := agree.Jury([]agree.Juror{a, b}, agree.Options{Label: "l"})
	require.ErrorContains(t, err, "juror B has 1 rows, A has 2")
	_, err = agree.Jury([]agree.Juror{a}, agree.Options{Label: "l"})
	require.ErrorContains(t, err, "want at least two jurors, got 1")
}
