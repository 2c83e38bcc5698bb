package serve

import (
	"net/http"
	"net/url"

	"github.com/assaylabs/assay/serve/dashboard"
	"github.com/assaylabs/assay/serve/internal/auth"
)

// The dashboard's login, for a browser, which cannot send a bearer
// header: POST /login with the token as a form field sets a session
// cookie that lets the browser read the dashboard (GET / and its JSON),
// nothing else. The token goes in the request body, never in a URL (the
// URLs of a request end up in proxies' logs and the browser's history).
const (
	routeLogin = "POST /login"
	loginPath  = "/login"
	// SessionLifetime is how long a dashboard login lasts.
	SessionLifetime = auth.SessionLifetime
	// maxLoginBody bounds the login form.
	maxLoginBody = 4 << 10
)

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
	client := auth.ClientOf(r)
	if wait := s.signIns.Wait(client); wait > 0 { // before the token is looked at
		s.loginPage(w, http.StatusTooManyRequests, auth.TooMany(w, wait)+".", r.PostFormValue("next"))
		return nil
	}
	if !s.sessions.TokenIs(r.PostFormValue("token")) { // the body's field only, never the URL's
		s.signIns.Failed(client)
		s.loginPage(w, http.StatusUnauthorized, "That is not the server's token.", r.PostFormValue("next"))
		return nil
	}
	http.SetCookie(w, s.sessions.Cookie(r))
	http.Redirect(w, r, afterLogin(r.PostFormValue("next")), http.StatusSeeOther)
	return nil
}

// loginPage answers the login form with status, an optional message
// and the page to go to once signed in (afterLogin checks it).
func (*Server) loginPage(w http.ResponseWriter, status int, msg, next string) {
	if next != "" {
		next = afterLogin(next)
	}
	auth.WriteLoginForm(w, status, msg, next)
}
