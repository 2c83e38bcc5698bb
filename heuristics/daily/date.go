package daily

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaylabs/assay/internal/textseg"
)

// beOffset is how many years the Buddhist era, Thailand's calendar, runs
// ahead of the common era: 2568 BE is 2025 CE.
const beOffset = 543

// months are the names of the months, January first: English in full and
// short, Thai in full and short (ม.ค. is January).
var months = [12][]string{
	{"january", "jan", "มกราคม", "ม.ค."},
	{"february", "feb", "กุมภาพันธ์", "ก.พ."},
	{"march", "mar", "มีนาคม", "มี.ค."},
	{"april", "apr", "เมษายน", "เม.ย."},
	{"may", "พฤษภาคม", "พ.ค."},
	{"june", "jun", "มิถุนายน", "มิ.ย."},
	{"july", "jul", "กรกฎาคม", "ก.ค."},
	{"august", "aug", "สิงหาคม", "ส.ค."},
	{"september", "sep", "sept", "กันยายน", "ก.ย."},
	{"october", "oct", "ตุลาคม", "ต.ค."},
	{"november", "nov", "พฤศจิกายน", "พ.ย."},
	{"december", "dec", "ธันวาคม", "ธ.ค."},
}

// monthOf maps a month's name, lowered, to its number.
var monthOf = sync.OnceValue(func() map[string]int {
	out := map[string]int{}
	for i, names := range months {
		for _, n := range names {
			out[n] = i + 1
		}
	}
	return out
})

// dateForms matches the ways a report writes a date, its digits ASCII:
// year-month-day (2025-11-01, 2568/11/01), day/month/year (1/11/2568,
// 01-11-2025, 1.11.2025; or month/day/year), a day, a month's name and a year (1 พฤศจิกายน
// 2568, 1 พ.ย. พ.ศ. 2568, 1 Nov 2025) and a month's name, a day and a
// year (November 1, 2025).
var dateForms = sync.OnceValue(func() []*regexp.Regexp {
	var names []string
	for _, ns := range months {
		for _, n := range ns {
			names = append(names, regexp.QuoteMeta(n))
		}
	}
	// Longest first, so that "sept" is taken whole and "มี.ค." before a
	// shorter name it holds.
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	month := `(` + strings.Join(names, "|") + `)\.?`
	era := `(?:(?:พ\.ศ\.|ค\.ศ\.|b\.e\.|a\.d\.|be|ad|ce)\s*)?`
	return []*regexp.Regexp{
		regexp.MustCompile(`(?:^|[^0-9])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[^0-9]|$)`),
		regexp.MustCompile(`(?:^|[^0-9])(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?:[^0-9]|$)`),
		regexp.MustCompile(`(?:^|[^0-9])(\d{1,2})\s*` + month + `\s*,?\s*` + era + `(\d{4})(?:[^0-9]|$)`),
		regexp.MustCompile(month + `\s*(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*` + era + `(\d{4})(?:[^0-9]|$)`),
	}
})

// mentionsDate reports whether text (lowered by lowerASCII) gives the
// day date, an ISO date (2025-11-01): as written, or in any form of
// dateForms, with Thai or ASCII digits, its year in the common or the
// Buddhist era. A date that is no ISO date is looked for as written.
func mentionsDate(lower, date string) bool {
	if date == "" {
		return false
	}
	if strings.Contains(lower, strings.ToLower(date)) {
		return true
	}
	want, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return false
	}
	text := textseg.ASCIIDigits(lower)
	for f, re := range dateForms() {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			var y, mo, d string
			switch f {
			case 0:
				y, mo, d = m[1], m[2], m[3]
			case 1: // day first, as Thai and most writers put it; or month first
				if sameDay(want, m[3], m[1], m[2]) {
					return true
				}
				d, mo, y = m[1], m[2], m[3]
			case 2:
				d, mo, y = m[1], strconv.Itoa(monthOf()[m[2]]), m[3]
			case 3:
				mo, d, y = strconv.Itoa(monthOf()[m[1]]), m[2], m[3]
			}
			if sameDay(want, y, mo, d) {
				return true
			}
		}
	}
	return false
}

// sameDay reports whether year, month and day (digits) are want's date,
// a year after 2400 read as one of the Buddhist era.
func sameDay(want time.Time, year, month, day string) bool {
	y, err1 := strconv.Atoi(year)
	m, err2 := strconv.Atoi(month)
	d, err3 := strconv.Atoi(day)
	if err1 != nil || err2 != nil || err3 != nil {
		return false
	}
	if y > 2400 {
		y -= beOffset
	}
	return y == want.Year() && time.Month(m) == want.Month() && d == want.Day()
}
