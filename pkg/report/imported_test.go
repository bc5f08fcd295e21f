package report

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// modelRate is the model's streaming bandwidth of path on s at n bytes, or
// for a copy stage ("copy G") the stage's n / time on the rdma path.
func modelRate(t *testing.T, s *model.Scenario, path string, n units.Bytes) float64 {
	t.Helper()
	name, stage, isCopy := strings.Cut(path, " ")
	if isCopy {
		name = "rdma"
	}
	p, err := model.LookupPath(name)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Route(s)
	if !r.Feasible {
		t.Fatalf("%s is infeasible on %s: %s", name, s.Name, r.Reason)
	}
	if !isCopy {
		return float64(r.Evaluate(n).Bandwidth)
	}
	for _, st := range r.Stages {
		if st.Letter == stage {
			return float64(n) / float64(st.Time(n))
		}
	}
	t.Fatalf("no stage %s", stage)
	return 0
}

func series(label, test, variant string, q record.Quantity, path, stage string, pts ...record.Point) calib.ImportedSeries {
	return calib.ImportedSeries{Series: record.Series{SeriesKey: record.SeriesKey{Variant: variant, Path: path, Stage: stage}, Label: label, Quantity: q, Points: pts},
		Test: test}
}

// importedInput is a report of an imported run, judged as FromImported
// judges it (judgeFile).
func importedInput(t *testing.T) Input {
	t.Helper()
	s := model.Default()
	hw := s.Clone() // with the run's ibstat: a 400 Gbit/s port
	if err := hw.Set("nic.rate", "400Gbit/s"); err != nil {
		t.Fatal(err)
	}
	gdr := modelRate(t, hw, "gdr", 1<<20)
	copyG := modelRate(t, s, "copy G", 512<<20)
	coll := &calib.Collective{Op: "allreduce", Ranks: 2, Nodes: 2, GPUsPerNode: 1, Factor: 1, Formula: "2(n−1)/n = 2·1/2"}
	nccl := series("all_reduce_perf out-of-place", "all_reduce_perf", "out-of-place", record.Bandwidth, "", "",
		record.Point{Bytes: 1 << 30, Median: 0.4, Rate: 2.6e9, BusRate: 2.6e9, Line: 41})
	nccl.Op, nccl.Collective = "allreduce", coll
	im := Imported{
		Source:   "runs/imported",
		Hardware: Hardware{NICs: []NIC{{Name: "mlx5_0 port 1", LinkLayer: "RoCE", State: "Active", RateBps: 400e9, Source: "ibstat.txt line 9"}}},
		Files: []ImportedFile{
			{File: "sockets.txt", Tool: "nccl-tests", Test: "all_reduce_perf",
				Hardware: Hardware{Hosts: []string{"a", "b"}, GPUs: []string{"NVIDIA A100-SXM4-80GB"}, GPUSource: "sockets.txt line 4", Ranks: 2, Nodes: 2, GPUsPerNode: 1},
				NCCL:     &calib.NCCLPath{Path: "tcp", Line: 23, NICs: []string{"eth0"}, Verdict: "Between nodes NCCL took the tcp path."},
				Series:   []calib.ImportedSeries{nccl}},
			{File: "ib_write_bw.txt", Tool: "perftest", Test: "ib_write_bw",
				Series: []calib.ImportedSeries{series("ib_write_bw", "ib_write_bw", "", record.Bandwidth, "gdr", "",
					record.Point{Bytes: 1 << 20, Rate: units.Rate(0.94 * gdr), Line: 70})}},
			{File: "nvbandwidth.txt", Tool: "nvbandwidth", Test: "host_to_device_memcpy_ce",
				Series: []calib.ImportedSeries{series("host_to_device_memcpy_ce", "host_to_device_memcpy_ce", "", record.Bandwidth, "", "G",
					record.Point{Bytes: 512 << 20, Rate: units.Rate(0.6 * copyG), Line: 13, Target: "CPU0 -> GPU0"})}},
			{File: "udp.txt", Tool: "iperf3", Test: "udp stream",
				Series: []calib.ImportedSeries{series("udp stream receiver", "udp stream", "receiver", record.Bandwidth, "", "",
					record.Point{Rate: 1e6, Line: 3})}},
			{File: "ibstat.txt", Tool: "ibstat"},
		},
	}
	for i := range im.Files {
		im.Files[i].Model, _ = judgeFile(context.Background(), s, im.Files[i], im.Hardware)
	}
	return Input{
		Scenario: s, Source: "preset default", Version: "test", Host: "h", Time: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), RunID: "r",
		Imported: []Imported{im},
	}
}

