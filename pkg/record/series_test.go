package record

import "testing"

func TestGroup(t *testing.T) {
	rs := []Result{
		{Probe: "cuda", Variant: "h2d", Timer: "wall", Target: "gpu0", Bytes: 64},
		{Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: 8},
		{Probe: "cuda", Variant: "h2d", Timer: "cuda-event", Target: "gpu0", Bytes: 64},
		{Probe: "cuda", Variant: "h2d", Timer: "wall", Target: "gpu0", Bytes: 4},
		{Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: 1, Note: "first 1"},
		{Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: 1, Note: "second 1"},
	}
	g := Group(rs, ByProbe|ByVariant|ByTarget|ByTimer)
	if len(g) != 3 {
		t.Fatalf("%d series, want 3 (cuda wall, tcp, cuda event): %+v", len(g), g)
	}
	if g[0].Timer != "wall" || g[1].Probe != "tcp" || g[2].Timer != "cuda-event" {
		t.Errorf("order of first appearance: %+v %+v %+v", g[0].SeriesKey, g[1].SeriesKey, g[2].SeriesKey)
	}
	if b := g[0].Results; b[0].Bytes != 4 || b[1].Bytes != 64 {
		t.Errorf("not sorted by size: %+v", b)
	}
	if b := g[1].Results; b[0].Note != "first 1" || b[1].Note != "second 1" || b[2].Bytes != 8 {
		t.Errorf("sort not stable: %+v", b)
	}
	// Without the timer, both clocks' cuda records are one series.
	g = Group(rs, ByProbe|ByVariant|ByTarget)
	if len(g) != 2 || len(g[0].Results) != 3 || g[0].Timer != "" {
		t.Errorf("without timer: %+v", g)
	}
	if len(Group(nil, ByProbe)) != 0 {
		t.Error("series from no records")
	}
}
