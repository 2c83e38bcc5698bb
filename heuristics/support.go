package heuristics

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/heuristics/internal/lex"
	"github.com/assaylabs/assay/heuristics/reportdoc"
	"github.com/assaylabs/assay/internal/textseg"
)

// Offline faithfulness: an answer is split into claims, and each claim is
// checked against the context passages (SupportClaims): one passage must
// cover the claim's content, and nothing in it may disagree.
const (
	// DefaultSupportThreshold is the least share of a claim's content words
	// (compared by stem, weighted by rarity) that one passage must hold for
	// the claim to be supported: most of the claim, two words in three, so
	// that a reworded verb ("wrote" for "a novel by") does not sink a claim
	// while an added clause of its own does.
	DefaultSupportThreshold = 2.0 / 3

	// DefaultFaithfulThreshold is the least FaithfulnessScore value for which
	// an answer is called faithful: every claim supported, as with a model.
	DefaultFaithfulThreshold = 1.0
)

// ClaimSupport is the verdict on one claim.
type ClaimSupport struct {
	// Claim is the claim as given.
	Claim string
	// Supported is true when a passage covers at least
	// DefaultSupportThreshold of the claim and nothing in it disagrees.
	Supported bool
	// Score is the rarity-weighted share, in [0, 1], of the claim's content
	// words and numbers found in the evidence.
	Score float64
	// Context is the index of the context holding the evidence, or -1 when
	// no context shares a content word with the claim.
	Context int
	// Evidence is the supporting passage (a context sentence, or two
	// adjacent sentences joined by a space), or when none supports the
	// claim the passage that disagrees with it or covers most of it; empty
	// when Context is -1.
	Evidence string
	// Reason says why the claim is or is not supported, for example
	// "supported 0.83", "number 1987 not in the passage", "negation
	// differs", "name paris not in the passage", "antonym: close in the
	// passage for open in the claim" or "low overlap 0.31".
	Reason string
}

// FaithfulnessScore splits answer into claims (SplitClaims), checks each
// against the contexts (SupportClaims) and returns the share of claims that
// are supported, with the verdicts. An answer with no claims scores 1 with no
// verdicts: it asserts nothing the contexts could contradict. With no
// contexts every claim is unsupported. The value is never NaN; compare it
// with DefaultFaithfulThreshold to call an answer faithful.
func FaithfulnessScore(answer string, contexts []string) (value float64, claims []ClaimSupport) {
	claims = SupportClaims(SplitClaims(answer), contexts)
	if len(claims) == 0 {
		return 1, nil
	}
	n := 0
	for _, c := range claims {
		if c.Supported {
			n++
		}
	}
	return float64(n) / float64(len(claims)), claims
}

// minClauseWords is the least number of words each side of a clause split
// must have; shorter pieces stay in their sentence.
const minClauseWords = 4

// clauseBreaks are the boundaries at which a long sentence is split into
// claims. A semicolon always splits; the conjunctions only in sentences of
// at least longSentenceWords words.
var clauseBreaks = []string{", and ", ", but ", ", while ", ", whereas ", ", although ", ", though ", ", yet "}

// longSentenceWords is the length from which a sentence is split at a comma
// followed by a conjunction.
const longSentenceWords = 20

// interjections open conversational answers ("Yeah, it is ...") without
// asserting anything; they are dropped from the start of a claim.
var interjections = toSet(`yes yeah yea yep yup well oh ok okay sure wow hmm hm ah haha lol right indeed absolutely totally true`)

// fluffOpeners start sentences that assert nothing about the world:
// greetings, thanks and offers of help or of more. Compared lower-cased.
var fluffOpeners = []string{
	"hi", "hello", "hey", "thanks", "thank you", "you're welcome", "you are welcome",
	"i hope this helps", "hope this helps", "hope that helps", "let me know", "feel free",
	"good luck", "have a nice", "have a great", "sounds good", "that's a good question",
	"that is a good question", "great question", "good question",
	"would you like", "do you want", "shall i", "is there anything", "anything else",
	"can i help", "how can i help", "may i help", "any other questions", "any questions",
}

