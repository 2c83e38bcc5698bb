// Package plural words a count with its noun in English, so that
// messages say "1 sample" and "2 samples", never "1 samples".
package plural

import (
	"strconv"
	"strings"
)

// Count is n followed by noun, a singular English noun, in the plural
// unless n is 1 or -1: Count(1, "sample") is "1 sample", Count(0,
// "reply") "0 replies".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun is noun, a singular English noun, as it goes after the count n:
// itself when n is 1 or -1, else its plural. The plural adds "s", or "es"
// after s, x, z, ch and sh, and "ies" for a "y" after a consonant; a
// noun of several words takes it on its last word ("model call").
func Noun(n int, noun string) string {
	if n == 1 || n == -1 || noun == "" {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// Verb is one, a verb's form after a singular subject ("is", "matches"),
// when n is 1 or -1, else many ("are", "match"): the verb agrees with the
// count of its subject.
func Verb(n int, one, many string) string {
	if n == 1 || n == -1 {
		return one
	}
	return many
}
