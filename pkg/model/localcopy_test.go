package model

import (
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// Local copies on gen3-edr (V100 PCIe Gen3 x16, a Skylake-SP host), the
// arithmetic written out, to 1e-9 relative.
func TestLocalCopiesHandWorked(t *testing.T) {
	s, err := Preset("gen3-edr")
	if err != nil {
		t.Fatal(err)
	}
	const us = 1e-6
	raw := 8e9 * 16 * 128 / 130 / 8          // gen3 x16 after 128b/130b: 15.754 GB/s
	pinned := raw * 256 / (256 + 28) * 0.873 // MPS 256 B, 28 B per TLP, 87.3 % copy efficiency: 12.40 GB/s
	wc := raw * 64 / (64 + 28)               // one 64-byte posted write per write-combining buffer: 10.96 GB/s
	rtt := 0.6*us + 0.5*us                   // pcie.read_latency + gpu.bar_read_latency
	for _, tc := range []struct {
		copy string
		n    float64
		want float64
	}{
		{"pinned-h2d", 1 << 20, 7.6*us + (1<<20)/pinned},
		// Pageable: the driver's staging copy by one core (8 GB/s) and the DMA take turns.
		{"pageable-h2d", 1024, 7.6*us + 1024/8e9 + 1024/pinned},
		{"pageable-d2h", 1 << 20, 7.6*us + (1<<20)/8e9 + (1<<20)/pinned},
		// gdrcopy stores: the call and fence (0.09 µs), then 64-byte writes at the link's rate.
		{"bar-write", 1, 0.09*us + 1/wc},
		{"bar-write", 1 << 20, 0.09*us + (1<<20)/wc},
		// gdrcopy loads: one round trip, then 63 more lines ten at a time.
		{"bar-read", 1, rtt},
		{"bar-read", 4096, rtt + 63*rtt/10},
		{"bar-read", 65536, rtt + 1023*rtt/10},
	} {
		c, err := LookupLocalCopy(tc.copy)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(c.Time(s, units.Bytes(tc.n))); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%s at %v B: %.6g s, want %.6g", tc.copy, tc.n, got, tc.want)
		}
	}
	// From the other socket the stores cross the inter-socket link: its
	// crossing is added and its rate (10 GB/s here) caps them.
	x := s.Clone()
	x.Set("topology.cpu_gpu", "SYS")
	c, _ := LookupLocalCopy("bar-write")
	if got, want := float64(c.Time(x, 1<<20)), 0.09*us+0.15*us+(1<<20)/10e9; math.Abs(got-want) > 1e-9*want {
		t.Errorf("bar-write across sockets: %.6g, want %.6g", got, want)
	}
	r, _ := LookupLocalCopy("bar-read")
	if got, want := float64(r.Time(x, 1)), rtt+2*0.15*us; math.Abs(got-want) > 1e-9*want {
		t.Errorf("bar-read across sockets: %.6g, want %.6g", got, want)
	}
	if !strings.Contains(c.What(x), "inter_socket_rate") || strings.Contains(c.What(s), "inter_socket") {
		t.Errorf("What does not say when the inter-socket link caps the stores: %q / %q", c.What(s), c.What(x))
	}
	if _, err := LookupLocalCopy("nope"); err == nil || !strings.Contains(err.Error(), "pageable-h2d") {
		t.Errorf("unknown local copy: %v", err)
	}
}

// The physics each local copy is built on: a pageable copy is slower than a
// pinned one by one core's copy (never faster, and bounded by the core);
// BAR1 stores stream at nearly the link's rate, BAR1 loads are
// latency-bound — an order of magnitude slower — and a strictly uncached
// mapping (one load in flight) would be ten times slower again.
func TestLocalCopyProperties(t *testing.T) {
	for _, name := range PresetNames() {
		s, _ := Preset(name)
		get := func(c string, n units.Bytes) units.Seconds {
			lc, err := LookupLocalCopy(c)
			if err != nil {
				t.Fatal(err)
			}
			return lc.Time(s, n)
		}
		for _, n := range []units.Bytes{1, 4096, 1 << 20, 1 << 30} {
			if get("pageable-h2d", n) < get("pinned-h2d", n) || get("pageable-d2h", n) < get("pinned-d2h", n) {
				t.Errorf("%s: a pageable copy of %v is faster than a pinned one", name, n)
			}
			if r := units.Rate(float64(n) / float64(get("pageable-h2d", n))); r > s.CPU.MemcpyRate {
				t.Errorf("%s: pageable %v at %v, faster than one core's copy", name, n, r)
			}
			for _, c := range []string{"bar-write", "bar-read", "pageable-h2d"} {
				if get(c, n) > get(c, 2*n) {
					t.Errorf("%s: %s time falls from %v to %v", name, c, n, 2*n)
				}
			}
		}
		if w, r := s.BARWriteRate(), s.BARReadRate(); w < 10*r || w > s.gpuLinkRate() {
			t.Errorf("%s: BAR1 stores at %v, loads at %v: want stores ≥ 10× loads and ≤ the link's %v", name, w, r, s.gpuLinkRate())
		}
		one := s.Clone()
		one.CPU.OutstandingLoads = 1
		if math.Abs(float64(s.BARReadRate())/float64(one.BARReadRate())-float64(s.CPU.OutstandingLoads)) > 1e-9 {
			t.Errorf("%s: BAR1 load rate does not scale with the loads in flight", name)
		}
	}
}
