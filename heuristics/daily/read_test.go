package daily

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestSignedNumbersCarryTheirDirection: a signed metric's number takes the
// sign written (ASCII or Unicode minus) or the direction word beside it, in
// Thai as in English; a number with neither is a distance.
func TestSignedNumbersCarryTheirDirection(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text  string
		value float64
		dir   string
	}{
		"below, before the name":             {text: "The stock sits 7.3% below VWAP after the sell-off.", value: -7.3, dir: "below"},
		"below its, before the name":         {text: "It closed 7.3% below its VWAP.", value: -7.3, dir: "below"},
		"Thai below, name first":             {text: "ราคาอยู่ต่ำกว่า VWAP ราว 7.3%", value: -7.3, dir: "below"},
		"Thai below, number first":           {text: "ราคา 7.3% ต่ำกว่า VWAP", value: -7.3, dir: "below"},
		"Thai above, name first":             {text: "ราคายืนเหนือ VWAP ถึง 12.5%", value: 12.5, dir: "above"},
		"Unicode minus":                      {text: "VWAP distance stands at \u22127.3% today.", value: -7.3, dir: "below"},
		"ASCII minus":                        {text: "VWAP -7.3% this morning.", value: -7.3, dir: "below"},
		"plus sign":                          {text: "VWAP +8.4% at the close.", value: 8.4, dir: "above"},
		"a distance without a direction":     {text: "ราคาที่ห่างจาก VWAP ถึง 7.3%", value: 7.3},
		"Thai digits with a direction":       {text: "ราคา ๗.๓% ต่ำกว่า VWAP", value: -7.3, dir: "below"},
		"the word wins over a written minus": {text: "The price is -7.3% below VWAP.", value: -7.3, dir: "below"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			x := Default().Extract(tc.text)
			require.Len(t, x.Numbers, 1, "%+v", x.Numbers)
			assert.Equal(t, "vwap_pct", x.Numbers[0].Metric)
			assert.InDelta(t, tc.value, x.Numbers[0].Value, 1e-9)
			assert.Equal(t, tc.dir, x.Numbers[0].Direction)
		})
	}
}

// TestADirectionAgainstTheDataIsAMismatch: the claim is checked with its
// sign, within the metric's tolerance of |actual|.
func TestADirectionAgainstTheDataIsAMismatch(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text      string
		actual    float64
		violation string // "" when the claim is right
	}{
		"below where the data is above":       {text: "The price trades 8.4% below VWAP.", actual: 8.4, violation: "vwap_pct mismatch: narrative claims -8.4, actual is 8.4 (the report says below, the data is above)"},
		"Thai below where the data is above":  {text: "ราคา 8.4% ต่ำกว่า VWAP", actual: 8.4, violation: "vwap_pct mismatch: narrative claims -8.4, actual is 8.4 (the report says below, the data is above)"},
		"above where the data is below":       {text: "ราคาอยู่เหนือ VWAP 7.3%", actual: -7.3, violation: "vwap_pct mismatch: narrative claims 7.3, actual is -7.3 (the report says above, the data is below)"},
		"below, right":                        {text: "The price trades 7.3% below VWAP.", actual: -7.3},
		"Unicode minus, right":                {text: "VWAP \u22127.3% now.", actual: -7.3},
		"within 2% of |actual|":               {text: "It sits 7.2% under VWAP.", actual: -7.3},
		"beyond 2% of |actual|":               {text: "It sits 7.0% under VWAP.", actual: -7.3, violation: "vwap_pct mismatch: narrative claims -7, actual is -7.3"},
		"a distance, checked as a distance":   {text: "ราคาที่ห่างจาก VWAP ถึง 7.3%", actual: -7.3},
		"the seed's swap is still a mismatch": {text: "ราคา 3.03% เหนือ VWAP", actual: 43.79, violation: "vwap_pct mismatch: narrative claims 3.03, actual is 43.79"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			f := p.Faithfulness(p.Extract(tc.text), &eval.Truth{Values: map[string]float64{"vwap_pct": tc.actual}})
			numeric, _ := f.MetricScores.Get("numeric_accuracy")
			if tc.violation == "" {
				assert.Empty(t, f.Violations)
				assert.InDelta(t, 100, numeric, 1e-9)
				return
			}
			assert.Equal(t, []string{tc.violation}, f.Violations)
			assert.InDelta(t, 0, numeric, 1e-9)
		})
	}
}

