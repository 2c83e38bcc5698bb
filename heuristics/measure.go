package heuristics

import (
	"regexp"
	"strings"
	"sync"
)

// measureKind is a set of kinds of measure a question can ask for.
type measureKind uint8

const (
	measureLength measureKind = 1 << iota // length, height, depth, distance
	measureWeight
	measureMoney
	measureDuration
	measureVolume
	measureCount  // any number
	measurePerson // a person's name (English only)
)

// measureQuestion is a wording that asks for a measure, and the kinds of
// measure that answer it: "how long" is answered by a length or a duration
// ("how long is the Arno", "how long does it take"), "how tall" by a
// height. The wording names the kind of answer, not the topic, so it is
// not among the query's terms.
type measureQuestion struct {
	re    *regexp.Regexp
	kinds measureKind
}

// measureQuestions are the measure wordings in English, Chinese, Japanese
// and Thai, compiled on first use. The English ones take the light verb
// that follows ("how long does it take", "how much does it cost") with
// them. Order matters only for reading: every wording that matches counts.
var measureQuestions = sync.OnceValue(func() []measureQuestion {
	tail := `(\s+(does|do|did|is|are|was|were|will|would|can|should)(\s+(it|you|i|we|they|he|she|a|an|the))?\s+(take|cost|last|weigh|need|get))?\b`
	en := func(words string) *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bhow\s+(` + words + `)\b` + tail)
	}
	return []measureQuestion{
		{en(`long`), measureLength | measureDuration},
		{en(`tall|high|deep|wide|far|big|large`), measureLength},
		{en(`heavy`), measureWeight},
		{en(`much`), measureMoney | measureWeight | measureVolume},
		{en(`old`), measureDuration},
		{en(`many`), measureCount},
		{regexp.MustCompile(`(?i)\bwho(m|se)?\b`), measurePerson},
		{regexp.MustCompile(`多长`), measureLength | measureDuration},
		{regexp.MustCompile(`多[高深宽远大]|長さ|高さ|深さ|距離|(ยาว|สูง|ลึก|กว้าง|ไกล)(เท่าไ[รห]่?|แค่ไหน)`), measureLength},
		{regexp.MustCompile(`多重|重さ|หนัก(เท่าไ[รห]่?|แค่ไหน)`), measureWeight},
		{regexp.MustCompile(`多少钱|价格|いくら|値段|ราคา(เท่าไ[รห]่?)?|กี่บาท`), measureMoney},
		{regexp.MustCompile(`多久|何時間|何年|何日|นาน(เท่าไ[รห]่?|แค่ไหน)`), measureDuration},
	}
})

// numberRe is a number: digits (with "," and "." inside), or a number
// written in English words.
const numberRe = `(\d[\d,.]*(\s?(thousand|million|billion))?|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|half|a dozen))`

// measureUnits holds, for each kind, a pattern for a number with a unit of
// that kind ("200 kilometres", "330 m", "$40", "9 to 12 minutes", "6300公里"),
// compiled on first use.
var measureUnits = sync.OnceValue(func() map[measureKind]*regexp.Regexp {
	unit := func(en, other string) *regexp.Regexp {
		return regexp.MustCompile(`(?i)` + numberRe + `[\s-]?((` + en + `)\b|` + other + `)`)
	}
	return map[measureKind]*regexp.Regexp{
		measureLength: unit(`km|kilomet(er|re)s?|m|met(er|re)s?|cm|centimet(er|re)s?|mm|millimet(er|re)s?|miles?|ft|feet|foot|inch(es)?|yards?`,
			`公里|千米|米|厘米|毫米|英里|英尺|キロメートル|キロ|メートル|センチ|ミリ|マイル|กิโลเมตร|เมตร|เซนติเมตร|ไมล์|กม`),
		measureWeight: unit(`kg|kilos?|kilograms?|g|grams?|grammes?|mg|milligrams?|tonnes?|tons?|lbs?|pounds?|oz|ounces?|stone`,
			`公斤|千克|克|吨|斤|キログラム|キロ|グラム|トン|กิโลกรัม|กรัม|ตัน|กก`),
		measureMoney: regexp.MustCompile(`(?i)[$€£¥₩₹฿]\s?\d|` + numberRe + `[\s-]?((dollars?|usd|euros?|eur|pounds?|gbp|yen|yuan|rmb|cents?|baht|rupees?|bucks)\b|元|美元|块|円|ドル|บาท|ดอลลาร์)`),
		measureDuration: unit(`seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?|decades?|centur(y|ies)`,
			`秒|分钟|小时|天|周|个月|年|時間|日|週間|か月|ヶ月|วินาที|นาที|ชั่วโมง|วัน|สัปดาห์|เดือน|ปี`),
		measureVolume: unit(`litres?|liters?|l|ml|millilit(er|re)s?|gallons?|cups?|pints?|quarts?`, `升|毫升|リットル|ลิตร`),
		measureCount:  regexp.MustCompile(`(?i)` + numberRe),
	}
})

// measureAsked returns the kinds of measure the query asks for (0 for
// none) and the query with its measure wordings taken out.
func measureAsked(query string) (measureKind, string) {
	var kinds measureKind
	for _, q := range measureQuestions() {
		if q.re.MatchString(query) {
			kinds |= q.kinds
			query = q.re.ReplaceAllString(query, " ")
		}
	}
	return kinds, query
}

// capitalised is a word written with a capital, as names are.
var capitalised = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\p{Lu}\p{Ll}+`) })

// holdsPerson reports whether text names someone the query does not: a
// capitalised word that is not the text's first word, not among the
// query's words (lower-cased in query) and not a stop word ("By Mary
// Shelley" and "a novel by Jane Austen" do; "Frankenstein is a novel"
// does not).
func holdsPerson(text string, query map[string]bool) bool {
	first := true
	for _, loc := range capitalised().FindAllStringIndex(text, -1) {
		w := strings.ToLower(text[loc[0]:loc[1]])
		atStart := first && strings.TrimSpace(text[:loc[0]]) == ""
		first = false
		if atStart || query[w] || lexicon().IsStop(w) {
			continue
		}
		return true
	}
	return false
}

// holdsMeasure reports whether text holds a number with a unit of one of
// the kinds, or for measurePerson a name the query (its words lower-cased)
// does not give.
func holdsMeasure(text string, kinds measureKind, query map[string]bool) bool {
	if kinds == 0 || strings.TrimSpace(text) == "" {
		return false
	}
	if kinds&measurePerson != 0 && holdsPerson(text, query) {
		return true
	}
	for k, re := range measureUnits() {
		if kinds&k != 0 && re.MatchString(text) {
			return true
		}
	}
	return false
}
