package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// memBatches is a batch endpoint in memory: a batch answers each call
// with "reply to" its first message, but the calls fail lists, and it
// ends as status after the polls in steps.
type memBatches struct {
	mu       sync.Mutex
	calls    [][]BatchCall
	polls    int
	steps    int
	status   string
	fail     map[string]bool
	pollErrs []error
	// pollErr, when set, fails every poll after pollErrs.
	pollErr error
	// omit are the calls with no line in the batch's files; extra are
	// lines it has besides its calls'.
	omit  map[string]bool
	extra []BatchReply
	// billedEmpty are the calls answered empty, their usage billed.
	billedEmpty map[string]eval.Usage
	// readErrs fail the first reads of a batch's files.
	readErrs []error
	reads    int
}

func (m *memBatches) SubmitBatch(_ context.Context, calls []BatchCall) (BatchStatus, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, calls)
	return BatchStatus{ID: "b" + string(rune('0'+len(m.calls))), Status: "validating"}, nil
}

func (m *memBatches) RetrieveBatch(_ context.Context, id string) (BatchStatus, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pollErrs) > 0 {
		err := m.pollErrs[0]
		m.pollErrs = m.pollErrs[1:]
		return BatchStatus{}, err
	}
	if m.pollErr != nil {
		return BatchStatus{}, m.pollErr
	}
	m.polls++
	st := BatchStatus{ID: id, Status: "in_progress"}
	if m.polls >= m.steps {
		st.Status = m.status
	}
	return st, nil
}

func (m *memBatches) BatchReplies(_ context.Context, st BatchStatus) ([]BatchReply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	if len(m.readErrs) > 0 {
		err := m.readErrs[0]
		m.readErrs = m.readErrs[1:]
		return nil, err
	}
	var out []BatchReply
	for _, c := range m.calls[len(m.calls)-1] {
		if m.omit[c.Request.Messages[0].Content] {
			continue
		}
		if u, ok := m.billedEmpty[c.Request.Messages[0].Content]; ok {
			out = append(out, BatchReply{ID: c.ID, Failed: true, Response: Response{Usage: u}, Err: fmt.Errorf("no content: %w", ErrEmpty)})
			continue
		}
		if m.fail[c.Request.Messages[0].Content] {
			out = append(out, BatchReply{ID: c.ID, Failed: true, Err: errors.New("server_error: scripted")})
			continue
		}
		if st.Status != BatchCompleted {
			continue // expired before it was answered
		}
		out = append(out, BatchReply{ID: c.ID, Response: Response{Content: "reply to " + c.Request.Messages[0].Content,
			Usage: eval.Usage{TokensIn: 1000, TokensOut: 100}}})
	}
	return append(out, m.extra...), nil
}

func ask(text string) Request {
	return Request{Messages: []Message{{Role: User, Content: text}}, Tag: "t"}
}

