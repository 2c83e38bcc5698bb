package offline_test

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/offline"
)

// cosine is the cosine similarity of two vectors.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func Example() {
	b := offline.New(offline.Config{})
	vecs, usage, err := b.Embed(context.Background(), []string{
		"The judge scores each answer for faithfulness to its sources.",
		"Judges score answers by how faithful they are to the sources.",
		"Bake the bread at 220 degrees for forty minutes.",
	})
	if err != nil {
		panic(err)
	}
	related, unrelated := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2])
	fmt.Printf("related %.2f > unrelated %.2f: %t\n", related, unrelated, related > unrelated)
	fmt.Println("dims:", len(vecs[0]), "tokens in:", usage.TokensIn)

	_, err = b.Chat(context.Background(), llm.Request{})
	fmt.Println("chat available:", !errors.Is(err, llm.ErrNoChat))
	// Output:
	// related 0.46 > unrelated 0.01: true
	// dims: 512 tokens in: 36
	// chat available: false
}
