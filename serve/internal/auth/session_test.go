package auth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheTokenIsComparedByDigest: the header and the form's field are
// compared as SHA-256 digests (a fixed length, so the time says nothing
// of the token's length), exactly; the header's scheme in any case.
func TestTheTokenIsComparedByDigest(t *testing.T) {
	t.Parallel()
	ss, err := NewSessions("sesame", time.Now)
	require.NoError(t, err)
	for given, want := range map[string]bool{
		"Bearer sesame": true, "bearer sesame": true, "BEARER sesame": true, "Bearer  sesame": true,
		"Bearer sesam": false, "Bearer sesame ": false, "Bearersesame": false, "Basic sesame": false, "sesame": false, " Bearer sesame": false,
		"Bearer": false, "Bearer ": false, "": false, "Bearer " + string(make([]byte, 4096)): false,
	} {
		assert.Equal(t, want, ss.BearerIs(given), "%q", given)
	}
	for given, want := range map[string]bool{"sesame": true, "sesam": false, "sesamesesame": false, "": false} {
		assert.Equal(t, want, ss.TokenIs(given), "%q", given)
	}
}
