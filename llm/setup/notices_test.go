package setup

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/llm"
)

// TestNoticesSayTheFirstCacheErrorOnce: cache errors are many on a
// failing disk; the first is said, the rest only counted, but a corrupt
// cache set aside is always said.
func TestNoticesSayTheFirstCacheErrorOnce(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	n := &notices{w: &buf}
	for range 5 {
		n.event(llm.Event{Kind: "cache_error", Err: errors.New("llm cache x: put: disk I/O error")})
	}
	n.event(llm.Event{Kind: "retry", Err: errors.New("status 500")})
	n.event(llm.Event{Kind: "cache_error", Err: &llm.CacheCorruptError{Path: "x", Aside: "x.corrupt-1", Err: errors.New("database disk image is malformed")}})
	assert.Equal(t, "assay: response cache: llm cache x: put: disk I/O error (the calls go on without it; later cache errors are counted in the summary)\n"+
		"assay: llm cache x is corrupt (database disk image is malformed): set aside as x.corrupt-1, and a new cache started\n", buf.String())
}

// TestNoticesSayAStaleReplyWasAskedAgain: a cached reply that no longer
// reads is said once, without claiming the calls go on without the cache.
func TestNoticesSayAStaleReplyWasAskedAgain(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	n := &notices{w: &buf}
	for range 3 {
		n.event(llm.Event{Kind: "cache_error", Err: fmt.Errorf("%w (no JSON object in reply): the model is asked again", llm.ErrStaleReply)})
	}
	assert.Equal(t, "assay: response cache: llm cache: a stored reply does not read as its request asks now (no JSON object in reply): the model is asked again (later cache errors are counted in the summary)\n", buf.String())
}

// TestNoticesSayALimitHolds: a rate limit that holds calls back is said
// with its flag, its rate and the wait, rounded.
func TestNoticesSayALimitHolds(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	n := &notices{w: &buf}
	n.event(llm.Event{Kind: "limit_wait", Limit: "tpm", PerMinute: 1000, Wait: 12400 * time.Millisecond})
	n.event(llm.Event{Kind: "limit_wait", Limit: "rpm", PerMinute: 30, Wait: 1234 * time.Microsecond})
	assert.Equal(t, "assay: --tpm 1000 is holding calls back (next in 12s)\nassay: --rpm 30 is holding calls back (next in 1ms)\n", buf.String())
}

// TestNoticesShowHiddenCharactersEscaped: a notice quotes what the user
// or the environment named (a cache path from $ASSAY_CACHE_DIR, a model
// name): an escape sequence, a line break or a bidi override there is
// shown as its Go escape, never obeyed by the terminal, and each notice
// stays one line.
func TestNoticesShowHiddenCharactersEscaped(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		event llm.Event
		want  string
	}{
		"a cache path with an escape sequence": {
			event: llm.Event{Kind: "cache_error", Err: errors.New("llm cache /tmp/\x1b[31mred/llm-cache.db: put: disk I/O error")},
			want:  "assay: response cache: llm cache /tmp/\\x1b[31mred/llm-cache.db: put: disk I/O error (the calls go on without it; later cache errors are counted in the summary)\n",
		},
		"a corrupt cache with a bidi override and a line break in its path": {
			event: llm.Event{Kind: "cache_error", Err: &llm.CacheCorruptError{Path: "a\u202eb\nassay: c", Aside: "a\u202eb\nassay: c.corrupt-1", Err: errors.New("malformed")}},
			want:  "assay: llm cache a\\u202eb\\nassay: c is corrupt (malformed): set aside as a\\u202eb\\nassay: c.corrupt-1, and a new cache started\n",
		},
		"a model name with a carriage return": {
			event: llm.Event{Kind: "unpriced", Model: "m\rx"},
			want:  "assay: model m\\rx is not in the price table, so the cost of its calls is unknown; give --prices FILE with its price per million tokens ({m\\rx: {in: 0.15, out: 0.6}})\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf strings.Builder
			n := &notices{w: &buf}
			n.event(tc.event)
			assert.Equal(t, tc.want, buf.String())
		})
	}
}
