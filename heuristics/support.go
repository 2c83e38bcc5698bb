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
)

// Offline faithfulness: an answer is split into claims, and each claim is
// checked against the context sentences by stemmed content-word overlap, with
// numbers, named entities and negation required to agree.
const (
	// DefaultSupportThreshold is the least share of a claim's content words
	// (compared by stem, weighted by rarity) that its best context sentence
	// or pair of adjacent sentences, or else its whole context, must hold for
	// the claim to count as supported. Chosen on the BEGIN and FaithBench dev
	// splits.
	DefaultSupportThreshold = 0.8

	// DefaultFaithfulThreshold is the least FaithfulnessScore value for which
	// an answer is called faithful: at least seven claims in ten must be
	// supported, so answers of up to three claims must be fully supported.
	// Chosen on the BEGIN and FaithBench dev splits, as the threshold with
	// the best sum of the two balanced accuracies: any value above 2/3 and
	// below 3/4 gives it; chosen jointly inside grouped folds, 0.7 wins 67
	// of 100 folds and 2/3 15.
	DefaultFaithfulThreshold = 0.7
)

// ClaimSupport is the verdict on one claim.
type ClaimSupport struct {
	// Claim is the claim as given.
	Claim string
	// Supported is true when Score reaches DefaultSupportThreshold and the
	// evidence agrees on numbers, named entities and negation.
	Supported bool
	// Score is the rarity-weighted share, in [0, 1], of the claim's content
	// words found in the evidence or, when higher, in its whole context.
	Score float64
	// Context is the index of the context holding the evidence, or -1 when
	// no context shares a content word with the claim.
	Context int
	// Evidence is the best-supporting context sentence, or two adjacent
	// sentences joined by a space; empty when Context is -1.
	Evidence string
	// Reason says why the claim is or is not supported, for example
	// "number 1987 not in context", "negation differs", "named entity Paris
	// not in context" or "low overlap 0.31".
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
		bounds := splitSentences(line, nil)
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
		if len(parts) > 0 && (!lexicon.HasWords(p, minClauseWords) || !lexicon.HasWords(parts[len(parts)-1], minClauseWords)) {
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
	if !lexicon.HasWords(s, longSentenceWords) {
		return []string{s}
	}
	low := strings.ToLower(s)
	for _, b := range clauseBreaks {
		i := strings.Index(low, b)
		if i < 0 {
			continue
		}
		head, tail := s[:i], s[i+2:] // keep the conjunction with the tail
		if !lexicon.HasWords(head, minClauseWords) || !lexicon.HasWords(tail, minClauseWords) || endsList(head) {
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
	return i >= 0 && !lexicon.HasWords(head[i+1:], listItemWords+1)
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
		w := firstWord(s)
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
	if trimmed == "" || !lexicon.HasWords(s, 1) {
		return ""
	}
	if onlyStopWords(s) {
		return "" // "I am!", "It is so.": no word the context could hold
	}
	if reactionOnly(s) {
		return "" // "That's pretty cool!": a reaction to the user, about nothing
	}
	if framingOnly(s) || endsWith(trimmed, ":：") {
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

// onlyStopWords reports whether every word of s is a stop word (lexicon.IsStop:
// "I", "am", or a gram such as 是的) or an interjection.
func onlyStopWords(s string) bool {
	for _, w := range lexicon.Words(s) {
		lw := strings.ToLower(w)
		if !lexicon.IsStop(lw) && !interjections[lw] {
			return false
		}
	}
	return true
}

// framingOnly reports whether every content word of s describes the source
// or links statements ("Here is a concise summary of the passage:"), so it
// says nothing the source could support.
func framingOnly(s string) bool {
	stems := claimStems(s)
	source, discourse := sourceWords(), discourseWords()
	for _, st := range stems {
		if !source[st] && !discourse[st] {
			return false
		}
	}
	return len(stems) > 0
}

// reactions are the words of a reply's reaction to what the user said
// ("That's pretty cool!", "How interesting.") rather than of a claim.
var reactions = toSet(`cool great awesome interesting nice neat amazing wonderful fascinating impressive pretty
really so very wow funny fun sad shame unfortunate terrible awful incredible crazy`)

// reactionOnly reports whether every word of s is a stop word, an
// interjection, a contraction's tail ("s" of "that 's") or a reaction
// word, with at least one reaction word.
func reactionOnly(s string) bool {
	n := 0
	for _, w := range lexicon.Words(s) {
		lw := strings.ToLower(w)
		switch {
		case reactions[lw]:
			n++
		case !lexicon.IsStop(lw) && !interjections[lw] && utf8.RuneCountInString(lw) > 2:
			return false
		}
	}
	return n > 0
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

// SupportClaims checks each claim against the contexts. For every claim it
// takes the context sentence, or pair of adjacent sentences, that holds the
// most of the claim's content words (compared by Snowball stem), preferring
// evidence on which the checks pass: every number and every named entity (a
// capitalised word not opening the claim, or a word with a digit) in the
// claim must appear in the same context, a claim with a superlative ("the
// most important", "the largest") needs one in that context too, and the
// claim and the evidence must agree on negation near the shared words.
// Words that describe the source rather than the world ("the passage
// describes", "the article notes") and discourse words ("however",
// "while") are not content words unless the context uses them. A claim is supported when the checks pass and either
// its evidence, or its context taken whole, holds at least
// DefaultSupportThreshold of its content words: a summary may join facts
// from sentences far apart. The result has one entry per claim, in order.
func SupportClaims(claims []string, contexts []string) []ClaimSupport {
	return supportClaims(claims, contexts, DefaultSupportThreshold)
}

// supportClaims is SupportClaims with the support threshold given.
func supportClaims(claims []string, contexts []string, threshold float64) []ClaimSupport {
	windows := contextWindows(contexts)
	whole := make([]window, len(contexts))
	for i, c := range contexts {
		whole[i] = newWindow(i, c)
		whole[i].superlative = hasSuperlative(whole[i].lower)
	}
	out := make([]ClaimSupport, len(claims))
	for i, c := range claims {
		out[i] = supportClaim(c, windows, whole, threshold)
	}
	return out
}

// window is one context sentence or two adjacent ones, prepared for
// matching.
type window struct {
	context int
	text    string
	stems   map[string]bool // lower-cased words and their stems
	lower   []string        // lower-cased words, in order
	nums    map[string]bool // numbers (numbersIn), and number words as digits
	// superlative reports a superlative in the text (hasSuperlative); it
	// is set on the whole contexts only, which are what a claim's
	// superlative is checked against.
	superlative bool
}

func contextWindows(contexts []string) []window {
	var out []window
	for ci, ctx := range contexts {
		var sents []string
		for _, line := range strings.Split(ctx, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			b := splitSentences(line, nil)
			for i := 1; i < len(b); i++ {
				if s := strings.TrimSpace(line[b[i-1]:b[i]]); s != "" {
					sents = append(sents, s)
				}
			}
		}
		for i, s := range sents {
			out = append(out, newWindow(ci, s))
			if i+1 < len(sents) {
				out = append(out, newWindow(ci, s+" "+sents[i+1]))
			}
		}
	}
	return out
}

func newWindow(ci int, text string) window {
	lower := lexicon.LowerWords(text)
	stems := lexicon.StemSet(text)
	nums := map[string]bool{}
	for _, n := range numbersIn(text) {
		nums[n], stems[n] = true, true
	}
	for _, w := range lower {
		if d, ok := numberWords[w]; ok {
			nums[d] = true
		}
		stems[normNumber(w)] = true
		if strings.Contains(w, "-") {
			for _, p := range strings.Split(w, "-") {
				stems[p], stems[lexicon.Stem(p)] = true, true
			}
		}
	}
	return window{context: ci, text: text, stems: stems, lower: lower, nums: nums}
}

// claimFacts are the parts of a claim the evidence must agree on.
type claimFacts struct {
	stems    []string           // one stem per content word
	weights  map[string]float64 // rarity of each stem's word
	numbers  []string           // the numbers written in digits (numbersIn)
	entities []string           // capitalised words not opening the claim, lower-cased
	// superlative reports a superlative in the claim (hasSuperlative).
	superlative bool
	// acronyms maps an entity word, lower-cased and stemmed, to the
	// initials of the run of capitalised words it is in ("western" and
	// "australia" to "wa").
	acronyms map[string]string
}

func factsOf(claim string) claimFacts {
	var f claimFacts
	f.stems = claimStems(claim)
	f.weights = map[string]float64{}
	lower := lexicon.LowerWords(claim)
	f.superlative = hasSuperlative(lower)
	for _, w := range lower {
		for _, p := range strings.Split(w, "-") {
			for _, s := range partStems(p) {
				if r, ok := f.weights[s]; !ok || rarity(p) < r {
					f.weights[s] = rarity(p)
				}
			}
		}
	}
	f.numbers = slices.Compact(slices.Sorted(slices.Values(numbersIn(claim))))
	f.acronyms = acronymsOf(lexicon.Words(claim))
	seen := map[string]bool{}
	for i, w := range lexicon.Words(claim) {
		lw := strings.ToLower(w)
		if seen[lw] {
			continue
		}
		switch {
		case strings.ContainsAny(w, "0123456789"):
			// Numbers are taken from the whole claim above.
		case i > 0 && lw != "i" && !strings.HasPrefix(lw, "i'") && isCapitalised(w) && !lexicon.IsStop(lw):
			seen[lw] = true
			f.entities = append(f.entities, lw)
		}
	}
	return f
}

// acronymsOf maps each word of a run of two or more capitalised words,
// lower-cased and stemmed, to the run's initials, lower-cased: a name the
// context may abbreviate.
func acronymsOf(ws []string) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && isCapitalised(ws[j]) && !lexicon.IsStop(strings.ToLower(ws[j])) {
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
				out[lw], out[lexicon.Stem(lw)] = b.String(), b.String()
			}
		}
		i = max(j, i+1)
	}
	return out
}

// evaluative words are stop words for queries but claims in their own right
// in an answer: "a great band" says more than "a band".
var evaluative = toSet(`best better good great top key main major important`)

// claimStems returns the stems of a claim's content words, once each: words
// of at least three letters, or with a digit, or grams of an unspaced
// script, that are not stop words (lexicon.IsStop; evaluative words such as "great"
// count). Hyphenated words count by their parts, so "second-most" matches
// "second most", and numbers by their digits (normNumber), so "3rd" matches
// "third".
func claimStems(claim string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range lexicon.Words(claim) {
		for _, p := range strings.Split(strings.ToLower(w), "-") {
			if p == "" || (lexicon.IsStop(p) && !evaluative[p]) || (utf8.RuneCountInString(p) < 3 && !strings.ContainsAny(p, "0123456789") && !lex.IsGram(p)) {
				continue
			}
			for _, s := range partStems(p) {
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
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

// number is a number written in digits, with thousands separators and
// decimals: "54,000" in "54,000-capacity", "5.68" in "5.68m", "1991" and
// "2000" in "1991-2000".
var number = regexp.MustCompile(`\d+(?:,\d{3})*(?:\.\d+)?`)

// numbersIn returns the numbers written in digits in text, without
// thousands separators, in order: a number keeps its value whatever unit,
// suffix or range it is written in ("5.68m" and "5.68 m" agree).
func numbersIn(text string) []string {
	ns := number.FindAllString(text, -1)
	for i, n := range ns {
		ns[i] = strings.ReplaceAll(n, ",", "")
	}
	return ns
}

// partStems returns the stems a word part (a word, or one side of a
// hyphen) is matched by: its Snowball stem, or for a part with digits the
// numbers in it ("3rd" is "3", "5.68m" is "5.68").
func partStems(p string) []string {
	if !strings.ContainsAny(p, "0123456789") {
		return []string{lexicon.Stem(p)}
	}
	if ns := numbersIn(p); len(ns) > 0 {
		return ns
	}
	return []string{normNumber(p)}
}

// normNumber reduces a number word to its digits: thousands separators, a
// trailing "%" and ordinal suffixes go ("3,800" is "3800", "3rd" is "3"),
// and spelled-out numbers up to ten become digits.
func normNumber(w string) string {
	if d, ok := numberWords[w]; ok {
		return d
	}
	w = strings.TrimSuffix(strings.ReplaceAll(w, ",", ""), "%")
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if t, ok := strings.CutSuffix(w, suf); ok && t != "" && strings.Trim(t, "0123456789") == "" {
			return t
		}
	}
	return w
}

func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func supportClaim(claim string, windows, whole []window, threshold float64) ClaimSupport {
	cs := ClaimSupport{Claim: claim, Context: -1}
	f := factsOf(claim)
	if len(f.stems) == 0 && len(f.numbers) == 0 {
		cs.Supported, cs.Score, cs.Reason = true, 1, "no content words"
		return cs
	}
	claimNeg := negated(lexicon.LowerWords(claim), f.stems)
	type cand struct {
		w      *window
		score  float64 // coverage by the window
		all    float64 // coverage by the window's whole context
		reason string
	}
	var best cand
	bestOK := false
	for i := range windows {
		w := &windows[i]
		ctx := &whole[w.context]
		stems := withoutAbsent(f.stems, ctx.stems)
		score := wcoverage(stems, f.weights, w.stems, f.acronyms)
		if score == 0 {
			continue
		}
		reason := disagreement(f, claimNeg, w, ctx)
		ok := reason == ""
		// Prefer evidence that passes the checks, then the higher score,
		// then the earlier (shorter) window.
		if best.w == nil || (ok && !bestOK) || (ok == bestOK && score > best.score) {
			best, bestOK = cand{w, score, wcoverage(stems, f.weights, ctx.stems, f.acronyms), reason}, ok
		}
	}
	if best.w == nil {
		cs.Reason = "no content word in context"
		return cs
	}
	cs.Context, cs.Evidence, cs.Score = best.w.context, best.w.text, round3(max(best.score, best.all))
	switch {
	case !bestOK:
		cs.Reason = best.reason
	case best.score >= threshold:
		cs.Supported, cs.Reason = true, fmt.Sprintf("supported %.2f", best.score)
	case best.all >= threshold:
		cs.Supported, cs.Reason = true, fmt.Sprintf("supported across context %.2f", best.all)
	default:
		cs.Reason = fmt.Sprintf("low overlap %.2f", max(best.score, best.all))
	}
	return cs
}

// sourceWords describe the source or the act of summarising it rather than
// the world ("the passage describes", "here is a concise summary"), and
// discourseWords link statements without adding content. Neither counts as
// a content word of a claim unless its context uses it too.
var (
	sourceWords = stemmedSet(`passage passages article text document source excerpt story report summary summarize
summarise concise core piece pieces information info provided describe describes described discuss discusses discussed
mention mentions mentioned state states stated note notes noted highlight highlights highlighted focus focuses focused
conclude concludes concluded shift shifts delve delves detail details outline outlines cover covering covers based solely
following point points overall`)
	discourseWords = stemmedSet(`however while whilst despite during over under near nearly since rather including include
includes him himself herself themselves itself already instead although though upon among across toward towards after before
until via per within around further furthermore additionally moreover meanwhile also then thus therefore hence`)
)

// stemmedSet returns the set of the stems of fields, built on its first
// call rather than at start-up: stemming is the costly part.
func stemmedSet(fields string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, f := range strings.Fields(fields) {
			m[lexicon.Stem(f)] = true
		}
		return m
	})
}

// withoutAbsent returns stems less the source and discourse words that the
// context set does not hold.
func withoutAbsent(stems []string, ctx map[string]bool) []string {
	out := stems[:0:0]
	source, discourse := sourceWords(), discourseWords()
	for _, s := range stems {
		if (source[s] || discourse[s]) && !ctx[s] {
			continue
		}
		out = append(out, s)
	}
	return out
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

// wcoverage is the rarity-weighted share of stems found in set, directly
// or, for a word of a name, by the name's initials (alias, may be nil).
func wcoverage(stems []string, weights map[string]float64, set map[string]bool, alias map[string]string) float64 {
	if len(stems) == 0 {
		return 1
	}
	hit, total := 0.0, 0.0
	for _, s := range stems {
		w := weights[s]
		total += w
		if a := alias[s]; set[s] || (a != "" && set[a]) {
			hit += w
		}
	}
	if total == 0 {
		return 1
	}
	return hit / total
}

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

// disagreement returns why the claim's numbers, named entities or
// superlative are not in the whole context ctx, or the window w contradicts
// its negation, or "" when none of these.
func disagreement(f claimFacts, claimNeg bool, w, ctx *window) string {
	for _, n := range f.numbers {
		if !ctx.nums[n] {
			return "number " + n + " not in context"
		}
	}
	for _, e := range f.entities {
		if a := f.acronyms[e]; a != "" && ctx.stems[a] {
			continue // "Western Australia" written "WA"
		}
		if !ctx.stems[e] && !ctx.stems[lexicon.Stem(e)] {
			return "named entity " + e + " not in context"
		}
	}
	if negated(w.lower, f.stems) != claimNeg {
		return "negation differs"
	}
	if f.superlative && !ctx.superlative {
		return "superlative not in context"
	}
	return ""
}

// superlatives are the common superlative adjectives. "most" and "least"
// are superlatives after "the" or an ordinal ("the most important", "the
// second-most populous"); alone they are quantifiers ("most methods").
var superlatives = toSet(`best worst biggest largest smallest highest lowest longest shortest oldest
youngest newest greatest fastest slowest strongest weakest richest poorest tallest deepest earliest latest
hottest coldest heaviest lightest cheapest finest easiest hardest closest nearest furthest farthest widest
brightest darkest`)

// hasSuperlative reports whether the lower-cased words ws hold a
// superlative (superlatives), hyphenated words read by their parts.
func hasSuperlative(ws []string) bool {
	prev := ""
	for _, w := range ws {
		for p := range strings.SplitSeq(w, "-") {
			if superlatives[p] || (p == "most" || p == "least") && (prev == "the" || numberWords[prev] != "") {
				return true
			}
			prev = p
		}
	}
	return false
}

// negationCues mark a negated statement; 不 and 没 (沒) are Chinese "not".
var negationCues = toSet(`not no never none nobody nothing neither nor cannot without nt 不 没 沒`)

// negationReach is how many words after a negation cue are taken to be in
// its scope.
const negationReach = 4

// negationAfterCues mark a negation written after what it negates, as
// Japanese endings are (高くない "not high", 使えません "cannot be used"):
// grams of the text (textseg.Grams), in which each character comes as
// itself and in two pairs, so their reach is twice negationReach, back.
var negationAfterCues = toSet(`ない せん`)

// negated reports whether a negation cue in ws has one of the stems within
// negationReach words after it, or a negationAfterCues gram one within its
// reach before it.
func negated(ws []string, stems []string) bool {
	want := map[string]bool{}
	for _, s := range stems {
		want[s] = true
	}
	for i, w := range ws {
		if negationAfterCues[w] {
			for j := i - 1; j >= 0 && j >= i-2*negationReach; j-- {
				if want[lexicon.Stem(ws[j])] {
					return true
				}
			}
			continue
		}
		if !negationCues[w] && !strings.HasSuffix(w, "n't") && !strings.HasSuffix(w, "n’t") {
			continue
		}
		for j := i + 1; j < len(ws) && j <= i+negationReach; j++ {
			if want[lexicon.Stem(ws[j])] {
				return true
			}
		}
	}
	return false
}
