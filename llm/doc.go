// Package llm is Assay's model client: chat with JSON-schema output and
// embeddings behind one small Backend interface, wrapped by a Client that
// owns everything a judge should not have to think about.
//
// # Overview
//
// A Backend (llm/openai, llm/langchain, llm/offline) sends one request and
// maps its SDK's errors to *StatusError; ReplyError and ErrorMessage read
// the error bodies servers send, in a 200 reply too. The Client adds, in
// this order, cache lookup, singleflight, budget, concurrency and rate
// limits, and retries:
//
//   - Cache: content-addressed by backend, model, prompt version, messages and
//     parameters; errors are never cached.
//   - Singleflight: identical requests in flight at the same time are sent once.
//   - Budget: with MaxCostUSD set, a call that would take spent plus in-flight
//     estimates past the limit is not started and returns ErrBudget.
//   - Limits: a global concurrency limit and requests/tokens per minute.
//   - Retry: exponential backoff with jitter (backoff/v4) for 408, 409, 429
//     (honouring Retry-After), 5xx, timeouts and connection resets; every
//     other error is permanent. The caller's context bounds all attempts.
//   - Deadlines: an attempt that outlives a multiple of the latency its
//     kind of call shows is hedged with a second request, first answer
//     wins, then ended (DeadlinePolicy); CallTimeout caps every attempt.
//   - Breaker: after attempts in a row go unanswered the server is taken
//     as down and calls wait for it, unsent, while one call tests it after
//     each cool-down; only a server down longer than the retry time fails
//     them, with ErrUnreachable (BreakerPolicy).
//   - Size: a reply over MaxReply is an invalid reply (ErrReplyTooLarge).
//   - Batch: with Config.Batch, a call is answered from the replies of the
//     batches read so far (at the batch price), or recorded for the next
//     batch and refused with ErrBatchPending (see Batch and BatchAPI).
//
// Usage (tokens, latency, cost, retries) is returned with every Response and
// summed in the Client.
//
//	c := llm.New(llm.Config{Backend: b, Concurrency: 8})
//	var v Verdict
//	resp, err := llm.ChatJSON(ctx, c, llm.Request{Messages: msgs, Schema: llm.SchemaFor[Verdict]("verdict")}, &v)
package llm
