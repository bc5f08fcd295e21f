package fit

import (
	"errors"
	"math"
	"testing"
)

// extremes are the float64 values that broke fits before (issue 12): the
// smallest subnormal, huge and tiny times, infinities and NaN.
var extremes = []float64{5e-324, 1e-300, 1e300, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 0, -1}

// TestExtremeTimes: every time 5e-324 made TwoRegimes index [-2] and panic;
// 1e300 and 1e-300 gave α < 0 and β above +Inf. Now each is dropped as
// outside the physical range or the fit fails with a sentinel error, and
// what a fit returns is physical.
func TestExtremeTimes(t *testing.T) {
	sizes := []float64{8, 64, 512, 4096, 32768, 262144, 2097152, 16777216}
	for _, v := range extremes {
		var obs []Observation
		for _, b := range sizes {
			obs = append(obs, Observation{Bytes: b, Seconds: []float64{v, v, v}})
		}
		opt := Options{Resamples: 20}
		if _, err := TwoRegimes(obs, opt); err == nil {
			t.Errorf("TwoRegimes on all-%g times: no error", v)
		} else if !errors.Is(err, ErrNoData) && !errors.Is(err, ErrDegenerate) {
			t.Errorf("TwoRegimes on all-%g times: %v (not a sentinel)", v, err)
		}
		if _, err := AlphaBeta(obs, opt); err == nil {
			t.Errorf("AlphaBeta on all-%g times: no error", v)
		}
		if _, err := Pipelined(obs, 4096, opt); err == nil {
			t.Errorf("Pipelined on all-%g times: no error", v)
		}
	}
}

// TestExtremeMixed: a few extreme values among good ones are dropped with a
// warning, and the fit of the rest is physical.
func TestExtremeMixed(t *testing.T) {
	var obs []Observation
	for _, b := range []float64{8, 64, 512, 4096, 32768, 262144, 2097152} {
		good := 2e-6 + b/10e9
		obs = append(obs, Observation{Bytes: b, Seconds: append([]float64{good, good * 1.01, good * 0.99}, extremes...)})
	}
	r, err := AlphaBeta(obs, Options{Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	if r.Alpha.Value < 0 || math.IsNaN(r.Beta.Value) || r.Beta.Value <= 0 {
		t.Fatalf("unphysical fit %+v %+v", r.Alpha, r.Beta)
	}
	if math.Abs(r.Alpha.Value-2e-6)/2e-6 > 0.05 || math.Abs(r.Beta.Value-10e9)/10e9 > 0.05 {
		t.Errorf("α = %g, β = %g; want 2e-6 and 1e10 within 5%%", r.Alpha.Value, r.Beta.Value)
	}
	if len(r.Warnings) == 0 || r.Warnings[0].Code != CodeDropped {
		t.Errorf("no dropped-values warning: %+v", r.Warnings)
	}
}
