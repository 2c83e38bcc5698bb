package auth

import (
	"net"
	"slices"
	"strings"

	"github.com/assaylabs/assay/internal/loopback"
)

// Hosts is the Host names a server answers: loopback ones, with
// loopback set, and the names the operator allowed. A request whose Host
// is not one is refused, so that no web page can reach a loopback server
// through a name of its own (DNS rebinding).
type Hosts struct {
	loopback bool
	names    []string
}

// HostsOf is the names a server on addr (HOST:PORT, checked) answers
// (nil: any): on a loopback address the loopback names and allow;
// elsewhere (a token guards it) allow with the loopback names when there
// are any, else any.
func HostsOf(addr string, allow []string) *Hosts {
	host, _, _ := net.SplitHostPort(addr)
	if !loopback.Is(host) && len(allow) == 0 {
		return nil
	}
	hs := &Hosts{loopback: true}
	for _, n := range allow {
		hs.names = append(hs.names, HostName(n))
	}
	return hs
}

// Allows reports whether a request's Host (a name or an address, with a
// port or not; the port is not checked, so that a tunnel or a forwarded
// port still reaches the server) is one of the set. An empty Host is
// allowed: no browser sends one.
func (hs *Hosts) Allows(host string) bool {
	if host == "" {
		return true
	}
	name := HostName(host)
	return (hs.loopback && loopback.Is(name)) || slices.Contains(hs.names, name)
}

// HostName is host without its port and brackets, in lower case, without
// a final dot.
func HostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}
