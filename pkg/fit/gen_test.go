package fit

import (
	"math"
	"math/rand/v2"
)

// sizes4To256MiB is 4 B, 8 B, … 256 MiB: 27 sizes.
func sizes4To256MiB() []float64 {
	var s []float64
	for n := 4.0; n <= 256<<20; n *= 2 {
		s = append(s, n)
	}
	return s
}

// synth draws reps repetitions per size of curve(n)·exp(σ·Z), Z standard
// normal: lognormal multiplicative noise whose median is curve(n).
func synth(seed uint64, sizes []float64, reps int, sigma float64, curve func(float64) float64) []Observation {
	r := rand.New(rand.NewPCG(seed, 42))
	obs := make([]Observation, len(sizes))
	for i, n := range sizes {
		o := Observation{Bytes: n, Seconds: make([]float64, reps)}
		for j := range o.Seconds {
			o.Seconds[j] = curve(n) * math.Exp(sigma*r.NormFloat64())
		}
		obs[i] = o
	}
	return obs
}

func alphaBetaCurve(alpha, beta float64) func(float64) float64 {
	return func(n float64) float64 { return alpha + n/beta }
}

func pipeCurve(alpha, beta, chunk, period float64) func(float64) float64 {
	return func(n float64) float64 {
		return alpha + math.Min(n, chunk)/beta + chunksAfterFirst(n, chunk)*period
	}
}
