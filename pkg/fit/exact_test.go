package fit

import (
	"math"
	"testing"
)

func near(got, want, rel float64) bool {
	if want == 0 {
		return math.Abs(got) <= rel
	}
	return math.Abs(got/want-1) <= rel
}

// Hand-worked fits of exact (noise-free) data. With one repetition per size
// the intervals come from residuals, which are zero for an exact fit, so
// every interval collapses onto its point.
func TestAlphaBetaExact(t *testing.T) {
	cases := []struct {
		name        string
		obs         []Observation
		alpha, beta float64
		warn        []Code
	}{
		{
			// Two exact points (8 B, 2 µs) and (1 MiB, 22 µs):
			//   1/β = (22 − 2) µs / (1048576 − 8) B = 20e-6/1048568 s/B
			//   β   = 1048568/20e-6 = 5.24284e10 B/s
			//   α   = 2 µs − 8 B/β = 2e-6 − 8·20e-6/1048568 = 2e-6 − 1.52588e-10
			//       = 1.99984741e-6 s
			name:  "two points",
			obs:   []Observation{{8, []float64{2e-6}}, {1 << 20, []float64{22e-6}}},
			alpha: 2e-6 - 8*20e-6/1048568, beta: 1048568 / 20e-6,
			warn: []Code{CodeFewSizes, CodeResidualBootstrap},
		},
		{
			// α = 1 µs, β = 1 GB/s: t(0) = 1 µs, t(1000) = 1 + 1 = 2 µs,
			// t(1e6) = 1 + 1000 = 1001 µs. A zero-byte message is valid: it
			// measures α alone.
			name: "three points with a zero size",
			obs: []Observation{
				{0, []float64{1e-6}}, {1000, []float64{2e-6}}, {1e6, []float64{1001e-6}},
			},
			alpha: 1e-6, beta: 1e9,
			warn: []Code{CodeResidualBootstrap},
		},
		{
			// The same line, two repetitions per size, one a bit fast and
			// one a bit slow by the same factor: the median is the line.
			// (Two repetitions: the median is their mean, 1.02/2 + 0.98/2 = 1.)
			name: "repetitions centred on the line",
			obs: []Observation{
				{0, []float64{1.02e-6, 0.98e-6}},
				{1000, []float64{2.04e-6, 1.96e-6}},
				{1e6, []float64{1001e-6 * 1.02, 1001e-6 * 0.98}},
			},
			alpha: 1e-6, beta: 1e9,
		},
		{
			// (1000 B, 1 µs) and (2000 B, 3 µs): the line through them has
			// slope 2 ns/B and intercept −1 µs. α is held at 0; with α = 0
			// the relative-error equations Σᵢ(tᵢ − nᵢγ)·nᵢ/(nᵢγ)² = 0 give
			// Σᵢ(tᵢ/(nᵢγ) − 1) = 0, so γ = mean(tᵢ/nᵢ) = (1e-9 + 1.5e-9)/2
			// = 1.25e-9 s/B: β = 8e8 B/s.
			name:  "negative intercept held at zero",
			obs:   []Observation{{1000, []float64{1e-6}}, {2000, []float64{3e-6}}},
			alpha: 0, beta: 8e8,
			warn: []Code{CodeFewSizes, CodeResidualBootstrap, CodeAlphaUnresolved, CodeLargeResiduals},
		},
		{
			// A flat line: t = 5 µs at 8 B, 64 B, 512 B. β is held at +Inf
			// (1/β = 0) rather than made negative or wild.
			name:  "flat: no bandwidth term",
			obs:   []Observation{{8, []float64{5e-6}}, {64, []float64{5e-6}}, {512, []float64{5e-6}}},
			alpha: 5e-6, beta: math.Inf(1),
			warn: []Code{CodeResidualBootstrap, CodeBetaUnresolved},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := AlphaBeta(c.obs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.Alpha.Value, c.alpha, 1e-9) {
				t.Errorf("α = %.10g, want %.10g", r.Alpha.Value, c.alpha)
			}
			if !(math.IsInf(c.beta, 1) && math.IsInf(r.Beta.Value, 1)) && !near(r.Beta.Value, c.beta, 1e-9) {
				t.Errorf("β = %.10g, want %.10g", r.Beta.Value, c.beta)
			}
			checkCodes(t, r, c.warn)
		})
	}
}

