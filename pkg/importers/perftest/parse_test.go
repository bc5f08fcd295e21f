package perftest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the shared perftest outputs, each read as
// observations by the golden test; parseFile reads one as a Report.
var fx = importtest.Format{Tool: "perftest", Detect: Detect, Parse: ParseObservations}

func parseFile(t *testing.T, name string) *Report {
	t.Helper()
	r, err := ParseBytes(fx.Read(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// Expected values are read off the fixture files by hand; rates are
// converted with perftest's own factors (Gb/sec = 125e6 B/s, MB/sec = 2^20 B/s).
func TestBandwidthTables(t *testing.T) {
	for _, tc := range []struct {
		file            string
		rows            int
		test, verb, dev string
		link            string
		qps             int
		first, last     int64
		lastAvgBps      float64
		lastMsgRate     float64
		bidirectional   bool
		errors, skipped int
		dups            int
		unit            string
	}{
		// tab-separated, byte-exact, ~232 Gb/s
		{"moc-ib_write_bw-a-gbits-client-roce-raw.txt", 23, "RDMA_Write BW Test", "RDMA_Write", "mlx5_2", "Ethernet", 8,
			2, 8388608, 232.02 * 125e6, 0.003457e6, false, 0, 0, 0, "Gb/sec"},
		// terminal copy (spaces), table only
		{"aks-excerpt-ib_write_bw-a-gbits-table-only.txt", 23, "", "", "", "", 0,
			2, 8388608, 196.55 * 125e6, 0.002929e6, false, 0, 0, 0, "Gb/sec"},
		{"aks-excerpt-ib_read_bw-a-gbits-table-only.txt", 23, "", "", "", "", 0,
			2, 8388608, 197.48 * 125e6, 0.002943e6, false, 0, 0, 0, "Gb/sec"},
		{"moc-ib_read_bw-a-gbits-1qp-client-roce-raw.txt", 23, "RDMA_Read BW Test", "RDMA_Read", "mlx5_2", "Ethernet", 1,
			2, 8388608, 226.13 * 125e6, 0.003370e6, false, 0, 0, 0, "Gb/sec"},
		// bidirectional, 4 QPs, AMD fork banner
		{"alibaba-ib_write_bw-b-q4-a-gbits-ionic-pollara-client.txt", 23, "RDMA_Write Bidirectional BW Test", "RDMA_Write", "ionic_1", "Ethernet", 4,
			2, 8388608, 779.21 * 125e6, 0.011611e6, true, 0, 0, 0, "Gb/sec"},
		// server side prints only the last row
		{"moc-ib_write_bw-a-gbits-server-side-last-size-only-raw.txt", 1, "RDMA_Write BW Test", "RDMA_Write", "mlx5_2", "Ethernet", 8,
			8388608, 8388608, 232.02 * 125e6, 0.003457e6, false, 0, 0, 0, "Gb/sec"},
		// MB/sec, server and client interleaved: the same row twice
		{"superbench-ib_write_bw-loopback-8M-server-client-interleaved.txt", 1, "RDMA_Write BW Test", "RDMA_Write", "ib0", "IB", 1,
			8388608, 8388608, 24056.72 * (1 << 20), 0.003007e6, false, 0, 0, 1, "MB/sec"},
		// leading spaces stripped, tabs expanded, headers and the last row doubled
		{"superbench-ib_write_bw-loopback-a-MBsec-interleaved-WHITESPACE-MANGLED.txt", 23, "RDMA_Write BW Test", "RDMA_Write", "ib0", "IB", 1,
			2, 8388608, 23240.68 * (1 << 20), 0.002905e6, false, 0, 0, 1, "MB/sec"},
		// pre-2.x format: four columns, no MsgRate, right-aligned
		{"jebtang-ib_send_bw-a-UD-legacy-pre2x-format.txt", 11, "Send BW Test", "Send", "", "", 0,
			2, 2048, 2919.91 * (1 << 20), 0, false, 0, 0, 0, "MB/sec"},
		// post list, duration mode: one row, peak 0.00
		{"issue273-ib_write_bw-postlist-D60-8B-gbits-snippet.txt", 1, "RDMA_Write Post List BW Test", "RDMA_Write", "ib0", "Ethernet", 1,
			8, 8, 0.48 * 125e6, 7.498617e6, false, 0, 0, 0, "Gb/sec"},
		// aborted after 65536 B with a completion error
		{"dranet-ib_write_bw-a-gbits-gke-h200-roce-completion-error.txt", 16, "RDMA_Write BW Test", "RDMA_Write", "mlx5_3", "Ethernet", 1,
			2, 65536, 381.41 * 125e6, 0.727473e6, false, 3, 0, 0, "Gb/sec"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := parseFile(t, tc.file)
			if r.Kind != Bandwidth || len(r.Bandwidth) != tc.rows || len(r.Latency) != 0 {
				t.Fatalf("kind %s, %d bw rows, %d lat rows; want %d bw rows", r.Kind, len(r.Bandwidth), len(r.Latency), tc.rows)
			}
			if r.Test != tc.test || r.Verb != tc.verb || r.Device != tc.dev || r.LinkType != tc.link || r.QPs != tc.qps || r.Bidirectional != tc.bidirectional {
				t.Errorf("banner: test %q verb %q device %q link %q qps %d bidir %v", r.Test, r.Verb, r.Device, r.LinkType, r.QPs, r.Bidirectional)
			}
			if r.Unit != tc.unit {
				t.Errorf("unit %q", r.Unit)
			}
			first, last := r.Bandwidth[0], r.Bandwidth[len(r.Bandwidth)-1]
			if first.Bytes != tc.first || last.Bytes != tc.last {
				t.Errorf("sizes %d..%d", first.Bytes, last.Bytes)
			}
			if !near(last.AvgBps, tc.lastAvgBps) || !near(last.MsgRate, tc.lastMsgRate) {
				t.Errorf("last row avg %v B/s msgrate %v, want %v %v", last.AvgBps, last.MsgRate, tc.lastAvgBps, tc.lastMsgRate)
			}
			if len(r.Errors) != tc.errors || len(r.Skipped) != tc.skipped || r.Duplicates != tc.dups {
				t.Errorf("errors %v skipped %v duplicates %d", r.Errors, r.Skipped, r.Duplicates)
			}
			if (r.Err() != nil) != (tc.errors > 0) {
				t.Errorf("Err() = %v", r.Err())
			}
			for i := 1; i < len(r.Bandwidth); i++ {
				if r.Bandwidth[i].Bytes <= r.Bandwidth[i-1].Bytes {
					t.Errorf("row %d: size %d after %d", i, r.Bandwidth[i].Bytes, r.Bandwidth[i-1].Bytes)
				}
			}
			if r.GPU != nil {
				t.Errorf("host-memory run reports a GPU: %+v", r.GPU)
			}
		})
	}
}

func TestAbortedRun(t *testing.T) {
	r := parseFile(t, "dranet-ib_write_bw-a-gbits-gke-h200-roce-completion-error.txt")
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "Completion with error at client") {
		t.Errorf("Err() = %v", err)
	}
	if r.MTU != 4096 || r.Settings["GID index"] != "3" || r.Connection != "RC" {
		t.Errorf("banner %+v", r.Settings)
	}
}

func TestLatencyTables(t *testing.T) {
	r := parseFile(t, "moc-ib_read_lat-a-client-roce-rdma_cm-tos41-raw.txt")
	if r.Kind != Latency || len(r.Latency) != 23 || r.Verb != "RDMA_Read" || r.Unit != "usec" {
		t.Fatalf("kind %s rows %d verb %q unit %q", r.Kind, len(r.Latency), r.Verb, r.Unit)
	}
	// " 2       1000          5.40           15.65        5.45     \t       5.49        \t0.44   \t\t5.70    \t\t15.65  "
	got := r.Latency[0]
	want := LatRow{Bytes: 2, Iterations: 1000, Min: 5.40e-6, Max: 15.65e-6, Typical: 5.45e-6, Avg: 5.49e-6, Stdev: 0.44e-6, P99: 5.70e-6, P999: 15.65e-6}
	for name, pair := range map[string][2]float64{
		"min": {got.Min, want.Min}, "max": {got.Max, want.Max}, "typical": {got.Typical, want.Typical},
		"avg": {got.Avg, want.Avg}, "stdev": {got.Stdev, want.Stdev}, "p99": {got.P99, want.P99}, "p999": {got.P999, want.P999},
	} {
		if !near(pair[0], pair[1]) {
			t.Errorf("%s = %v, want %v", name, pair[0], pair[1])
		}
	}
	if got.Bytes != 2 || got.Iterations != 1000 || len(got.Fields) != 9 || got.Fields[2] != "5.40" {
		t.Errorf("row %+v", got)
	}
	if last := r.Latency[22]; last.Bytes != 8388608 || !near(last.Typical, 308.32e-6) {
		t.Errorf("last row %+v", last)
	}

	one := parseFile(t, "aks-excerpt-ib_read_lat-2B-table-only.txt")
	if len(one.Latency) != 1 || !near(one.Latency[0].Typical, 5.49e-6) || !near(one.Latency[0].P999, 11.78e-6) {
		t.Errorf("aks latency %+v", one.Latency)
	}
}

func TestGPUBanners(t *testing.T) {
	for _, tc := range []struct {
		file string
		want GPU
		kind Kind
		rows int
	}{
		{"dranet-ib_write_bw-use_cuda0-dmabuf-a-gbits-gke-h200.txt",
			GPU{Runtime: "cuda", Device: 0, Name: "NVIDIA H200", PCIBus: "8F:00", DMABuf: true, BufferBytes: 16777216}, Bandwidth, 23},
		{"moc-ib_read_lat-a-use_cuda-dmabuf-h100-client-raw.txt",
			GPU{Runtime: "cuda", Device: 1, Name: "NVIDIA H100 80GB HBM3", PCIBus: "26:00", DMABuf: true, BufferBytes: 16777216}, Latency, 23},
		{"moc-ib_write_bw-a-gbits-use_cuda-cuMemAlloc-dmabuf-16qp-h100-client-raw.txt",
			GPU{Runtime: "cuda", Device: 0, Name: "NVIDIA H100 80GB HBM3", PCIBus: "06:00", DMABuf: true, BufferBytes: 268435456}, Bandwidth, 23},
		{"alibaba-ib_write_bw-use_rocm1-b-q4-a-gbits-mi355x-client.txt",
			GPU{Runtime: "rocm", Device: 1, Name: "AMD Instinct MI355X", PCIBus: "0x15", BufferBytes: 67108864}, Bandwidth, 23},
	} {
		r := parseFile(t, tc.file)
		if r.GPU == nil || *r.GPU != tc.want {
			t.Errorf("%s: GPU %+v, want %+v", tc.file, r.GPU, tc.want)
		}
		if r.Kind != tc.kind || r.Rows() != tc.rows || len(r.Errors) != 0 || len(r.Skipped) != 0 {
			t.Errorf("%s: kind %s rows %d errors %v skipped %v", tc.file, r.Kind, r.Rows(), r.Errors, r.Skipped)
		}
	}
	r := parseFile(t, "moc-ib_write_bw-a-gbits-use_cuda-cuMemAlloc-dmabuf-16qp-h100-client-raw.txt")
	if r.QPs != 16 || r.Settings["TOS"] != "41" || r.Settings["Data ex. method"] != "rdma_cm" || r.Settings["rdma_cm QPs"] != "ON" {
		t.Errorf("settings %v", r.Settings)
	}
}

func TestServerSideWithoutTable(t *testing.T) {
	r := parseFile(t, "moc-ib_read_lat-server-side-no-results-raw.txt")
	if r.Rows() != 0 || r.Kind != Latency || r.Device != "mlx5_2" || r.Err() != nil {
		t.Errorf("server side: rows %d kind %s device %q err %v", r.Rows(), r.Kind, r.Device, r.Err())
	}
}

func TestMalformedInput(t *testing.T) {
	if _, err := Parse(strings.NewReader("hello\nworld\n")); !errors.Is(err, ErrNoOutput) {
		t.Errorf("err = %v, want ErrNoOutput", err)
	}
	in := " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n" +
		" 2          5000           0.05            0.05            3.0\n" +
		" 4          5000           0.10            oops            3.0\n" + // bad value
		" 8          5000           0.20            0.20\n" + // short row
		" 16         5000           -1              0.40            3.0\n" + // negative
		" 32         5000           0.80            0.80            3.0\n"
	r, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Bandwidth) != 2 || len(r.Skipped) != 3 || r.Skipped[0].Line != 3 {
		t.Errorf("rows %d skipped %+v", len(r.Bandwidth), r.Skipped)
	}
	// A latency table in CPU cycles (perftest -C) cannot be converted.
	r, err = Parse(strings.NewReader(" #bytes #iterations    t_min[cycles]    t_max[cycles]\n 2 1000 100 200\n"))
	if err != nil || r.Rows() != 0 || len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0].Reason, "cycles") {
		t.Errorf("cycles table: %v %+v", err, r)
	}
}
