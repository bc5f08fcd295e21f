package p2plat

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// fx is the format's fixtures: the published outputs in testdata/published
// (none is in the shared collection: an empty Only).
var fx = importtest.Format{Tool: "p2pBandwidthLatencyTest", Only: []string{}, Local: "published", Detect: Detect, Parse: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

// find returns the record of that op, variant and target.
func find(t *testing.T, o *obs.Output, op, variant, target string) obs.Record {
	t.Helper()
	for _, r := range o.Records {
		if r.Op == op && r.Variant == variant && r.Target == target {
			return r
		}
	}
	t.Fatalf("no record %s / %s / %s", op, variant, target)
	return obs.Record{}
}

func TestHandRead(t *testing.T) {
	// 4 GPUs: 4 bandwidth matrices and 2 latency matrices of 2 sub-matrices
	// each, 16 cells a matrix.
	o := fx.Output(t, "published/stelline-asus-esc8000a-4xrtx6000ada-pcie.txt")
	if len(o.Records) != 8*16 || len(o.Problems) != 0 || len(o.Failures) != 0 {
		t.Errorf("%d records, problems %v, failures %v", len(o.Records), o.Problems, o.Failures)
	}
	if len(o.Hardware.GPUs) != 4 || o.Hardware.GPUs[3] != "NVIDIA RTX 6000 Ada Generation" || !o.Hardware.MemoryGPU || o.Hardware.Lines["gpus"] != 2 {
		t.Errorf("%+v", o.Hardware)
	}
	// Line 30: "     0 140.75  22.23  22.12  22.21" under Unidirectional P2P=Disabled.
	r := find(t, o, "unidirectional", "p2p disabled local", "0->0")
	if r.Line != 30 || !near(r.Rate, 140.75e9) || r.Metric != obs.Bandwidth || r.Bytes != 0 || r.BytesNote == "" || r.Extra["bytes_counted_twice"] != 1 {
		t.Errorf("%+v", r)
	}
	r = find(t, o, "unidirectional", "p2p disabled", "0->3")
	if r.Line != 30 || !near(r.Rate, 22.21e9) || r.Extra["peer_access"] != 1 || len(r.Fields) != 2 || r.Fields[0] != "0" || r.Fields[1] != "22.21" {
		t.Errorf("%+v", r)
	}
	// Line 38: "     2  26.32  26.32 830.69  26.32" (P2P Writes).
	r = find(t, o, "unidirectional-write", "p2p enabled", "2->1")
	if r.Line != 38 || !near(r.Rate, 26.32e9) {
		t.Errorf("%+v", r)
	}
	// Line 49: "     1  52.10 805.20  52.12  52.11" (bidirectional, enabled).
	r = find(t, o, "bidirectional", "p2p enabled", "1->2")
	if r.Line != 49 || !near(r.Rate, 52.12e9) || r.Extra["directions"] != 2 {
		t.Errorf("%+v", r)
	}
	// Line 54: "     0   1.37  10.73  13.76  13.64" (disabled latency, GPU).
	r = find(t, o, "latency", "p2p disabled gpu", "0->2")
	if r.Line != 54 || !near(r.Time, 13.76e-6) || r.Metric != obs.Latency || r.Central != "mean" {
		t.Errorf("%+v", r)
	}
	// Line 75: "     3   1.74   1.71   1.73   2.05" (enabled latency, CPU).
	r = find(t, o, "latency-write", "p2p enabled cpu local", "3->3")
	if r.Line != 75 || !near(r.Time, 2.05e-6) {
		t.Errorf("%+v", r)
	}
	if !slices.ContainsFunc(o.Notes, func(s string) bool { return strings.Contains(s, "0->1 CAN, 0->2 CAN") }) ||
		!slices.ContainsFunc(o.Notes, func(s string) bool { return strings.Contains(s, "not meant for performance measurements") }) {
		t.Errorf("notes %q", o.Notes)
	}

	// Indented output (a blog's code block): NVLink between 2 H100 PCIe.
	o = fx.Output(t, "published/blog-hpe-dl380a-2xh100pcie-nvlink-indented.txt")
	if len(o.Records) != 8*4 || len(o.Problems) != 0 || len(o.Hardware.GPUs) != 2 || o.Hardware.GPUs[0] != "NVIDIA H100 PCIe" {
		t.Errorf("%d records, %v, %v", len(o.Records), o.Problems, o.Hardware.GPUs)
	}
	// Line 21: "           1 256.99 1660.74 ".
	r = find(t, o, "unidirectional-write", "p2p enabled", "1->0")
	if r.Line != 21 || !near(r.Rate, 256.99e9) {
		t.Errorf("%+v", r)
	}
	// Line 29: "           1 509.15 1669.81 ".
	r = find(t, o, "bidirectional", "p2p enabled local", "1->1")
	if r.Line != 29 || !near(r.Rate, 1669.81e9) {
		t.Errorf("%+v", r)
	}
	// Line 36: "           0   2.21   6.29 " (disabled, CPU).
	r = find(t, o, "latency", "p2p disabled cpu", "0->1")
	if r.Line != 36 || !near(r.Time, 6.29e-6) {
		t.Errorf("%+v", r)
	}

	// The Puget output ends without the sample's final NOTE line.
	o = fx.Output(t, "published/stelline-puget-wrx90-2xrtx6000ada-pcie.txt")
	if len(o.Records) != 32 || len(o.Problems) != 0 {
		t.Errorf("%d records, %v", len(o.Records), o.Problems)
	}
	r = find(t, o, "latency-write", "p2p enabled gpu", "0->1")
	if r.Line != 40 || !near(r.Time, 1.12e-6) {
		t.Errorf("%+v", r)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	return string(fx.Read(t, name))
}

func parse(t *testing.T, s string) *obs.Output {
	t.Helper()
	o, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestTruncated(t *testing.T) {
	full := read(t, "published/stelline-puget-wrx90-2xrtx6000ada-pcie.txt")
	lines := strings.SplitAfter(full, "\n")
	// Cut in the middle of the bidirectional P2P=Enabled matrix: after the
	// header and its first row (lines 1-28), and half of the second row.
	cut := strings.Join(lines[:28], "") + "     1  52.1"
	o := parse(t, cut)
	// 3 whole matrices of 4, the first row (2) and one value of the second.
	if len(o.Records) != 3*4+2+1 {
		t.Errorf("%d records", len(o.Records))
	}
	if len(o.Problems) != 1 || o.Problems[0].Line != 29 || !strings.Contains(o.Problems[0].Reason, "cut short") {
		t.Errorf("%v", o.Problems)
	}
	last := o.Records[len(o.Records)-1]
	if last.Line != 29 || last.Target != "1->0" || !near(last.Rate, 52.1e9) {
		t.Errorf("%+v", last)
	}
	// Cut after the GPU latency sub-matrix.
	o = parse(t, strings.Join(lines[:34], ""))
	if len(o.Records) != 4*4+4 || len(o.Problems) != 1 || !strings.Contains(o.Problems[0].Reason, "CPU sub-matrix") {
		t.Errorf("%d records, %v", len(o.Records), o.Problems)
	}
	// Whole rows missing: the header and one row of two.
	o = parse(t, strings.Join(lines[:16], ""))
	if len(o.Records) != 2 || len(o.Problems) != 1 || o.Problems[0].Line != 15 || !strings.Contains(o.Problems[0].Reason, "1 of 2 rows") {
		t.Errorf("%d records, %v", len(o.Records), o.Problems)
	}
	// A heading and nothing more.
	o = parse(t, strings.Join(lines[:14], ""))
	if len(o.Records) != 0 || len(o.Problems) != 1 || o.Problems[0].Line != 14 {
		t.Errorf("%d records, %v", len(o.Records), o.Problems)
	}
}

func TestGarbage(t *testing.T) {
	s := "\r\n  [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\r\n" +
		"Device: 0, NVIDIA H100 80GB HBM3, pciBusID: 18, pciDeviceID: 0, pciDomainID:0\r\n" +
		"Device: 1, NVIDIA H100 80GB HBM3, pciBusID: 2a, pciDeviceID: 0, pciDomainID:0\r\n" +
		"Device=0 CANNOT Access Peer Device=1\r\n" +
		"Device=1 CAN Access Peer Device=0\r\n" +
		"some unknown line\r\n" +
		"Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)\r\n" +
		"   D\\D     0      1 \r\n" +
		"     0 700.00   nan \r\n" + // line 10: garbage value
		"     1  12.50 0.00 99.0\r\n" + // line 11: too many values
		"Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)\r\n" +
		"     0 700.00  12.00\r\n" + // line 13: no header
		"   D\\D     0      1\r\n" +
		"     0 700.00  0.00\r\n" + // line 15: a zero: no record, a problem
		"     1  12.00 690.00\r\n" +
		"P2P=Enabled Latency (P2P Reads) Matrix (us)\r\n" +
		"   GPU     0      1\r\n" +
		"     0   1.00   2.00\r\n" +
		"     1   2.00   1.00\r\n" +
		"\r\n" +
		"   CPU     0      1\r\n" +
		"     0   3.00   4.00\r\n" +
		"     1   4.00   3.00\r\n" +
		"Test failed!\r\n" // line 25
	if !Detect([]byte(s)) {
		t.Fatal("not detected")
	}
	o := parse(t, s)
	want := []int{10, 11, 13, 15}
	if len(o.Problems) != len(want) {
		t.Fatalf("%v", o.Problems)
	}
	for i, p := range o.Problems {
		if p.Line != want[i] {
			t.Errorf("problem %d: %v", i, p)
		}
	}
	if len(o.Failures) != 1 || o.Failures[0].Line != 25 {
		t.Errorf("%v", o.Failures)
	}
	// bidirectional: 3 of 4 (one 0); latency 8.
	if len(o.Records) != 3+8 {
		t.Errorf("%d records", len(o.Records))
	}
	r := find(t, o, "bidirectional", "p2p disabled", "1->0")
	if r.Line != 16 || !near(r.Rate, 12e9) || r.Extra["peer_access"] != 1 {
		t.Errorf("%+v", r)
	}
	r = find(t, o, "latency-read", "p2p enabled gpu", "0->1")
	if r.Line != 19 || r.Extra["peer_access"] != 0 || !near(r.Time, 2e-6) {
		t.Errorf("%+v", r)
	}
	if len(o.Hardware.GPUs) != 2 || o.Hardware.Lines["gpus"] != 3 {
		t.Errorf("%+v", o.Hardware)
	}
	if _, err := Parse([]byte("hello\nworld\n")); err == nil || Detect([]byte("hello")) {
		t.Error("garbage recognised")
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }

// A matrix of more devices than a node has is refused with its line, not
// read into N² records; a row given twice is a problem, not data.
func TestMatrixBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nUnidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D")
	for i := range MaxDevices + 1 {
		fmt.Fprintf(&b, " %d", i)
	}
	b.WriteString("\n     0 1.0\n")
	o, err := Parse([]byte(b.String()))
	if err != nil || len(o.Records) != 0 || len(o.Problems) == 0 || !strings.Contains(o.Problems[0].Reason, "at most 128") {
		t.Errorf("%v %d records %v", err, len(o.Records), o.Problems)
	}
	dup := "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nUnidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1\n     0 700.00  12.00\n     0 700.00  12.00\n"
	o, err = Parse([]byte(dup))
	if err != nil || len(o.Records) != 2 || len(o.Problems) != 1 || o.Problems[0].Line != 5 {
		t.Errorf("%v %d records %v", err, len(o.Records), o.Problems)
	}
}

// A matrix must be of the devices the output lists: a header naming a
// device no Device line lists is one problem (its rows are not read nor
// listed again), and a row of a device the columns do not name is one.
func TestMatrixDevices(t *testing.T) {
	head := "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n" +
		"Device: 0, NVIDIA H100 80GB HBM3, pciBusID: 18, pciDeviceID: 0, pciDomainID:0\n" +
		"Device: 1, NVIDIA H100 80GB HBM3, pciBusID: 2a, pciDeviceID: 0, pciDomainID:0\n" +
		"Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
	o := parse(t, head+"   D\\D     0      1      2\n     0 700.00  12.00  12.00\n     1 12.00  700.00  12.00\n     2 12.00  12.00  700.00\n")
	if len(o.Records) != 0 || len(o.Problems) != 1 || o.Problems[0].Line != 5 || !strings.Contains(o.Problems[0].Reason, "device 2") {
		t.Errorf("%d records %v", len(o.Records), o.Problems)
	}
	o = parse(t, head+"   D\\D     0      1\n     0 700.00  12.00\n     5 12.00  700.00\n")
	if len(o.Records) != 2 || len(o.Problems) != 1 || o.Problems[0].Line != 7 || !strings.Contains(o.Problems[0].Reason, "device 5") {
		t.Errorf("%d records %v", len(o.Records), o.Problems)
	}
}
