package daily

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/eval"
)

// TestPercentileToleranceIncludesItsEdge: a percentile exactly five points
// from the data is within the seed's "within 5 percentage points", however
// the decimals fall in floating point; five and a little is not.
func TestPercentileToleranceIncludesItsEdge(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		actual float64
		text   string
		want   float64 // percentile_accuracy
	}{
		"five above a low decimal percentile":   {actual: 3.3, text: "The ATR of 2.5% ranks in the 8.3th percentile.", want: 100},
		"five above another decimal":            {actual: 4.8, text: "ATR 2.5% ซึ่งอยู่ในเปอร์เซ็นไทล์ ๙.๘%", want: 100},
		"five below a decimal percentile":       {actual: 9.3, text: "The ATR of 2.5% ranks in the 4.3th percentile.", want: 100},
		"a tenth beyond the edge is a mismatch": {actual: 3.3, text: "The ATR of 2.5% ranks in the 8.4th percentile.", want: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			truth := &eval.Truth{
				Values:      map[string]float64{"atr_pct": 2.5},
				Percentiles: map[string]float64{"atr_pct": tc.actual},
			}
			got := p.Faithfulness(p.Extract(tc.text), truth)
			score, ok := got.MetricScores.Get("percentile_accuracy")
			assert.True(t, ok)
			assert.Equal(t, tc.want, score, got.Violations)
		})
	}
}

// TestTodaysCloseWithTheDayInBetween: "closed today at" and "ปิดวันนี้ที่"
// are the day's closing price as much as "closed at" is, so the number is
// checked instead of silently passing unread.
func TestTodaysCloseWithTheDayInBetween(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want []float64
	}{
		"english closed today at":       {text: "SCB closed today at 118.5 baht after a quiet morning.", want: []float64{118.5}},
		"english closed the session at": {text: "The shares closed the session at 7.05 baht.", want: []float64{7.05}},
		"english ended today at":        {text: "CPALL ended today at 55.25, down on the week.", want: []float64{55.25}},
		"thai closed today at":          {text: "หุ้น SCB ปิดวันนี้ที่ ๑๑๘.๕ บาท", want: []float64{118.5}},
		"thai market close today at":    {text: "หุ้น SCB ปิดตลาดวันนี้ที่ 118.5 บาท", want: []float64{118.5}},
		"opened today is still not it":  {text: "SCB opened today at 117 baht.", want: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []float64
			for _, c := range Default().Extract(tc.text).Numbers {
				if c.Metric == "current_price" {
					got = append(got, c.Value)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestTheDaysMoveIsNotTheLevel: "RSI fell 4 points to 58" claims RSI is 58,
// not 4; the move in points is not the metric's value, in Thai and English.
// A level written with the unit and no move ("RSI อยู่ที่ 58 จุด") is still
// the level.
func TestTheDaysMoveIsNotTheLevel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want []float64 // rsi claims
	}{
		"english fell points to":     {text: "RSI fell 4 points to 58 as sellers returned.", want: []float64{58}},
		"english climbed by pts":     {text: "The RSI climbed by 6.5 pts to 71.2 today.", want: []float64{71.2}},
		"thai dropped points":        {text: "RSI ลดลง ๓.๒ จุดมาอยู่ที่ ๕๘", want: []float64{58}},
		"thai rose points":           {text: "RSI ปรับขึ้น 2 จุดเป็น 64", want: []float64{64}},
		"thai level with the unit":   {text: "RSI อยู่ที่ 58 จุด", want: []float64{58}},
		"english level, no movement": {text: "RSI stands at 58 points.", want: []float64{58}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []float64
			for _, c := range Default().Extract(tc.text).Numbers {
				if c.Metric == "rsi" {
					got = append(got, c.Value)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