// TestThaiDigitsAreNumbers: Thai digits read as ASCII ones do, in values,
// percentiles and citations, and a number never splits a sentence.
func TestThaiDigitsAreNumbers(t *testing.T) {
	t.Parallel()
	thai := strings.NewReplacer("0", "๐", "1", "๑", "2", "๒", "3", "๓", "4", "๔", "5", "๕", "6", "๖", "7", "๗", "8", "๘", "9", "๙")
	tests := map[string]struct {
		text      string
		sentences int
	}{
		"a Thai story":   {text: "ปิดวันนี้ที่ราคา 202.49 บาท ความไม่แน่นอน 56.6 อยู่ในระดับสูง ค่า ATR 3.03% ซึ่งอยู่ในเปอร์เซ็นไทล์ 88% ตามข่าว [2]", sentences: 3},
		"digits alone":   {text: "ราคา 202.49 บาท", sentences: 1},
		"a list number":  {text: "1. ความไม่แน่นอน 56.6 อยู่ในระดับสูง", sentences: 1},
		"English digits": {text: "The price closed at 202.49 baht. Uncertainty is 56.6 and ATR 3.03% is in the 88th percentile.", sentences: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			ascii, th := p.Extract(tc.text), p.Extract(thai.Replace(tc.text))
			require.NotEmpty(t, ascii.Numbers)
			strip := func(x Extraction) Extraction {
				for i := range x.Numbers {
					x.Numbers[i].Text = ""
				}
				for i := range x.Percentiles {
					x.Percentiles[i].Text = ""
				}
				x.cites = nil
				return x
			}
			assert.Equal(t, strip(ascii), strip(th))
			assert.Len(t, p.parse(tc.text).sentences, tc.sentences)
			assert.Len(t, p.parse(thai.Replace(tc.text)).sentences, tc.sentences)
		})
	}
}

// TestBandsHaveTheSeedsEdges: VWAP > 15 strong buying, > 5 buying, -5 to 5
// neutral, < -5 selling; uncertainty 0-25, 25-50, 50-75, 75-100.
func TestBandsHaveTheSeedsEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		metric string
		v      float64
		label  string
	}{
		{"vwap_pct", 15.01, "strong buying"}, {"vwap_pct", 15, "buying"}, {"vwap_pct", 5.01, "buying"}, {"vwap_pct", 5, "neutral"},
		{"vwap_pct", 0, "neutral"}, {"vwap_pct", -5, "neutral"}, {"vwap_pct", -5.01, "selling"}, {"vwap_pct", -43.79, "selling"},
		{"uncertainty_score", 0, "stable"}, {"uncertainty_score", 24.99, "stable"}, {"uncertainty_score", 25, "moderate"},
		{"uncertainty_score", 50, "high"}, {"uncertainty_score", 56.6, "high"}, {"uncertainty_score", 75, "extreme"},
		{"uncertainty_score", 100, "extreme"}, {"uncertainty_score", 100.5, ""}, {"uncertainty_score", -1, ""},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.label, Default().band(tc.metric, tc.v), "%s %v", tc.metric, tc.v)
	}
}

// TestBandsMustNotOverlap: an edge in two bands is an error naming both.
func TestBandsMustNotOverlap(t *testing.T) {
	t.Parallel()
	y := strings.Replace(string(defaultYAML), "      - label: neutral\n        ge: -5\n        le: 5", "      - label: neutral\n        ge: -5\n        le: 5.5", 1)
	_, err := ParseProfile("p.yaml", []byte(y))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "overlaps bands[1] (neutral)")
}

