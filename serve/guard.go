package serve

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/assaylabs/assay/internal/loopback"
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
		if !hosts.allows(r.Host) {
			s.metrics.requests.WithLabelValues("forbidden", "403").Inc()
			httpjson.Error(w, http.StatusForbidden, fmt.Sprintf(
				"Host %q is not a name of this server: reach it as 127.0.0.1, localhost or [::1], or start it with --allow-host NAME for each other name it is reached by", r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// hostSet is the Host names a server answers: loopback ones, with
// loopback set, and the names the operator allowed.
type hostSet struct {
	loopback bool
	names    []string
}

// hostCheck is the names the server answers (nil: any): on a loopback
// address the loopback names and AllowHosts; elsewhere (a token guards
// it) AllowHosts with the loopback names when there are any, else any.
func (c Config) hostCheck() *hostSet {
	host, _, _ := net.SplitHostPort(c.Addr) // checked by checkBind
	if !loopback.Is(host) && len(c.AllowHosts) == 0 {
		return nil
	}
	hs := &hostSet{loopback: true}
	for _, n := range c.AllowHosts {
		hs.names = append(hs.names, hostName(n))
	}
	return hs
}

// allows reports whether a request's Host (a name or an address, with a
// port or not; the port is not checked, so that a tunnel or a forwarded
// port still reaches the server) is one of the set. An empty Host is
// allowed: no browser sends one.
func (hs *hostSet) allows(host string) bool {
	if host == "" {
		return true
	}
	name := hostName(host)
	return (hs.loopback && loopback.Is(name)) || slices.Contains(hs.names, name)
}

// hostName is host without its port and brackets, in lower case, without
// a final dot.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}
