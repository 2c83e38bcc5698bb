package loopback_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/internal/loopback"
)

func TestIs(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"localhost":      true,
		"127.0.0.1":      true,
		"127.8.9.10":     true,
		"::1":            true,
		"":               false,
		"0.0.0.0":        false,
		"::":             false,
		"10.0.0.1":       false,
		"example.com":    false,
		"localhost.":     false,
		"[::1]":          false, // a host, not a Host header: no brackets
		"127.0.0.1:8080": false, // no port
	}
	for host, want := range tests {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, want, loopback.Is(host))
		})
	}
}
