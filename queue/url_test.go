package queue_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/queue"
)

// TestCheckURL: a NATS URL no client can read is refused, naming it; the
// forms the client reads pass.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		url, want string
	}{
		"nats":                  {"nats://10.0.0.5:4222", ""},
		"tls":                   {"tls://nats.internal:4222", ""},
		"no port":               {"nats://nats.internal", ""},
		"a token in the URL":    {"nats://s3cret@127.0.0.1:4222", ""},
		"HOST:PORT alone":       {"127.0.0.1:4222", ""},
		"a cluster":             {"nats://a:4222,nats://b:4222", ""},
		"an IPv6 host":          {"nats://[::1]:4222", ""},
		"empty":                 {"", `want a NATS URL such as nats://HOST:4222, got ""`},
		"http":                  {"http://127.0.0.1:4222", `want a NATS URL such as nats://HOST:4222, got "http://127.0.0.1:4222"`},
		"no host":               {"nats://", `want a NATS URL such as nats://HOST:4222, got "nats://"`},
		"no host, a port":       {"nats://:4222", `want a NATS URL such as nats://HOST:4222, got "nats://:4222"`},
		"a port past 65535":     {"nats://127.0.0.1:99999", `"nats://127.0.0.1:99999": want a port from 1 to 65535, as in nats://HOST:4222`},
		"port 0":                {"nats://127.0.0.1:0", `"nats://127.0.0.1:0": want a port from 1 to 65535, as in nats://HOST:4222`},
		"a negative port":       {"nats://127.0.0.1:-1", `want a NATS URL such as nats://HOST:4222, got "nats://127.0.0.1:-1"`},
		"an empty cluster part": {"nats://a:4222,,nats://b:4222", `want a NATS URL such as nats://HOST:4222, got ""`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := queue.CheckURL(tc.url)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.want)
		})
	}
}
