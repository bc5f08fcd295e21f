package fit

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// decodeObs turns fuzz input into observations two ways: raw holds
// (size, time) pairs of float64 bits, so every value — NaN, ±Inf, negative
// zero, subnormals, 1e308 — can appear; coarse holds 3-byte records that
// map to plausible sizes (0 or 2^0…2^33 B) and times (0.1 µs to ~30 ms), so
// that many inputs reach a successful fit.
func decodeObs(raw, coarse []byte) []Observation {
	var bytes, secs []float64
	for len(raw) >= 16 {
		bytes = append(bytes, math.Float64frombits(binary.LittleEndian.Uint64(raw)))
		secs = append(secs, math.Float64frombits(binary.LittleEndian.Uint64(raw[8:])))
		raw = raw[16:]
	}
	for len(coarse) >= 3 {
		n := 0.0
		if coarse[0] != 255 {
			n = math.Ldexp(1, int(coarse[0]%34))
		}
		bytes = append(bytes, n)
		secs = append(secs, 1e-7*float64(int(coarse[1])+1)*math.Pow(1.1, float64(coarse[2]%100)))
		coarse = coarse[3:]
	}
	obs, _ := Group(bytes, secs)
	return obs
}

// FuzzFit feeds arbitrary observations to AlphaBeta, Pipelined,
// TwoRegimes, Compare and Blame. None may panic; a successful fit has no NaN or negative parameter
// and intervals that hold their values; an error is one line.
func FuzzFit(f *testing.F) {
	f.Add([]byte{}, []byte{2, 10, 0, 10, 20, 0, 20, 200, 50}, 1024.0, uint64(1))
	f.Add([]byte{}, []byte{3, 5, 0, 3, 6, 0, 3, 5, 1, 30, 5, 90, 30, 6, 91}, 65536.0, uint64(2))
	f.Add([]byte{}, []byte{255, 9, 0, 4, 10, 0, 12, 30, 40, 24, 200, 60, 24, 199, 61}, 4096.0, uint64(3))
	f.Add(floatBytes(8, 2e-6, 1<<20, 22e-6, 1<<20, 22.1e-6), []byte{}, 4096.0, uint64(4))
	f.Add(floatBytes(math.NaN(), 1e-6, 8, math.Inf(1), -8, 1e-6, 16, -1, 32, 0), []byte{5, 1, 1}, math.NaN(), uint64(5))
	f.Add(floatBytes(1e308, 1e-308, 5e-324, 1e308, 0, 5e-324, math.MaxFloat64, math.MaxFloat64), []byte{}, 5e-324, uint64(6))
	f.Add(floatBytes(64, 3e-6, 64, 3.1e-6, 64, 2.9e-6), []byte{}, 64.0, uint64(7))
	f.Fuzz(func(t *testing.T, raw, coarse []byte, chunk float64, seed uint64) {
		obs := decodeObs(raw, coarse)
		opt := Options{Resamples: 25, Seed: seed}
		if r, err := AlphaBeta(obs, opt); err != nil {
			oneLine(t, err)
		} else {
			checkSane(t, r)
			checkPredict(t, r, obs)
		}
		if r, err := Pipelined(obs, chunk, opt); err != nil {
			oneLine(t, err)
		} else {
			checkSane(t, r)
			checkPredict(t, r, obs)
		}
		if g, err := TwoRegimes(obs, opt); err != nil {
			oneLine(t, err)
		} else {
			checkSane(t, g.Below)
			checkSane(t, g.Above)
			if math.IsNaN(g.Improvement) || g.Improvement < 0 || g.Improvement > 1 {
				t.Fatalf("improvement %v", g.Improvement)
			}
		}
		// Compare and Blame over the same numbers: sizes, one stage
		// whose fixed term is the first time and whose transfer term the
		// last, measured the first time of each size.
		var bytes, pred, meas, fixed, transfer []float64
		for _, o := range obs {
			if len(o.Seconds) == 0 {
				continue
			}
			bytes = append(bytes, o.Bytes)
			meas = append(meas, o.Seconds[0])
			pred = append(pred, o.Seconds[len(o.Seconds)-1])
			fixed = append(fixed, o.Seconds[len(o.Seconds)-1])
			transfer = append(transfer, o.Bytes*1e-10)
		}
		if c, err := Compare(bytes, pred, meas); err != nil {
			oneLine(t, err)
		} else if math.IsNaN(c.MedianAPE) || math.IsNaN(c.WorstAPE) || c.MedianAPE < 0 || c.WorstAPE < c.MedianAPE {
			t.Fatalf("comparison %+v", c)
		}
		v, err := Blame(bytes, meas, []Stage{{"a", fixed, transfer}, {"b", pred, nil}})
		if err != nil {
			oneLine(t, err)
			return
		}
		for _, s := range v.Candidates {
			if math.IsNaN(s.Factor) || s.Factor < 0 || math.IsNaN(s.Explained) || s.Explained < 0 || s.Explained > 1 {
				t.Fatalf("suspect %+v", s)
			}
		}
		_ = v.String()
	})
}

func floatBytes(xs ...float64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func oneLine(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fit: ") {
		t.Fatalf("error %q is not one line starting with \"fit: \"", msg)
	}
}

// checkPredict asserts predictions at the measured sizes are finite and
// non-negative, and never fall as size grows.
func checkPredict(t *testing.T, r Result, obs []Observation) {
	t.Helper()
	prev := 0.0
	for _, res := range r.Residuals {
		p := r.Predict(res.Bytes)
		if math.IsNaN(p) || p < 0 {
			t.Fatalf("Predict(%v) = %v", res.Bytes, p)
		}
		if p < prev*(1-1e-12) {
			t.Fatalf("Predict falls from %v to %v at %v B", prev, p, res.Bytes)
		}
		prev = p
	}
}
