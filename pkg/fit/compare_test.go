package fit

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Hand-worked: predicted 2, 3, 100 µs against measured 2.5, 3, 80 µs:
//
//	8 B:     (2 − 2.5)/2.5 = −20%  (model too fast)
//	1024 B:  (3 − 3)/3     =   0%
//	1 MiB:   (100 − 80)/80 = +25%  (model too slow)
//
// median |error| = 20%, worst 25% at 1 MiB.
func TestCompare(t *testing.T) {
	c, err := Compare([]float64{8, 1024, 1 << 20}, []float64{2e-6, 3e-6, 100e-6}, []float64{2.5e-6, 3e-6, 80e-6})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-20, 0, 25}
	for i, p := range c.Points {
		if !near(p.Percent, want[i], 1e-9) {
			t.Errorf("size %v: %v%%, want %v%%", p.Bytes, p.Percent, want[i])
		}
	}
	if !near(c.MedianAPE, 20, 1e-9) || !near(c.WorstAPE, 25, 1e-9) || c.WorstBytes != 1<<20 || !near(c.WorstPercent, 25, 1e-9) {
		t.Errorf("summary %+v", c)
	}
}

func TestCompareErrors(t *testing.T) {
	cases := []struct {
		name                  string
		bytes, pred, measured []float64
		err                   error
	}{
		{"empty", nil, nil, nil, ErrNoData},
		{"lengths", []float64{1, 2}, []float64{1}, []float64{1, 2}, ErrInput},
		{"NaN measured", []float64{1}, []float64{1}, []float64{nan}, ErrInput},
		{"zero measured", []float64{1}, []float64{1}, []float64{0}, ErrInput},
		{"negative prediction", []float64{1}, []float64{-1}, []float64{1}, ErrInput},
		{"infinite size", []float64{inf}, []float64{1}, []float64{1}, ErrInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compare(c.bytes, c.pred, c.measured)
			checkErr(t, err, c.err)
		})
	}
}

// Two stages, "copy" (2 µs + n/10 GB/s) and "socket" (5 µs + n/2 GB/s),
// against totals measured from a world where one term differs.
func blameStages(sizes []float64) []Stage {
	copyFixed, copyXfer := make([]float64, len(sizes)), make([]float64, len(sizes))
	sockFixed, sockXfer := make([]float64, len(sizes)), make([]float64, len(sizes))
	for i, n := range sizes {
		copyFixed[i], copyXfer[i] = 2e-6, n/10e9
		sockFixed[i], sockXfer[i] = 5e-6, n/2e9
	}
	return []Stage{{"copy", copyFixed, copyXfer}, {"socket", sockFixed, sockXfer}}
}

func TestBlame(t *testing.T) {
	sizes := []float64{8, 512, 32768, 1 << 20, 1 << 24}
	total := func(f func(n float64) float64) []float64 {
		m := make([]float64, len(sizes))
		for i, n := range sizes {
			m[i] = f(n)
		}
		return m
	}
	cases := []struct {
		name     string
		measured []float64
		stage    string
		term     Term
		factor   float64
		tooFast  bool
		alike    string // another suspect the sentence must name
	}{
		{
			// The socket really moves 1 GB/s: measured = model + n/2 GB/s,
			// which is the socket's transfer term once more: e = u exactly,
			// k = 1, Factor 2, all of the error explained.
			name:     "socket bandwidth half the model's",
			measured: total(func(n float64) float64 { return 7e-6 + n/10e9 + n/1e9 }),
			stage:    "socket", term: TermTransfer, factor: 2, tooFast: true,
		},
		{
			// The copy really moves 20 GB/s: measured = model − n/20 GB/s,
			// half the copy's transfer term (Factor 0.5). But every
			// transfer term is proportional to n, so the socket's explains
			// it as well, with the smaller correction: −n/20 GB/s is 0.1 of
			// n/2 GB/s, Factor 0.9. Same shape, so the data cannot tell
			// them apart; the dominant term is named and the copy is listed
			// as explaining it as well.
			name:     "copy faster than modeled: same shape as the socket",
			measured: total(func(n float64) float64 { return 7e-6 + n/20e9 + n/2e9 }),
			stage:    "socket", term: TermTransfer, factor: 0.9, alike: "\"copy\" transfer ×0.5",
		},
		{
			// The copy is twice as slow as a whole (4 µs + n/5 GB/s): only
			// the copy's whole term has that shape (the socket's has
			// another ratio of fixed to transfer time). Factor 2.
			name:     "copy twice as slow",
			measured: total(func(n float64) float64 { return 9e-6 + 2*n/10e9 + n/2e9 }),
			stage:    "copy", term: TermWhole, factor: 2, tooFast: true,
		},
		{
			// 2 µs more fixed latency somewhere. Every fixed term is a
			// constant, so "copy" (2 µs → Factor 2) and "socket" (5 µs →
			// Factor 1.4) explain it equally; the heuristic names the
			// larger term, the smaller correction: socket, ×1.4.
			name:     "fixed latency missing",
			measured: total(func(n float64) float64 { return 9e-6 + n/10e9 + n/2e9 }),
			stage:    "socket", term: TermFixed, factor: 1.4, tooFast: true, alike: "\"copy\" fixed ×2",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Blame(sizes, c.measured, blameStages(sizes))
			if err != nil {
				t.Fatal(err)
			}
			t.Log(v)
			if v.Stage != c.stage || v.Term != c.term || !near(v.Factor, c.factor, 1e-6) || v.TooFast() != c.tooFast {
				t.Errorf("blamed %+v, want %s %s ×%v", v.Suspect, c.stage, c.term, c.factor)
			}
			if !near(v.Explained, 1, 1e-6) {
				t.Errorf("explained %v, want 1", v.Explained)
			}
			if v.Candidates[0] != v.Suspect {
				t.Errorf("candidates %+v do not start with the suspect", v.Candidates)
			}
			if !strings.Contains(v.String(), c.stage) || !strings.Contains(v.String(), c.alike) {
				t.Errorf("sentence %q does not name %s and %s", v, c.stage, c.alike)
			}
		})
	}
}

