package nccltests

import (
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/model"
)

// fx is the format's fixtures: the shared nccl-tests outputs and the ones
// written by hand (testdata/handwritten).
var fx = importtest.Format{Tool: "nccl-tests", Local: "handwritten", Detect: Detect, ParseNamed: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestGolden checks every output, each detected (fx.Detect) as well as parsed.
func TestGolden(t *testing.T) { fx.CheckGolden(t) }

// Values read off the fixtures by hand; time in µs → s, GB/s → 1e9 B/s.
func TestHandRead(t *testing.T) {
	for _, tc := range []struct {
		file       string
		test, op   string
		records    int
		ranks      int
		nodes      int
		first      obs.Record // Line, Bytes, Variant, Time, Rate, BusRate, Wrong
		last       obs.Record
		failures   int
		problems   int
		version    string
		gpu        string
		noteSubstr string
	}{
		{file: "dranet-all_gather_perf-2node-16xB200-nccl2.26.6.txt", test: "all_gather_perf", op: "all_gather", records: 48, ranks: 16, nodes: 2,
			first:   obs.Record{Line: 25, Bytes: 1024, Variant: "out-of-place", Time: 280.4e-6, Rate: 1024 / 280.4e-6, BusRate: 1024 / 280.4e-6 * 15 / 16, Wrong: "0"}, // busbw 0.00 as printed: algbw × 15/16
			last:    obs.Record{Line: 48, Bytes: 8589934592, Variant: "in-place", Time: 31063e-6, Rate: 276.53e9, BusRate: 259.25e9, Wrong: "0"},
			version: "2.26.6+cuda12.8", gpu: "NVIDIA B200", noteSubstr: "file name"},
		// validation 0: #wrong N/A; root column; two K80 hosts.
		{file: "pkb-all_reduce_perf-2node-k80-validation0-NA.txt", test: "all_reduce_perf", op: "all_reduce", records: 22, ranks: 2, nodes: 2,
			first: obs.Record{Line: 10, Bytes: 1048576, Variant: "out-of-place", Time: 2410.0e-6, Rate: 0.44e9, BusRate: 0.44e9, Wrong: "N/A"},
			last:  obs.Record{Line: 20, Bytes: 1073741824, Variant: "in-place", Time: 1763386e-6, Rate: 0.61e9, BusRate: 0.61e9, Wrong: "N/A"},
			gpu:   "Tesla K80"},
		// Old layout: "error" column, no root; NCCL INFO line inside the table; size-0 rows are latency records.
		{file: "superbench-all_reduce_perf-8xA100-sxm4-old-format.txt", test: "all_reduce_perf", op: "all_reduce", records: 68, ranks: 8, nodes: 1,
			first: obs.Record{Line: 17, Bytes: 0, Variant: "out-of-place", Time: 35.20e-6, Wrong: "N/A"},
			gpu:   "A100-SXM4-40GB"},
		// The launcher's command line names the test.
		{file: "dranet-all_reduce_perf-2node-2xH200-mpirun-launcher-log-with-openmpi-warnings.txt", test: "all_reduce_perf", op: "all_reduce", ranks: 2, nodes: 2},
		// Stalled: a header, no rows: the tool's failure, no record.
		{file: "dranet-all_gather_perf-2node-4xB200-stalled-header-only.txt", test: "all_gather_perf", records: 0, ranks: 4, nodes: 2, failures: 1},
		// An excerpt without device lines: 16 ranks from busbw/algbw = 2·15/16.
		{file: "aks-excerpt-all_reduce_perf-2node-16gpu-sriov-ib.txt", test: "all_reduce_perf", op: "all_reduce", ranks: 16, noteSubstr: "busbw/algbw"},
		// Hand-written: -I and -S under mpirun --tag-output.
		{file: "handwritten/I1-S1-all_reduce_perf-mpirun-tag-output-2x2xH100.txt", test: "all_reduce_perf", op: "all_reduce", records: 16, ranks: 4, nodes: 2,
			first: obs.Record{Line: 16, Bytes: 1024, Variant: "out-of-place", Time: 18.16e-6, Rate: 0.06e9, BusRate: 0.08e9, Wrong: "0", Min: 17.61e-6, Max: 19.79e-6, P99: 19.79e-6}},
		// Hand-written: two collectives, -C 1 (cputime).
		{file: "handwritten/C1-all_reduce_perf-then-all_gather_perf-8xA100.txt", test: "all_reduce_perf, all_gather_perf", records: 32, ranks: 8, nodes: 1},
		// Hand-written -J with -I: every iteration's time is a sample.
		{file: "handwritten/J-all_reduce_perf-I1-2node-1xH200.json", test: "all_reduce_perf", op: "all_reduce", records: 26, ranks: 2, nodes: 2, version: "2.28.9", gpu: "NVIDIA H200"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			o := fx.Output(t, tc.file)
			if o.Test != tc.test || (tc.records > 0 || tc.failures > 0) && len(o.Records) != tc.records || o.Hardware.Ranks != tc.ranks ||
				o.Hardware.Nodes != tc.nodes || len(o.Failures) != tc.failures || len(o.Problems) != tc.problems {
				t.Fatalf("test %q, %d records, ranks %d nodes %d, failures %v, problems %v, notes %v", o.Test, len(o.Records),
					o.Hardware.Ranks, o.Hardware.Nodes, o.Failures, o.Problems, o.Notes)
			}
			if tc.version != "" && o.Version != tc.version {
				t.Errorf("version %q", o.Version)
			}
			if tc.gpu != "" && (len(o.Hardware.GPUs) == 0 || o.Hardware.GPUs[0] != tc.gpu) {
				t.Errorf("GPUs %v", o.Hardware.GPUs)
			}
			if tc.noteSubstr != "" && !strings.Contains(strings.Join(o.Notes, "|"), tc.noteSubstr) {
				t.Errorf("notes %v", o.Notes)
			}
			for i, want := range []obs.Record{tc.first, tc.last} {
				if want.Line == 0 {
					continue
				}
				got := o.Records[0]
				if i == 1 {
					got = o.Records[len(o.Records)-1]
				}
				if got.Line != want.Line || got.Bytes != want.Bytes || got.Variant != want.Variant || !near(got.Time, want.Time) ||
					!near(got.Rate, want.Rate) || !near(got.BusRate, want.BusRate) || got.Wrong != want.Wrong || got.Op != tc.op ||
					!near(got.Min, want.Min) || !near(got.Max, want.Max) || !near(got.P99, want.P99) {
					t.Errorf("record %d:\n got %+v\nwant %+v", i, got, want)
				}
			}
		})
	}
	o := fx.Output(t, "handwritten/J-all_reduce_perf-I1-2node-1xH200.json")
	if r := o.Records[0]; len(r.Samples) != 5 || r.Line != 1 || r.P50 == 0 || r.Time <= 0 {
		t.Errorf("JSON per-iteration samples: %+v", r)
	}
	o = fx.Output(t, "handwritten/J-sendrecv_perf-C1-socket-2node-1xA100.json")
	if r := o.Records[0]; r.Central != "mean (CPU time, -C)" || !near(r.Time, 512.4e-6) || r.Wrong != "N/A" || len(o.Failures) != 0 {
		t.Errorf("JSON cputime: %+v %v", r, o.Failures)
	}
}

