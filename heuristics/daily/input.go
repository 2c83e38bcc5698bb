package daily

import "math"

// round1 rounds to one decimal, as the seed's reports print scores.
func round1(v float64) float64 { return math.Round(v*10) / 10 }
