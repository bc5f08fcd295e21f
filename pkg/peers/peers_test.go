package peers

import (
	"errors"
	"math"
	"os"
	"testing"
)

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

func TestParseIperf3JSON(t *testing.T) {
	r, err := ParseIperf3JSON(read(t, "testdata/iperf3/json-v3.0.11-tcp-1stream-13s.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Hand-read from the fixture: sum_sent 1520994808 B in 13.0001 s at
	// 935992000 bit/s; sum_received 1518193248 B at 934268000 bit/s.
	if r.Version != "iperf 3.0.11" || r.Protocol != "TCP" || r.Streams != 1 || r.BlockSize != 131072 || r.Duration != 13 {
		t.Errorf("start %+v", r)
	}
	if r.SentBytes != 1520994808 || r.ReceivedBytes != 1518193248 || r.SentSeconds != 13.0001 ||
		r.SentRate != 935992000.0/8 || r.ReceivedRate != 934268000.0/8 {
		t.Errorf("sums %+v", r)
	}
	// CPU: host 1.66812 %, remote 4.15082 % of 13.0001 s, per received byte.
	host, remote := r.CPUSecondsPerByte()
	if !near(host, 0.0166812*13.0001/1518193248, 1e-12) || !near(remote, 0.0415082*13.0001/1518193248, 1e-12) {
		t.Errorf("cpu per byte %v %v", host, remote)
	}

	r, err = ParseIperf3JSON(read(t, "testdata/iperf3/json-v3.6-tcp-4streams-60s-mininet-dupkeys.json"))
	if err != nil || r.Streams != 4 || r.Retransmits != 2 || !near(r.ReceivedRate, 17535714055.21963/8, 1e-12) {
		t.Errorf("4 streams: %+v, %v", r, err)
	}
	r, err = ParseIperf3JSON(read(t, "testdata/iperf3/json-v3.9-tcp-omit3-ibm-lon-syd-crlf.json"))
	if err != nil || r.Omit != 3 || r.ReceivedBytes != 80706276 || r.Version != "iperf 3.9" {
		t.Errorf("omit/CRLF: %+v, %v", r, err)
	}
	// Interrupted: "^C" before the document, an error at the end, the summary kept.
	r, err = ParseIperf3JSON(read(t, "testdata/iperf3/json-v3.6-tcp-n200M-interrupted-error-ctrlC-prefix-crlf.json"))
	if !errors.Is(err, ErrIperf3Reported) || r == nil || r.Error != "interrupt - the client has terminated" || r.ReceivedBytes != 0 {
		t.Errorf("interrupted: %+v, %v", r, err)
	}
	if h, _ := r.CPUSecondsPerByte(); !math.IsNaN(h) {
		t.Errorf("cpu per byte without bytes: %v", h)
	}
	// Cut off by a capture buffer: an error, no result.
	if r, err := ParseIperf3JSON(read(t, "testdata/iperf3/json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json")); err == nil || r != nil {
		t.Errorf("truncated document accepted: %+v", r)
	}
	for _, bad := range []string{"", "no json here", `{"start":{}}`, `{"error":"unable to connect to server"}`} {
		if _, err := ParseIperf3JSON([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSockperf(t *testing.T) {
	for _, tc := range []struct {
		file                  string
		version               string
		avg, p50, p99, min    float64 // microseconds, as printed
		observations, runSent int64
	}{
		{"jm-v3.8-ping-pong-tcp-azure-cni-same-node-full.txt", "3.8-0.git31ee322aa82a", 16.791, 16.493, 24.549, 10.847, 283507, 283507},
		{"manual-v3.5-ping-pong-tcp-m64.txt", "3.5-no.git", 9.017, 6.222, 16.193, 4.629, 528579, 528579},
		{"local-v3.7-ping-pong-tcp-loopback-m64-ansi.txt", "3.7-no.git", 9.573, 8.656, 29.866, 8.105, 80886, 80886},
		{"manual-v3.5-ping-pong-udp-vma-m64-with-vma-banner.txt", "", -1, -1, -1, -1, -1, -1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, err := ParseSockperf(read(t, "testdata/sockperf/"+tc.file))
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
	s, err := ParseSockperf(read(t, "testdata/sockperf/aks-v3.10-excerpt-ping-pong-tcp-eth0-stats-block.txt"))
	if err != nil || !near(s.AvgLatency, 83.147e-6, 1e-12) || s.Version != "" {
		t.Errorf("stats block: %+v %v", s, err)
	}
	// A throughput run has no latency summary.
	if _, err := ParseSockperf(read(t, "testdata/sockperf/aks-v3.10-excerpt-throughput-tcp-ipoib-summary.txt")); err == nil {
		t.Error("throughput summary accepted as latency")
	}
}

func FuzzParseIperf3JSON(f *testing.F) {
	for _, p := range []string{"json-v3.0.11-tcp-1stream-13s.json", "json-v3.6-tcp-n200M-interrupted-error-ctrlC-prefix-crlf.json", "json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json"} {
		f.Add(read(f, "testdata/iperf3/"+p))
	}
	f.Add([]byte(`{"end":{"sum_sent":{"bytes":-1},"sum_received":{}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseIperf3JSON(b)
		if err != nil && !errors.Is(err, ErrIperf3Reported) && r != nil {
			t.Fatal("result with a parse error")
		}
		if r != nil && (r.SentBytes < 0 || r.ReceivedRate < 0 || math.IsNaN(r.SentRate)) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzParseSockperf(f *testing.F) {
	for _, p := range []string{"jm-v3.8-ping-pong-tcp-azure-cni-same-node-full.txt", "local-v3.7-ping-pong-tcp-loopback-m64-ansi.txt", "aks-v3.10-excerpt-throughput-tcp-ipoib-summary.txt"} {
		f.Add(read(f, "testdata/sockperf/"+p))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSockperf(b)
		if err != nil {
			return
		}
		for p, v := range s.Percentiles {
			if p <= 0 || p > 100 || v < 0 || math.IsNaN(v) {
				t.Fatalf("percentile %v = %v", p, v)
			}
		}
		if s.AvgLatency < 0 || math.IsNaN(s.AvgLatency) {
			t.Fatalf("avg %v", s.AvgLatency)
		}
	})
}
