package record

import (
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

func TestGroup(t *testing.T) {
	rs := []Result{
		{Probe: "cuda", Variant: "h2d", Timer: "wall", Target: "gpu0", Bytes: 64},
		{Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: 8},
		{Probe: "cuda", Variant: "h2d", Timer: "cuda-event", Target: "gpu0", Bytes: 64},
		{Probe: "cuda", Variant: "h2d", Timer: "wall", Target: "gpu0", Bytes: 4},
		{Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: 1, MedianS: 1},
		{Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: 1, MedianS: 2},
	}
	g := Group(rs, ByProbe|ByVariant|ByTarget|ByTimer)
	if len(g) != 3 {
		t.Fatalf("%d series, want 3 (cuda wall, tcp, cuda event): %+v", len(g), g)
	}
	if g[0].Timer != "wall" || g[1].Probe != "tcp" || g[2].Timer != "cuda-event" {
		t.Errorf("order of first appearance: %+v %+v %+v", g[0].SeriesKey, g[1].SeriesKey, g[2].SeriesKey)
	}
	if b := g[0].Points; b[0].Bytes != 4 || b[1].Bytes != 64 {
		t.Errorf("not sorted by size: %+v", b)
	}
	if b := g[1].Points; b[0].Median != 1 || b[1].Median != 2 || b[2].Bytes != 8 {
		t.Errorf("sort not stable: %+v", b)
	}
	if g[1].Label != "tcp pingpong (loopback)" || g[1].Quantity != Latency {
		t.Errorf("label %q, quantity %q", g[1].Label, g[1].Quantity)
	}
	// Without the timer, both clocks' cuda records are one series.
	g = Group(rs, ByProbe|ByVariant|ByTarget)
	if len(g) != 2 || len(g[0].Points) != 3 || g[0].Timer != "" {
		t.Errorf("without timer: %+v", g)
	}
	if len(Group(nil, ByProbe)) != 0 {
		t.Error("series from no records")
	}
}

// A point is its record in base units; CPU time is never negative.
func TestPointOf(t *testing.T) {
	r := Result{Bytes: 4096, MinS: 1e-6, MedianS: 2e-6, P99S: 3e-6, ThroughputBps: 2.048e9, CPUUserS: 1e-6, CPUSysS: -3e-6,
		Iterations: 7, Stable: true, Samples: []float64{2e-6, 2.1e-6}}
	p := PointOf(r)
	want := Point{Bytes: 4096, Min: 1e-6, Median: 2e-6, P99: 3e-6, Rate: 2.048e9, CPU: 0, Iterations: 7, Stable: true}
	if p.Bytes != want.Bytes || p.Min != want.Min || p.Median != want.Median || p.P99 != want.P99 || p.Rate != want.Rate || p.CPU != want.CPU ||
		p.Iterations != want.Iterations || !p.Stable || len(p.Samples) != 2 || &p.Samples[0] != &r.Samples[0] {
		t.Errorf("%+v", p)
	}
}

func TestQuantityOf(t *testing.T) {
	for _, tc := range []struct {
		probe, variant string
		want           Quantity
	}{
		{"tcp", "stream", Bandwidth}, {"cuda", "d2h-pinned-stream", Bandwidth}, {"perftest", "write_bw", Bandwidth},
		{"memcpy", "memcpy", Cost}, {"syscall", "getppid", Cost},
		{"tcp", "pingpong", Latency}, {"cuda", "h2d-pinned", Latency}, {"rdma", "", Latency},
	} {
		if got := QuantityOf(tc.probe, tc.variant); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.probe, tc.variant, got, tc.want)
		}
	}
}

// Curves leaves out records with nothing to draw and counts them.
func TestCurves(t *testing.T) {
	rs := []Result{
		{Probe: "tcp", Variant: "pingpong", Path: "host-tcp", Target: "loopback", Bytes: 64, MedianS: 7e-6},
		{Probe: "tcp", Variant: "pingpong", Path: "host-tcp", Target: "loopback", Bytes: 0, MedianS: 7e-6},  // no size
		{Probe: "tcp", Variant: "stream", Path: "host-tcp", Target: "loopback", Bytes: 64, MedianS: 1e-6},   // no rate
		{Probe: "tcp", Variant: "pingpong", Path: "host-tcp", Target: "loopback", Bytes: 8, MedianS: 2e300}, // not finite
		{Probe: "syscall", Variant: "getppid", Target: "host", Bytes: 1, MedianS: 1.4e-7},
	}
	cs, unusable := Curves(rs)
	if unusable != 3 || len(cs) != 2 {
		t.Fatalf("%d curves, %d unusable: %+v", len(cs), unusable, cs)
	}
	if cs[0].Label != "tcp pingpong (loopback)" || cs[0].Path != "host-tcp" || len(cs[0].Points) != 1 || cs[0].Points[0].Median != units.Seconds(7e-6) {
		t.Errorf("%+v", cs[0])
	}
	if cs[1].Quantity != Cost {
		t.Errorf("%+v", cs[1])
	}
	// A copy timed by the wall clock and by CUDA events is two curves; the
	// label names the timer other than the wall clock.
	cs, _ = Curves([]Result{
		{Probe: "cuda", Variant: "d2h-pinned", Target: "gpu0", Timer: "cuda-event", Bytes: 4, MedianS: 7.9e-6},
		{Probe: "cuda", Variant: "d2h-pinned", Target: "gpu0", Timer: "wall", Bytes: 4, MedianS: 6.6e-6},
		{Probe: "tcp", Variant: "pingpong", Target: "loopback", Timer: "wall", Bytes: 4, MedianS: 9e-6},
	})
	if len(cs) != 3 || cs[0].Label != "cuda d2h-pinned (gpu0, cuda-event)" || cs[1].Label != "cuda d2h-pinned (gpu0)" || cs[2].Label != "tcp pingpong (loopback)" {
		t.Errorf("curves by timer: %+v", cs)
	}
}

func TestHostLine(t *testing.T) {
	for _, tc := range []struct {
		h    Host
		want string
	}{
		{Host{}, "unknown host"},
		{Host{Hostname: "vm", CPUModel: "Xeon", CPUs: 16, Kernel: "6.18"}, "vm, Xeon × 16, Linux 6.18"},
		{Host{Hostname: "vm", CPUs: 2}, "vm, 2 CPUs"},
	} {
		if got := tc.h.Line(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