// SplitClaims returns the claims of answer: its sentences (lines are split
// first, so list items stand alone), with long sentences split at clause
// boundaries (a semicolon, or a comma followed by "and", "but", "while"...)
// when each piece keeps at least four words. Leading interjections ("Yeah,",
// "Well,") and list markers are dropped, and sentences that assert nothing
// are skipped: greetings, thanks, offers of help or of more ("Would you
// like to know more?"), reactions to the user ("That's pretty cool!"), and
// anything left with no content word ("Have you been there?"). Opinions
// with a subject ("It's a fun show") and first-person statements stay: they
// are claims the context cannot support. So do other questions: a question
// brings in what it presupposes or suggests ("Which is the hardest move?",
// "Did you know it is the tallest?"), and that content is the answer's, to
// be found in the contexts like any other.
func SplitClaims(answer string) []string {
	var out []string
	for _, line := range strings.Split(answer, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if stripListNumber(line) == "" {
			out = append(out, line) // a line "42." alone is a number, not a list marker
			continue
		}
		bounds := reportdoc.SplitSentences(line)
		for i := 1; i < len(bounds); i++ {
			for _, c := range splitClauses(line[bounds[i-1]:bounds[i]]) {
				if c = cleanClaim(c); c != "" {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// splitClauses splits a sentence at semicolons, and a long sentence at a
// comma plus conjunction, keeping each piece at least minClauseWords long.
func splitClauses(s string) []string {
	var parts []string
	for _, p := range strings.Split(s, ";") {
		if len(parts) > 0 && (!lexicon().HasWords(p, minClauseWords) || !lexicon().HasWords(parts[len(parts)-1], minClauseWords)) {
			parts[len(parts)-1] += ";" + p
			continue
		}
		parts = append(parts, p)
	}
	var out []string
	for _, p := range parts {
		out = append(out, splitConjunctions(p)...)
	}
	return out
}

func splitConjunctions(s string) []string {
	if !lexicon().HasWords(s, longSentenceWords) {
		return []string{s}
	}
	low := strings.ToLower(s)
	for _, b := range clauseBreaks {
		i := strings.Index(low, b)
		if i < 0 {
			continue
		}
		head, tail := s[:i], s[i+2:] // keep the conjunction with the tail
		if !lexicon().HasWords(head, minClauseWords) || !lexicon().HasWords(tail, minClauseWords) || endsList(head) {
			continue
		}
		return append([]string{head}, splitConjunctions(tail)...)
	}
	return []string{s}
}

// endsList reports whether head ends in the items of a list, so that a
// conjunction after it joins the list's last item ("the north channel, the
// irish sea, and st george's channel"), not a clause: its last comma is
// followed by at most listItemWords words.
func endsList(head string) bool {
	i := strings.LastIndex(head, ",")
	return i >= 0 && !lexicon().HasWords(head[i+1:], listItemWords+1)
}

// listItemWords is the most words a list item before ", and" has.
const listItemWords = 4

// cleanClaim trims a sentence to its claim, or returns "" when it asserts
// nothing.
func cleanClaim(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "-*•>#")
	s = strings.TrimSpace(stripListNumber(s))
	for {
		w := lex.FirstWord(s)
		if w == "" || !interjections[strings.ToLower(w)] {
			break
		}
		i := strings.Index(s, w) + len(w)
		rest := strings.TrimLeft(s[i:], " ")
		if rest == "" || !strings.ContainsRune(",.!", rune(rest[0])) {
			break // "Well known..." or "Right after..." are not interjections
		}
		s = strings.TrimLeft(rest, ",.! ")
	}
	trimmed := strings.TrimRight(s, " \t\"'”’)")
	if trimmed == "" || !lexicon().HasWords(s, 1) {
		return ""
	}
	if !hasContent(s) {
		return "" // "I am!", "It is so.", "B.": no word the context could hold
	}
	if noAnswer[strings.ToLower(strings.Trim(s, claimPunct))] {
		return "" // "N/A", "TBD": a placeholder where an answer would be
	}
	if lex.EndsWith(trimmed, ":：") {
		// A line ending in a colon introduces the list or quote that
		// follows ("Key points include:"); what it introduces is judged.
		return ""
	}
	low := strings.ToLower(s)
	for _, f := range fluffOpeners {
		if strings.HasPrefix(low, f) && (len(low) == len(f) || !isWordRune(low[len(f):])) {
			return ""
		}
	}
	return s
}

// noAnswer holds the placeholders written where there is no answer,
// lower-cased: an answer that is one of them, alone, states nothing (as
// RAGAS' statement extraction finds no statement in it). "N/A" and "n.a."
// are letters alone, which hasContent already refuses.
var noAnswer = toSet(`na n.a tbd tba tbc null nil nan`)

// claimPunct is the punctuation around a placeholder answer ("N/A.",
// "- TBD -").
const claimPunct = " \t.,;:!?-–—*()[]\"'"

// hasContent reports whether s has a word a context could hold: a number,
// or a word that is not a stop word, a word of no content (light verbs,
// "however") or an interjection. A letter alone, in a script written with
// spaces, is none: the "B" of an answer "B." or "(B)", the "n" and "a" of
// "N/A" name nothing a context could be checked for.
func hasContent(s string) bool {
	for _, w := range lexicon().LowerWords(s) {
		if strings.ContainsAny(w, "0123456789") {
			return true
		}
		if utf8.RuneCountInString(w) == 1 && !textseg.HasUnspaced(w) {
			continue
		}
		if !lexicon().IsStop(w) && !lexicon().NoContent(w) && !interjections[w] {
			return true
		}
	}
	return false
}

// stripListNumber drops a leading "1." or "2)" list marker.
func stripListNumber(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && (i+1 == len(s) || s[i+1] == ' ') {
		return s[i+1:]
	}
	return s
}

func isWordRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// SupportClaims checks each claim against the contexts, passage by
// passage: a passage is a context sentence or two adjacent ones. A claim is
// supported when one passage covers its content and nothing in that
// passage disagrees with it:
//   - covers: at least DefaultSupportThreshold of the claim's content
//     words, weighted by rarity, are in the passage, in any order and any
//     inflection (compared by Snowball stem); light verbs, linking words
//     and words about the source carry no content (lex.Lexicon.NoContent),
//     and words naming one measure are one word ("tall", "high");
//   - numbers: each number of the claim is in the passage with the same
//     value in a compatible unit ("330 metres" is "330 m", "2.1 million" is
//     2,100,000, "100 degrees Celsius" is "100 °C");
//   - names: each name of the claim (a capitalised word, at the start of
//     the claim too unless it is a common word) is in the passage;
//   - negation: the claim and the passage are both negated, or neither;
//   - antonyms: no clause of the passage that shares a content word with
//     the claim holds the antonym of a claim word (lex.Lexicon.Antonyms)
//     without the word itself.
//
// The result has one entry per claim, in order.
func SupportClaims(claims []string, contexts []string) []ClaimSupport {
	passages := contextPassages(contexts)
	out := make([]ClaimSupport, len(claims))
	for i, c := range claims {
		out[i] = supportClaim(c, passages)
	}
	return out
}

// sentence is one context sentence, prepared for matching.
type sentence struct {
	context int
	text    string
	set     map[string]bool // lower-cased words, their stems and hyphen parts, and measures ("@height")
	lower   []string        // lower-cased words, in order
	quants  []quantity
	clauses []map[string]bool // stems of each clause; built on first use (clausesOf)
}

// passage is a sentence, or two adjacent sentences of one context (b set).
type passage struct{ a, b *sentence }

func (p passage) has(key string) bool { return p.a.set[key] || (p.b != nil && p.b.set[key]) }

func (p passage) text() string {
	if p.b == nil {
		return p.a.text
	}
	return p.a.text + " " + p.b.text
}

func contextPassages(contexts []string) []passage {
	var out []passage
	for ci, ctx := range contexts {
		var sents []*sentence
		for _, line := range strings.Split(ctx, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			b := reportdoc.SplitSentences(line)
			for i := 1; i < len(b); i++ {
				if s := strings.TrimSpace(line[b[i-1]:b[i]]); s != "" {
					sents = append(sents, newSentence(ci, s))
				}
			}
		}
		for i, s := range sents {
			out = append(out, passage{a: s})
			if i+1 < len(sents) {
				out = append(out, passage{a: s, b: sents[i+1]})
			}
		}
	}
	return out
}

func newSentence(ci int, text string) *sentence {
	lower := lexicon().LowerWords(text)
	set := make(map[string]bool, 2*len(lower))
	for _, w := range lower {
		addWord(set, w)
		if strings.Contains(w, "-") {
			for p := range strings.SplitSeq(w, "-") {
				addWord(set, p)
			}
		}
	}
	return &sentence{context: ci, text: text, set: set, lower: lower, quants: quantitiesIn(text, true)}
}

// addWord adds the lower-cased word w to set, with its stem and its
// measure.
func addWord(set map[string]bool, w string) {
	set[w], set[lexicon().Stem(w)] = true, true
	if m := lexicon().Measure(w); m != "" {
		set["@"+m] = true
	}
}

// clauseBreak splits a sentence into clauses: at punctuation inside it
// and at a conjunction.
var clauseBreak = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[,;:()]|\b(?:and|but|while|whereas|although|though|yet|or)\b`)
})

// clausesOf returns the stems of each clause of s, building them once.
func (s *sentence) clausesOf() []map[string]bool {
	if s.clauses == nil {
		for _, c := range clauseBreak().Split(s.text, -1) {
			s.clauses = append(s.clauses, lexicon().StemSet(c))
		}
	}
	return s.clauses
}

// claimFacts are the parts of a claim a passage must cover or agree on.
type claimFacts struct {
	keys    []string           // content words: stems, or "@" and a measure
	weights map[string]float64 // rarity of each key's word
	quants  []quantity         // numbers, with their units
	qweight []float64          // rarity of each number's word
	names   []string           // lower-cased
	// acronyms maps a name word, lower-cased and stemmed, to the initials
	// of the run of capitalised words it is in ("western" and "australia"
	// to "wa").
	acronyms map[string]string
	stems    []string // stems of all the claim's words, for antonyms
	negated  bool
	thaiNeg  bool
}

func factsOf(claim string) claimFacts {
	f := claimFacts{weights: map[string]float64{}}
	words := lexicon().Words(claim)
	for _, q := range quantitiesIn(claim, true) {
		if q.text == "one" {
			continue // "one of the ...": a pronoun more often than a count
		}
		f.quants = append(f.quants, q)
		f.qweight = append(f.qweight, rarity(q.text))
	}
	seen := map[string]bool{}
	for i, w := range words {
		lw := strings.ToLower(w)
		f.stems = append(f.stems, lexicon().Stem(lw))
		if strings.ContainsAny(lw, "0123456789") {
			continue // numbers are quantities
		}
		if isName(w, lw, i) && !seen[lw] {
			seen[lw] = true
			f.names = append(f.names, lw)
		}
		for p := range strings.SplitSeq(lw, "-") {
			key, ok := contentKey(p)
			if !ok {
				continue
			}
			if r, ok := f.weights[key]; !ok || rarity(p) < r {
				if !ok {
					f.keys = append(f.keys, key)
				}
				f.weights[key] = rarity(p)
			}
		}
	}
	f.acronyms = acronymsOf(words)
	f.negated = negated(lexicon().LowerWords(claim), f.keys)
	f.thaiNeg = strings.Contains(claim, thaiNot)
	return f
}

// contentKey returns the key a lower-cased word part is matched by, or
// false when it carries no content: a stop word, a word of no content, a
// unit, a number word (numbers are quantities) or a word of fewer than
// three letters outside the unspaced scripts.
func contentKey(p string) (string, bool) {
	if p == "" || lexicon().IsStop(p) || lexicon().NoContent(p) || isUnitWord(p) || numberWords[p] != "" ||
		(utf8.RuneCountInString(p) < 3 && !lex.IsGram(p)) {
		return "", false
	}
	if m := lexicon().Measure(p); m != "" {
		return "@" + m, true
	}
	return lexicon().Stem(p), true
}

// isName reports whether the word w (lower-cased lw), the ith of its
// claim, is a name: capitalised, not a stop word, a word of no content or
// a unit ("Celsius"),
// and at the claim's start not a common word (one of wordfreq.txt).
func isName(w, lw string, i int) bool {
	if !isCapitalised(w) || lexicon().IsStop(lw) || lexicon().NoContent(lw) || isUnitWord(lw) || lw == "i" || strings.HasPrefix(lw, "i'") {
		return false
	}
	if i > 0 {
		return true
	}
	ranks, _ := wordRanks()
	_, common := ranks[lw]
	return !common
}

// acronymsOf maps each word of a run of two or more capitalised words,
// lower-cased and stemmed, to the run's initials, lower-cased: a name the
// context may abbreviate.
func acronymsOf(ws []string) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && isCapitalised(ws[j]) && !lexicon().IsStop(strings.ToLower(ws[j])) {
			j++
		}
		if j-i >= 2 {
			var b strings.Builder
			for _, w := range ws[i:j] {
				r, _ := utf8.DecodeRuneInString(w)
				b.WriteRune(unicode.ToLower(r))
			}
			for _, w := range ws[i:j] {
				lw := strings.ToLower(w)
				out[lw], out[lexicon().Stem(lw)] = b.String(), b.String()
			}
		}
		i = max(j, i+1)
	}
	return out
}

// numberWords maps spelled-out numbers to digits, so
// "third" agrees with "3rd" and "three" with "3".
var numberWords = map[string]string{
	"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20",
	"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
	"seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
}

func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// covers returns the rarity-weighted share of the claim's content words
// and numbers that the passage holds.
func (f *claimFacts) covers(p passage) float64 {
	hit, total := 0.0, 0.0
	for _, k := range f.keys {
		w := f.weights[k]
		total += w
		if a := f.acronyms[k]; p.has(k) || (a != "" && p.has(a)) {
			hit += w
		}
	}
	for i, q := range f.quants {
		total += f.qweight[i]
		if p.holds(q) {
			hit += f.qweight[i]
		}
	}
	if total == 0 {
		return 1
	}
	return hit / total
}

// holds reports whether the passage has a quantity that agrees with q.
func (p passage) holds(q quantity) bool {
	for _, s := range []*sentence{p.a, p.b} {
		if s == nil {
			continue
		}
		for _, pq := range s.quants {
			if q.agrees(pq) {
				return true
			}
		}
	}
	return false
}

func supportClaim(claim string, passages []passage) ClaimSupport {
	cs := ClaimSupport{Claim: claim, Context: -1}
	f := factsOf(claim)
	if len(f.keys) == 0 && len(f.quants) == 0 {
		cs.Supported, cs.Score, cs.Reason = true, 1, "no content words"
		return cs
	}
	var best, disagreeing, supporting passage
	var bestScore, disagreeScore, supportScore float64
	reason := ""
	for _, p := range passages {
		score := f.covers(p)
		if score > bestScore {
			best, bestScore = p, score
		}
		if score < DefaultSupportThreshold || score <= supportScore {
			continue
		}
		if r := f.disagreement(p); r != "" {
			if score > disagreeScore {
				disagreeing, disagreeScore, reason = p, score, r
			}
			continue
		}
		supporting, supportScore = p, score
	}
	switch {
	case supporting.a != nil:
		cs.Supported, cs.Reason = true, fmt.Sprintf("supported %.2f", supportScore)
		best, bestScore = supporting, supportScore
	case disagreeing.a != nil:
		cs.Reason = reason
		best, bestScore = disagreeing, disagreeScore
	case best.a == nil:
		cs.Reason = "no content word in context"
		return cs
	default:
		// Too little of the claim is covered; a missing name or number,
		// a negation or an antonym says more about why than the figure.
		if cs.Reason = f.disagreement(best); cs.Reason == "" {
			cs.Reason = fmt.Sprintf("low overlap %.2f", bestScore)
		}
	}
	cs.Context, cs.Evidence, cs.Score = best.a.context, best.text(), round3(bestScore)
	return cs
}

// disagreement returns why the passage disagrees with the claim (a number
// or a name it lacks, a negation or an antonym), or "" when it does not.
func (f *claimFacts) disagreement(p passage) string {
	for _, q := range f.quants {
		if !p.holds(q) {
			return "number " + q.text + " not in the passage"
		}
	}
	for _, n := range f.names {
		if a := f.acronyms[n]; a != "" && p.has(a) {
			continue // "Western Australia" written "WA"
		}
		if !p.has(n) && !p.has(lexicon().Stem(n)) {
			return "name " + n + " not in the passage"
		}
	}
	neg := negated(p.a.lower, f.keys) || (p.b != nil && negated(p.b.lower, f.keys))
	thai := strings.Contains(p.text(), thaiNot)
	if neg != f.negated || thai != f.thaiNeg {
		return "negation differs"
	}
	return f.antonym(p)
}

// antonym returns which claim word a clause of the passage contradicts
// with its antonym, or "": the clause must share a content word with the
// claim, hold the antonym and not the word, and the claim must not hold
// the antonym itself.
func (f *claimFacts) antonym(p passage) string {
	for _, s := range f.stems {
		for _, a := range lexicon().Antonyms(s) {
			if slices.Contains(f.stems, a) {
				continue
			}
			for _, sent := range []*sentence{p.a, p.b} {
				if sent == nil || !sent.set[a] {
					continue
				}
				for _, c := range sent.clausesOf() {
					if c[a] && !c[s] && f.shares(c, s) {
						return "antonym: " + a + " in the passage for " + s + " in the claim"
					}
				}
			}
		}
	}
	return ""
}

// shares reports whether the clause stems c hold a content word of the
// claim other than except.
func (f *claimFacts) shares(c map[string]bool, except string) bool {
	for _, k := range f.keys {
		if k != except && c[k] {
			return true
		}
	}
	return false
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

// coverage is the share of stems found in set.
func coverage(stems []string, set map[string]bool) float64 {
	if len(stems) == 0 {
		return 1
	}
	n := 0
	for _, s := range stems {
		if set[s] {
			n++
		}
	}
	return float64(n) / float64(len(stems))
}

// negationCues mark a negated statement; 不 and 没 (沒) are Chinese "not".
var negationCues = toSet(`not no never none nobody nothing neither nor cannot without nt 不 没 沒`)

// thaiNot is Thai "not". The tokenizer cuts its tone mark (see lex.Words),
// which would confuse it with ไม้ "wood", so it is looked for in the text.
const thaiNot = "ไม่"

// negationReach is how many words after a negation cue are taken to be in
// its scope.
const negationReach = 4

// negationAfterCues mark a negation written after what it negates, as
// Japanese endings are (高くない "not high", 使えません "cannot be used"):
// grams of the text (textseg.Grams), in which each character comes as
// itself and in two pairs, so their reach is twice negationReach, back.
var negationAfterCues = toSet(`ない せん`)

// negated reports whether a negation cue in ws has one of the keys within
// negationReach words after it, or a negationAfterCues gram one within its
// reach before it.
func negated(ws []string, keys []string) bool {
	want := map[string]bool{}
	for _, s := range keys {
		want[s] = true
	}
	for i, w := range ws {
		if negationAfterCues[w] {
			for j := i - 1; j >= 0 && j >= i-2*negationReach; j-- {
				if want[lexicon().Stem(ws[j])] {
					return true
				}
			}
			continue
		}
		if !negationCues[w] && !strings.HasSuffix(w, "n't") && !strings.HasSuffix(w, "n’t") {
			continue
		}
		for j := i + 1; j < len(ws) && j <= i+negationReach; j++ {
			if want[lexicon().Stem(ws[j])] {
				return true
			}
		}
	}
	return false
}
