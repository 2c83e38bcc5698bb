package offline_test

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/offline"
)

type countBytes struct{}

func (countBytes) Count(s string) int { return len(s) }

func TestEmbed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := offline.New(offline.Config{})
	embed := func(t *testing.T, s string) []float32 {
		t.Helper()
		v, _, err := b.Embed(ctx, []string{s})
		require.NoError(t, err)
		require.Len(t, v, 1)
		return v[0]
	}

	tests := map[string]struct {
		a, b string
		// min and max bound cosine(a, b).
		min, max float64
	}{
		"identical texts give identical vectors":    {"Grounded answers cite sources.", "Grounded answers cite sources.", 1, 1},
		"case is ignored":                           {"Paris is the capital of France", "PARIS IS THE CAPITAL OF FRANCE", 1, 1},
		"punctuation and spacing are ignored":       {"cats, dogs; and birds!", "  cats dogs  and\tbirds", 1, 1},
		"stop words are ignored":                    {"the capital of France", "capital France", 1, 1},
		"word order is ignored":                     {"retrieval before generation", "generation before retrieval", 1, 1},
		"inflections stay close":                    {"judge scores answer", "judges scored answers", 0.3, 0.99},
		"a paraphrase is closer than a topic shift": {"The model cited three sources", "Three sources were cited by the model", 0.9, 1},
		"unrelated texts are near orthogonal":       {"photosynthesis in green leaves", "quarterly revenue grew strongly", -0.2, 0.2},
		"non-Latin scripts are embedded":            {"東京 大阪", "東京 京都", 0.2, 0.9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := cosine(embed(t, tc.a), embed(t, tc.b))
			require.GreaterOrEqual(t, c, tc.min-1e-6)
			require.LessOrEqual(t, c, tc.max+1e-6)
		})
	}
}

func TestEmbedVectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := map[string]struct {
		cfg      offline.Config
		texts    []string
		dims     int
		norms    []float64
		tokensIn int
	}{
		"default dims, unit length": {
			cfg: offline.Config{}, texts: []string{"one text", "and another one"},
			dims: offline.DefaultDims, norms: []float64{1, 1}, tokensIn: 5,
		},
		"configured dims and counter": {
			cfg: offline.Config{Dims: 64, Counter: countBytes{}}, texts: []string{"abc", "de"},
			dims: 64, norms: []float64{1, 1}, tokensIn: 5,
		},
		"a text without words is the zero vector": {
			cfg: offline.Config{}, texts: []string{"", "!!! ...", "the of and"},
			dims: offline.DefaultDims, norms: []float64{0, 0, 0}, tokensIn: 5,
		},
		"no texts, no vectors": {
			cfg: offline.Config{}, texts: nil, dims: 0, norms: nil, tokensIn: 0,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			vecs, u, err := offline.New(tc.cfg).Embed(ctx, tc.texts)
			require.NoError(t, err)
			require.Len(t, vecs, len(tc.texts))
			for i, v := range vecs {
				require.Len(t, v, tc.dims)
				require.InDelta(t, tc.norms[i], norm(v), 1e-5)
			}
			require.Equal(t, eval.Usage{Calls: 1, TokensIn: tc.tokensIn}, u)
		})
	}
}

func TestEmbedIsDeterministic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	text := "Same input, same vector, in every run and on every goroutine."
	want, _, err := offline.New(offline.Config{}).Embed(ctx, []string{text})
	require.NoError(t, err)

	b := offline.New(offline.Config{})
	var wg sync.WaitGroup
	got := make([][][]float32, 20)
	for i := range got {
		wg.Go(func() { got[i], _, _ = b.Embed(ctx, []string{text}) })
	}
	wg.Wait()
	for _, g := range got {
		require.Equal(t, want, g)
	}
}

func TestBackend(t *testing.T) {
	t.Parallel()
	b := offline.New(offline.Config{})
	require.Equal(t, "offline", b.Name())

	_, err := b.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
	require.ErrorIs(t, err, llm.ErrNoChat)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = b.Embed(ctx, []string{"x"})
	require.ErrorIs(t, err, context.Canceled)
}

func TestClientEmbedsOffline(t *testing.T) {
	t.Parallel()
	c := llm.New(llm.Config{Backend: offline.New(offline.Config{})})
	vecs, u, err := c.Embed(context.Background(), []string{"through the client"})
	require.NoError(t, err)
	require.Len(t, vecs, 1)
	require.Equal(t, 1, u.Calls)
	require.Zero(t, u.CostUSD)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