// The factor's table is the model's (model.BusFactor); the importer only
// inverts it to find the ranks of a table that does not state them.
func TestRanksFromFactor(t *testing.T) {
	// 2(n−1)/n: 1.875 for 16 ranks, 1.8824 for 17, 1.8667 for 15.
	if n, ok := ranksFromFactor("all_reduce", 1.874, 1.876); !ok || n != 16 {
		t.Errorf("ranks from 1.874–1.876: %d %v", n, ok)
	}
	// 32 ranks: 1.9375; 31 and 33 are 0.1 % away, inside a 0.3 % window.
	if n, ok := ranksFromFactor("all_reduce", 1.9370, 1.9380); !ok || n != 32 {
		t.Errorf("ranks from 1.9370–1.9380: %d %v", n, ok)
	}
	if _, ok := ranksFromFactor("all_reduce", 1.93, 1.94); ok {
		t.Error("a window holding 29–33 ranks accepted")
	}
	// 191.05/98.61 GB/s printed (the last row of a 32-rank table): the
	// window the printed digits allow holds 32 only.
	lo, hi := ratioBounds(98.61e9, 191.05e9)
	if n, ok := ranksFromFactor("all_reduce", lo, hi); !ok || n != 32 {
		t.Errorf("ranks from 191.05/98.61: %d %v (%.5f–%.5f)", n, ok, lo, hi)
	}
	// 3.15/1.68 printed: 1.870–1.881 holds 16 and 15 is out (1.8667), 17 out:
	// but 3.17/1.69 elsewhere in the table narrows nothing; one row alone.
	if lo, hi := ratioBounds(1.68e9, 3.15e9); lo > 1.875 || hi < 1.875 {
		t.Errorf("bounds of 3.15/1.68: %.4f–%.4f do not hold 1.875", lo, hi)
	}
	if OpOf("all_reduce_perf") != model.AllReduce || OpOf("alltoallv_perf") != "" || OpOf("all_reduce") != "" {
		t.Errorf("OpOf: %q %q %q", OpOf("all_reduce_perf"), OpOf("alltoallv_perf"), OpOf("all_reduce"))
	}
}

