package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestQuantileDefinition7 checks hand-worked values of definition 7 (R's
// quantile(x, type = 7), numpy.quantile): position q·(n−1) in the sorted
// values, linear between its neighbours.
func TestQuantileDefinition7(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, tc := range []struct{ q, want float64 }{
		{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.75, 3.25}, {0.99, 3.97}, {1, 4}, {-1, 1}, {2, 4},
	} {
		if got := Quantile(x, tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", x, tc.q, got, tc.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) || !math.IsNaN(Median(nil)) || !math.IsNaN(MedianInPlace(nil)) {
		t.Error("no values must give NaN")
	}
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("Median = %v", got)
	}
	v := []float64{4, 1, 3, 2}
	if got := Median(v); got != 2.5 || v[0] != 4 {
		t.Errorf("Median = %v, input now %v", got, v)
	}
	// The midpoint neither overflows nor underflows.
	big := math.MaxFloat64
	if got := Quantile([]float64{big, big}, 0.5); got != big {
		t.Errorf("median of two MaxFloat64 = %v", got)
	}
	tiny := math.SmallestNonzeroFloat64
	if got := Quantile([]float64{tiny, tiny}, 0.5); got != tiny {
		t.Errorf("median of two smallest subnormals = %v", got)
	}
}

// TestAgainstGonum: where gonum's stat.Quantile and definition 7 agree
// (the empirical median of an odd count, the maximum) the values are the
// same; at an even count gonum takes the lower middle, which is why this
// package does not use it (see the package comment).
func TestAgainstGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n < 60; n += 2 {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.ExpFloat64()
		}
		slices.Sort(x)
		if got, want := Quantile(x, 0.5), stat.Quantile(0.5, stat.Empirical, x, nil); got != want {
			t.Fatalf("n=%d: median %v, gonum %v", n, got, want)
		}
		for _, kind := range []stat.CumulantKind{stat.Empirical, stat.LinInterp} {
			if got, want := Quantile(x, 1), stat.Quantile(1, kind, x, nil); got != want {
				t.Fatalf("n=%d: maximum %v, gonum %v", n, got, want)
			}
		}
	}
	even := []float64{1, 2, 3, 4}
	if g := stat.Quantile(0.5, stat.Empirical, even, nil); g != 2 || Quantile(even, 0.5) != 2.5 {
		t.Errorf("gonum's empirical median of 1..4 is %v; definition 7 gives %v", g, Quantile(even, 0.5))
	}
}

// TestMedianInPlace: quickselect gives the sorted median for every count,
// with many ties.
func TestMedianInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 200; n++ {
		for trial := 0; trial < 5; trial++ {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(r.IntN(10))
			}
			s := slices.Clone(xs)
			slices.Sort(s)
			if got, want := MedianInPlace(xs), Quantile(s, 0.5); got != want {
				t.Fatalf("n=%d: MedianInPlace %v, Quantile %v", n, got, want)
			}
		}
	}
}
