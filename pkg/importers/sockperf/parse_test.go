package sockperf

import (
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the shared sockperf outputs and one captured
// for this repository (testdata/captured).
var fx = importtest.Format{Tool: "sockperf", Local: "captured", Detect: Detect, Parse: Parse}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

func TestParseLatency(t *testing.T) {
	for _, tc := range []struct {
		file                  string
		version               string
		avg, p50, p99, min    float64 // microseconds, as printed
		observations, runSent int64
	}{
		{"jm-v3.8-ping-pong-tcp-azure-cni-same-node-full.txt", "3.8-0.git31ee322aa82a", 16.791, 16.493, 24.549, 10.847, 283507, 283507},
		{"manual-v3.5-ping-pong-tcp-m64.txt", "3.5-no.git", 9.017, 6.222, 16.193, 4.629, 528579, 528579},
		{"captured/local-v3.7-ping-pong-tcp-loopback-m64-ansi.txt", "3.7-no.git", 9.573, 8.656, 29.866, 8.105, 80886, 80886},
		{"manual-v3.5-ping-pong-udp-vma-m64-with-vma-banner.txt", "", -1, -1, -1, -1, -1, -1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, err := ParseLatency(fx.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if tc.avg < 0 { // only check that it parses and is consistent
				if p50, ok := s.Median(); !ok || p50 < s.Min || p50 > s.Max {
					t.Errorf("%+v", s)
				}
				return
			}
			p50, ok := s.Median()
			if !ok || s.Version != tc.version || !near(s.AvgLatency, tc.avg*1e-6, 1e-12) || !near(p50, tc.p50*1e-6, 1e-12) ||
				!near(s.Percentiles[99], tc.p99*1e-6, 1e-12) || !near(s.Min, tc.min*1e-6, 1e-12) ||
				s.Observations != tc.observations || s.SentMessages != tc.runSent {
				t.Errorf("got %+v", s)
			}
			ps := s.SortedPercentiles()
			if len(ps) != 8 || ps[0] != 25 || ps[7] != 99.999 {
				t.Errorf("percentiles %v", ps)
			}
		})
	}
	// The stats block alone (no version banner) parses too.
	s, err := ParseLatency(fx.Read(t, "aks-v3.10-excerpt-ping-pong-tcp-eth0-stats-block.txt"))
	if err != nil || !near(s.AvgLatency, 83.147e-6, 1e-12) || s.Version != "" || !near(s.StdDev, 8.246e-6, 1e-12) {
		t.Errorf("stats block: %+v %v", s, err)
	}
	// A throughput run has no latency summary.
	if _, err := ParseLatency(fx.Read(t, "aks-v3.10-excerpt-throughput-tcp-ipoib-summary.txt")); err == nil {
		t.Error("throughput summary accepted as latency")
	}
}

func TestParse(t *testing.T) {
	o, err := Parse(fx.Read(t, "manual-v3.5-ping-pong-udp-vma-m64-with-vma-banner.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// VMA's banner gives the command line and so the size; VMA is kernel
	// bypass: no model path.
	r := o.Records[0]
	if len(o.Records) != 1 || r.Bytes != 64 || r.Variant != "udp" || r.Path != "" || !near(r.Time, 0.951e-6, 1e-12) ||
		!near(r.P50, 0.943e-6, 1e-12) || r.Line != 46 || o.Command != "sockperf ping-pong -i 22.0.0.3 -p 5001 -m 64 -t 10 --mps=max" {
		t.Errorf("%+v %q", r, o.Command)
	}
	o, err = Parse(fx.Read(t, "jm-v3.8-ping-pong-tcp-azure-cni-same-node-full.txt"))
	if err != nil || o.Records[0].Path != "host-tcp" || o.Records[0].Bytes != 0 || o.Records[0].BytesNote == "" {
		t.Errorf("%+v %v", o, err)
	}
	// Throughput: 833.016 MBps = 833.016e6 B/s; 593397 msg/s.
	o, err = Parse(fx.Read(t, "aks-v3.10-excerpt-throughput-tcp-ipoib-summary.txt"))
	if err != nil || len(o.Records) != 1 || o.Records[0].Rate != 833.016e6 || o.Records[0].MsgRate != 593397 || o.Records[0].Iterations != 593671 {
		t.Errorf("throughput %+v %v", o, err)
	}
}

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

func FuzzParse(f *testing.F) {
	for _, p := range []string{"jm-v3.8-ping-pong-tcp-azure-cni-same-node-full.txt", "captured/local-v3.7-ping-pong-tcp-loopback-m64-ansi.txt", "aks-v3.10-excerpt-throughput-tcp-ipoib-summary.txt"} {
		f.Add(fx.Read(f, p))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := ParseLatency(b); err == nil {
			for p, v := range s.Percentiles {
				if p <= 0 || p > 100 || v < 0 || math.IsNaN(v) {
					t.Fatalf("percentile %v = %v", p, v)
				}
			}
		}
		o, err := Parse(b)
		if err != nil {
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}
