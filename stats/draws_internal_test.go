package stats

import (
	"math"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIndexesAreRandIntN holds BootstrapMean's draws to math/rand/v2's
// Rand.IntN over the same PCG, draw for draw, so that a run's interval is
// the one earlier versions gave: sizes of every kind (one, powers of two
// and their neighbours, a dataset's, sizes whose words are often drawn
// again), 5,000 draws each, from three seeds.
func TestIndexesAreRandIntN(t *testing.T) {
	t.Parallel()
	if bits.UintSize == 32 {
		t.Skip("Rand.IntN draws small bounds another way on a 32-bit platform")
	}
	sizes := []int{1, 2, 3, 4, 5, 7, 8, 9, 200, 255, 256, 257, 1000, 1<<20 + 1,
		int(uint64(1)<<62 + 1), int(uint64(3) << 61), int(uint64(1)<<63 - 1)}
	for _, seed := range []uint64{0, 18, math.MaxUint64} {
		want := newRNG(seed)
		src := newPCG(seed)
		for _, n := range sizes {
			draw := newIndexes(n)
			for i := range 5000 {
				w := src.Uint64()
				got, ok := draw.of(w)
				if !ok {
					got = draw.again(w, src)
				}
				require.Equal(t, want.IntN(n), got, "seed %d, n %d, draw %d", seed, n, i)
			}
		}
	}
}