// TestInterpretationsAreReadWhereTheyAreSaid: a band word is said of the
// metric named nearest before it (else after it), in either word order,
// and not under negation.
func TestInterpretationsAreReadWhereTheyAreSaid(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text  string
		bands []string // metric/label
	}{
		"qualifier after the band word":      {text: "The price is 43.79% above VWAP and buying pressure stays strong.", bands: []string{"vwap_pct/strong buying"}},
		"qualifier first, metric after":      {text: "Heavy buying drove the price 43.79% above VWAP.", bands: []string{"vwap_pct/strong buying"}},
		"Thai qualifier after":               {text: "ราคาอยู่เหนือ VWAP 43.79% แรงซื้อยังแข็งแกร่ง", bands: []string{"vwap_pct/strong buying"}},
		"a negated qualifier is the base":    {text: "VWAP is 8% and buying pressure is not strong.", bands: []string{"vwap_pct/buying"}},
		"English negation":                   {text: "Uncertainty of 56.6 is not high for this stock.", bands: nil},
		"Thai negation":                      {text: "ความไม่แน่นอน 56.6 ไม่ได้อยู่ในระดับสูง", bands: nil},
		"Thai negation of selling":           {text: "ราคาอยู่เหนือ VWAP 43.79% และไม่มีแรงขาย", bands: nil},
		"the metric's name holds ไม่":        {text: "ความไม่แน่นอน 56.6 อยู่ในระดับสูง", bands: []string{"uncertainty_score/high"}},
		"said of another metric":             {text: "Uncertainty is 56.6 while RSI 80 is high.", bands: nil},
		"very high is extreme":               {text: "Uncertainty is very high at 80.", bands: []string{"uncertainty_score/extreme"}},
		"a recommendation's verb, not band":  {text: "We recommend buying as VWAP is 43.79%.", bands: nil},
		"each metric its own band":           {text: "Uncertainty of 56.6 is high, and with the price 43.79% above VWAP the selling has stopped.", bands: []string{"uncertainty_score/high", "vwap_pct/selling"}},
		"the 52-week high is a name":         {text: "The price of 202.49 is near its 52-week high.", bands: nil},
		"Thai comparison is not a qualifier": {text: "ราคาเหนือ VWAP 8% แรงซื้อมากกว่าแรงขาย", bands: []string{"vwap_pct/buying"}},
		"Thai very is a qualifier":           {text: "ราคาเหนือ VWAP 20% แรงซื้อมาก", bands: []string{"vwap_pct/strong buying"}},
		"English compared against":           {text: "With VWAP at 8%, there is more buying than selling.", bands: []string{"vwap_pct/buying"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, b := range Default().Extract(tc.text).Bands {
				got = append(got, b.Metric+"/"+b.Label)
			}
			assert.Equal(t, tc.bands, got)
		})
	}
}

// TestRecommendationsInTheFormsPeopleWrite: one action, in English and
// Thai, and two contradicting ones are both found.
func TestRecommendationsInTheFormsPeopleWrite(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want []string
	}{
		"HOLD in capitals":                 {text: "## 🎯 What to do now\nHOLD, because the trend is intact.\n", want: []string{"HOLD"}},
		"an opening imperative":            {text: "## 🎯 What to do now\nHold, because the trend is intact.\n", want: []string{"HOLD"}},
		"we would sell":                    {text: "We would sell into this strength.\n", want: []string{"SELL"}},
		"take profit":                      {text: "Take profit on half of the shares.\n", want: []string{"SELL"}},
		"buy more and maybe sell":          {text: "Buy more, and maybe sell some.\n", want: []string{"BUY", "SELL"}},
		"Thai hold":                        {text: "แนะนำให้ถือต่อ เพราะแนวโน้มยังดี\n", want: []string{"HOLD"}},
		"Thai buy and take profit":         {text: "ควรซื้อเพิ่ม แต่อาจขายทำกำไรบางส่วน\n", want: []string{"BUY", "SELL"}},
		"Thai negated sell":                {text: "ถือต่อไปก่อน ยังไม่ควรขาย\n", want: []string{"HOLD"}},
		"Thai negated add":                 {text: "แนะนำถือต่อ แต่ยังไม่ควรเพิ่มสถานะ\n", want: []string{"HOLD"}},
		"pressure and profit-taking":       {text: "Selling pressure eased and a profit-taking dip is likely, so we recommend holding.\n", want: []string{"HOLD"}},
		"Thai profit-taking noun":          {text: "มีโอกาสเกิดการขายทำกำไรระยะสั้น แนะนำถือต่อ\n", want: []string{"HOLD"}},
		"a plan beside the action":         {text: "Hold the stock; we would sell only if the price breaks 190.\n", want: []string{"HOLD"}},
		"Thai plan beside the action":      {text: "ถือต่อ หากราคาหลุด 190 ควรขาย\n", want: []string{"HOLD"}},
		"a plan alone still counts":        {text: "If volume confirms, buy more.\n", want: []string{"BUY"}},
		"negated with don't":               {text: "Don't sell yet; keep holding.\n", want: []string{"HOLD"}},
		"investors who hold are no advice": {text: "ยังถือหุ้นอยู่ และผู้ซื้อวันนี้จ่ายแพง\n", want: []string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			assert.Equal(t, tc.want, p.recommendations(p.parse(tc.text)))
		})
	}
}

