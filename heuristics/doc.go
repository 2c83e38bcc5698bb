// Package heuristics holds Assay's deterministic scorers: grounding
// (citation coverage), source credibility and quality, diversity,
// completeness, clarity, and seed 002's context quality (CRAG routing on
// it is in package agent).
//
// Every scorer implements eval.Scorer and is deterministic: the same Sample
// gives the same Score, always. None touches the network or a model, and
// time enters only through an injected clock (Credibility.Now).
//
// # Reports
//
// A Markdown report is parsed by package reportdoc (sections, sentences,
// paragraphs, citations and the Sources list); its package doc states the
// claim rule that grounding, clarity and completeness read reports by.
// Report, Sentence, Section and Paragraph here are its types.
//
// # Words
//
// The lexical scorers (passage relevance, claim support, completeness,
// token overlap) compare words, English ones by their Snowball stems, stop
// words aside. Chinese and Japanese are written without spaces, so a run of
// such text gives instead its characters (UAX #29 word segments) and each
// pair of neighbours, unstemmed, as web's search index does (both use
// internal/textseg): a word of the query or a claim is found inside the
// runs of a source. Thai, also unspaced, is cut into dictionary words
// (heuristics/internal/thai, ICU's Thai word list). A pair or character holding a function character (的,
// 如何, Japanese hiragana) counts as a stop word. Sentence lengths (Clarity)
// count two such characters as a word. All of them read words through one
// unit, heuristics/internal/lex: one tokenizer, one embedded stop list and
// memoised stems; context quality alone keeps seed 002's own stop list and
// JavaScript's whitespace split, so that its figures are the seed's.
package heuristics
