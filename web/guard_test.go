package web

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGuardCheck(t *testing.T) {
	t.Parallel()
	// want is the reason under the strict guard; private marks the ranges
	// AllowPrivate opens ("" = allowed by both guards).
	tests := map[string]struct {
		addr    string
		want    string
		private bool
	}{
		"public v4":                  {addr: "93.184.216.34"},
		"public v6":                  {addr: "2606:2800:220:1:248:1893:25c8:1946"},
		"documentation v4":           {addr: "203.0.113.10"},
		"loopback v4":                {addr: "127.0.0.1", want: reasonLoopback, private: true},
		"loopback v4 other":          {addr: "127.8.9.10", want: reasonLoopback, private: true},
		"loopback v6":                {addr: "::1", want: reasonLoopback, private: true},
		"private 10/8":               {addr: "10.1.2.3", want: reasonPrivate, private: true},
		"private 172.16/12":          {addr: "172.31.255.254", want: reasonPrivate, private: true},
		"just outside 172.16/12":     {addr: "172.32.0.1"},
		"private 192.168/16":         {addr: "192.168.1.1", want: reasonPrivate, private: true},
		"cgnat":                      {addr: "100.64.0.1", want: reasonCGNAT, private: true},
		"cgnat top":                  {addr: "100.127.255.254", want: reasonCGNAT, private: true},
		"just outside cgnat":         {addr: "100.128.0.1"},
		"unique-local":               {addr: "fd12:3456::1", want: reasonUniqueLocal, private: true},
		"unique-local fc":            {addr: "fc00::1", want: reasonUniqueLocal, private: true},
		"link-local v4":              {addr: "169.254.1.1", want: reasonLinkLocal},
		"link-local v6":              {addr: "fe80::1", want: reasonLinkLocal},
		"link-local v6 with zone":    {addr: "fe80::1%eth0", want: reasonLinkLocal},
		"unspecified v4":             {addr: "0.0.0.0", want: reasonUnspecified},
		"this network":               {addr: "0.1.2.3", want: reasonUnspecified},
		"unspecified v6":             {addr: "::", want: reasonUnspecified},
		"multicast v4":               {addr: "224.0.0.1", want: reasonMulticast},
		"multicast v6":               {addr: "ff02::1", want: reasonMulticast},
		"broadcast":                  {addr: "255.255.255.255", want: reasonBroadcast},
		"reserved":                   {addr: "240.0.0.1", want: reasonReserved},
		"aws metadata":               {addr: "169.254.169.254", want: reasonMetadata},
		"ecs metadata":               {addr: "169.254.170.2", want: reasonMetadata},
		"alibaba metadata":           {addr: "100.100.100.200", want: reasonMetadata},
		"azure wire server":          {addr: "168.63.129.16", want: reasonMetadata},
		"aws metadata v6":            {addr: "fd00:ec2::254", want: reasonMetadata},
		"mapped loopback":            {addr: "::ffff:127.0.0.1", want: reasonLoopback, private: true},
		"mapped private":             {addr: "::ffff:10.0.0.1", want: reasonPrivate, private: true},
		"mapped metadata":            {addr: "::ffff:169.254.169.254", want: reasonMetadata},
		"mapped public":              {addr: "::ffff:93.184.216.34"},
		"v4-compatible metadata":     {addr: "::169.254.169.254", want: reasonMetadata},
		"v4-compatible loopback":     {addr: "::127.0.0.1", want: reasonLoopback, private: true},
		"nat64 metadata":             {addr: "64:ff9b::169.254.169.254", want: reasonMetadata},
		"nat64 loopback":             {addr: "64:ff9b::7f00:1", want: reasonLoopback, private: true},
		"nat64 public":               {addr: "64:ff9b::5db8:d822"},
		"6to4 metadata":              {addr: "2002:a9fe:a9fe::1", want: reasonMetadata},
		"6to4 private":               {addr: "2002:c0a8:0101::1", want: reasonPrivate, private: true},
		"6to4 public":                {addr: "2002:5db8:d822::1"},
		"siit loopback":              {addr: "::ffff:0:7f00:1", want: reasonLoopback, private: true},
		"siit metadata":              {addr: "::ffff:0:a9fe:a9fe", want: reasonMetadata},
		"siit public":                {addr: "::ffff:0:5db8:d822"},
		"site-local":                 {addr: "fec0::1", want: reasonSiteLocal, private: true},
		"site-local, its last":       {addr: "feff:ffff::1", want: reasonSiteLocal, private: true},
		"local-use nat64":            {addr: "64:ff9b:1::a00:1", want: reasonLocalNAT64, private: true},
		"next to local-use nat64":    {addr: "64:ff9b:2::1"},
		"metadata neighbour allowed": {addr: "169.254.169.253", want: reasonLinkLocal},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr, err := netip.ParseAddr(tc.addr)
			require.NoError(t, err)

			assertReason(t, Guard{}.Check(addr), tc.want)
			wantLoose := tc.want
			if tc.private {
				wantLoose = ""
			}
			assertReason(t, Guard{AllowPrivate: true}.Check(addr), wantLoose)
		})
	}
}

func assertReason(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		assert.NoError(t, err)
		return
	}
	var blocked *BlockedError
	require.ErrorAs(t, err, &blocked)
	assert.Equal(t, want, blocked.Reason)
	assert.Contains(t, blocked.Error(), "blocked address ")
}

func TestGuardControl(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		address string
		want    string
	}{
		"public":           {address: "93.184.216.34:443"},
		"loopback":         {address: "127.0.0.1:8080", want: reasonLoopback},
		"metadata v6":      {address: "[fd00:ec2::254]:80", want: reasonMetadata},
		"mapped metadata":  {address: "[::ffff:169.254.169.254]:80", want: reasonMetadata},
		"not an ip:port":   {address: "example.com:80", want: reasonInvalid},
		"missing the port": {address: "93.184.216.34", want: reasonInvalid},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := Guard{}.Control("tcp4", tc.address, nil)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			var blocked *BlockedError
			require.ErrorAs(t, err, &blocked)
			assert.Contains(t, blocked.Reason, tc.want)
		})
	}
}

// The Control hook runs inside a real dial: a listener on loopback cannot be
// reached through a dialer carrying the strict guard, and can with
// AllowPrivate.
func TestGuardControlRefusesRealDial(t *testing.T) {
	t.Parallel()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })

	strict := net.Dialer{Control: Guard{}.Control}
	_, err = strict.DialContext(context.Background(), "tcp", ln.Addr().String())
	var blocked *BlockedError
	require.ErrorAs(t, err, &blocked)
	assert.Equal(t, reasonLoopback, blocked.Reason)

	loose := net.Dialer{Control: Guard{AllowPrivate: true}.Control}
	conn, err := loose.DialContext(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	require.NoError(t, conn.Close())
}