// TestACitationPointsAtWhatItsSentenceTalksAbout: [n] in range is wrong
// when its sentence shares key terms with another item, more than twice
// what it shares with item n; a sentence about item n, or one that cannot be compared (a Thai
// sentence citing English headlines), is not flagged.
func TestACitationPointsAtWhatItsSentenceTalksAbout(t *testing.T) {
	t.Parallel()
	news := []eval.News{
		{Title: "DBS quarterly profit beats estimates", URL: "https://example.com/news/dbs-q3"},
		{Title: "DBS expands its digital bank in Thailand", URL: "https://example.com/news/dbs-digital"},
		{Title: "ธนาคารในภูมิภาคเผชิญแรงกดดันจากการลดดอกเบี้ย", URL: "https://example.com/th/banks-rates"},
	}
	tests := map[string]struct {
		text      string
		violation string
	}{
		"right item":                  {text: "The quarterly profit beat estimates [1], which lifts confidence."},
		"right item, other words":     {text: "Its digital banking push in Thailand [2] supports the trend."},
		"swapped items":               {text: "Quarterly profit beat estimates [2], which lifts confidence.", violation: `citation [2] points at news item 2 ("DBS expands its digital bank in Thailand") but its sentence is about item 1 ("DBS quarterly profit beats estimates")`},
		"English sentence, Thai item": {text: "The digital expansion in Thailand [3] helps.", violation: `citation [3] points at news item 3 ("ธนาคารในภูมิภาคเผชิญแรงกดดันจากการลดดอกเบี้ย") but its sentence is about item 2 ("DBS expands its digital bank in Thailand")`},
		"a shared common word":        {text: "Profit beat estimates this quarter at the bank [3].", violation: `citation [3] points at news item 3 ("ธนาคารในภูมิภาคเผชิญแรงกดดันจากการลดดอกเบี้ย") but its sentence is about item 1 ("DBS quarterly profit beats estimates")`},
		"Thai sentence, Thai item":    {text: "แรงกดดันจากการลดดอกเบี้ยของธนาคารในภูมิภาค [3] เป็นความเสี่ยง"},
		"Thai, English items":         {text: "ข่าวผลประกอบการไตรมาสล่าสุดที่ดีกว่าคาด [2] ช่วยหนุนความเชื่อมั่น"},
		"Thai sentence, wrong item":   {text: "แรงกดดันจากการลดดอกเบี้ยของธนาคารในภูมิภาค [1] เป็นความเสี่ยง", violation: `citation [1] points at news item 1 ("DBS quarterly profit beats estimates") but its sentence is about item 3 ("ธนาคารในภูมิภาคเผชิญแรงกดดันจากการลดดอกเบี้ย")`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			f := p.Faithfulness(p.Extract(tc.text), &eval.Truth{Values: map[string]float64{"atr_pct": 3}, News: news})
			got, _ := f.MetricScores.Get("news_citation_accuracy")
			if tc.violation == "" {
				assert.Empty(t, f.Violations)
				assert.InDelta(t, 100, got, 1e-9)
				return
			}
			assert.Equal(t, []string{tc.violation}, f.Violations)
			assert.InDelta(t, 0, got, 1e-9)
		})
	}
}

