package osu

import (
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the shared OSU outputs.
var fx = importtest.Format{Tool: "osu", Detect: Detect, Parse: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

// Values read off the fixtures by hand: µs → s, MB/s → 1e6 B/s.
func TestHandRead(t *testing.T) {
	for _, tc := range []struct {
		file          string
		test, variant string
		rows          int
		bytes         int64
		time, rate    float64 // of the last row
		gpu           bool
		path          string
		version       string
	}{
		{"cray-pr859-osu_latency-v5.0-2node-aries-full-sweep.txt", "osu_latency", "", 24, 4194304, 497.37e-6, 0, false, "", "v5.0"},
		{"eessi-pr716-osu_bw-cuda-D-D-v7.2-2xA100-nvlink.txt", "osu_bw", "D D", 26, 33554432, 33554432 / 93130.52e6, 93130.52e6, true, "", "v7.2"},
		{"ucx-issue6327-osu_bw-cuda-H-D-v5.7-hpcx-single-node.txt", "osu_bw", "H D", 23, 4194304, 4194304 / 4036.15e6, 4036.15e6, true, "", "v5.7"},
		{"pkb-osu_bibw-v5.7.1-intelmpi-debug-trimmed.txt", "osu_bibw", "bidirectional (sum of both directions)", 2, 8, 8 / 3.84e6, 3.84e6, false, "host-tcp", "v5.7.1"},
		{"pkb-osu_latency-v5.7.1-intelmpi-debug-trimmed.txt", "osu_latency", "", 2, 8, 25.03e-6, 0, false, "host-tcp", "v5.7.1"},
		{"reframe-osu_latency-v7.2-single-size-8KiB-internode-aion.txt", "osu_latency", "", 1, 8192, 4.43e-6, 0, false, "", "v7.2"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			o := fx.Output(t, tc.file)
			last := o.Records[len(o.Records)-1]
			if o.Test != tc.test || len(o.Records) != tc.rows || last.Variant != tc.variant || last.Bytes != tc.bytes ||
				!near(last.Time, tc.time) || !near(last.Rate, tc.rate) || o.Hardware.MemoryGPU != tc.gpu || last.Path != tc.path ||
				o.Version != tc.version {
				t.Errorf("%s %d records %+v gpu %v", o.Test, len(o.Records), last, o.Hardware.MemoryGPU)
			}
		})
	}
	o := fx.Output(t, "pkb-osu_latency-v5.7.1-intelmpi-debug-trimmed.txt")
	if len(o.Hardware.Hosts) != 2 || o.Hardware.Hosts[1] != "pkb-6da5644b-1" {
		t.Errorf("hosts %v", o.Hardware.Hosts)
	}
	if o := fx.Output(t, "cray-pr859-osu_latency-v5.0-2node-aries-full-sweep.txt"); o.Records[0].Bytes != 0 || o.Records[0].Time != 1.84e-6 {
		t.Errorf("size 0 row %+v", o.Records[0])
	}
}

// The -f (full) layout and a row that cannot be read.
func TestFullColumns(t *testing.T) {
	in := "# OSU MPI-CUDA Latency Test v7.4\n# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)\n" +
		"# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n" +
		"1                       2.10              2.01              3.40        10000\n" +
		"2                       2.12              2.02\n" +
		"4                       2.14              2.05              3.10        10000\n"
	o, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 2 || len(o.Problems) != 1 || o.Problems[0].Line != 5 || o.Records[1].Min != 2.05e-6 || o.Records[1].Iterations != 10000 {
		t.Errorf("%+v %+v", o.Records, o.Problems)
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }

// OMB 7's -c adds a "Validation" column (Pass or Fail per row): every row
// is read, a Fail is the tool's own failure with its line and stays a
// series of its own; a newer column holding text is a note, not an error.
func TestValidationColumn(t *testing.T) {
	in := "# OSU MPI-CUDA Bandwidth Test v7.2\n# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)\n" +
		"# Size      Bandwidth (MB/s)        Validation\n# Datatype: MPI_CHAR.\n" +
		"1                       1.01              Pass\n" +
		"2                       1.19              Pass\n" +
		"4                       2.36              Fail\n"
	o, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 3 || len(o.Problems) != 0 || o.Records[0].Rate != 1.01e6 || o.Records[0].Wrong != "" || o.Records[2].Wrong != "Fail" {
		t.Fatalf("records %+v problems %+v", o.Records, o.Problems)
	}
	if len(o.Failures) != 1 || o.Failures[0].Line != 7 || !strings.Contains(o.Failures[0].Reason, "4 B") {
		t.Errorf("failures %+v", o.Failures)
	}
	if !strings.Contains(strings.Join(o.Notes, "\n"), "2 row(s) Pass") {
		t.Errorf("notes %q", o.Notes)
	}
	in = strings.Replace(in, "Validation", "Status", 1)
	o, err = Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 3 || len(o.Problems) != 0 || !strings.Contains(strings.Join(o.Notes, "\n"), `column "Status" is not one gpupath reads`) {
		t.Errorf("an unknown text column: %d records, problems %+v, notes %q", len(o.Records), o.Problems, o.Notes)
	}
	in = strings.Replace(strings.Replace(in, "Status", "Validation", 1), "Fail\n", "Maybe\n", 1)
	if o, err = Parse([]byte(in)); err != nil || len(o.Records) != 2 || len(o.Problems) != 1 || o.Problems[0].Line != 7 {
		t.Errorf("a validation neither Pass nor Fail: %v, %d records, problems %+v", err, len(o.Records), o.Problems)
	}
}
