package heuristics

import (
	"context"
	"testing"

	"github.com/assaylabs/assay/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// thaiReport is a Thai research report on rice farming in a drought: all
// four sections in Thai, six cited sentences and one uncited one written
// between two cited ones with no full stop.
const thaiReport = `# การปลูกข้าวในช่วงภัยแล้ง

## บทนำ

ภัยแล้งปีนี้ทำให้ปริมาณน้ำในเขื่อนลดลงต่ำกว่าครึ่ง[1] ชาวนาในภาคอีสานเลื่อนการปลูกข้าวออกไปหนึ่งเดือน[2]

## ผลการสำรวจ

พันธุ์ข้าวทนแล้งให้ผลผลิตใกล้เคียงพันธุ์เดิม[3] เกษตรกรส่วนใหญ่ยังไม่รู้จักพันธุ์ใหม่นี้ รัฐบาลแจกเมล็ดพันธุ์ฟรีในสิบจังหวัด[4]

## บทสรุป

การปลูกข้าวแบบเปียกสลับแห้งช่วยประหยัดน้ำได้มาก[5] ต้นทุนของชาวนาลดลงเมื่อใช้น้ำน้อยลง[3]

## แหล่งที่มา

1. https://www.rid.go.th/dam
2. https://www.oae.go.th/plant
3. https://www.ricethailand.go.th/variety
4. https://www.moac.go.th/seed
5. https://www.ku.ac.th/awd
`

func TestThaiReportEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := eval.Sample{Query: "ภัยแล้งกับการปลูกข้าวของชาวนา", Answer: thaiReport}

	g, err := Grounding{}.Score(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, 7.0, g.Evidence.Counts["total_claims"])
	assert.Equal(t, 6.0, g.Evidence.Counts["cited_claims"])
	assert.Less(t, g.Points, 5.0, "one uncited claim fails grounding")
	var uncited []string
	for _, c := range g.Evidence.Claims {
		if c.Verdict == eval.VerdictUncited {
			uncited = append(uncited, c.Text)
		}
	}
	assert.Equal(t, []string{"เกษตรกรส่วนใหญ่ยังไม่รู้จักพันธุ์ใหม่นี้"}, uncited)

	c, err := Clarity{}.Score(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, 1.0, c.Points, "Thai headings are the summary, findings, conclusion and sources: %v", c.Evidence.Issues)

	comp, err := Completeness{}.Score(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, 1.0, comp.Points, "gaps: %v", comp.Evidence.Gaps)
}

func TestThaiCompletenessGapsAreWords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query string
		gaps  []string
	}{
		"a topic the report never names is a whole word": {
			query: "ภัยแล้งกับราคาปุ๋ยของชาวนา", gaps: []string{`"ราคา" not covered`, `"ปุ๋ย" not covered`},
		},
		"question and function words are no gaps": {
			query: "ชาวนาปลูกข้าวพันธุ์อะไรบ้างในภัยแล้ง", gaps: nil,
		},
		"words of time and place are no gaps": {
			query: "ชาวนากับเขื่อนตลอดช่วงภัยแล้ง และข้าวหลังภัยแล้ง", gaps: nil,
		},
		"a topic beside them still is": {
			query: "ข้าวภายในเขื่อนก่อนฤดูฝน", gaps: []string{`"ฤดู" not covered`, `"ฝน" not covered`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Completeness{}.Score(context.Background(), eval.Sample{Query: tc.query, Answer: thaiReport})
			require.NoError(t, err)
			assert.Equal(t, tc.gaps, sc.Evidence.Gaps)
		})
	}
}

func TestThaiHeadingsAreRecognised(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		headings []string
		issues   []string
	}{
		"executive summary, analysis, recommendations, bibliography": {
			headings: []string{"สรุปสำหรับผู้บริหาร", "การวิเคราะห์ต้นทุน", "ข้อเสนอแนะ", "บรรณานุกรม"},
		},
		"overview, two topical sections, conclusion, references": {
			headings: []string{"ภาพรวม", "ราคาข้าว", "ปริมาณน้ำ", "ข้อสรุป", "เอกสารอ้างอิง"},
		},
		"no conclusion": {
			headings: []string{"บทนำ", "ผลการศึกษา", "อ้างอิง"},
			issues:   []string{"missing conclusion section"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			md := "# รายงาน\n\n"
			for _, h := range tc.headings {
				md += "## " + h + "\n\nข้าวหอมมะลิส่งออกได้มากขึ้นในปีนี้[1]\n\n"
			}
			md += "1. https://www.oae.go.th/plant\n"
			assert.Equal(t, tc.issues, structureIssues(ParseReport([]byte(md))))
		})
	}
}

// TestThaiDigitsCoverTheirNumbers: a year or figure in the query is
// covered by the same number written in Thai digits, and the other way.
func TestThaiDigitsCoverTheirNumbers(t *testing.T) {
	t.Parallel()
	const report = "# ข้าว\n\n## บทนำ\n\nในปี พ.ศ. ๒๕๖๖ ชาวนาปลูกข้าวได้ ๓,๑๘๐ ตัน[1]\n\n## สรุป\n\nราคาข้าวในปี 2567 สูงขึ้น[1]\n\n## อ้างอิง\n\n1. https://www.oae.go.th/rice\n"
	tests := map[string]struct {
		query string
		gaps  []string
	}{
		"an ASCII year, the report in Thai digits": {query: "ชาวนาปลูกข้าว ปี 2566", gaps: nil},
		"a Thai-digit year, the report in ASCII":   {query: "ราคาข้าว ปี ๒๕๖๗", gaps: nil},
		"a grouped figure":                         {query: "ข้าว 3,180 ตัน", gaps: nil},
		"another year is still a gap":              {query: "ชาวนาปลูกข้าว ปี ๒๕๖๕", gaps: []string{`"๒๕๖๕" not covered`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Completeness{}.Score(context.Background(), eval.Sample{Query: tc.query, Answer: report})
			require.NoError(t, err)
			assert.Equal(t, tc.gaps, sc.Evidence.Gaps)
		})
	}
}