func TestBlameAgreement(t *testing.T) {
	sizes := []float64{8, 1 << 20}
	st := blameStages(sizes)
	measured := []float64{7e-6 + 8/10e9 + 8/2e9, 7e-6 + (1<<20)/10e9 + (1<<20)/2e9}
	v, err := Blame(sizes, measured, st)
	if err != nil {
		t.Fatal(err)
	}
	if v.Stage != "" || len(v.Candidates) != 0 || v.Comparison.WorstAPE > 1e-9 {
		t.Errorf("agreement blamed %+v", v)
	}
	if !strings.Contains(v.String(), "matches") {
		t.Errorf("sentence %q", v)
	}
}

func TestBlameErrors(t *testing.T) {
	sizes := []float64{8, 1024}
	cases := []struct {
		name   string
		stages []Stage
		meas   []float64
		err    error
	}{
		{"no stages", nil, []float64{1, 1}, ErrInput},
		{"length", []Stage{{"a", []float64{1}, nil}}, []float64{1, 1}, ErrInput},
		{"NaN term", []Stage{{"a", []float64{1, nan}, nil}}, []float64{1, 1}, ErrInput},
		{"negative term", []Stage{{"a", nil, []float64{1, -1}}}, []float64{1, 1}, ErrInput},
		{"zero measured", []Stage{{"a", []float64{1, 1}, nil}}, []float64{1, 0}, ErrInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Blame(sizes, c.meas, c.stages)
			checkErr(t, err, c.err)
			if !errors.Is(err, c.err) {
				t.Fatal(err)
			}
		})
	}
}

func TestIntervalString(t *testing.T) {
	cases := []struct {
		v    Interval
		want string
	}{
		{Interval{2e-6, 1.9e-6, 2.1e-6}, "2e-06 [1.9e-06, 2.1e-06]"},
		{Interval{0, 0, 3.1e-8}, "< 3.1e-08"},
		{Interval{math.Inf(1), 5e10, math.Inf(1)}, "> 5e+10"},
		{Interval{1, 0, math.Inf(1)}, "unknown"},
	}
	for _, c := range cases {
		if got := c.v.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.v, got, c.want)
		}
	}
}

func TestIntervalJSON(t *testing.T) {
	v := Interval{math.Inf(1), 5e10, math.Inf(1)}
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"value":null,"lo":50000000000,"hi":null}` {
		t.Errorf("JSON %s", b)
	}
	var back Interval
	if err := back.UnmarshalJSON(b); err != nil || back != v {
		t.Errorf("round trip %+v, %v", back, err)
	}
}

func TestWarningString(t *testing.T) {
	w := Warning{CodeFewSizes, "only 2 distinct sizes"}
	if got := w.String(); got != "few-sizes: only 2 distinct sizes" {
		t.Errorf("%q", got)
	}
}
