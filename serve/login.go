package serve

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
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaylabs/assay/serve/dashboard"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// The dashboard's login, for a browser, which cannot send a bearer
// header: POST /login with the token as a form field sets a session
// cookie that lets the browser read the dashboard (GET / and its JSON),
// nothing else. The token goes in the request body, never in a URL (the
// URLs of a request end up in proxies' logs and the browser's history).
const (
	routeLogin = "POST /login"
	loginPath  = "/login"
	// sessionCookie is the cookie's name.
	sessionCookie = "assay_session"
	// SessionLifetime is how long a dashboard login lasts.
	SessionLifetime = 12 * time.Hour
	// maxLoginBody bounds the login form.
	maxLoginBody = 4 << 10
)

// sessions makes and checks the dashboard's session cookies. A cookie is
// "EXPIRY.MAC": the Unix second it expires and the HMAC-SHA256, under a
// key drawn when the server starts, of that expiry and the token. It
// holds no token, and a cookie made by another process, or before a
// restart, or for another token, is refused.
type sessions struct {
	key   []byte
	token string
	// digest is the SHA-256 of the token, compared with a given one's.
	digest [sha256.Size]byte
	now    func() time.Time
}

func newSessions(token string, now func() time.Time) (*sessions, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("serve: a session key: %w", err)
	}
	return &sessions{key: key, token: token, now: now,
		digest: sha256.Sum256([]byte(token))}, nil
}

// mac is the HMAC of expiry and the token.
func (s *sessions) mac(expiry int64) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(strconv.FormatInt(expiry, 10)))
	h.Write([]byte{0})
	h.Write([]byte(s.token))
	return h.Sum(nil)
}

// cookie is a new session's cookie, Secure when the login came over TLS.
func (s *sessions) cookie(r *http.Request) *http.Cookie {
	expiry := s.now().Add(SessionLifetime).Unix()
	return &http.Cookie{Name: sessionCookie, Value: strconv.FormatInt(expiry, 10) + "." + base64.RawURLEncoding.EncodeToString(s.mac(expiry)),
		Path: "/", MaxAge: int(SessionLifetime / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil}
}

// valid reports whether r carries a session cookie of this server that
// has not expired.
func (s *sessions) valid(r *http.Request) bool {
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

// tokenIs reports whether given is the token, and bearerIs whether an
// Authorization header carries it, in a time that depends on neither:
// fixed-length digests are compared in constant time, so not even on
// their lengths. The header's scheme is Bearer in any case, as HTTP's
// schemes are (RFC 9110, section 11.1), then one or more spaces.
func (s *sessions) tokenIs(given string) bool { return sameDigest(given, s.digest) }

func (s *sessions) bearerIs(header string) bool {
	scheme, token, ok := strings.Cut(header, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && s.tokenIs(strings.TrimLeft(token, " "))
}

func sameDigest(given string, want [sha256.Size]byte) bool {
	got := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// sessionAllowed reports whether a session cookie may authorise r: a
// GET (or HEAD) of the dashboard's page or data, or of the annotation
// queue's page, data or export; or the queue's label (POST
// /v1/queue/labels, JSON only: a form cannot send it, and the cookie is
// SameSite=Strict and cross-origin writes are refused by guard). Nothing
// else: a session starts no run and sends no trace.
func sessionAllowed(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch r.URL.Path {
		case "/", dashboard.DefaultJSONPath, queuePagePath, "/v1/queue", "/v1/queue/export":
			return true
		}
	case http.MethodPost:
		return r.URL.Path == "/v1/queue/labels"
	}
	return false
}

// wantsLoginForm reports whether r, without a session, is answered the
// login form: a GET of a page (the dashboard, the queue), where it is
// sent back to once signed in.
func wantsLoginForm(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "/" || r.URL.Path == queuePagePath)
}

// afterLogin is where a signed-in browser goes: the page it asked for
// (the form's next: / or the queue with its query, rebuilt from the
// parameters the queue reads, so that no other place can be named), else
// the dashboard.
func afterLogin(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Path != queuePagePath {
		return "/"
	}
	q := url.Values{}
	for _, k := range []string{"run", "metric", "order", "scale", "limit", "label"} {
		if v := u.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return queuePagePath
	}
	return queuePagePath + "?" + q.Encode()
}

// postLogin is POST /login: the form's token checked, a session cookie
// set and the browser sent to the dashboard (303); a wrong token is the
// login page again, 401; a client past its failed sign-ins (throttle)
// gets it 429, its token not looked at.
func (s *Server) postLogin(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	w.Header().Set("Cache-Control", "no-store")
	client := clientOf(r)
	if wait := s.signIns.wait(client); wait > 0 { // before the token is looked at
		s.loginPage(w, http.StatusTooManyRequests, tooMany(w, wait)+".", r.PostFormValue("next"))
		return nil
	}
	if !s.sessions.tokenIs(r.PostFormValue("token")) { // the body's field only, never the URL's
		s.signIns.failed(client)
		s.loginPage(w, http.StatusUnauthorized, "That is not the server's token.", r.PostFormValue("next"))
		return nil
	}
	http.SetCookie(w, s.sessions.cookie(r))
	http.Redirect(w, r, afterLogin(r.PostFormValue("next")), http.StatusSeeOther)
	return nil
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

// loginPage answers the login form with status, an optional message
// and the page to go to once signed in (afterLogin checks it).
func (s *Server) loginPage(w http.ResponseWriter, status int, msg, next string) {
	var b bytes.Buffer
	if next != "" {
		next = afterLogin(next)
	}
	if err := loginForm().Execute(&b, struct{ Msg, Next string }{msg, next}); err != nil {
		httpjson.Error(w, http.StatusInternalServerError, "the login page: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="assay"`) // as every 401 must say
	}
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes()) // the client went away: nothing to do
}
