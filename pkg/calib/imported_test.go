package calib

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

func TestBusCeilingFactor(t *testing.T) {
	c := &Collective{Op: model.AllGather, Ranks: 16, Nodes: 2, GPUsPerNode: 8}
	if k, why := busCeilingFactor(c, nil, "gdr"); k != 8 || !strings.Contains(why, "one NIC per GPU assumed") {
		t.Errorf("%v %s", k, why)
	}
	if k, _ := busCeilingFactor(c, &NCCLPath{NICs: []string{"mlx5_0", "mlx5_1"}}, "gdr"); k != 2 {
		t.Errorf("%v", k)
	}
	if k, _ := busCeilingFactor(&Collective{Op: model.SendRecv, Nodes: 2, GPUsPerNode: 4}, nil, "gdr"); k != 1 {
		t.Errorf("sendrecv %v", k)
	}
	if k, _ := busCeilingFactor(&Collective{Op: model.AllReduce, Nodes: 1, GPUsPerNode: 8}, nil, "gpu-peer"); k != 1 {
		t.Errorf("one node %v", k)
	}
}

// JudgeImported groups series by test and quantity, judges each against
// its path's model, leaves out points that are not finite, and gives the
// group's figure the model's lines once per path.
func TestJudgeImported(t *testing.T) {
	s := model.Default()
	gdr := evalPath(s, "gdr", 1<<20)
	if !gdr.Feasible {
		t.Fatalf("gdr: %s", gdr.Reason)
	}
	bw := func(variant string, rates ...float64) ImportedSeries {
		se := ImportedSeries{Test: "ib_write_bw", Series: record.Series{SeriesKey: record.SeriesKey{Variant: variant, Path: "gdr"}, Label: "ib_write_bw " + variant,
			Quantity: record.Bandwidth}}
		for i, r := range rates {
			se.Points = append(se.Points, record.Point{Bytes: 1 << (18 + 2*i), Rate: units.Rate(r)})
		}
		return se
	}
	lat := ImportedSeries{Test: "ib_write_lat", Series: record.Series{SeriesKey: record.SeriesKey{Path: "gdr"}, Label: "ib_write_lat", Quantity: record.Latency,
		Points: []record.Point{{Bytes: 8, Median: 4e-6}}}}
	gs := JudgeImported(s, []ImportedSeries{bw("a", 0.5*gdr.Rate, 0.94*gdr.Rate), lat, bw("b", -1, 0.9*gdr.Rate)}, nil, true)
	if len(gs) != 2 || gs[0].Test != "ib_write_bw" || len(gs[0].Verdicts) != 2 || gs[1].Quantity != record.Latency {
		t.Fatalf("groups: %+v", gs)
	}
	a, b := gs[0].Verdicts[0], gs[0].Verdicts[1]
	if a.Path != "gdr" || len(a.Points) != 2 || !strings.HasPrefix(a.Verdict, "at 94% of what this link and this path allow") {
		t.Errorf("a: %s %d %s", a.Path, len(a.Points), a.Verdict)
	}
	if len(b.Points) != 1 {
		t.Errorf("b keeps a negative rate: %+v", b.Points)
	}
	if len(a.Lines) != 1 || a.Lines[0].Path != "gdr" || len(b.Lines) != 0 {
		t.Errorf("lines: %+v %+v", a.Lines, b.Lines)
	}
	if l := a.Lines[0]; l.Bytes[0] != 1<<17 || l.Bytes[len(l.Bytes)-1] != 1<<21 {
		t.Errorf("the line spans %v–%v, want 128 KiB–2 MiB", l.Bytes[0], l.Bytes[len(l.Bytes)-1])
	}
}

// The figure's lines are the ceilings the verdicts quote: a series of
// parallel TCP streams is judged with that many flows, and its line is
// drawn with them too.
func TestLinesAreTheVerdictsCeilings(t *testing.T) {
	s := model.Default()
	se := ImportedSeries{Test: "tcp stream", Streams: 32, Series: record.Series{SeriesKey: record.SeriesKey{Variant: "sender", Path: "host-tcp"},
		Label: "tcp stream sender", Quantity: record.Bandwidth, Points: []record.Point{{Bytes: 128 << 10, Rate: 28e9}}}}
	gs := JudgeImported(s, []ImportedSeries{se}, nil, false)
	if len(gs) != 1 || len(gs[0].Verdicts) != 1 {
		t.Fatalf("%+v", gs)
	}
	v := gs[0].Verdicts[0]
	if !strings.Contains(v.PathWhy, "stack.flows=32") || len(v.Lines) != 1 {
		t.Fatalf("%s, %d lines", v.PathWhy, len(v.Lines))
	}
	one := evalPath(s, "host-tcp", 128<<10).Rate
	p, l := v.Points[0], v.Lines[0]
	for i, n := range l.Bytes {
		if n == p.At && l.Values[i] != p.Ceiling {
			t.Errorf("the line is at %v where the verdict's ceiling is %v", l.Values[i], p.Ceiling)
		}
	}
	if !(p.Ceiling > 2*one) {
		t.Errorf("32 flows' ceiling %v is not above one flow's %v", p.Ceiling, one)
	}
}

// A series on a path the model does not price (a p2pBandwidthLatencyTest
// diagonal, a staged or two-way cell, its latency matrix, an NVLink line
// rate) is not compared with another path: the verdict says why.
func TestUnmodeledPathsSayWhy(t *testing.T) {
	s := model.Default()
	for path, why := range unmodeled {
		se := ImportedSeries{Test: "t", Series: record.Series{SeriesKey: record.SeriesKey{Path: path}, Quantity: record.Bandwidth,
			Points: []record.Point{{Bytes: 1 << 20, Rate: 1e9, Line: 3}}}}
		v, _ := judge(s, se, nil, true, nil)
		if v.None != why || len(v.Points) != 0 {
			t.Errorf("%s: %q, %d points", path, v.None, len(v.Points))
		}
	}
	peer := ImportedSeries{Test: "t", Series: record.Series{SeriesKey: record.SeriesKey{Path: "gpu-peer"}, Quantity: record.Bandwidth,
		Points: []record.Point{{Bytes: 1 << 20, Rate: 1e9, Line: 3}}}}
	if v, _ := judge(s, peer, nil, true, nil); v.Path != "gpu-peer" || v.None != "" {
		t.Errorf("gpu-peer: %q %q", v.Path, v.None)
	}
}