// TestTheRiskSectionWarnsWithTheMetrics: the risk section names a
// required metric with its number, in Thai or English.
func TestTheRiskSectionWarnsWithTheMetrics(t *testing.T) {
	t.Parallel()
	tr := &eval.Truth{Values: map[string]float64{"uncertainty_score": 56.6, "atr_pct": 3.03}}
	tests := map[string]struct {
		risk string
		bad  bool
	}{
		"English with a metric":       {risk: "## ⚠️ What to watch\nAn ATR of 3.03% means wide daily swings.\n"},
		"Thai with a metric":          {risk: "## ⚠️ ระวังอะไร?\nความไม่แน่นอน 56.6 ยังสูง\n"},
		"Thai digits":                 {risk: "## ⚠️ ระวังอะไร?\nความไม่แน่นอน ๕๖.๖ ยังสูง\n"},
		"English, no metric":          {risk: "## ⚠️ What to watch\nRates may fall and hurt banks.\n", bad: true},
		"Thai, no metric":             {risk: "## ⚠️ ระวังอะไร?\nระวังดอกเบี้ยขาลง\n", bad: true},
		"a metric without its number": {risk: "## ⚠️ What to watch\nUncertainty could rise further.\n", bad: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			d := p.parse(tc.risk)
			c := p.Compliance(d, p.extract(d), tr)
			want := "Risk Section warns without the report's metrics (name one of them with its number)"
			if tc.bad {
				assert.Contains(t, c.Violations, want)
				assert.Contains(t, c.Deductions, Deduction{Dimension: "content_compliance", Points: 10, Reason: want})
			} else {
				assert.NotContains(t, c.Violations, want)
			}
		})
	}
}

// TestAThaiReportIsEntirelyThai: an English sentence inside a Thai
// paragraph is flagged; the ticker, the subject's name, metric names and
// technical terms in Latin letters are not.
func TestAThaiReportIsEntirelyThai(t *testing.T) {
	t.Parallel()
	tr := &eval.Truth{Subject: map[string]string{"ticker": "DBS19", "name": "DBS Group", "sector": "Banking"}, Values: map[string]float64{"rsi": 62.4}}
	tests := map[string]struct {
		text string
		want []string
	}{
		"an English sentence mid-paragraph": {text: "ราคาขึ้นแรงเพราะข่าวดี The stock looks overbought right now. ทำให้ต้องระวัง\n", want: []string{`English in a Thai report: "The stock looks overbought right now."`}},
		"an English clause":                 {text: "ราคาขึ้นแรงเพราะ investors are buying the dip ทำให้ต้องระวัง\n", want: []string{`English in a Thai report: "investors are buying the dip"`}},
		"an English-only sentence":          {text: "ราคาขึ้นแรงเพราะข่าวดี ทำให้ต้องระวัง\nStay alert.\n", want: []string{`English in a Thai report: "Stay alert."`}},
		"names and terms are Thai prose":    {text: "DBS19 (DBS Group, Banking) ราคาขึ้นเพราะ RSI 62.4 และ MACD ตัดขึ้น ทำให้ Bollinger กว้างขึ้น\n"},
		"a number list item":                {text: "1. ราคาขึ้นเพราะข่าวดี ทำให้ต้องระวัง\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			d := p.parse(tc.text)
			require.Equal(t, "th", d.lang)
			var got []string
			for _, v := range p.Compliance(d, p.extract(d), tr).Violations {
				if strings.HasPrefix(v, "English in a Thai report") {
					got = append(got, v)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestEveryCardNamesWhatIsNotChecked: the checks no rule makes are in the
// result and in each card.
func TestEveryCardNamesWhatIsNotChecked(t *testing.T) {
	t.Parallel()
	tr, _ := load(t)
	r := Default().Score(report(t, "en-faithful.md"), tr, nil)
	require.NotEmpty(t, r.NotChecked)
	assert.Contains(t, r.NotChecked[0], "conversational tone")
	for _, card := range []string{r.Text(), r.Markdown()} {
		for _, n := range r.NotChecked {
			assert.Contains(t, card, n)
		}
	}
	assert.Contains(t, r.Text(), "📊 Overall Faithfulness Score: 100.0/100 (Excellent)")
}
