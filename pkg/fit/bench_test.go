package fit

import (
	"math"
	"testing"
)

// benchObs is 30 sizes, log-spaced from 4 B to 256 MiB, × 20 repetitions
// with 5% lognormal noise.
func benchObs() []Observation {
	sizes := make([]float64, 30)
	for i := range sizes {
		sizes[i] = math.Round(4 * math.Pow(float64(256<<20)/4, float64(i)/29))
	}
	return synth(1, sizes, 20, 0.05, alphaBetaCurve(trueAlpha, trueBeta))
}

// BenchmarkAlphaBeta is one fit with the default 500-resample bootstrap on
// 30 sizes × 20 repetitions.
func BenchmarkAlphaBeta(b *testing.B) {
	obs := benchObs()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AlphaBeta(obs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipelined is the same for the pipelined form (chunk 1 MiB).
func BenchmarkPipelined(b *testing.B) {
	sizes := make([]float64, 30)
	for i := range sizes {
		sizes[i] = math.Round(4 * math.Pow(float64(256<<20)/4, float64(i)/29))
	}
	obs := synth(1, sizes, 20, 0.05, pipeCurve(pipeAlpha, pipeBeta, pipeChunk, pipePeriod))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Pipelined(obs, pipeChunk, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