// TestBatchClientRecordsMissesThenAnswersAtTheBatchPrice: a call with no
// reply is recorded once and refused with ErrBatchPending; after the
// batch it is answered at half the price, counted once in the client and
// given with its usage to the judgement that asked for it each time.
func TestBatchClientRecordsMissesThenAnswersAtTheBatchPrice(t *testing.T) {
	t.Parallel()
	api := &memBatches{steps: 1, status: BatchCompleted}
	b := NewBatch(api, BatchPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
	sent := &stubBackend{}
	c := New(Config{Backend: sent, Batch: b})
	require.Same(t, b, c.Batch())

	mine, p := WatchPending(t.Context(), "s1/faithfulness")
	_, err := c.Chat(mine, ask("one"))
	require.ErrorIs(t, err, ErrBatchPending)
	_, err = c.Chat(mine, ask("one"))
	require.ErrorIs(t, err, ErrBatchPending)
	_, err = c.Chat(t.Context(), ask("two"))
	require.ErrorIs(t, err, ErrBatchPending)
	assert.Equal(t, 2, p.Count(), "each refusal on the judgement's context is counted")
	assert.Equal(t, 2, b.Pending(), "a call made twice is one line of the batch")
	assert.Zero(t, c.Usage().Calls, "a call recorded is not made")

	st, err := b.Submit(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, st.Total)
	assert.Zero(t, b.Pending())
	require.Len(t, api.calls, 1)
	// The custom_ids are the client's cache keys.
	ids := map[string]bool{api.calls[0][0].ID: true, api.calls[0][1].ID: true}
	assert.Equal(t, map[string]bool{c.key(ask("one")): true, c.key(ask("two")): true}, ids)

	st, err = b.Wait(t.Context(), st.ID, nil)
	require.NoError(t, err)
	r, err := b.Read(t.Context(), st)
	require.NoError(t, err)
	assert.Equal(t, BatchRead{Answered: 2}, r)

	full := DefaultPrices().Cost("gpt-4o-mini", 1000, 100)
	for i, tc := range []struct {
		ctx   context.Context
		text  string
		calls int
		cost  float64
		hits  int
	}{
		{mine, "one", 1, full / 2, 0},                 // the first time: paid, at half
		{mine, "one", 1, full / 2, 0},                 // its judgement again: its cost, counted once below
		{t.Context(), "one", 0, 0, 1},                 // another caller: a cache hit
		{t.Context(), "two", 1, full / 2, 0},          // asked for with no judgement named: the first
		{mine, "two", 0, 0, 1},                        // another's
		{context.Background(), "two", 1, full / 2, 0}, // again with no judgement named: its usage, not counted again
		{context.Background(), "three", 0, 0, 0},      // a new miss
	} {
		resp, err := c.Chat(tc.ctx, ask(tc.text))
		if tc.text == "three" {
			require.ErrorIs(t, err, ErrBatchPending, i)
			continue
		}
		require.NoError(t, err, i)
		assert.Equal(t, "reply to "+tc.text, resp.Content, i)
		assert.Equal(t, tc.calls, resp.Usage.Calls, i)
		assert.Equal(t, tc.calls, resp.Usage.BatchCalls, i)
		assert.InDelta(t, tc.cost, resp.Usage.CostUSD, 1e-12, i)
		assert.Equal(t, tc.hits, resp.Usage.CacheHits, i)
	}
	u := c.Usage()
	assert.Equal(t, 2, u.Calls)
	assert.Equal(t, 2, u.BatchCalls)
	assert.InDelta(t, full, u.CostUSD, 1e-12, "two calls at half price")
	assert.Equal(t, 2, u.CacheHits, "each reply handed to another judgement counts as a cache hit, and its own run again does not, as the results count them")
	assert.Zero(t, sent.calls.Load(), "nothing sent the normal way")
	assert.Equal(t, BatchReport{Batches: 1, Calls: 2, Answered: 2}, b.Report())
}

// TestBatchCallsNoBatchAnsweredGoTheNormalWayOnce: a call that failed in
// its batch, or that a batch left unanswered when it expired, is sent
// the normal way, once.
func TestBatchCallsNoBatchAnsweredGoTheNormalWayOnce(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		status string
		fail   map[string]bool
		read   BatchRead
		report BatchReport
	}{
		"a call failed": {BatchCompleted, map[string]bool{"one": true}, BatchRead{Answered: 1, Direct: 1, Errors: []string{"server_error: scripted"}},
			BatchReport{Batches: 1, Calls: 2, Answered: 1, Direct: 1}},
		"the batch expired": {BatchExpired, nil, BatchRead{Direct: 2}, BatchReport{Batches: 1, Calls: 2, Direct: 2, Failed: 1}},
		"the batch failed":  {BatchFailed, nil, BatchRead{Direct: 2}, BatchReport{Batches: 1, Calls: 2, Direct: 2, Failed: 1}},
		"a call with no line": {BatchCompleted, nil, BatchRead{Answered: 1, Direct: 1, Errors: []string{"no line for 1 call(s) in the batch's files"}},
			BatchReport{Batches: 1, Calls: 2, Answered: 1, Direct: 1}},
		"lines that name no call of it": {BatchCompleted, nil, BatchRead{Answered: 2, Stray: 2},
			BatchReport{Batches: 1, Calls: 2, Answered: 2}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			api := &memBatches{steps: 1, status: tc.status, fail: tc.fail}
			switch name {
			case "a call with no line":
				api.omit = map[string]bool{"one": true}
			case "lines that name no call of it":
				api.extra = []BatchReply{{ID: "stray", Response: Response{Content: "reply to nothing"}}, {ID: "stray-failed", Failed: true, Err: errors.New("server_error")}}
			}
			b := NewBatch(api, BatchPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
			sent := &stubBackend{content: "sent"}
			c := New(Config{Backend: sent, Batch: b})
			for _, text := range []string{"one", "two"} {
				_, err := c.Chat(t.Context(), ask(text))
				require.ErrorIs(t, err, ErrBatchPending)
			}
			st, err := b.Submit(t.Context())
			require.NoError(t, err)
			st, err = b.Wait(t.Context(), st.ID, nil)
			require.NoError(t, err)
			r, err := b.Read(t.Context(), st)
			require.NoError(t, err)
			assert.Equal(t, tc.read, r)
			for range 2 {
				for _, text := range []string{"one", "two"} {
					resp, err := c.Chat(t.Context(), ask(text))
					require.NoError(t, err)
					want := "reply to " + text
					if tc.status != BatchCompleted || tc.fail[text] || api.omit[text] {
						want = "sent"
					}
					assert.Equal(t, want, resp.Content)
				}
			}
			assert.Equal(t, int64(tc.read.Direct), sent.calls.Load(), "each call no batch answered sent once")
			assert.Equal(t, tc.report, b.Report())
			assert.Equal(t, tc.read.Answered, c.Usage().BatchCalls)
			assert.Equal(t, 2, c.Usage().Calls)
		})
	}
}

