package serve

import (
	"cmp"
	"fmt"
	"net/http"

	"github.com/assaylabs/assay/serve/internal/auth"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// guard refuses, 403, what a web page the operator opens could make a
// browser send: a request whose Host is not a name of this server (a
// page on another name that DNS rebinds to the server's address, so the
// browser would let it read the answers), and a cross-origin write (a
// form or a text/plain fetch posted from another origin, which a browser
// sends without asking), told by Sec-Fetch-Site or Origin
// (http.CrossOriginProtection). Clients that are not browsers send
// neither header and are not concerned.
func (s *Server) guard(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.metrics.requests.WithLabelValues("forbidden", "403").Inc()
		httpjson.Error(w, http.StatusForbidden, fmt.Sprintf(
			"cross-origin request refused: a page of %s may not %s to this server (a browser sent it on a page's behalf); call it from a program, or from the server's own pages",
			cmp.Or(r.Header.Get("Origin"), "another origin"), r.Method))
	}))
	h := cop.Handler(next)
	hosts := s.cfg.hostCheck()
	if hosts == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts.Allows(r.Host) {
			s.metrics.requests.WithLabelValues("forbidden", "403").Inc()
			httpjson.Error(w, http.StatusForbidden, fmt.Sprintf(
				"Host %s is not a name of this server: reach it as 127.0.0.1, localhost or [::1], or start it with --allow-host NAME for each other name it is reached by", httpjson.Echo(r.Host)))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// noSniff says X-Content-Type-Options: nosniff on every answer, the
// guards' and the unmatched ones too, before anything is written: a
// browser then takes each answer as the type it names, and never reads
// JSON that holds a sample's text as a page or a script. It also says
// X-Frame-Options: DENY, so that no other site shows a page of the
// server (the sign-in form among them) in a frame, for browsers that
// do not read the pages' frame-ancestors.
func noSniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Canonical keys set in the map: no canonicalising a request.
		// The values are shared and only read (Set replaces a slice, Add
		// grows a copy: their capacity is their length).
		h := w.Header()
		h["X-Content-Type-Options"] = valueNoSniff
		h["X-Frame-Options"] = valueDeny
		next.ServeHTTP(w, r)
	})
}

var (
	valueNoSniff = []string{"nosniff"}
	valueDeny    = []string{"DENY"}
)

// hostCheck is the names the server answers (nil: any): see
// auth.HostsOf. Addr was checked by checkBind.
func (c Config) hostCheck() *auth.Hosts { return auth.HostsOf(c.Addr, c.AllowHosts) }
