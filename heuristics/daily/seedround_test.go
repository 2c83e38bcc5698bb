package daily

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/eval"
)

// TestClosingPriceInTradersWords: the day's price, however a trader writes
// it (closed, closing, last traded), is the current price and is checked;
// another session's price (opened at) is not.
func TestClosingPriceInTradersWords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want []float64 // current_price claims
	}{
		"english closed at, currency after":  {text: "Shares of KBANK closed at 142.5 baht on Friday.", want: []float64{142.5}},
		"english last traded at":             {text: "The stock last traded at 64.25 after a quiet session.", want: []float64{64.25}},
		"english closing price":              {text: "Its closing price of 31.75 sits near the 52-week low.", want: []float64{31.75}},
		"english ended the day at":           {text: "PTT ended the day at 33.50, flat on the week.", want: []float64{33.5}},
		"thai closed at":                     {text: "หุ้น ADVANC ปิดที่ 226 บาท ปรับขึ้นเล็กน้อย", want: []float64{226}},
		"thai closing price":                 {text: "ราคาปิดวันนี้อยู่ที่ 5.45 บาท", want: []float64{5.45}},
		"thai last traded":                   {text: "หุ้นซื้อขายล่าสุดที่ 18.2 บาท", want: []float64{18.2}},
		"thai opened at is another session":  {text: "หุ้นเปิดที่ 17.9 บาท", want: nil},
		"english opened at is not the close": {text: "The stock opened at 17.9 baht.", want: nil},
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

// TestSupposedValuesAreNotClaims: what a report supposes (a level to wait
// for, a condition, a scenario) is not a claim about today's value, in
// Thai as in English; the same number stated plainly is.
func TestSupposedValuesAreNotClaims(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text    string
		numbers int // claims bound to a metric
		bands   int
	}{
		"hold off until a level":             {text: "Hold off on adding until the RSI eases under 65.", numbers: 0},
		"a wait in the middle of a sentence": {text: "Buyers are advised to wait for volume to top 1.4x before adding.", numbers: 0},
		"inverted condition":                 {text: "Should the ATR widen past 4.2%, cut the position.", numbers: 0},
		"condition opening the sentence":     {text: "If the uncertainty score climbs to 70, the scenario changes.", numbers: 0},
		"a scenario with a band word":        {text: "Once buying pressure fades, the stock may drift.", bands: 0},
		"plain statement is a claim":         {text: "The RSI stands at 62.4 today.", numbers: 1},
		"statement, then a condition":        {text: "RSI is 62.4 now; wait for it to cool below 55.", numbers: 1},
		"thai: until volume exceeds":         {text: "ยังไม่ควรซื้อเพิ่มจนกว่าวอลุ่มจะเกิน 1.5 เท่า", numbers: 0},
		"thai: wait for rsi":                 {text: "รอให้ RSI ลดลงต่ำกว่า 60 ก่อนเข้าซื้อ", numbers: 0},
		"thai: when the price drops":         {text: "เมื่อราคาลงมาที่ 195 บาท จึงค่อยพิจารณา", numbers: 0},
		"thai: if selling returns":           {text: "ถ้าแรงขายกลับมา หุ้นอาจอ่อนตัว", bands: 0},
		"thai: a 52-week round is no wait":   {text: "ราคาสูงสุดรอบ 52 สัปดาห์อยู่ที่ 250 บาท", numbers: 1},
		"thai: compared with is no when":     {text: "เมื่อเทียบกับเมื่อวาน RSI อยู่ที่ 62.4", numbers: 1},
		"thai: plain statement":              {text: "ค่า RSI วันนี้อยู่ที่ 62.4", numbers: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			x := Default().Extract(tc.text)
			assert.Len(t, x.Numbers, tc.numbers, "%+v", x.Numbers)
			assert.Len(t, x.Bands, tc.bands, "%+v", x.Bands)
		})
	}
}

// TestStrategyNamesAreAClass: any named strategy or chart setup is a
// format violation, not only the seed's example; a plain description of
// the day's move is not.
func TestStrategyNamesAreAClass(t *testing.T) {
	t.Parallel()
	m := Default().m
	tests := map[string]struct {
		text string
		want bool
	}{
		"ema crossover":             {text: "a bullish 12/26 EMA crossover formed", want: true},
		"breakouts":                 {text: "traders chasing breakouts", want: true},
		"mean reversion":            {text: "a mean-reversion setup", want: true},
		"bearish divergence":        {text: "RSI shows a bearish divergence", want: true},
		"buying a pullback":         {text: "buy on a pullback toward 198", want: true},
		"chart pattern":             {text: "a head and shoulders top", want: true},
		"thai breakout":             {text: "เกิดสัญญาณเบรกเอาท์เหนือแนวต้าน", want: true},
		"thai moving averages":      {text: "เส้นค่าเฉลี่ยตัดกันในกรอบสั้น", want: true},
		"thai divergence":           {text: "มีไดเวอร์เจนซ์ระหว่างราคาและ RSI", want: true},
		"a move, not a strategy":    {text: "the price crossed above VWAP this afternoon", want: false},
		"thai move, not a strategy": {text: "ราคาย่อตัวลงเล็กน้อยจากแรงขายทำกำไร", want: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, m.strategies.has(lowerASCII(tc.text)))
		})
	}
}

