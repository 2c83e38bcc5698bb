// Package reportdoc parses a Markdown research report for scoring: its
// title and sections, the sentences and paragraphs of its body, the
// citations each sentence carries, and the entries of its Sources list.
// The scorers of package heuristics read reports through it.
//
// # The claim rule
//
// Reports are parsed with a CommonMark parser (goldmark, with GFM and
// footnotes), never with regular expressions over the raw text. A claim is a
// sentence of the report's body that states something checkable:
//
//   - Body means paragraphs, list items and table rows. Headings, the
//     Sources or References section (and its synonyms: Bibliography,
//     Citations, Works Cited, Further Reading), footnote definitions, code
//     blocks, code spans on their own, block quotes, HTML blocks and images
//     are not claims.
//   - A table's body row is one claim when at least two of its cells hold
//     text, cited by a citation in any cell; the header row is not.
//   - Sentences are split by Unicode's sentence rules (UAX #29) on the
//     rendered text, then repaired: no split inside a link, a code span or a
//     citation marker, none after a known abbreviation ("Dr.", "Fig.",
//     "et al.", "e.g.") or an initialism ("U.S.") unless the next word
//     usually opens a sentence ("The", "This", "However"...). Decimals and
//     dotted identifiers ("4.2", "C37.118") never split.
//   - Thai writes no full stop. In Thai text a space between two Thai
//     words ends a sentence, unless the word after it joins its clause to
//     the one before (a conjunction, relative word or preposition: "และ",
//     "ซึ่ง", "เพราะ", "ของ"...), the word before it cannot end a sentence
//     ("จาก", "ของ"), an era follows its year ("ปี พ.ศ. ๒๕๖๗"), a verb of
//     saying with its "ว่า" follows its subject, or the space follows "ๆ" or "ฯ".
//     A citation written after a Thai sentence (ending in a Thai or Latin
//     word or a number) ends it when Thai prose follows, with or without a
//     space, so an uncited sentence between cited ones is a claim of its
//     own; a citation after a word that cannot end a sentence, or before a
//     joining word that opens no sentence ("ใน", "จาก" do: "...[1] จากการ
//     สำรวจ..." is a new sentence), is inside its sentence ("รายงานของ
//     [กรม](url) ระบุว่า...": the report of the department states
//     that...). Thai words are found with a dictionary (package
//     heuristics/internal/thai).
//   - A sentence is a claim when it has at least three words (see Words
//     below), does not end with "?" or ":" (or "？", "："), and is not about
//     the report itself ("This report compares...", "รายงานนี้สรุป...").
//     A sentence of two words is one when it pairs a word with a quantity
//     ("Efficiency: 300%", "COP 2.0", not "Step 3") or is two words,
//     neither a stop word, closed by a full stop ("Sales fell.").
//   - A citation belongs to the sentence it closes: a marker placed just
//     after the full stop ("... grew.[1]", "... grew. [^2]"), a link
//     standing alone after the sentence, a link written against the full
//     stop ("of 2.0.[UMN](url) Next"), or a link after it followed by a
//     capitalised word that opens the next sentence ("of 2.0. [UMN](url)
//     Next"). A link after a space that the next words continue ("[NIST](url)
//     reports that...") is the next sentence's own.
//
// A claim is cited when it carries at least one citation that resolves:
// seed 000's `[text](url "quote")` to an http(s) URL (the link's title is
// the quote), a numbered reference `[1]` that names an entry of the Sources
// list or a link reference definition (a group "[1, 3]" or "[1-3]" cites
// each entry it names), or a footnote `[^1]` that has a definition. A claim cited only by links without their quote (a plain
// `[text](url)` or an autolink) is "cited without quote": counted apart,
// and cited only when the scorer accepts it (heuristics.Grounding.AcceptUnquoted). A
// numbered reference or footnote with no entry is reported as dangling and
// does not count.
package reportdoc
