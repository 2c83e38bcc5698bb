package reportdoc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestThaiSentences: Thai sentences are split at the spaces and citations
// that end them, so an uncited one between cited ones is its own claim.
// The English cases check that the Thai rules leave other text alone.
func TestThaiSentences(t *testing.T) {
	t.Parallel()
	const sources = "\n\n## แหล่งอ้างอิง\n\n1. https://a.go.th/1\n2. https://b.ac.th/2\n"
	tests := map[string]struct {
		md     string
		claims []string
		cited  []bool
	}{
		"a numbered marker joins two sentences with no space": {
			md:     "น้ำท่วมภาคเหนือทำลายนาข้าวหลายแสนไร่[1]ราคาข้าวสารในตลาดสูงขึ้นมาก" + sources,
			claims: []string{"น้ำท่วมภาคเหนือทำลายนาข้าวหลายแสนไร่[1]", "ราคาข้าวสารในตลาดสูงขึ้นมาก"},
			cited:  []bool{true, false},
		},
		"an uncited sentence between two quoted links": {
			md: "โรงเรียนในชนบทขาดครูคณิตศาสตร์ [สถิติ](https://stat.go.th/x \"ขาดครู\") นักเรียนต้องเดินทางไกลเพื่อเรียนพิเศษ " +
				"กระทรวงจัดงบประมาณเพิ่มในปีนี้ [ข่าว](https://moe.go.th/y \"งบเพิ่ม\")\n",
			claims: []string{"โรงเรียนในชนบทขาดครูคณิตศาสตร์ สถิติ", "นักเรียนต้องเดินทางไกลเพื่อเรียนพิเศษ", "กระทรวงจัดงบประมาณเพิ่มในปีนี้ ข่าว"},
			cited:  []bool{true, false, true},
		},
		"a space before a joining word does not split": {
			md:     "ผู้ป่วยเบาหวานเพิ่มขึ้นทุกปี เพราะคนไทยบริโภคน้ำตาลสูง[2]" + sources,
			claims: []string{"ผู้ป่วยเบาหวานเพิ่มขึ้นทุกปี เพราะคนไทยบริโภคน้ำตาลสูง[2]"},
			cited:  []bool{true},
		},
		"a link after 'from' is inside its sentence": {
			md:     "ข้อมูลจาก [กรมอุตุนิยมวิทยา](https://tmd.go.th/r \"ฝนตกมากขึ้น\") แสดงว่าฝนตกมากขึ้นในเดือนกันยายน\n",
			claims: []string{"ข้อมูลจาก กรมอุตุนิยมวิทยา แสดงว่าฝนตกมากขึ้นในเดือนกันยายน"},
			cited:  []bool{true},
		},
		"a space before digits or Latin words does not split": {
			md:     "หุ้น PTT ปิดที่ 34.50 บาทในวันศุกร์[1]" + sources,
			claims: []string{"หุ้น PTT ปิดที่ 34.50 บาทในวันศุกร์[1]"},
			cited:  []bool{true},
		},
		"a marker in Thai digits cites its entry": {
			md:     "น้ำท่วมภาคเหนือทำลายนาข้าวหลายแสนไร่[๑] ราคาข้าวสารในตลาดสูงขึ้นมาก[๒]" + sources,
			claims: []string{"น้ำท่วมภาคเหนือทำลายนาข้าวหลายแสนไร่[๑]", "ราคาข้าวสารในตลาดสูงขึ้นมาก[๒]"},
			cited:  []bool{true, true},
		},
		"a marker naming no entry still ends its sentence": {
			md:     "น้ำท่วมภาคเหนือทำลายนาข้าวหลายแสนไร่[9] ราคาข้าวสารในตลาดสูงขึ้นมาก[2]" + sources,
			claims: []string{"น้ำท่วมภาคเหนือทำลายนาข้าวหลายแสนไร่[9]", "ราคาข้าวสารในตลาดสูงขึ้นมาก[2]"},
			cited:  []bool{false, true},
		},
		"a sentence ending in 'already' ends at its marker": {
			md:     "ปริมาณฝนในภาคอีสานลดลงแล้ว[1] ชาวนาเลื่อนการปลูกข้าวออกไปหนึ่งเดือน" + sources,
			claims: []string{"ปริมาณฝนในภาคอีสานลดลงแล้ว[1]", "ชาวนาเลื่อนการปลูกข้าวออกไปหนึ่งเดือน"},
			cited:  []bool{true, false},
		},
		"a sentence ending in 'too' ends at its link": {
			md:     "รัฐบาลแจกเมล็ดพันธุ์ข้าวทนแล้งด้วย [ข่าว](https://moac.go.th/y \"แจกเมล็ดพันธุ์\") เกษตรกรส่วนใหญ่ยังไม่รู้จักพันธุ์ใหม่\n",
			claims: []string{"รัฐบาลแจกเมล็ดพันธุ์ข้าวทนแล้งด้วย ข่าว", "เกษตรกรส่วนใหญ่ยังไม่รู้จักพันธุ์ใหม่"},
			cited:  []bool{true, false},
		},
		"a space after 'from' and before 'states that' is inside the sentence": {
			md:     "ข้อมูลจาก สำนักงานเศรษฐกิจการเกษตร ระบุว่าราคาข้าวเปลือกสูงขึ้น[2]" + sources,
			claims: []string{"ข้อมูลจาก สำนักงานเศรษฐกิจการเกษตร ระบุว่าราคาข้าวเปลือกสูงขึ้น[2]"},
			cited:  []bool{true},
		},
		"a space before the era of a year is inside the sentence": {
			md:     "ตั้งแต่ต้นปี พ.ศ. ๒๕๖๗ ราคาปุ๋ยเพิ่มขึ้นร้อยละ ๑๕[1] เมื่อ ค.ศ. 2020 ราคาปุ๋ยยังต่ำ[2]" + sources,
			claims: []string{"ตั้งแต่ต้นปี พ.ศ. ๒๕๖๗ ราคาปุ๋ยเพิ่มขึ้นร้อยละ ๑๕[1]", "เมื่อ ค.ศ. 2020 ราคาปุ๋ยยังต่ำ[2]"},
			cited:  []bool{true, true},
		},
		"a space after the repetition mark is inside the sentence": {
			md:     "หน่วยงานต่าง ๆ ร่วมมือกันแก้ปัญหาภัยแล้งในภาคอีสาน[1]" + sources,
			claims: []string{"หน่วยงานต่าง ๆ ร่วมมือกันแก้ปัญหาภัยแล้งในภาคอีสาน[1]"},
			cited:  []bool{true},
		},
		"a space after the abbreviation mark is inside the sentence": {
			md:     "ครัวเรือนในกรุงเทพฯ ใช้ไฟฟ้ามากที่สุดในเดือนเมษายน[1] สินค้าเกษตร เช่น ข้าวโพด ฯลฯ มีราคาสูงขึ้นในปีนี้[2]" + sources,
			claims: []string{"ครัวเรือนในกรุงเทพฯ ใช้ไฟฟ้ามากที่สุดในเดือนเมษายน[1]", "สินค้าเกษตร เช่น ข้าวโพด ฯลฯ มีราคาสูงขึ้นในปีนี้[2]"},
			cited:  []bool{true, true},
		},
		"a sentence ending in a number or a Latin word ends at its marker": {
			md: "ผลผลิตข้าวลดลงร้อยละ ๑๕[1] ชาวนาเลื่อนการปลูกข้าวออกไปหนึ่งเดือน ปริมาณน้ำในเขื่อนเหลือ 40%[2] " +
				"ภาครัฐส่งเสริมการใช้ AI[1] ชาวนาใช้โดรนพ่นปุ๋ยมากขึ้น[2]" + sources,
			claims: []string{
				"ผลผลิตข้าวลดลงร้อยละ ๑๕[1]", "ชาวนาเลื่อนการปลูกข้าวออกไปหนึ่งเดือน", "ปริมาณน้ำในเขื่อนเหลือ 40%[2]",
				"ภาครัฐส่งเสริมการใช้ AI[1]", "ชาวนาใช้โดรนพ่นปุ๋ยมากขึ้น[2]",
			},
			cited: []bool{true, false, true, true, true},
		},
		"a space between two clauses still splits": {
			md:     "ราคาข้าวเปลือกสูงขึ้นมาก ชาวนาเลื่อนการปลูกข้าวออกไป[1]" + sources,
			claims: []string{"ราคาข้าวเปลือกสูงขึ้นมาก", "ชาวนาเลื่อนการปลูกข้าวออกไป[1]"},
			cited:  []bool{false, true},
		},
		"a sentence opening with 'from' or 'in' after a citation is its own": {
			md:     "ราคาข้าวเปลือกสูงขึ้นมาก[1] จากการสำรวจพบว่าชาวนาร้อยละ ๖๐ ขาดทุน[2] ในปี ๒๕๖๗ ราคาปุ๋ยสูงขึ้นอีก" + sources,
			claims: []string{"ราคาข้าวเปลือกสูงขึ้นมาก[1]", "จากการสำรวจพบว่าชาวนาร้อยละ ๖๐ ขาดทุน[2]", "ในปี ๒๕๖๗ ราคาปุ๋ยสูงขึ้นอีก"},
			cited:  []bool{true, true, false},
		},
		"a sentence about the report itself is no claim, in Thai as in English": {
			md: "รายงานนี้สรุปแนวโน้มค่าไฟฟ้าของครัวเรือนไทยในช่วงสามปี ค่าไฟฟ้าเฉลี่ยเพิ่มขึ้นเป็น ๔.๑๘ บาทต่อหน่วย[1] " +
				"ในส่วนนี้เปรียบเทียบค่าไฟฟ้าของแต่ละภาค" + sources,
			claims: []string{"ค่าไฟฟ้าเฉลี่ยเพิ่มขึ้นเป็น ๔.๑๘ บาทต่อหน่วย[1]"},
			cited:  []bool{true},
		},
		"an English sentence after a cited Thai one is its own": {
			md: "ราคาแผงโซลาร์ลดลงร้อยละ ๘๙ ในสิบปี[1] The Provincial Electricity Authority pays 2.2 baht per unit. " +
				"Solar capacity reached 3,180 MW in 2023.[2] ราคาข้าวสูงขึ้นในปีนี้" + sources,
			claims: []string{
				"ราคาแผงโซลาร์ลดลงร้อยละ ๘๙ ในสิบปี[1]", "The Provincial Electricity Authority pays 2.2 baht per unit.",
				"Solar capacity reached 3,180 MW in 2023.[2]", "ราคาข้าวสูงขึ้นในปีนี้",
			},
			cited: []bool{true, false, true, false},
		},
		"English text is split as before": {
			md:     "Rice prices rose in March.[1] Farmers planted less rice this year.\n\n## Sources\n\n1. https://a.gov/1\n",
			claims: []string{"Rice prices rose in March.[1]", "Farmers planted less rice this year."},
			cited:  []bool{true, false},
		},
		"a link inside an English sentence stays": {
			md:     "Data from [the weather office](https://tmd.go.th/r \"more rain\") shows more rain in September.\n",
			claims: []string{"Data from the weather office shows more rain in September."},
			cited:  []bool{true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var texts []string
			var cited []bool
			for _, c := range Parse([]byte(tc.md)).Claims() {
				texts = append(texts, c.Text)
				cited = append(cited, c.Verdict != "uncited")
			}
			assert.Equal(t, tc.claims, texts)
			assert.Equal(t, tc.cited, cited)
		})
	}
}

