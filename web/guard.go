package web

import (
	"fmt"
	"net/netip"
	"syscall"
)

// Guard refuses connections to addresses a fetched URL must never reach:
// the machine itself, the local network and cloud metadata services
// (server-side request forgery). It checks the IP address actually being
// connected to, after DNS resolution, so a name that resolves to a public
// address at one moment and to 127.0.0.1 the next (DNS rebinding) is refused
// too.
//
// Always blocked: unspecified (0.0.0.0/8, ::), link-local (169.254.0.0/16,
// fe80::/10), multicast, broadcast, reserved (240.0.0.0/4), and cloud
// metadata endpoints (169.254.169.254, 169.254.170.2, 100.100.100.200,
// 168.63.129.16, fd00:ec2::254). Blocked unless AllowPrivate: loopback
// (127.0.0.0/8, ::1), private (10/8, 172.16/12, 192.168/16), shared address
// space (100.64.0.0/10, CGNAT), unique-local (fc00::/7), the deprecated
// site-local (fec0::/10) and the local-use NAT64 prefix (64:ff9b:1::/48,
// whose translator reaches a network of its operator's choosing).
// IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (SIIT, ::ffff:0:a.b.c.d),
// IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
// forms are judged by the IPv4 address they carry.
//
// The zero value is the strict guard. A Guard is a value and safe for
// concurrent use.
type Guard struct {
	// AllowPrivate permits loopback, private, CGNAT and unique-local
	// addresses (the --allow-private flag, for a corpus served on the local
	// network). Metadata, link-local and the other always-blocked ranges
	// stay blocked: credentials live there, and no research source does.
	AllowPrivate bool
}

// BlockedError reports a connection the Guard refused.
type BlockedError struct {
	// Addr is the address that was refused, as it was about to be dialled.
	Addr netip.Addr
	// Reason names the range, e.g. "loopback" or "cloud metadata".
	Reason string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("blocked address %s: %s", e.Addr, e.Reason)
}

var _ error = (*BlockedError)(nil)

// Reasons the Guard gives; BlockedError.Reason holds one of these.
const (
	reasonMetadata    = "cloud metadata"
	reasonLoopback    = "loopback"
	reasonPrivate     = "private"
	reasonCGNAT       = "shared address space (CGNAT)"
	reasonUniqueLocal = "unique-local"
	reasonSiteLocal   = "site-local"
	reasonLocalNAT64  = "local-use NAT64"
	reasonLinkLocal   = "link-local"
	reasonUnspecified = "unspecified"
	reasonMulticast   = "multicast"
	reasonBroadcast   = "broadcast"
	reasonReserved    = "reserved"
	reasonInvalid     = "invalid address"
)

// metadataAddrs are cloud instance-metadata endpoints: AWS, GCP, Azure,
// OpenStack (169.254.169.254), AWS ECS task metadata (169.254.170.2),
// Alibaba Cloud (100.100.100.200), the Azure host wire server
// (168.63.129.16) and AWS IMDS over IPv6 (fd00:ec2::254).
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("100.100.100.200"),
	netip.MustParseAddr("168.63.129.16"),
	netip.MustParseAddr("fd00:ec2::254"),
}

var (
	prefixThisNet    = netip.MustParsePrefix("0.0.0.0/8")
	prefixCGNAT      = netip.MustParsePrefix("100.64.0.0/10")
	prefixReserved   = netip.MustParsePrefix("240.0.0.0/4")
	prefixNAT64      = netip.MustParsePrefix("64:ff9b::/96")
	prefixNAT64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	prefixSIIT       = netip.MustParsePrefix("::ffff:0:0:0/96")
	prefixSiteLocal  = netip.MustParsePrefix("fec0::/10")
	prefix6to4       = netip.MustParsePrefix("2002::/16")
	prefixV4Compat   = netip.MustParsePrefix("::/96")
	addrBroadcastV4  = netip.MustParseAddr("255.255.255.255")
)

// Check reports whether a connection to addr is allowed: nil, or a
// *BlockedError naming the range it falls in.
func (g Guard) Check(addr netip.Addr) error {
	if reason := g.blockReason(addr); reason != "" {
		return &BlockedError{Addr: addr, Reason: reason}
	}
	return nil
}

// Control is a net.Dialer Control function: it runs after the address is
// resolved and before the socket connects, and refuses blocked addresses.
// address is the "ip:port" being dialled.
func (g Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Reason: fmt.Sprintf("%s %q on %s", reasonInvalid, address, network)}
	}
	return g.Check(ap.Addr())
}

func (g Guard) blockReason(addr netip.Addr) string {
	if !addr.IsValid() {
		return reasonInvalid
	}
	addr = addr.WithZone("")
	if v4, ok := embeddedV4(addr); ok {
		return g.blockReason(v4)
	}
	for _, m := range metadataAddrs {
		if addr == m {
			return reasonMetadata
		}
	}
	switch {
	case addr.IsUnspecified() || (addr.Is4() && prefixThisNet.Contains(addr)):
		return reasonUnspecified
	case addr.IsLinkLocalUnicast():
		return reasonLinkLocal
	case addr.IsMulticast(), addr.IsLinkLocalMulticast(), addr.IsInterfaceLocalMulticast():
		return reasonMulticast
	case addr == addrBroadcastV4:
		return reasonBroadcast
	case addr.Is4() && prefixReserved.Contains(addr):
		return reasonReserved
	}
	if g.AllowPrivate {
		return ""
	}
	switch {
	case addr.IsLoopback():
		return reasonLoopback
	case addr.Is4() && prefixCGNAT.Contains(addr):
		return reasonCGNAT
	case addr.Is6() && addr.IsPrivate():
		return reasonUniqueLocal
	case prefixSiteLocal.Contains(addr):
		return reasonSiteLocal
	case prefixNAT64Local.Contains(addr):
		return reasonLocalNAT64
	case addr.IsPrivate():
		return reasonPrivate
	}
	return ""
}

// embeddedV4 returns the IPv4 address carried by an IPv6 address in one of
// the transition forms: IPv4-mapped, IPv4-translated, IPv4-compatible,
// NAT64 or 6to4. The
// IPv6 unspecified (::) and loopback (::1) addresses are not IPv4-compatible
// addresses, though they fall in ::/96.
func embeddedV4(addr netip.Addr) (netip.Addr, bool) {
	if addr.Is4In6() {
		return addr.Unmap(), true
	}
	if !addr.Is6() || addr == netip.IPv6Unspecified() || addr == netip.IPv6Loopback() {
		return netip.Addr{}, false
	}
	b := addr.As16()
	switch {
	case prefixV4Compat.Contains(addr), prefixSIIT.Contains(addr), prefixNAT64.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case prefix6to4.Contains(addr):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}
