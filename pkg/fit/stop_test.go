package fit

import (
	"errors"
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