func sectionText(s *section) string {
	var b strings.Builder
	for _, bl := range s.Blocks {
		b.WriteString(bl.H3 + "\n" + bl.P + "\n" + bl.Note + "\n" + strings.Join(bl.List, "\n") + "\n")
		if bl.Table != nil {
			for _, r := range bl.Table.Rows {
				for _, c := range r {
					b.WriteString(c.Text + " ")
				}
				b.WriteString("\n")
			}
		}
	}
	return strings.ReplaceAll(b.String(), "\u00a0", " ")
}

func TestImportedSection(t *testing.T) {
	in := importedInput(t)
	d := buildDoc(t, in)
	var ids []string
	for _, s := range d.Sections {
		ids = append(ids, s.ID)
	}
	// The verdicts a user came for come right after the summary.
	if got := strings.Join(ids, ","); !strings.HasPrefix(got, "summary,imported,resolution,") {
		t.Fatalf("sections %s: want the imported measurements right after the summary", got)
	}
	text := sectionText(sectionOf(t, d, "imported"))
	for _, want := range []string{
		// nccl-tests over sockets: the log's path, its line, what GPUDirect RDMA would allow.
		"the traffic took the host-staged tcp path, see NCCL's log line 23",
		// busbw explained with the factor.
		"for allreduce on 2 ranks the factor is 2(n−1)/n = 2·1/2 = 1",
		// perftest on GPU memory at 94% of the gdr model (measured set to 0.94 × it).
		"ib_write_bw: at 94% of what this link and this path allow",
		// A copy benchmark against the copy stage, at 60%.
		"at 60% of what this GPU's PCIe link allows for the copy",
		// UDP has no model.
		"not compared: the model has no UDP path",
		// The hardware of the run's ibstat file is used for every file.
		"nic.rate=400Gbit/s (mlx5_0 port 1 port rate (ibstat.txt line 9))",
		"gpu.pcie=gen4x16 (A100-SXM4-80GB: NVIDIA A100 Tensor Core GPU datasheet (2021): PCIe Gen4 host interface (64 GB/s))",
		"No measurements in this file",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
}

func TestCompareSection(t *testing.T) {
	in := importedInput(t)
	in.Imported = nil
	a := []float64{10e-6, 10.2e-6, 9.9e-6, 10.1e-6, 10e-6, 9.8e-6}
	b := make([]float64, len(a))
	for i, v := range a {
		b[i] = v / 1.25 // B is 1.25× faster
	}
	run := func(src string, samples []float64, scale float64) []record.Series {
		key := func(probe, variant string) record.SeriesKey { return record.SeriesKey{Probe: probe, Variant: variant} }
		return []record.Series{
			{SeriesKey: key("tcp", "pingpong"), Label: "tcp pingpong", Quantity: record.Latency, Points: []record.Point{
				{Bytes: 8, Median: units.Seconds(10e-6 * scale), Samples: samples}, {Bytes: 4096, Median: units.Seconds(12e-6 * scale)}}},
			{SeriesKey: key("tcp", "stream"), Label: "tcp stream", Quantity: record.Bandwidth, Points: []record.Point{{Bytes: 1 << 20, Rate: 5e9}}},
			{SeriesKey: key("only", src), Label: "only " + src, Quantity: record.Latency, Points: []record.Point{{Bytes: 8, Median: 1e-6}}},
		}
	}
	in.Compare = &Comparison{A: "A", B: "B", RunComparison: calib.CompareRuns(run("A", a, 1), run("B", b, 1/1.25), fit.Options{Seed: 1})}
	text := sectionText(sectionOf(t, buildDoc(t, in), "compare"))
	for _, want := range []string{
		"tcp pingpong: B is faster: 1.25×",
		"tcp stream: one size, no repetitions: 1×, within ±3% (no repetitions)",
		"Only in run A: only A.", "Only in run B: only B.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
	// Render draws both sections without error.
	in.Imported = importedInput(t).Imported
	r, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	_ = r
}
