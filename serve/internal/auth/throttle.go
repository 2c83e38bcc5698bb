package auth

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Failed sign-ins (a wrong bearer token, a wrong token in the login form)
// are throttled per client: signInBurst at once, then one every
// signInEvery, so that guessing the token takes ages; a client past
// that is answered 429 without its token being looked at.
const (
	signInBurst = 10
	signInEvery = 6 * time.Second
	// maxClients bounds the clients throttled at once; beyond, the
	// clients not yet seen share one allowance.
	maxClients = 4096
)

// Throttle counts each client's failed sign-ins in a token bucket of its
// own (rate.Limiter, read at the times of an injected clock). It is safe
// for concurrent use.
type Throttle struct {
	now func() time.Time

	mu      sync.Mutex
	clients map[string]*rate.Limiter
	// overflow is the allowance of the clients beyond maxClients.
	overflow *rate.Limiter
}

// NewThrottle is a throttle reading its clock on now.
func NewThrottle(now func() time.Time) *Throttle {
	return &Throttle{now: now, clients: map[string]*rate.Limiter{}, overflow: newSignInLimiter()}
}

func newSignInLimiter() *rate.Limiter { return rate.NewLimiter(rate.Every(signInEvery), signInBurst) }

// Wait is how long client must wait before it may try to sign in again:
// 0 when it may now.
func (t *Throttle) Wait(client string) time.Duration {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	lim := t.limiter(client, now)
	tokens := lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) / float64(lim.Limit()) * float64(time.Second))
}

// Failed counts a failed sign-in of client.
func (t *Throttle) Failed(client string) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.limiter(client, now).AllowN(now, 1)
}

// limiter is client's bucket, made when first needed. When maxClients
// are held, those whose bucket is full again (no failure left to count)
// are dropped first; if none is, the newcomer shares the overflow.
func (t *Throttle) limiter(client string, now time.Time) *rate.Limiter {
	if lim, ok := t.clients[client]; ok {
		return lim
	}
	if len(t.clients) >= maxClients {
		for c, lim := range t.clients {
			if lim.TokensAt(now) >= signInBurst {
				delete(t.clients, c)
			}
		}
		if len(t.clients) >= maxClients {
			return t.overflow
		}
	}
	lim := newSignInLimiter()
	t.clients[client] = lim
	return lim
}

// ClientOf is the client a request comes from, as the throttle counts
// it: the remote IP address, an IPv6 one by its /64 (one host holds a
// whole /64). Forwarded headers are not believed: behind a proxy, its
// clients share its address.
func ClientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.To4() != nil {
		return host
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// TooMany sets the Retry-After of a throttled sign-in to the seconds to
// wait, and is the message its 429 says.
func TooMany(w http.ResponseWriter, wait time.Duration) string {
	secs := strconv.Itoa(int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", secs)
	return "too many wrong tokens from your address: try again in " + secs + " s"
}
