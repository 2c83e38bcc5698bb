// Package loopback says whether a host is this machine's loopback
// interface: the one check the service, the queue's cluster address and
// the load driver make before they go without a token or refuse a target.
package loopback

import "net"

// Is reports whether host (a name or an IP, no port) is the loopback
// interface: "localhost" or an address in 127.0.0.0/8 or ::1. An empty
// host (all interfaces) is not.
func Is(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
