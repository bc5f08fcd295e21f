package calib

import (
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// perftestLike is a latency and a bandwidth series of host-rdma made by the
// model on truth, at sizes 2 B to 8 MiB, as perftest would print them.
func perftestLike(t *testing.T, truth *model.Scenario) []ImportedSeries {
	t.Helper()
	lat := ImportedSeries{Test: "ib_write_lat", Series: record.Series{SeriesKey: record.SeriesKey{Probe: "perftest", Variant: "ib_write_lat", Path: "host-rdma"}, Label: "ib_write_lat", Quantity: record.Latency}}
	bw := ImportedSeries{Test: "ib_write_bw", Series: record.Series{SeriesKey: record.SeriesKey{Probe: "perftest", Variant: "ib_write_bw", Path: "host-rdma"}, Label: "ib_write_bw", Quantity: record.Bandwidth}}
	line := 10
	for n := units.Bytes(2); n <= 8<<20; n *= 2 {
		m := evalPath(truth, "host-rdma", int64(n))
		if !m.Feasible {
			t.Fatalf("host-rdma at %d B: %s", n, m.Reason)
		}
		line++
		lat.Points = append(lat.Points, record.Point{Bytes: n, Median: units.Seconds(m.Latency), Line: line})
		bw.Points = append(bw.Points, record.Point{Bytes: n, Rate: units.Rate(m.Rate), Median: units.Seconds(float64(n) / m.Rate), Line: line + 100})
	}
	return []ImportedSeries{lat, bw}
}

// The keys a perftest output decides are recovered from outputs the model
// made on known values, on every other size, and the sizes left out then
// match: the fit is the model's own inverse.
func TestFitImportedRecovers(t *testing.T) {
	truth := model.Default()
	for k, v := range map[string]string{"nic.latency": "700ns", "nic.post_cost": "300ns", "nic.rate": "100Gbit/s"} {
		if err := truth.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	files := []ImportedFile{{File: "ib.txt", Tool: "perftest", Scenario: model.Default(), Series: perftestLike(t, truth)}}
	c, err := FitImported(files, fit.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"nic.latency": 700e-9, "nic.post_cost": 300e-9, "nic.rate": 100e9 / 8}
	got := map[string]bool{}
	for _, o := range c.Overrides {
		w, ok := want[o.Key]
		if !ok {
			t.Errorf("%s fitted, not one a perftest output decides", o.Key)
			continue
		}
		got[o.Key] = true
		var v float64
		switch x := o.Value.(type) {
		case units.Seconds:
			v = float64(x)
		case units.Rate:
			v = float64(x)
		}
		if math.Abs(v/w-1) > 0.03 {
			t.Errorf("%s = %v, want %v within 3%%", o.Key, v, w)
		}
		if !strings.Contains(o.Source, "ib.txt lines") {
			t.Errorf("%s: source %q names no file and lines", o.Key, o.Source)
		}
	}
	if len(got) != len(want) {
		t.Errorf("fitted %v, want %v", got, want)
	}
	if len(c.Checks) != 1 || c.Checks[0].Calibrated > 0.02 || c.Checks[0].Preset < 0.1 {
		t.Errorf("check on the sizes left out: %+v", c.Checks)
	}
	for _, f := range c.Fits {
		if !(f.ErrorAfter < f.ErrorBefore) || f.Points == 0 {
			t.Errorf("%s: error %v → %v on %d points", f.Key, f.ErrorBefore, f.ErrorAfter, f.Points)
		}
	}
	// The poll cost is said, not fitted: these outputs cannot tell it apart.
	if u := strings.Join(c.Unused, "\n"); !strings.Contains(u, "nic.poll_cost: not fitted") {
		t.Errorf("no word of nic.poll_cost:\n%s", u)
	}
	// The same seed, the same intervals.
	again, _ := FitImported(files, fit.Options{Seed: 1})
	for i := range c.Fits {
		if c.Fits[i].Lo != again.Fits[i].Lo || c.Fits[i].Hi != again.Fits[i].Hi {
			t.Errorf("%s: interval differs between two runs of the same seed", c.Fits[i].Key)
		}
	}
	// The calibrated scenario loads and carries the keys.
	s, err := c.Scenario(model.Default(), []string{"runs/a"})
	if err != nil || s.NIC.PostCost == model.Default().NIC.PostCost || !strings.HasPrefix(s.Name, "calibrated runs/a") {
		t.Errorf("scenario: %v %v %q", err, s.NIC.PostCost, s.Name)
	}
}

// A series on a path no key is fitted from, and a key the model's value
// does not depend on, are said, not fitted.
func TestFitImportedSaysWhatItDidNotUse(t *testing.T) {
	udp := ImportedSeries{Test: "udp", Series: record.Series{SeriesKey: record.SeriesKey{Variant: "udp stream"}, Label: "udp stream", Quantity: record.Bandwidth,
		Points: []record.Point{{Bytes: 1 << 20, Rate: 1e9, Line: 4}}}}
	c, err := FitImported([]ImportedFile{{File: "u.txt", Tool: "iperf3", Scenario: model.Default(), Series: []ImportedSeries{udp}}}, fit.Options{Seed: 1})
	if err != nil || len(c.Fits) != 0 || len(c.Unused) != 1 || !strings.Contains(c.Unused[0], "u.txt: udp stream: the model has no UDP path") {
		t.Errorf("%v %+v", err, c)
	}
}