// TestBatchWaitBacksOffBetweenPolls: the waits double from Poll up to
// MaxPoll; a poll that fails for a reason that passes is tried again, one
// that fails otherwise ends the wait; ctx ends it too.
func TestBatchWaitBacksOffBetweenPolls(t *testing.T) {
	t.Parallel()
	var waits []time.Duration
	sleep := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	api := &memBatches{steps: 6, status: BatchCompleted, pollErrs: []error{&StatusError{Code: 503}}}
	b := NewBatch(api, BatchPolicy{Poll: time.Second, MaxPoll: 5 * time.Second, Sleep: sleep})
	var seen []string
	st, err := b.Wait(t.Context(), "b1", func(st BatchStatus) { seen = append(seen, st.Status) })
	require.NoError(t, err)
	assert.Equal(t, BatchCompleted, st.Status)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second}, waits)
	assert.Equal(t, []string{"in_progress", "in_progress", "in_progress", "in_progress", "in_progress", "completed"}, seen)

	api = &memBatches{steps: 9, status: BatchCompleted, pollErrs: []error{&StatusError{Code: 404, Message: "no such batch"}}}
	_, err = NewBatch(api, BatchPolicy{Sleep: sleep}).Wait(t.Context(), "b9", nil)
	require.ErrorContains(t, err, "polling batch b9")
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 404, se.Code)

	ctx, stop := context.WithCancel(t.Context())
	api = &memBatches{steps: 9, status: BatchCompleted}
	_, err = NewBatch(api, BatchPolicy{Sleep: func(ctx context.Context, _ time.Duration) error { stop(); return ctx.Err() }}).Wait(ctx, "b1", nil)
	require.ErrorIs(t, err, context.Canceled)
}

// TestBatchWaitGivesUp: nothing is polled for ever. Polls that keep
// failing for a reason that passes (a 503, a 429) end the wait once they
// have failed for MaxFailing in a row; a batch that never ends, once it
// has been waited for MaxWait; each time counted in the waits between
// polls (the policy's clock), and the error says which.
func TestBatchWaitGivesUp(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		api   *memBatches
		waits []time.Duration
		want  string
	}{
		"every poll fails": {&memBatches{pollErr: &StatusError{Code: 503, Message: "overloaded"}},
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second},
			"polling batch b1: every poll failed for 11s: status 503: overloaded"},
		"polls that fail for less": {&memBatches{steps: 2, status: BatchCompleted, pollErrs: []error{&StatusError{Code: 503}, &StatusError{Code: 429}, &StatusError{Code: 502}}},
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}, ""},
		"the batch never ends": {&memBatches{steps: 1 << 30, status: BatchCompleted},
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second},
			"batch b1: still in_progress after 23s of polling: stopped waiting for it"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var waits []time.Duration
			sleep := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			b := NewBatch(tc.api, BatchPolicy{Poll: time.Second, MaxPoll: 4 * time.Second, MaxFailing: 10 * time.Second, MaxWait: 20 * time.Second, Sleep: sleep})
			st, err := b.Wait(t.Context(), "b1", nil)
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, BatchCompleted, st.Status)
			} else {
				require.EqualError(t, err, tc.want)
			}
			assert.Equal(t, tc.waits, waits)
		})
	}
}

