package queue

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CheckURL checks the URL of a NATS server as Dial and DialRetry take
// it: one or more, comma separated (a cluster's), each nats:// or tls://
// (or HOST:PORT alone, which the client reads as nats://) with a host
// and, when it names one, a port from 1 to 65535. A URL no client can
// read would otherwise be retried for ever (DialRetry) or fail only once
// dialled.
func CheckURL(s string) error {
	for one := range strings.SplitSeq(s, ",") {
		one = strings.TrimSpace(one)
		full := one
		if !strings.Contains(one, "://") {
			full = "nats://" + one
		}
		u, err := url.Parse(full)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Hostname() == "" {
			return fmt.Errorf("want a NATS URL such as nats://HOST:4222, got %q", one)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("%q: want a port from 1 to 65535, as in nats://HOST:4222", one)
			}
		}
	}
	return nil
}
