// Package auth holds the server's guards of who may ask it anything: the
// bearer token and the dashboard's session cookies (Sessions), the
// throttle of failed sign-ins (Throttle), the Host names a server
// answers (Hosts) and the sign-in form. Which route takes what is the
// server's business (package serve): this package knows no route.
package auth

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaylabs/assay/serve/internal/httpjson"
)

const (
	// sessionCookie is the cookie's name.
	sessionCookie = "assay_session"
	// SessionLifetime is how long a dashboard login lasts.
	SessionLifetime = 12 * time.Hour
)

// Sessions makes and checks the dashboard's session cookies, and checks
// the token. A cookie is "EXPIRY.MAC": the Unix second it expires and
// the HMAC-SHA256, under a key drawn when the server starts, of that
// expiry and the token. It holds no token, and a cookie made by another
// process, or before a restart, or for another token, is refused. It is
// safe for concurrent use.
type Sessions struct {
	key   []byte
	token string
	// digest is the SHA-256 of the token, compared with a given one's.
	digest [sha256.Size]byte
	now    func() time.Time
}

// NewSessions is the sessions of token, their expiry read on now.
func NewSessions(token string, now func() time.Time) (*Sessions, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("serve: a session key: %w", err)
	}
	return &Sessions{key: key, token: token, now: now,
		digest: sha256.Sum256([]byte(token))}, nil
}

// mac is the HMAC of expiry and the token.
func (s *Sessions) mac(expiry int64) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(strconv.FormatInt(expiry, 10)))
	h.Write([]byte{0})
	h.Write([]byte(s.token))
	return h.Sum(nil)
}

// Cookie is a new session's cookie, Secure when the login came over TLS.
func (s *Sessions) Cookie(r *http.Request) *http.Cookie {
	expiry := s.now().Add(SessionLifetime).Unix()
	return &http.Cookie{Name: sessionCookie, Value: strconv.FormatInt(expiry, 10) + "." + base64.RawURLEncoding.EncodeToString(s.mac(expiry)),
		Path: "/", MaxAge: int(SessionLifetime / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil}
}

// Valid reports whether r carries a session cookie of this server that
// has not expired.
func (s *Sessions) Valid(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return false
	}
	exp, mac, ok := strings.Cut(c.Value, ".")
	if !ok {
		return false
	}
	expiry, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || s.now().Unix() >= expiry {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	return err == nil && hmac.Equal(got, s.mac(expiry))
}

// TokenIs reports whether given is the token, and BearerIs whether an
// Authorization header carries it, in a time that depends on neither:
// fixed-length digests are compared in constant time, so not even on
// their lengths. The header's scheme is Bearer in any case, as HTTP's
// schemes are (RFC 9110, section 11.1), then one or more spaces.
func (s *Sessions) TokenIs(given string) bool { return sameDigest(given, s.digest) }

// BearerIs: see TokenIs.
func (s *Sessions) BearerIs(header string) bool {
	scheme, token, ok := strings.Cut(header, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && s.TokenIs(strings.TrimLeft(token, " "))
}

func sameDigest(given string, want [sha256.Size]byte) bool {
	got := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// loginForm is the page a browser without a session gets for the
// dashboard: a form posting the token to /login. Nothing is fetched from
// elsewhere. It is parsed on the first use, not at package load.
var loginForm = sync.OnceValue(func() *template.Template { return template.Must(template.New("login").Parse(loginText)) })

const loginText = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Assay · sign in</title>
<style>body{font:16px system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;padding:.4rem;margin:.3rem 0}input{width:100%;box-sizing:border-box}.msg{color:#b00020}</style>
</head><body>
<h1>Assay</h1>
<p>This server needs its token (<code>--token</code> or <code>$ASSAY_TOKEN</code>) to show the dashboard and the annotation queue.</p>
{{with .Msg}}<p class="msg" role="alert">{{.}}</p>{{end}}
<form method="post" action="/login">
{{with .Next}}<input type="hidden" name="next" value="{{.}}">{{end}}
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
</body></html>
`

// WriteLoginForm answers the login form with status, an optional message
// and the page to go to once signed in (next: "" for none; the caller
// has checked it is one of the server's pages).
func WriteLoginForm(w http.ResponseWriter, status int, msg, next string) {
	var b bytes.Buffer
	if err := loginForm().Execute(&b, struct{ Msg, Next string }{msg, next}); err != nil {
		httpjson.Error(w, http.StatusInternalServerError, "the login page: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", httpjson.PagePolicy)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="assay"`) // as every 401 must say
	}
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes()) // the client went away: nothing to do
}
