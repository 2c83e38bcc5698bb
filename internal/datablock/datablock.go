// Package datablock wraps untrusted text (answers, sources, a model's own
// reply) in tags that carry a random nonce, so the text cannot close its
// block and pass itself off as instructions. Package prompts writes every
// template's data with it, and package llm the bad reply it quotes in a
// repair request.
package datablock

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Block wraps text between <label-nonce> and </label-nonce> lines.
func Block(label, nonce, text string) string {
	tag := label + "-" + nonce
	return "<" + tag + ">\n" + text + "\n</" + tag + ">"
}

// Nonce draws a random 96-bit tag suffix (24 hex digits) that occurs in
// none of texts, so none of them can contain its own closing tag.
func Nonce(texts ...string) string {
	for {
		var b [12]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
		n := hex.EncodeToString(b[:])
		clash := false
		for _, t := range texts {
			clash = clash || strings.Contains(t, n)
		}
		if !clash {
			return n
		}
	}
}

// PreviewNonce has a nonce's length and alphabet, and as many tokens as a
// random nonce has on average, rounded up (17 tokens for "<data-nonce>"
// in o200k_base and cl100k_base). Estimates count prompts with it in place
// of their random nonces, so the same data always gives the same count.
// It must never be sent: it is public, so data could close its own block.
const PreviewNonce = "92f8d325f494b14442a33b96"

// tagNonce finds the nonce of a block's opening or closing tag.
var tagNonce = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`</?[a-z]+-([0-9a-f]{24})>`) })

// WithPreviewNonce returns texts (the messages of one request) with every
// nonce of their blocks' tags, wherever it occurs in any of them (a system
// message names the nonce its user message's tags carry), replaced by
// PreviewNonce: the texts as an estimate counts them.
func WithPreviewNonce(texts ...string) []string {
	out := slices.Clone(texts)
	for _, t := range texts {
		for _, m := range tagNonce().FindAllStringSubmatch(t, -1) {
			for i := range out {
				out[i] = strings.ReplaceAll(out[i], m[1], PreviewNonce)
			}
		}
	}
	return out
}

// Find returns the text of the first block labelled label in s, and
// whether there is one.
func Find(s, label string) (string, bool) {
	_, rest, ok := strings.Cut(s, "<"+label+"-")
	if !ok || len(rest) < 26 || rest[24:26] != ">\n" {
		return "", false
	}
	nonce := rest[:24]
	body, _, ok := strings.Cut(rest[26:], "\n</"+label+"-"+nonce+">")
	return body, ok
}
