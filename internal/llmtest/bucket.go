package llmtest

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Bucket is a model server's request rate limit, as hosted APIs keep one
// per key: a token bucket of Burst requests that refills at Rate requests
// a second on its clock. A chat call it admits is answered as usual, with
// x-ratelimit headers that say what is left; one it refuses is answered at
// once with a 429, Retry-After (whole seconds, rounded up),
// retry-after-ms (exact) and x-ratelimit-remaining-requests 0. Its clock
// is injected, so a test decides when tokens come back; it is safe for
// concurrent use.
type Bucket struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu       sync.Mutex
	level    float64
	last     time.Time
	admitted int
	refused  int
}

// NewBucket returns a full bucket of burst requests refilling at rate a
// second on now (time.Now when nil).
func NewBucket(rate float64, burst int, now func() time.Time) *Bucket {
	if now == nil {
		now = time.Now
	}
	return &Bucket{rate: rate, burst: float64(burst), now: now, level: float64(burst), last: now()}
}

// Limit puts b in front of the server's chat calls.
func Limit(b *Bucket) Option {
	return func(s *Server) { s.bucket = b }
}

// Take takes one request from the bucket. ok is false when it is empty:
// wait is then how long until a request is back. remaining is what is
// left after the taking, and full how long until the bucket is full.
func (b *Bucket) Take() (ok bool, remaining int, wait, full time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	if b.level >= 1 {
		b.level--
		b.admitted++
		return true, int(b.level), 0, b.after(b.burst - b.level)
	}
	b.refused++
	return false, 0, b.after(1 - b.level), b.after(b.burst - b.level)
}

// refill adds the requests earned since the last look. b.mu is held.
func (b *Bucket) refill() {
	t := b.now()
	if d := t.Sub(b.last); d > 0 {
		b.level = min(b.burst, b.level+d.Seconds()*b.rate)
	}
	b.last = t
}

// after is how long the bucket takes to refill n requests, rounded up to
// a millisecond. b.mu is held.
func (b *Bucket) after(n float64) time.Duration {
	return time.Duration(math.Ceil(n/b.rate*1000)) * time.Millisecond
}

// Counts are the calls b admitted and refused so far.
func (b *Bucket) Counts() (admitted, refused int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.admitted, b.refused
}

// SetRate changes the rate the bucket refills at from now on (a key's
// limit raised, or the traffic beside it gone).
func (b *Bucket) SetRate(rate float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	b.rate = rate
}

// limit takes a request from the bucket for a chat call and writes its
// headers; it reports false, having answered a 429, when the bucket is
// empty.
func (b *Bucket) limit(w http.ResponseWriter) bool {
	ok, remaining, wait, full := b.Take()
	h := w.Header()
	h.Set("X-Ratelimit-Limit-Requests", strconv.Itoa(int(b.burst)))
	h.Set("X-Ratelimit-Remaining-Requests", strconv.Itoa(remaining))
	h.Set("X-Ratelimit-Reset-Requests", full.String())
	if ok {
		return true
	}
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	h.Set("Retry-After-Ms", strconv.FormatInt(wait.Milliseconds(), 10))
	writeError(w, http.StatusTooManyRequests, fmt.Sprintf("llmtest: request rate limit reached; retry in %v", wait))
	return false
}
