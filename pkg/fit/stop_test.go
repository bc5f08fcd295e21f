package fit

import (
	"errors"
	"math"
	"sync/atomic"
	"testing"
)

// TestStop: Options.Stop ends every bootstrap at its next check with its
// error (a command passes ctx.Err: SIGINT or SIGTERM stops a long fit),
// and a Stop that never answers changes nothing.
func TestStop(t *testing.T) {
	obs := synth(1, sizes4To256MiB(), 5, 0.03, alphaBetaCurve(2e-6, 1e10))
	single := synth(2, sizes4To256MiB(), 1, 0.03, alphaBetaCurve(2e-6, 1e10))
	stop := errors.New("stopped")
	var calls atomic.Int64
	after := func(n int64) func() error {
		calls.Store(0)
		return func() error {
			if calls.Add(1) > n {
				return stop
			}
			return nil
		}
	}
	fits := map[string]func(Options) error{
		"AlphaBeta":          func(o Options) error { _, err := AlphaBeta(obs, o); return err },
		"AlphaBeta residual": func(o Options) error { _, err := AlphaBeta(single, o); return err },
		"Pipelined":          func(o Options) error { _, err := Pipelined(obs, 1<<20, o); return err },
		"TwoRegimes":         func(o Options) error { _, err := TwoRegimes(obs, o); return err },
		"RatioOfMedians":     func(o Options) error { _, err := RatioOfMedians(obs[3].Seconds, obs[4].Seconds, o); return err },
		"GeoMean":            func(o Options) error { _, err := GeoMean([]float64{1.1, 0.9, 1.2, 1.05}, o); return err },
	}
	for name, f := range fits {
		// Stopped at once, and after a few checks (inside the loops).
		for _, n := range []int64{0, 3} {
			if err := f(Options{Resamples: 5000, Stop: after(n)}); !errors.Is(err, stop) {
				t.Errorf("%s, stop after %d checks: error %v, want the stop", name, n, err)
			}
		}
		if err := f(Options{Resamples: 5000, Stop: func() error { return nil }}); err != nil {
			t.Errorf("%s with a Stop that never stops: %v", name, err)
		}
	}
	// The same result with and without a Stop that never stops.
	a, _ := AlphaBeta(obs, Options{Seed: 7})
	b, _ := AlphaBeta(obs, Options{Seed: 7, Stop: func() error { return nil }})
	if a.Alpha != b.Alpha || a.Beta != b.Beta {
		t.Errorf("a Stop changed the fit: %+v vs %+v", a.Alpha, b.Alpha)
	}
}

// TestStopWithinOneHugeResample: with millions of repetitions one
// resample draws millions of values, so Stop is asked by the values drawn
// too, not only every StopEvery resamples: the fit stops inside its first
// resamples (it took minutes for a run of a million records before).
func TestStopWithinOneHugeResample(t *testing.T) {
	obs := synth(3, sizes4To256MiB()[:3], 1, 0.03, alphaBetaCurve(2e-6, 1e10))
	for i := range obs {
		for len(obs[i].Seconds) < 2*stopDraws {
			obs[i].Seconds = append(obs[i].Seconds, obs[i].Seconds[0]*(1+1e-3*float64(len(obs[i].Seconds)%7)))
		}
	}
	stop := errors.New("stopped")
	var checks atomic.Int64
	_, err := AlphaBeta(obs, Options{Resamples: 1000, Stop: func() error {
		if checks.Add(1) > 2 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want the stop", err)
	}
}

// TestLeverageThin: the leverages from R alone equal those of the full Q
// (the diagonal of the hat matrix), and need no rows × rows matrix.
func TestLeverageThin(t *testing.T) {
	obs := synth(4, sizes4To256MiB(), 1, 0.05, alphaBetaCurve(3e-6, 2e10))
	d, err := prepare(obs)
	if err != nil {
		t.Fatal(err)
	}
	lin := newLinear(len(d.bytes), 2, func(i int, row []float64) { row[0], row[1] = 1, d.bytes[i] })
	r, err := AlphaBeta(obs, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	point := []float64{r.Alpha.Value, 1 / r.Beta.Value}
	cnt := make([]float64, lin.rows)
	for i := range cnt {
		cnt[i] = 1
	}
	h := lin.leverage(point, cnt)
	sum := 0.0
	for i, v := range h {
		if !(v >= 0 && v <= 1+1e-9) {
			t.Errorf("h[%d] = %v outside [0, 1]", i, v)
		}
		sum += v
	}
	// The trace of the hat matrix is the number of parameters.
	if math.Abs(sum-2) > 1e-6 {
		t.Errorf("Σh = %v, want 2 (the parameters)", sum)
	}
}
