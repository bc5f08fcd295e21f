package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/model"
)

func importedInput(t *testing.T) Input {
	t.Helper()
	s := model.Default()
	hw := s.Clone() // with the run's ibstat: a 400 Gbit/s port
	if err := hw.Set("nic.rate", "400Gbit/s"); err != nil {
		t.Fatal(err)
	}
	gdr := evalPath(hw, "gdr", 1<<20)
	copyG := evalCopy(s, "G", 512<<20)
	tcp := evalPath(s, "tcp", 1<<30)
	if !gdr.Feasible || !copyG.Feasible || !tcp.Feasible {
		t.Fatalf("default scenario: %+v %+v %+v", gdr, copyG, tcp)
	}
	coll := &Collective{Op: "allreduce", Ranks: 2, Nodes: 2, GPUsPerNode: 1, Factor: 1, Formula: "2(n−1)/n = 2·1/2"}
	return Input{
		Scenario: s, Source: "preset default", Version: "test", Host: "h", Time: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), RunID: "r",
		Imported: []Imported{{
			Source:   "runs/imported",
			Hardware: Hardware{NICs: []NIC{{Name: "mlx5_0 port 1", LinkLayer: "RoCE", State: "Active", RateBps: 400e9, Source: "ibstat.txt line 9"}}},
			Files: []ImportedFile{
				{File: "sockets.txt", Tool: "nccl-tests", Test: "all_reduce_perf",
					Hardware: Hardware{Hosts: []string{"a", "b"}, GPUs: []string{"NVIDIA A100-SXM4-80GB"}, GPUSource: "sockets.txt line 4", Ranks: 2, Nodes: 2, GPUsPerNode: 1},
					NCCL:     &NCCLPath{Path: "tcp", Line: 23, NICs: []string{"eth0"}, Verdict: "Between nodes NCCL took the tcp path."},
					Series: []ImportedSeries{{Label: "all_reduce_perf out-of-place", Test: "all_reduce_perf", Op: "allreduce", Variant: "out-of-place",
						Quantity: Bandwidth, Collective: coll,
						Points: []ImportedPoint{{Bytes: 1 << 30, Time: 0.4, Rate: 2.6e9, BusRate: 2.6e9, Line: 41}}}}},
				{File: "ib_write_bw.txt", Tool: "perftest", Test: "ib_write_bw",
					Series: []ImportedSeries{{Label: "ib_write_bw", Test: "ib_write_bw", Quantity: Bandwidth, Path: "gdr",
						Points: []ImportedPoint{{Bytes: 1 << 20, Rate: 0.94 * gdr.Rate, Line: 70}}}}},
				{File: "nvbandwidth.txt", Tool: "nvbandwidth", Test: "host_to_device_memcpy_ce",
					Series: []ImportedSeries{{Label: "host_to_device_memcpy_ce", Test: "host_to_device_memcpy_ce", Quantity: Bandwidth, Stage: "G",
						Points: []ImportedPoint{{Bytes: 512 << 20, Rate: 0.6 * copyG.Rate, Line: 13, Target: "CPU0 -> GPU0"}}}}},
				{File: "udp.txt", Tool: "iperf3", Test: "udp stream",
					Series: []ImportedSeries{{Label: "udp stream receiver", Test: "udp stream", Variant: "receiver", Quantity: Bandwidth,
						Points: []ImportedPoint{{Rate: 1e6, Line: 3}}}}},
				{File: "ibstat.txt", Tool: "ibstat"},
			},
		}},
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
	if got := strings.Join(ids, ","); !strings.Contains(got, "measurements,imported,calibration") {
		t.Fatalf("sections %s", got)
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
		"nic.rate=400Gbit/s (mlx5_0 port 1 port rate, ibstat.txt line 9)",
		"gpu.pcie=gen4x16 (NVIDIA A100 datasheet: PCIe Gen4 x16)",
		"No measurements in this file",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
}

func TestBusCeilingFactor(t *testing.T) {
	c := &Collective{Op: "allgather", Ranks: 16, Nodes: 2, GPUsPerNode: 8}
	if k, why := busCeilingFactor(c, Hardware{}, ImportedFile{}, "gdr"); k != 8 || !strings.Contains(why, "one NIC per GPU assumed") {
		t.Errorf("%v %s", k, why)
	}
	if k, _ := busCeilingFactor(c, Hardware{}, ImportedFile{NCCL: &NCCLPath{NICs: []string{"mlx5_0", "mlx5_1"}}}, "gdr"); k != 2 {
		t.Errorf("%v", k)
	}
	if k, _ := busCeilingFactor(&Collective{Op: "sendrecv", Nodes: 2, GPUsPerNode: 4}, Hardware{}, ImportedFile{}, "gdr"); k != 1 {
		t.Errorf("sendrecv %v", k)
	}
	if k, _ := busCeilingFactor(&Collective{Op: "allreduce", Nodes: 1, GPUsPerNode: 8}, Hardware{}, ImportedFile{}, "gpu-peer"); k != 1 {
		t.Errorf("one node %v", k)
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
	run := func(src string, samples []float64, scale float64) CompareRun {
		return CompareRun{Source: src, Series: []CompareSeries{
			{Key: "tcp|pingpong", Label: "tcp pingpong", Quantity: Latency, Points: []ComparePoint{
				{Bytes: 8, Value: 10e-6 * scale, Samples: samples}, {Bytes: 4096, Value: 12e-6 * scale}}},
			{Key: "tcp|stream", Label: "tcp stream", Quantity: Bandwidth, Points: []ComparePoint{{Bytes: 1 << 20, Value: 5e9}}},
			{Key: "only|" + src, Label: "only " + src, Quantity: Latency, Points: []ComparePoint{{Bytes: 8, Value: 1e-6}}},
		}}
	}
	in.Compare = &Comparison{A: run("A", a, 1), B: run("B", b, 1/1.25), Seed: 1}
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