// A damaged row (a field missing) is reported with its line; the rows
// around it are kept.
func TestDamagedRow(t *testing.T) {
	in := "# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n" +
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n" +
		"           8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0\n" +
		"          16             4     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00\n" +
		"          32             8     float     sum      -1    x0.00    0.00    0.00      0    10.00    0.00    0.00      0\n" +
		"          64            16     float     sum      -1    10.00    0.01    0.01      0    10.00    0.01    0.01      0\n"
	o, err := Parse("x.txt", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 4 || len(o.Problems) != 2 || o.Problems[0].Line != 5 || o.Problems[1].Line != 6 {
		t.Errorf("%d records, problems %v", len(o.Records), o.Problems)
	}
}

// Rows whose values cannot be used are problems with their line, as a
// damaged row is: a time of 0 (no record to judge) and a size past int64
// (read as a row and refused, never taken for another program's line).
func TestUnusableRowsSaySo(t *testing.T) {
	in := "# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n" +
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n" +
		"           8             2     float     sum      -1     0.00    0.00    0.00      0    10.00    0.00    0.00      0\n" +
		"99999999999999999999999     4     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0\n" +
		"          64            16     float     sum      -1    10.00    0.01    0.01      0    10.00    0.01    0.01      0\n"
	o, err := Parse("x.txt", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 3 || len(o.Problems) != 2 || o.Problems[0].Line != 4 || !strings.Contains(o.Problems[0].Reason, "a time of 0") ||
		o.Problems[1].Line != 5 || !strings.Contains(o.Problems[1].Reason, "column size") {
		t.Errorf("%d records, problems %v", len(o.Records), o.Problems)
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }

// The iterations of a record are the timed ones ("iters: 20"), not the
// warm-up ("warmup iters: 5") nor the aggregation ("agg iters: 1"), in
// whatever order the header gives them.
func TestIterationsAreTheTimedOnes(t *testing.T) {
	row := "\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n" +
		"     1048576        262144     float     sum      -1   2410.0    0.44    0.44      0   2709.7    0.39    0.39      0\n"
	for header, want := range map[string]int64{
		"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0": 20,
		"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) agg iters: 3 iters: 7 warmup iters: 50 validation: 1":          7,
		"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) iters: 100 validation: 1":                                      100,
	} {
		out, err := Parse("all_reduce_perf.txt", []byte(header+row))
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Records) == 0 || out.Records[0].Iterations != want {
			t.Errorf("%s: %+v, want %d iterations", header, out.Records, want)
		}
	}
}
