package calib

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// synthetic builds a run whose records follow known stage parameters with
// 2 % lognormal noise: copies α 8 µs, β 50 GB/s (both directions); loopback
// TCP α 20 µs, β 3 GB/s; the staged transfer is their sum (store and
// forward) or the pipeline of them (chunks of 512 KiB).
func synthetic(t *testing.T, seed uint64) *record.RunData {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	noisy := func(v float64, k int) []float64 {
		out := make([]float64, k)
		for i := range out {
			out[i] = v * math.Exp(0.02*rng.NormFloat64())
		}
		return out
	}
	rec := func(probe, variant, timer, target string, n int64, t float64, extra map[string]float64) record.Result {
		s := noisy(t, 15)
		sorted := slices.Sorted(slices.Values(s))
		return record.Result{Probe: probe, Variant: variant, Timer: timer, Target: target, Bytes: n,
			Iterations: len(s), MedianS: stats.Quantile(sorted, 0.5), MinS: sorted[0], P99S: stats.Quantile(sorted, 0.99), Samples: s, Extra: extra}
	}
	const (
		ca, cb = 8e-6, 50e9
		ta, tb = 20e-6, 3e9
	)
	var rs []record.Result
	for n := int64(4); n <= 256<<20; n *= 4 {
		x := float64(n)
		rs = append(rs, rec("cuda", "d2h-pinned", "wall", "gpu0", n, ca+x/cb, nil))
		rs = append(rs, rec("cuda", "h2d-pinned", "wall", "gpu0", n, ca+x/cb, nil))
		rs = append(rs, rec("tcp", "pingpong", "wall", "loopback", n, ta+x/tb, nil))
		rs = append(rs, rec("staged", "store-and-forward", "wall", "gpu0->gpu0 over loopback TCP", n, 2*(ca+x/cb)+ta+x/tb, nil))
		// pipelined: first chunk through A, send, recv, G; then the send stage per chunk.
		c := math.Min(x, 512<<10)
		k := math.Ceil(x / (512 << 10))
		pipe := 2*(ca+c/cb) + ta + c/tb + (k-1)*(ta/2+(512<<10)/tb)
		rs = append(rs, rec("staged", "pipelined", "wall", "gpu0->gpu0 over loopback TCP", n, pipe, map[string]float64{"chunk_bytes": 512 << 10}))
	}
	return &record.RunData{Dir: "runs/synthetic", Manifest: record.Manifest{Host: record.Host{Hostname: "synth"}}, Results: rs}
}

func TestCalibrateRecoversAndPredicts(t *testing.T) {
	c, err := Calibrate([]*record.RunData{synthetic(t, 1)}, nil, fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	get := func(k string) string { v, _ := c.Scenario.Get(k); return v }
	lat, _ := units.ParseDuration(get("gpu.copy_latency"))
	rate := c.Scenario.CopyRate() // the fitted efficiencies × the PCIe payload rate
	lba, _ := units.ParseDuration(get("loopback.latency"))
	lbr, _ := units.ParseRate(get("loopback.rate"))
	for _, tc := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"copy latency", float64(lat), 8e-6, 0.05}, {"copy rate", float64(rate), 50e9, 0.05},
		{"loopback latency", float64(lba), 20e-6, 0.05}, {"loopback rate", float64(lbr), 3e9, 0.05},
	} {
		if math.Abs(tc.got-tc.want)/tc.want > tc.tol {
			t.Errorf("%s: %v, want %v ± %.0f%%", tc.name, tc.got, tc.want, tc.tol*100)
		}
	}
	if len(c.Comparison) < 4 {
		t.Fatalf("%d comparisons", len(c.Comparison))
	}
	for _, cmp := range c.Comparison {
		if cmp.CalibratedErr.MedianAPE > 5 {
			t.Errorf("%s: calibrated median error %.1f%%", cmp.Label, cmp.CalibratedErr.MedianAPE)
		}
	}
	// The default preset's stack (and 9 µs copies) is far from this host's
	// loopback at small sizes; the verdict names a stage.
	var sf *Comparison
	for i := range c.Comparison {
		if c.Comparison[i].Variant == "store-and-forward" {
			sf = &c.Comparison[i]
		}
	}
	if sf == nil {
		t.Fatal("no store-and-forward comparison")
	}
	if sf.PresetErr.MedianAPE > Large && !strings.Contains(sf.PresetVerdict, "stage") {
		t.Errorf("preset verdict %q", sf.PresetVerdict)
	}
	// The stage table tells measured from preset stages.
	measured := 0
	for _, row := range c.Stages {
		if row.Measured {
			measured++
			if !strings.HasPrefix(row.Source, "measured:") {
				t.Errorf("row %s source %q", row.Name, row.Source)
			}
		}
	}
	if measured != 3 || len(c.Stages) != 3 {
		t.Errorf("%d of %d stage rows measured, want 3 of 3 (A, TCP send + receive, G)", measured, len(c.Stages))
	}
	for _, row := range c.Stages {
		for i, n := range StageSizes {
			if m := row.MeasuredAt[i]; math.Abs(row.Modeled[i]-m)/m > 0.1 {
				t.Errorf("%s at %v B: modeled %v, measured %v", row.Name, n, row.Modeled[i], m)
			}
		}
	}
	if c.Chunk != 512<<10 {
		t.Errorf("chunk %d", c.Chunk)
	}
}

func TestCalibrateNothing(t *testing.T) {
	if _, err := Calibrate(nil, nil, fit.Options{}); err == nil {
		t.Error("no runs accepted")
	}
	empty := &record.RunData{Dir: "x"}
	if _, err := Calibrate([]*record.RunData{empty}, nil, fit.Options{}); err == nil {
		t.Error("a run without records accepted")
	}
}
