// Package prompts holds the judges' prompt templates, embedded with go:embed,
// one file per judge step, each with a version that is part of the cache key.
//
// Untrusted text (the answer, report, sources, query) enters a prompt only
// through the data function, which wraps it in a block whose tags carry a
// random nonce drawn for each rendering. The text cannot close a block whose
// tag it cannot know, and every template says that block contents are
// material to judge, not instructions. Preview renders with a fixed nonce
// instead, so that estimates (a dry run's tokens) do not vary from run to
// run; a preview is never sent.
//
//	t := prompts.MustGet("faithfulness.verify")
//	r, err := t.Render(prompts.Verify{Claims: claims, Contexts: ctxs})
//	// r.System, r.User are the messages; r.Key identifies the content.
package prompts
