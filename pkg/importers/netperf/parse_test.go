package netperf

import (
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// fx is the format's fixtures: the shared netperf outputs.
var fx = importtest.Format{Tool: "netperf", Detect: Detect, Parse: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

// Read off the fixtures by hand: 10^6bits/sec × 1e6/8 = B/s; the one-way
// latency of a request/response test is half the round trip.
func TestHandRead(t *testing.T) {
	for _, tc := range []struct {
		file       string
		test       string
		bytes      int64
		time, rate float64
		line       int
		samples    int
		metric     obs.Metric
	}{
		{"manual-tcp_stream-migrated-localhost.txt", "TCP_STREAM", 16384, 16384 / (27175.27e6 / 8), 27175.27e6 / 8, 7, 0, obs.Bandwidth},
		{"manual-tcp_stream-demo-interim-results.txt", "TCP_STREAM", 16384, 16384 / (68.87e6 / 8), 68.87e6 / 8, 16, 9, obs.Bandwidth},
		{"manual-tcp_stream-confidence-warning-classic.txt", "TCP_STREAM", 16384, 16384 / (40.23e6 / 8), 40.23e6 / 8, 15, 0, obs.Bandwidth},
		{"manual-tcp_rr-classic-192.168.2.125.txt", "TCP_RR", 1, 1 / (2 * 29150.15), 0, 7, 0, obs.Latency},
		{"manual-udp_rr-cpu-util-classic.txt", "UDP_RR", 1, 1 / (2 * 15262.48), 0, 7, 0, obs.Latency},
		{"manual-tcp_rr-v2-burst-r32K-throughput.txt", "TCP_RR", 32768, 2015.402e-6 / 2, 0, 7, 0, obs.Latency},
	} {
		t.Run(tc.file, func(t *testing.T) {
			o := fx.Output(t, tc.file)
			if len(o.Records) != 1 {
				t.Fatalf("%d records, problems %v", len(o.Records), o.Problems)
			}
			r := o.Records[0]
			if o.Test != tc.test || r.Bytes != tc.bytes || !near(r.Time, tc.time) || !near(r.Rate, tc.rate) || r.Line != tc.line ||
				len(r.Samples) != tc.samples || r.Metric != tc.metric {
				t.Errorf("%+v", r)
			}
		})
	}
	o := fx.Output(t, "manual-udp_rr-cpu-util-classic.txt")
	if e := o.Records[0].Extra; e["cpu_local_percent"] != 13.90 || e["service_demand_remote_us"] != 21.116 || o.Records[0].Path != "" {
		t.Errorf("%v", e)
	}
	o = fx.Output(t, "manual-tcp_rr-v2-burst-r32K-throughput.txt")
	if e := o.Records[0].Extra; e["transactions_per_s"] != 3473.252 || !near(e["throughput_Bps"], 1821.30e6/8) {
		t.Errorf("%v", e)
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }
