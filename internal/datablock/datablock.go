// Package datablock wraps untrusted text (answers, sources, a model's own
// reply) in tags that carry a random nonce, so the text cannot close its
// block and pass itself off as instructions. Package prompts writes every
// template's data with it, and package llm the bad reply it quotes in a
// repair request.
package datablock

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
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
