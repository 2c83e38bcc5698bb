package lex

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
)

// maxMemoStems bounds the stem memo. Everyday English prose draws most of
// its words from a few thousand (the embedded corpus, 11,000 words, has
// 2,400 distinct ones), so in practice the memo fills once and stays; text that
// brings more (a dataset of many distinct names or numbers, a long run over
// unrelated datasets) empties it and starts again, and its hot words are
// stemmed again on their next use. A sync.Map entry costs about 150 bytes,
// so the memo stays near a megabyte: with 1<<16 words it held 9 MB, which
// made a 100k-row bench peak at 1.9x the RSS of a 1k-row one.
const maxMemoStems = 1 << 13

// stems memoises Snowball stems by word. A sync.Map suits a memo whose keys
// are written once and read many times from many goroutines: reads take no
// lock, so parallel scorers never queue on it.
var stems struct {
	m sync.Map // word -> stem
	n atomic.Int64
}

// stem returns the memoised Snowball stem of w (see Lexicon.Stem).
func stem(w string) string {
	if IsGram(w) {
		return w
	}
	if s, ok := stems.m.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(strings.ToLower(w), false)
	if stems.n.Add(1) > maxMemoStems {
		stems.m.Clear()
		stems.n.Store(1)
	}
	// w and s may be slices of a long text (a context of many kilobytes):
	// clones keep the memo from holding the text alive.
	stems.m.Store(strings.Clone(w), strings.Clone(s))
	return s
}