// TestBatchReadTriesAgainAFailureThatPasses: a batch's files that fail to
// come for a reason that passes (a 500, a 429) are read again after a
// wait, as polls are, until reads have failed for MaxFailing; another
// error is returned at once.
func TestBatchReadTriesAgainAFailureThatPasses(t *testing.T) {
	t.Parallel()
	unavailable := &StatusError{Code: 503, Message: "unavailable"}
	for name, tc := range map[string]struct {
		errs  []error
		reads int
		waits []time.Duration
		want  string
	}{
		"read at once":       {nil, 1, nil, ""},
		"two failures":       {[]error{&StatusError{Code: 500}, &StatusError{Code: 429}}, 3, []time.Duration{time.Second, 2 * time.Second}, ""},
		"failures that last": {[]error{unavailable, unavailable, unavailable, unavailable, unavailable}, 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, "reading batch b1: every read failed for 7s: status 503: unavailable"},
		"a file not found":   {[]error{&StatusError{Code: 404, Message: "no such file"}}, 1, nil, "reading batch b1: status 404: no such file"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var waits []time.Duration
			sleep := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			api := &memBatches{steps: 1, status: BatchCompleted, readErrs: tc.errs}
			b := NewBatch(api, BatchPolicy{Poll: time.Second, MaxPoll: 4 * time.Second, MaxFailing: 5 * time.Second, Sleep: sleep})
			c := New(Config{Backend: &stubBackend{}, Batch: b})
			_, err := c.Chat(t.Context(), ask("one"))
			require.ErrorIs(t, err, ErrBatchPending)
			st, err := b.Submit(t.Context())
			require.NoError(t, err)
			st.Status = BatchCompleted
			r, err := b.Read(t.Context(), st)
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, BatchRead{Answered: 1}, r)
			} else {
				require.EqualError(t, err, tc.want)
			}
			assert.Equal(t, tc.reads, api.reads)
			assert.Equal(t, tc.waits, waits)
		})
	}
}

// TestBatchReplyBilledButUnusableIsCounted: a batch reply the server
// billed but that is no answer (an empty one, with its usage block) is
// sent again the normal way, as an empty reply is retried; its tokens
// are counted, at the batch price, once, in the usage of the call sent
// again, so that the run's tokens and cost are the sum of what the
// server billed.
func TestBatchReplyBilledButUnusableIsCounted(t *testing.T) {
	t.Parallel()
	api := &memBatches{steps: 1, status: BatchCompleted, billedEmpty: map[string]eval.Usage{"one": {TokensIn: 700, TokensOut: 3}}}
	b := NewBatch(api, BatchPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
	sent := &stubBackend{content: "sent"}
	c := New(Config{Backend: sent, Batch: b})
	for _, text := range []string{"one", "two"} {
		_, err := c.Chat(t.Context(), ask(text))
		require.ErrorIs(t, err, ErrBatchPending)
	}
	st, err := b.Submit(t.Context())
	require.NoError(t, err)
	st, err = b.Wait(t.Context(), st.ID, nil)
	require.NoError(t, err)
	r, err := b.Read(t.Context(), st)
	require.NoError(t, err)
	assert.Equal(t, BatchRead{Answered: 1, Direct: 1, Errors: []string{"no content: llm: empty reply"}}, r)

	p := DefaultPrices()
	billed := p.BatchCost("gpt-4o-mini", 700, 3)
	for i, tc := range []struct {
		text      string
		content   string
		in, out   int
		calls     int
		batch     int
		cost      float64
		cacheHits int
	}{
		{"one", "sent", 1700, 103, 2, 1, billed + p.Cost("gpt-4o-mini", 1000, 100), 0},
		{"two", "reply to two", 1000, 100, 1, 1, p.BatchCost("gpt-4o-mini", 1000, 100), 0},
	} {
		resp, err := c.Chat(t.Context(), ask(tc.text))
		require.NoError(t, err, i)
		assert.Equal(t, tc.content, resp.Content, i)
		assert.Equal(t, [4]int{tc.in, tc.out, tc.calls, tc.batch}, [4]int{resp.Usage.TokensIn, resp.Usage.TokensOut, resp.Usage.Calls, resp.Usage.BatchCalls}, i)
		assert.InDelta(t, tc.cost, resp.Usage.CostUSD, 1e-12, i)
		assert.Equal(t, tc.cacheHits, resp.Usage.CacheHits, i)
	}
	u := c.Usage()
	assert.Equal(t, [4]int{2700, 203, 3, 2}, [4]int{u.TokensIn, u.TokensOut, u.Calls, u.BatchCalls}, "the billed empty reply, the call sent again, and two")
	assert.InDelta(t, billed+p.Cost("gpt-4o-mini", 1000, 100)+p.BatchCost("gpt-4o-mini", 1000, 100), u.CostUSD, 1e-12)
	assert.Equal(t, int64(1), sent.calls.Load())
}
