package fit_test

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/fit"
)

// Three sizes measured twice each, on the line α = 1 µs, β = 1 GB/s.
func ExampleAlphaBeta() {
	obs := []fit.Observation{
		{Bytes: 0, Seconds: []float64{1.02e-6, 0.98e-6}},
		{Bytes: 1000, Seconds: []float64{2.04e-6, 1.96e-6}},
		{Bytes: 1e6, Seconds: []float64{1.02102e-3, 0.98098e-3}},
	}
	r, err := fit.AlphaBeta(obs, fit.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("α = %.3g s, β = %.3g B/s\n", r.Alpha.Value, r.Beta.Value)
	fmt.Printf("t(64 KiB) = %.4g s\n", r.Predict(64<<10))
	fmt.Printf("median error %.1f%%, warnings: %d\n", r.MedianAPE, len(r.Warnings))
	// Output:
	// α = 1e-06 s, β = 1e+09 B/s
	// t(64 KiB) = 6.654e-05 s
	// median error 0.0%, warnings: 0
}

// A chunked transfer, 4 KiB chunks: one chunk through every stage in
// 1 µs + n/(1 GB/s), then 2 µs for each further chunk.
func ExamplePipelined() {
	obs := []fit.Observation{
		{Bytes: 1024, Seconds: []float64{2.024e-6}},
		{Bytes: 4096, Seconds: []float64{5.096e-6}},
		{Bytes: 16384, Seconds: []float64{11.096e-6}},
		{Bytes: 65536, Seconds: []float64{35.096e-6}},
	}
	r, err := fit.Pipelined(obs, 4096, fit.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("α = %.3g s, β = %.3g B/s, period = %.3g s, stream = %.4g B/s\n",
		r.Alpha.Value, r.Beta.Value, r.Period.Value, r.Stream.Value)
	for _, w := range r.Warnings {
		fmt.Println(w.Code)
	}
	// Output:
	// α = 1e-06 s, β = 1e+09 B/s, period = 2e-06 s, stream = 2.048e+09 B/s
	// residual-bootstrap
}

// Sizes too small to see the bandwidth: the fit says so instead of
// inventing a number.
func Example_warnings() {
	obs := []fit.Observation{
		{Bytes: 8, Seconds: []float64{2.00e-6, 2.04e-6, 1.97e-6}},
		{Bytes: 64, Seconds: []float64{2.03e-6, 1.98e-6, 2.01e-6}},
		{Bytes: 512, Seconds: []float64{1.99e-6, 2.05e-6, 2.02e-6}},
	}
	r, _ := fit.AlphaBeta(obs, fit.Options{Seed: 1})
	fmt.Println("α:", r.Alpha)
	for _, w := range r.Warnings {
		fmt.Println(w.Code)
	}
	// Output:
	// α: 2e-06 [1.97e-06, 2.03e-06]
	// beta-unresolved
}

func ExampleCompare() {
	c, _ := fit.Compare(
		[]float64{8, 1024, 1 << 20},    // bytes
		[]float64{2e-6, 3e-6, 100e-6},  // model
		[]float64{2.5e-6, 3e-6, 80e-6}, // measured
	)
	fmt.Printf("median %.0f%%, worst %+.0f%% at %.0f B\n", c.MedianAPE, c.WorstPercent, c.WorstBytes)
	// Output:
	// median 20%, worst +25% at 1048576 B
}

func ExampleBlame() {
	sizes := []float64{8, 4096, 1 << 20, 1 << 24}
	stage := func(name string, alpha, beta float64) fit.Stage {
		s := fit.Stage{Name: name}
		for _, n := range sizes {
			s.Fixed = append(s.Fixed, alpha)
			s.Transfer = append(s.Transfer, n/beta)
		}
		return s
	}
	stages := []fit.Stage{stage("A d2h copy", 2.5e-6, 50e9), stage("B send", 5e-6, 4e9)}
	// Measured: the send stage really moves 2 GB/s.
	var measured []float64
	for _, n := range sizes {
		measured = append(measured, 7.5e-6+n/50e9+n/2e9)
	}
	v, _ := fit.Blame(sizes, measured, stages)
	fmt.Println(v.Stage, v.Term, v.TooFast())
	// Output:
	// B send transfer true
}
