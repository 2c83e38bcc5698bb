package auth

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a settable clock.
type clock struct{ t atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Unix(0, c.t.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

// TestTheThrottleIsPerClientAndBounded: one client's failures do not
// throttle another; the addresses of one IPv6 /64 are one client; past
// maxClients the full buckets are dropped first, then newcomers share
// one.
func TestTheThrottleIsPerClientAndBounded(t *testing.T) {
	t.Parallel()
	clk := &clock{}
	th := NewThrottle(clk.Now)
	for range signInBurst {
		require.Zero(t, th.Wait("a"))
		th.Failed("a")
	}
	assert.Equal(t, signInEvery, th.Wait("a"))
	assert.Zero(t, th.Wait("b"), "another client")

	clients := map[string]string{
		"192.0.2.1:5000":             "192.0.2.1",
		"[2001:db8:1:2:3::4]:5000":   "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::]:6000": "2001:db8:1:2::/64",
		"[::1]:80":                   "::/64",
	}
	for remote, want := range clients {
		r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/login", nil)
		r.RemoteAddr = remote
		assert.Equal(t, want, ClientOf(r), remote)
	}

	for i := range maxClients - 2 {
		th.Failed(fmt.Sprint("c", i)) // one failure each: not full
	}
	require.Len(t, th.clients, maxClients)
	th.Failed("newcomer")
	assert.Len(t, th.clients, maxClients, "b, full again, was dropped for it")
	assert.Contains(t, th.clients, "newcomer")
	for range signInBurst {
		th.Failed("crowd-1")
	}
	assert.NotContains(t, th.clients, "crowd-1", "no full bucket left: the overflow")
	assert.Positive(t, th.Wait("crowd-2"), "newcomers share the overflow")
	clk.advance(signInEvery)
	assert.Zero(t, th.Wait("crowd-2"))
}