func TestThaiSourcesHeading(t *testing.T) {
	t.Parallel()
	r := Parse([]byte("# รายงาน\n\nราคาน้ำมันดีเซลลดลงสามสัปดาห์ติดต่อกัน[1]\n\n## บรรณานุกรม\n\n1. https://energy.go.th/price\n"))
	assert.Equal(t, []string{"https://energy.go.th/price"}, r.SourceURLs)
	assert.True(t, r.Sections[1].Sources)
	assert.Equal(t, "สรุป", NormalizeHeading("## 4. สรุป:"), "Thai vowel and tone marks stay")
}

// TestThaiDigitReferences: a reference numbered in Thai digits, in the
// text or in the Sources list, names the entry of that number, as the
// daily profile reads "[๕]" as citation 5.
func TestThaiDigitReferences(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		md       string
		refs     []string
		urls     []string
		dangling []string
	}{
		"Thai markers, an ordered list": {
			md:   "ฝนตกหนักในภาคใต้ทำให้น้ำท่วมหลายจังหวัด[๒]\n\n## อ้างอิง\n\n1. https://a.go.th/1\n2. https://b.go.th/2\n",
			refs: []string{"2"}, urls: []string{"https://b.go.th/2"},
		},
		"Thai labels in a paragraph of sources": {
			md:   "ฝนตกหนักในภาคใต้ทำให้น้ำท่วมหลายจังหวัด[1]\n\n## อ้างอิง\n\n[๑] https://a.go.th/1\n[๒] https://b.go.th/2\n",
			refs: []string{"1"}, urls: []string{"https://a.go.th/1"},
		},
		"a numbered link in Thai digits": {
			md:   "ฝนตกหนักในภาคใต้ทำให้น้ำท่วมหลายจังหวัด [๑](https://a.go.th/1)\n",
			refs: []string{"1"}, urls: []string{"https://a.go.th/1"},
		},
		"lines numbered in Thai digits": {
			md: "ฝนตกหนักในภาคใต้ทำให้น้ำท่วมหลายจังหวัด[๒]\n\n## อ้างอิง\n\n" +
				"๑. กรมอุตุนิยมวิทยา https://a.go.th/1\n๒. กรมชลประทาน https://b.go.th/2\n",
			refs: []string{"2"}, urls: []string{"https://b.go.th/2"},
		},
		"lines numbered in brackets": {
			md: "ฝนตกหนักในภาคใต้ทำให้น้ำท่วมหลายจังหวัด[2]\n\n## อ้างอิง\n\n" +
				"(1) กรมอุตุนิยมวิทยา https://a.go.th/1\n(2) กรมชลประทาน https://b.go.th/2\n",
			refs: []string{"2"}, urls: []string{"https://b.go.th/2"},
		},
		"a Thai marker beyond the list": {
			md:       "ฝนตกหนักในภาคใต้ทำให้น้ำท่วมหลายจังหวัด[๙]\n\n## อ้างอิง\n\n1. https://a.go.th/1\n",
			dangling: []string{"[๙]"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Parse([]byte(tc.md))
			var refs, urls []string
			for _, c := range r.Claims() {
				for _, ct := range c.Citations {
					refs = append(refs, ct.Ref)
					urls = append(urls, ct.URL)
				}
			}
			assert.Equal(t, tc.refs, refs)
			assert.Equal(t, tc.urls, urls)
			assert.Equal(t, tc.dangling, r.Dangling)
		})
	}
}