// checkCodes asserts the result carries exactly the given warning codes.
func checkCodes(t *testing.T, r Result, want []Code) {
	t.Helper()
	got := map[Code]bool{}
	for _, w := range r.Warnings {
		got[w.Code] = true
	}
	for _, c := range want {
		if !got[c] {
			t.Errorf("missing warning %s; got %v", c, r.Warnings)
		}
		delete(got, c)
	}
	for c := range got {
		t.Errorf("unexpected warning %s; got %v", c, r.Warnings)
	}
}

func TestAlphaBetaExactIntervalsCollapse(t *testing.T) {
	obs := []Observation{{0, []float64{1e-6}}, {1000, []float64{2e-6}}, {1e6, []float64{1001e-6}}}
	r, err := AlphaBeta(obs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []Interval{r.Alpha, r.Beta} {
		if !near(v.Lo, v.Value, 1e-9) || !near(v.Hi, v.Value, 1e-9) {
			t.Errorf("interval %+v of exact data did not collapse", v)
		}
	}
	if r.MedianAPE > 1e-9 || r.WorstAPE > 1e-9 {
		t.Errorf("APE median %g worst %g, want 0", r.MedianAPE, r.WorstAPE)
	}
	for _, res := range r.Residuals {
		if math.Abs(res.Relative) > 1e-9 {
			t.Errorf("residual %+v, want 0", res)
		}
	}
}

// Pipelined: α = 1 µs, β = 1 GB/s (1 ns/B), c = 4 KiB, p = 2 µs.
//
//	t(1 KiB)  = 1 + 1.024                  =  2.024 µs
//	t(4 KiB)  = 1 + 4.096                  =  5.096 µs
//	t(16 KiB) = 5.096 + (16/4 − 1)·2 = +6  = 11.096 µs
//	t(64 KiB) = 5.096 + (64/4 − 1)·2 = +30 = 35.096 µs
//	Stream    = c/p = 4096 B / 2 µs        =  2.048e9 B/s
func TestPipelinedExact(t *testing.T) {
	obs := []Observation{
		{1024, []float64{2.024e-6}},
		{4096, []float64{5.096e-6}},
		{16384, []float64{11.096e-6}},
		{65536, []float64{35.096e-6}},
	}
	r, err := Pipelined(obs, 4096, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"α", r.Alpha.Value, 1e-6},
		{"β", r.Beta.Value, 1e9},
		{"p", r.Period.Value, 2e-6},
		{"stream", r.Stream.Value, 2.048e9},
		{"predict 256 KiB", r.Predict(256 << 10), 5.096e-6 + 63*2e-6},
		{"predict 6 KiB (two chunks)", r.Predict(6 << 10), 5.096e-6 + 2e-6},
		{"predict 0 B", r.Predict(0), 1e-6},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %.10g, want %.10g", c.name, c.got, c.want)
		}
	}
	checkCodes(t, r, []Code{CodeResidualBootstrap})
}

// A chunked transfer whose chunks do not overlap: each further chunk costs
// more than one chunk store-and-forward (p = 6 µs > c/β = 4.096 µs).
func TestPipelinedNoOverlap(t *testing.T) {
	curve := pipeCurve(1e-6, 1e9, 4096, 6e-6)
	var obs []Observation
	for _, n := range []float64{512, 1024, 4096, 16384, 65536, 262144} {
		obs = append(obs, Observation{n, []float64{curve(n), curve(n)}})
	}
	r, err := Pipelined(obs, 4096, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Has(CodeNoOverlap) {
		t.Errorf("no %s warning: %v", CodeNoOverlap, r.Warnings)
	}
}
