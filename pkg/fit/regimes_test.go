package fit

import (
	"math"
	"testing"
)

// Eager up to 8 KiB (2 µs + n/10 GB/s), rendezvous above (22 µs + n/12 GB/s),
// 5% noise, 10 repetitions: the break is found at 8 KiB and each side's
// parameters are recovered.
func TestTwoRegimes(t *testing.T) {
	curve := func(n float64) float64 {
		if n <= 8192 {
			return 2e-6 + n/10e9
		}
		return 22e-6 + n/12e9
	}
	obs := synth(5, sizes4To256MiB(), 10, 0.05, curve)
	g, err := TwoRegimes(obs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Break != 8192 {
		t.Errorf("break at %v B, want 8192", g.Break)
	}
	for _, c := range []struct {
		name      string
		v         Interval
		want, tol float64
	}{
		{"α below", g.Below.Alpha, 2e-6, 0.02},
		{"α above", g.Above.Alpha, 22e-6, 0.05},
		{"β above", g.Above.Beta, 12e9, 0.02},
	} {
		if !near(c.v.Value, c.want, c.tol) || !(c.v.Lo <= c.want && c.want <= c.v.Hi) {
			t.Errorf("%s %v, want %g within %g and inside the interval", c.name, c.v, c.want, c.tol)
		}
	}
	// Below 8 KiB, n/β is at most 0.8 µs of 2 µs: resolved, but loosely.
	if !(g.Below.Beta.Lo <= 10e9 && 10e9 <= g.Below.Beta.Hi) {
		t.Errorf("β below %v does not hold 1e10", g.Below.Beta)
	}
	if g.Improvement < 0.9 {
		t.Errorf("improvement %v, want > 0.9 for two clear regimes", g.Improvement)
	}
	if p := g.Predict(1 << 20); !near(p, curve(1<<20), 0.02) {
		t.Errorf("Predict(1 MiB) = %v, want %v", p, curve(1<<20))
	}
	// The same data as one line get a large-residuals warning.
	one, _ := AlphaBeta(obs, Options{})
	if !one.Has(CodeLargeResiduals) {
		t.Errorf("one line over two regimes: no %s warning (%v)", CodeLargeResiduals, one.Warnings)
	}
}

// On one clean line the split gains little.
func TestTwoRegimesOneLine(t *testing.T) {
	obs := synth(6, sizes4To256MiB(), 10, 0.05, alphaBetaCurve(trueAlpha, trueBeta))
	g, err := TwoRegimes(obs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Improvement > 0.5 {
		t.Errorf("improvement %v on one line, want < 0.5", g.Improvement)
	}
}

func TestTwoRegimesErrors(t *testing.T) {
	_, err := TwoRegimes(line(8, 64, 512, 4096, 32768), Options{})
	checkErr(t, err, ErrTooFewSizes)
	_, err = TwoRegimes(nil, Options{})
	checkErr(t, err, ErrNoData)
	_, err = TwoRegimes(line(8, 64, 512, 4096, 32768, 1<<20), Options{Level: 2})
	checkErr(t, err, ErrInput)
}

// Past maxBreaks gaps the break is searched coarse, then fine: on a sweep
// of 3,000 sizes it is the break the exhaustive search finds.
func TestTwoRegimesCoarseToFine(t *testing.T) {
	curve := func(n float64) float64 {
		if n <= 1<<20 {
			return 2e-6 + n/10e9
		}
		return 40e-6 + n/12e9
	}
	sizes := make([]float64, 3000)
	for i := range sizes {
		sizes[i] = math.Round(1024 * math.Pow(2, 12*float64(i)/float64(len(sizes))))
	}
	obs := synth(7, sizes, 3, 0.05, curve)
	coarse, err := TwoRegimes(obs, Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer func(m int) { maxBreaks = m }(maxBreaks)
	maxBreaks = len(sizes)
	full, err := TwoRegimes(obs, Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	if coarse.Break != full.Break || math.Abs(coarse.Break-(1<<20)) > 0.01*(1<<20) {
		t.Errorf("coarse-to-fine break %v, exhaustive %v, true 1 MiB", coarse.Break, full.Break)
	}
}