// TestPercentileContextPerMetric: each metric quoted whose percentile the
// data has needs its own; one metric's percentile does not cover another.
func TestPercentileContextPerMetric(t *testing.T) {
	t.Parallel()
	truth := &eval.Truth{
		Values:      map[string]float64{"atr_pct": 2.4, "rsi": 58, "vwap_pct": 6.1},
		Percentiles: map[string]float64{"atr_pct": 71, "rsi": 64},
	}
	tests := map[string]struct {
		text   string
		want   []string // percentile violations
		points float64  // of 15
	}{
		"each quoted metric with its percentile": {
			text:   "The RSI reads 58, in its 64th percentile. ATR sits at 2.4%, around percentile 71.",
			points: 15,
		},
		"atr quoted bare while rsi has one": {
			text:   "The RSI reads 58, in its 64th percentile. ATR sits at 2.4% today.",
			want:   []string{"ATR% quoted without its percentile (the data has one: 71)"},
			points: 7.5,
		},
		"thai: atr bare, rsi with percentile": {
			text:   "RSI อยู่ที่ 58 ซึ่งอยู่ในเปอร์เซ็นไทล์ 64% ส่วน ATR อยู่ที่ 2.4% ในวันนี้",
			want:   []string{"ATR% quoted without its percentile (the data has one: 71)"},
			points: 7.5,
		},
		"a metric without percentile data needs none": {
			text:   "VWAP distance is 6.1% above VWAP. RSI 58 sits in the 64th percentile.",
			points: 15,
		},
		"no quoted metric has percentile data and none given": {
			text: "The stock is 6.1% above VWAP.",
			want: []string{"Percentile context not used although the data has percentiles"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			var got []string
			points := p.percentileContext(p.Extract(tc.text), truth, func(_ string, _ float64, format string, a ...any) {
				got = append(got, fmt.Sprintf(format, a...))
			})
			assert.Equal(t, tc.want, got)
			assert.InDelta(t, tc.points, points, 1e-9)
		})
	}
}

// TestCitationsAcrossLanguages: a Thai sentence citing English headlines
// is matched by the numbers, names and tickers it shares with them; what
// every headline shares decides nothing.
func TestCitationsAcrossLanguages(t *testing.T) {
	t.Parallel()
	news := []eval.News{
		{Title: "KBank lifts 2026 loan growth target to 5%", URL: "https://example.net/a/kbank-loan-target"},
		{Title: "KBank shares slip as Krungthai Card posts weak Q2", URL: "https://example.net/a/ktc-q2"},
		{Title: "Thai central bank holds policy rate at 1.75%", URL: "https://example.net/a/bot-rate"},
	}
	tests := map[string]struct {
		sentence string
		n        int
		wrong    bool
	}{
		"thai sentence, right item by a number":     {sentence: "ธนาคารปรับเป้าสินเชื่อปี 2026 ขึ้นเป็น 5% [1]", n: 1},
		"thai sentence, right item by a rate":       {sentence: "ธนาคารแห่งประเทศไทยคงดอกเบี้ยที่ 1.75% [3]", n: 3},
		"thai sentence, wrong item by a rate":       {sentence: "ธนาคารแห่งประเทศไทยคงดอกเบี้ยที่ 1.75% [2]", n: 2, wrong: true},
		"thai sentence, wrong item by a ticker":     {sentence: "ผลประกอบการไตรมาส 2 ของ Krungthai Card อ่อนแอ [1]", n: 1, wrong: true},
		"thai digits count as numbers":              {sentence: "ธนาคารกลางคงดอกเบี้ยไว้ที่ ๑.๗๕% [3]", n: 3},
		"a name every headline has decides nothing": {sentence: "หุ้น KBank ปรับตัวลดลงวันนี้ [3]", n: 3},
		"no anchor at all is not judged":            {sentence: "ข่าวนี้ส่งผลต่อความเชื่อมั่นของนักลงทุน [2]", n: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			why := misdirected(cite{n: tc.n, sentence: tc.sentence}, news)
			assert.Equal(t, tc.wrong, why != "", why)
		})
	}
}
