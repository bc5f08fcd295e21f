package calib

import (
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// collectiveSeries is an nccl-tests busbw series of c with the given
// busbw at 1 MiB, 16 MiB, 64 MiB and 1 GiB.
func collectiveSeries(c *Collective, busbw ...float64) ImportedSeries {
	se := ImportedSeries{Test: "all_reduce_perf", Collective: c,
		Series: record.Series{SeriesKey: record.SeriesKey{Variant: "out-of-place"}, Label: "all_reduce_perf out-of-place", Quantity: record.Bandwidth}}
	sizes := []units.Bytes{1 << 20, 16 << 20, 64 << 20, 1 << 30}
	for i, b := range busbw {
		se.Points = append(se.Points, record.Point{Bytes: sizes[i], BusRate: units.Rate(b), Rate: units.Rate(b / 1.875), Line: 10 + i})
	}
	return se
}

// An nccl-tests series is modeled with NCCL's cost model of the collective
// as it ran: each point's modeled busbw is the model's at its size, the
// residual measured/modeled − 1, the median over the sizes of 16 MiB or
// more; the NICs NCCL's log lists and its path are taken, and an output
// that cannot say its nodes is not compared, with the reason.
func TestJudgeCollective(t *testing.T) {
	s := model.Default()
	c := &Collective{Op: model.AllReduce, Ranks: 16, Nodes: 2, GPUsPerNode: 8}
	spec := model.CollectiveSpec{Op: model.AllReduce, Nodes: 2, GPUsPerNode: 8, NICsPerNode: 2, Path: "rdma", Algo: model.AlgoAuto, Proto: model.AlgoAuto}
	sizes := []units.Bytes{1 << 20, 16 << 20, 64 << 20, 1 << 30}
	want, err := s.Collectives().Model(spec, sizes)
	if err != nil {
		t.Fatal(err)
	}
	// Measured: the model's busbw × 0.5, 0.9, 1.2, 1.0.
	f := []float64{0.5, 0.9, 1.2, 1.0}
	var bus []float64
	for i, r := range want {
		bus = append(bus, f[i]*float64(r.BusBW))
	}
	nccl := &NCCLPath{Path: "rdma", Line: 7, NICs: []string{"mlx5_0", "mlx5_1"}}
	v := judgeCollective(s, collectiveSeries(c, bus...), nccl)
	if v.None != "" || len(v.Points) != 4 {
		t.Fatalf("verdict: %+v", v)
	}
	for i, p := range v.Points {
		if p.Modeled != want[i].BusBW || math.Abs(p.Residual-(f[i]-1)) > 1e-9 || p.Algo != want[i].Algo || p.Path != "rdma" {
			t.Errorf("%s: modeled %v (want %v), residual %.4f (want %.4f), %s %s", p.Bytes.Human(), p.Modeled, want[i].BusBW, p.Residual, f[i]-1, p.Algo, p.Path)
		}
	}
	// |−0.1|, |+0.2|, |0| over 16 MiB, 64 MiB, 1 GiB: median 0.1.
	if v.Large != 3 || math.Abs(v.MedianLarge-0.1) > 1e-9 {
		t.Errorf("median %.4f over %d, want 0.1 over 3", v.MedianLarge, v.Large)
	}
	text := v.Text()
	for _, w := range []string{"2 nodes × 8 GPUs", "2 NIC(s) per node, as NCCL's log lists them", "path rdma from NCCL's log (line 7)", "median error 10% over the 3 size(s) of 16 MiB or more", "+0.0%"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q: %s", w, text)
		}
	}
	if len(v.Line.Bytes) == 0 || v.Line.Bytes[0] > 1<<19 || v.Line.Bytes[len(v.Line.Bytes)-1] < 2<<30 {
		t.Errorf("the model's line spans %v", v.Line.Bytes)
	}

	// Ranks alone (an excerpt: ranks from busbw/algbw): eight GPUs a node,
	// said; ranks that do not fill eight-GPU nodes are not compared.
	v = judgeCollective(s, collectiveSeries(&Collective{Op: model.AllReduce, Ranks: 32}, 1e9, 2e9), nil)
	if v.None != "" || v.Spec.Nodes != 4 || v.Spec.GPUsPerNode != 8 || !strings.Contains(v.Text(), "8 GPUs per node, so 4 node(s) for the 32 ranks") {
		t.Errorf("32 ranks: %+v", v)
	}
	for _, c := range []*Collective{{Op: model.AllReduce, Ranks: 4}, {Op: model.AllReduce}, {Ranks: 16, Nodes: 2, GPUsPerNode: 8}} {
		v := judgeCollective(s, collectiveSeries(c, 1e9), nil)
		if v.None == "" || len(v.Points) != 0 || !strings.HasPrefix(v.Text(), "NCCL's cost model: not compared: ") {
			t.Errorf("%+v: compared: %+v", c, v)
		}
	}
	// A series without a usable point says so.
	if v := judgeCollective(s, collectiveSeries(c), nil); v.None != "no point has a size and a busbw" {
		t.Errorf("no points: %q", v.None)
	}
}

// JudgeImported attaches NCCL's model to an nccl-tests busbw series, and
// only to it.
func TestJudgeImportedCollective(t *testing.T) {
	s := model.Default()
	c := &Collective{Op: model.AllReduce, Ranks: 16, Nodes: 2, GPUsPerNode: 8, Factor: 1.875}
	gs := JudgeImported(s, []ImportedSeries{collectiveSeries(c, 1e9, 50e9, 100e9)}, nil, true)
	if len(gs) != 1 || gs[0].Verdicts[0].Collective == nil || !strings.Contains(gs[0].Verdicts[0].Verdict, "NCCL's cost model of this cluster") {
		t.Fatalf("groups: %+v", gs)
	}
	lat := ImportedSeries{Test: "ib_write_lat", Series: record.Series{SeriesKey: record.SeriesKey{Path: "gdr"}, Label: "ib_write_lat", Quantity: record.Latency,
		Points: []record.Point{{Bytes: 8, Median: 4e-6}}}}
	if gs := JudgeImported(s, []ImportedSeries{lat}, nil, true); gs[0].Verdicts[0].Collective != nil {
		t.Error("a latency series got NCCL's collective model")
	}
}
