package model

import (
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// One node of 8 GPUs on NVLink (H100 SXM: 450 GB/s per direction, 88 %
// reached): each GPU forwards 7 of 8 channels over its NVLink, so the
// links allow 396 × 8/7 GB/s of bus bandwidth; NCCL's ring latency is
// base + 14 steps × the NVLink step for an all_reduce of 8 ranks.
func TestCollectiveOneNodeHandWorked(t *testing.T) {
	s := Default()
	s.Set("gpu.nvlink_rate", "450GB/s")
	const us = 1e-6
	link := 450e9 * 0.88 * 8 / 7 // 452.6 GB/s
	c := Collective{Op: AllReduce, Nodes: 1, GPUsPerNode: 8}
	// 8 B: LL wins. LL: 6.6 µs + 14 × 0.6 µs = 15 µs; bus 0.5 × link; alg = bus × 8/14.
	r, err := s.Collective(c, 8)
	if err != nil {
		t.Fatal(err)
	}
	wantLL := 15*us + 8/(0.5*link*8/14)
	if r.Protocol != ProtoLL || !near9(float64(r.Time), wantLL) || !near9(float64(r.LinkBusBW), link) || r.Steps != 14 || r.InterSteps != 0 {
		t.Errorf("8 B: %s %.6g s (want LL %.6g), link %v, steps %d/%d", r.Protocol, r.Time, wantLL, r.LinkBusBW, r.Steps, r.InterSteps)
	}
	// 1 GiB: Simple wins. Simple: 8.4 µs + 14 × 3.4 µs = 56 µs; bus = link; alg = link × 8/14.
	r, _ = s.Collective(c, 1<<30)
	wantS := 56*us + (1<<30)/(link*8/14)
	if r.Protocol != ProtoSimple || !near9(float64(r.Time), wantS) {
		t.Errorf("1 GiB: %s %.6g s, want Simple %.6g", r.Protocol, r.Time, wantS)
	}
	// Bus bandwidth is nccl-tests': algbw × 2(n−1)/n.
	if !near9(float64(r.BusBW), (1<<30)/wantS*14/8) || !near9(float64(r.AlgBW), (1<<30)/wantS) {
		t.Errorf("1 GiB: busbw %v algbw %v", r.BusBW, r.AlgBW)
	}
	// Only LL128 allowed (NCCL_PROTO=LL128): 14 µs + 14 × 1.9 µs, 0.92 of the link.
	c.Protocols = []string{"ll128"}
	r, _ = s.Collective(c, 1<<30)
	if want := 40.6*us + (1<<30)/(0.92*link*8/14); r.Protocol != ProtoLL128 || !near9(float64(r.Time), want) {
		t.Errorf("LL128 only: %s %.6g, want %.6g", r.Protocol, r.Time, want)
	}
}

// Two nodes of 8 GPUs, 8 NICs each (A3-Mega-like, devmem hops, Simple):
// the node's NICs carry the rings, 8 × one NIC's bidirectional rate; an
// all_gather of 16 ranks has 15 steps, one of them between nodes in NCCL's
// count; the intra-node step is max(NVLink 3.4 µs, 3 × the 1 µs proxy
// overhead) and the inter-node step max(NCCL's 14 µs, the path's own
// latency under NCCL: its proxy hand-off of 1 µs on each side included).
func TestCollectiveTwoNodesHandWorked(t *testing.T) {
	s, _ := Preset("gcp-a3-tcpx")
	s.Set("stack.flows", "2")
	p, _ := LookupPath("devmem")
	rt := p.Route(s.WithStack(StackNCCL))
	if d := rt.Evaluate(8).Latency - p.Route(s).Evaluate(8).Latency; !near9(float64(d), 2e-6) {
		t.Errorf("devmem under NCCL: the proxy adds %v at 8 B, want 2 × 1 µs", d)
	}
	nic, _ := rt.Bidirectional(s.Pipeline.Chunk)
	pathLat := float64(rt.Evaluate(8).Latency)
	const us = 1e-6
	link := math.Min(8*float64(nic), 450e9*0.88*8/7)
	c := Collective{Op: AllGather, Nodes: 2, GPUsPerNode: 8, NICsPerNode: 8, Path: "devmem", Protocols: []string{ProtoSimple}}
	r, err := s.Collective(c, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	lat := 8.4*us + 14*math.Max(3.4*us, 3*1*us) + math.Max(14*us, pathLat)
	want := lat + (1<<30)/(link*16/15)
	if !near9(float64(r.Time), want) || !near9(float64(r.Latency), lat) || r.Steps != 15 || r.InterSteps != 1 {
		t.Errorf("all_gather 1 GiB: %.6g s (latency %.6g), want %.6g (%.6g); steps %d/%d", r.Time, r.Latency, want, lat, r.Steps, r.InterSteps)
	}
	if !near9(float64(r.BusBW), (1<<30)/want*15/16) || !strings.Contains(r.Bottleneck, "8 NIC(s)") {
		t.Errorf("busbw %v, bottleneck %q", r.BusBW, r.Bottleneck)
	}
	// With 8 NICs the rings are network-bound: one NIC fewer, proportionally less.
	c.NICsPerNode = 4
	r4, _ := s.Collective(c, 1<<30)
	if !near9(float64(r4.LinkBusBW), 4*float64(nic)) {
		t.Errorf("4 NICs: link bus bandwidth %v, want %v", r4.LinkBusBW, 4*nic)
	}
	// An all_reduce doubles the steps and the inter-node ones: 2(n−1) = 30, 2(N−1) = 2.
	c.Op, c.NICsPerNode = AllReduce, 8
	ra, _ := s.Collective(c, 8)
	if wantLat := 8.4*us + 28*3.4*us + 2*math.Max(14*us, pathLat); ra.Steps != 30 || ra.InterSteps != 2 || !near9(float64(ra.Latency), wantLat) {
		t.Errorf("all_reduce: steps %d/%d latency %.6g, want 30/2 %.6g", ra.Steps, ra.InterSteps, ra.Latency, wantLat)
	}
}

// The collective's properties: time never falls with size; the bus
// bandwidth never exceeds what the links allow; more NICs never slow it.
func TestCollectiveProperties(t *testing.T) {
	for _, name := range PresetNames() {
		s, _ := Preset(name)
		for _, op := range []string{AllReduce, AllGather, ReduceScatter, Broadcast} {
			for _, path := range []string{"gdr", "rdma", "tcp", "devmem"} {
				c := Collective{Op: op, Nodes: 2, GPUsPerNode: 4, NICsPerNode: 2, Path: path}
				prev := units.Seconds(0)
				for n := units.Bytes(1); n <= 1<<30; n *= 8 {
					r, err := s.Collective(c, n)
					if err != nil {
						if !strings.Contains(err.Error(), "infeasible") {
							t.Errorf("%s %s %s: %v", name, op, path, err)
						}
						break
					}
					if r.Time < prev {
						t.Errorf("%s %s %s: time falls at %v", name, op, path, n)
					}
					prev = r.Time
					if float64(r.BusBW) > float64(r.LinkBusBW)*(1+1e-9) {
						t.Errorf("%s %s %s at %v: busbw %v above the links' %v", name, op, path, n, r.BusBW, r.LinkBusBW)
					}
					c2 := c
					c2.NICsPerNode = 4
					if r2, _ := s.Collective(c2, n); r2.Time > r.Time {
						t.Errorf("%s %s %s at %v: more NICs slower", name, op, path, n)
					}
				}
			}
		}
	}
}

func TestCollectiveBadInput(t *testing.T) {
	s := Default()
	for _, tc := range []struct {
		c    Collective
		want string
	}{
		{Collective{Op: "all_to_all", Nodes: 2, GPUsPerNode: 1, NICsPerNode: 1, Path: "gdr"}, "not one of"},
		{Collective{Op: AllReduce, Nodes: 1, GPUsPerNode: 1}, "two ranks"},
		{Collective{Op: AllReduce, Nodes: 2, GPUsPerNode: 1, Path: "gdr"}, "needs a NIC"},
		{Collective{Op: AllReduce, Nodes: 2, GPUsPerNode: 1, NICsPerNode: 1, Path: "gpu-peer"}, "does not leave the node"},
		{Collective{Op: AllReduce, Nodes: 2, GPUsPerNode: 1, NICsPerNode: 1, Path: "gdr", Protocols: []string{"fast"}}, "protocol"},
	} {
		if _, err := s.Collective(tc.c, 8); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}

// TestBusFactor: nccl-tests' GetBw of each test (src/*.cu at a0b82b2), for
// every spelling people write.
func TestBusFactor(t *testing.T) {
	for _, tc := range []struct {
		op   string
		n    int
		want float64
	}{
		{"all_reduce", 16, 2 * 15.0 / 16}, {"allreduce", 2, 1}, {"all_gather_perf", 8, 7.0 / 8}, {"ReduceScatter", 4, 3.0 / 4},
		{"alltoall", 16, 15.0 / 16}, {"broadcast", 16, 1}, {"reduce", 8, 1}, {"sendrecv", 8, 1}, {"gather", 4, 3.0 / 4},
		{"scatter", 2, 0.5}, {"hypercube", 8, 1},
	} {
		f, _, ok := BusFactor(tc.op, tc.n)
		if !ok || math.Abs(f-tc.want) > 1e-12 {
			t.Errorf("%s n=%d: %v, want %v", tc.op, tc.n, f, tc.want)
		}
	}
	if _, _, ok := BusFactor("all_reduce", 0); ok {
		t.Error("n=0 accepted")
	}
	if _, _, ok := BusFactor("alltoallv", 8); ok {
		t.Error("alltoallv has no factor")
	}
	if f, formula, _ := BusFactor(AllReduce, 8); formula != "2(n−1)/n = 2·7/8" || f != 1.75 {
		t.Errorf("formula %q, factor %v", formula, f)
	}
	if BusFormula("allgather") != "(n−1)/n" || BusFormula("x") != "" {
		t.Error("BusFormula")
	}
}
