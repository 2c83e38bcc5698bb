package llm_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/offline"
)

// plainBackend reports no capability: it is taken to chat and embed.
type plainBackend struct{}

func (plainBackend) Name() string { return "plain:model" }
func (plainBackend) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, nil
}

func (plainBackend) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, nil
}

// noEmbedBackend says it has no embedding model.
type noEmbedBackend struct{ plainBackend }

func (noEmbedBackend) Embeds() bool { return false }

func TestClientReportsItsBackendsCapabilities(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		backend         llm.Backend
		offline, embeds bool
	}{
		"the offline backend":                              {offline.New(offline.Config{}), true, true},
		"a backend that says nothing: a model that embeds": {plainBackend{}, false, true},
		"a backend without an embedding model":             {noEmbedBackend{}, false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := llm.New(llm.Config{Backend: tc.backend})
			assert.Equal(t, tc.offline, c.Offline())
			assert.Equal(t, tc.offline, llm.IsOffline(tc.backend))
			assert.Equal(t, tc.embeds, c.Embeds())
		})
	}
}
