package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// propScenarios are the presets, and dgx-h100-ndr with SHARP (every
// algorithm allowed somewhere).
func propScenarios(t *testing.T) map[string]*Collectives {
	t.Helper()
	out := map[string]*Collectives{}
	for _, name := range PresetNames() {
		s, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = s.Collectives()
	}
	s, _ := Preset("dgx-h100-ndr")
	s.Set("network.sharp", "true")
	out["dgx-h100-ndr+sharp"] = s.Collectives()
	return out
}

// sizeSweep is 1 B to 1 GiB in steps of ×2, with an odd size between each.
func sizeSweep() []units.Bytes {
	var out []units.Bytes
	for n := units.Bytes(1); n <= 1<<30; n *= 2 {
		out = append(out, n, n+n/3+1)
	}
	return out
}

// forEachSpec calls f for every operation, feasible path, shape and
// allowed algorithm × protocol (given explicitly), and for NCCL's choice
// (auto), on every scenario.
func forEachSpec(t *testing.T, f func(name string, cs *Collectives, c CollectiveSpec)) {
	for name, cs := range propScenarios(t) {
		for _, op := range CollectiveOps {
			for _, shape := range [][2]int{{1, 8}, {2, 1}, {2, 8}, {3, 4}, {64, 8}, {1024, 2}} {
				for _, path := range CollectivePaths {
					base := CollectiveSpec{Op: op, Nodes: shape[0], GPUsPerNode: shape[1], Path: path}
					if shape[0] == 1 && path != CollectivePaths[0] {
						continue // no network: the path does not matter
					}
					rs, err := cs.Model(base, []units.Bytes{8})
					if err != nil {
						if !strings.Contains(err.Error(), "infeasible") {
							t.Errorf("%s %+v: %v", name, base, err)
						}
						continue
					}
					f(name, cs, base)
					for _, a := range rs[0].Alternatives {
						c := base
						c.Algo, c.Proto = a.Algo, a.Proto
						f(name, cs, c)
					}
				}
			}
		}
	}
}

// Bus bandwidth never exceeds what the links allow the algorithm's
// traffic; time never falls as the size grows (nor NCCL's estimate).
func TestCollectiveBusBWAndMonotone(t *testing.T) {
	sizes := sizeSweep()
	forEachSpec(t, func(name string, cs *Collectives, c CollectiveSpec) {
		rs, err := cs.Model(c, sizes)
		if err != nil {
			t.Errorf("%s %s: %v", name, CollectiveLabel(c), err)
			return
		}
		for i, r := range rs {
			if float64(r.BusBW) > float64(r.LinkBusBW)*(1+1e-9) {
				t.Errorf("%s %s at %v: busbw %v above the links' %v (%s/%s)", name, CollectiveLabel(c), r.Bytes, r.BusBW, r.LinkBusBW, r.Algo, r.Proto)
			}
			if i == 0 {
				continue
			}
			p := rs[i-1]
			// NCCL's pick by its estimate may switch to an algorithm whose
			// links are slower than its estimate says: only the time of a
			// fixed algorithm and protocol, and NCCL's estimate of its pick,
			// must not fall.
			fixed := c.Algo != "" && c.Proto != ""
			if p2p := c.Op == AllToAll || c.Op == SendRecv; p2p && !fixed {
				continue
			}
			if r.Time < p.Time*(1-1e-12) || r.NCCLTime < p.NCCLTime*(1-1e-12) {
				t.Errorf("%s %s: time falls from %v (%s/%s, NCCL %v) at %v to %v (%s/%s, NCCL %v) at %v", name, CollectiveLabel(c), p.Time, p.Algo, p.Proto, p.NCCLTime, p.Bytes, r.Time, r.Algo, r.Proto, r.NCCLTime, r.Bytes)
			}
		}
	})
}

// NCCL's choice is never slower, by NCCL's estimate, than any algorithm
// and protocol it allows (all_to_all and send_recv: its LL threshold, not
// a least time, so not checked); gpupath's time of each alternative is
// never below NCCL's estimate of it.
func TestCollectiveChoiceIsFastest(t *testing.T) {
	sizes := sizeSweep()
	forEachSpec(t, func(name string, cs *Collectives, c CollectiveSpec) {
		if c.Algo != "" || c.Op == AllToAll || c.Op == SendRecv {
			return
		}
		rs, _ := cs.Model(c, sizes)
		for _, r := range rs {
			for _, a := range r.Alternatives {
				if a.NCCLTime < r.NCCLTime*(1-1e-12) {
					t.Errorf("%s %s at %v: NCCL's pick %s/%s (%v) slower than %s/%s (%v)", name, CollectiveLabel(c), r.Bytes, r.Algo, r.Proto, r.NCCLTime, a.Algo, a.Proto, a.NCCLTime)
				}
				if a.Time < a.NCCLTime*(1-1e-12) {
					t.Errorf("%s %s/%s: time %v below NCCL's %v", name, a.Algo, a.Proto, a.Time, a.NCCLTime)
				}
			}
			if r.NCCL.Algo != r.Algo || r.NCCL.Proto != r.Proto {
				t.Errorf("%s %s: chosen %s/%s, NCCL %s/%s", name, CollectiveLabel(c), r.Algo, r.Proto, r.NCCL.Algo, r.NCCL.Proto)
			}
		}
	})
}

// Adding nodes never makes a ring all-reduce faster per byte: at every
// size, with every protocol (and NCCL's), 1 to 16,384 nodes.
func TestCollectiveRingMoreNodesSlower(t *testing.T) {
	sizes := []units.Bytes{8, 4096, 1 << 20, 64 << 20, 1 << 30}
	for name, cs := range propScenarios(t) {
		for _, g := range []int{1, 2, 8} {
			for _, proto := range []string{"", ProtoLL, ProtoLL128, ProtoSimple} {
				var prev []CollectiveResult
				for nodes := 1; nodes <= 16384; nodes *= 2 {
					if nodes*g < 2 {
						continue
					}
					rs, err := cs.Model(CollectiveSpec{Op: AllReduce, Nodes: nodes, GPUsPerNode: g, Algo: AlgoRing, Proto: proto}, sizes)
					if err != nil {
						prev = nil // that protocol is not allowed on this shape
						continue
					}
					for i := range prev {
						if rs[i].Time < prev[i].Time*(1-1e-12) {
							t.Errorf("%s ring/%s %d GPUs at %v: %d nodes %v, %d nodes %v", name, proto, g, sizes[i], nodes/2, prev[i].Time, nodes, rs[i].Time)
						}
					}
					prev = rs
				}
			}
		}
	}
}

func TestCollectiveChoicesAndCrossovers(t *testing.T) {
	s, _ := Preset("dgx-h100-ndr")
	cs := s.Collectives()
	c := CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr"}
	segs, err := cs.Choices(c, 1, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 || segs[0].From != 1 || segs[len(segs)-1].To != 1<<30 {
		t.Fatalf("segments %+v", segs)
	}
	for i, sg := range segs {
		for _, n := range []units.Bytes{sg.From, sg.To} {
			r := model1(t, s, c, float64(n))
			if r.Algo != sg.Algo || r.Proto != sg.Proto {
				t.Errorf("segment %+v: at %v the model picks %s/%s", sg, n, r.Algo, r.Proto)
			}
		}
		if i > 0 && segs[i-1].To+1 != sg.From {
			t.Errorf("segments %+v and %+v do not meet", segs[i-1], sg)
		}
	}
	t.Logf("NCCL's picks, all_reduce 8×8 on gdr: %+v", segs)
	// ring against tree: the tree wins small, the ring large
	ring, tree := c, c
	ring.Algo, tree.Algo = AlgoRing, AlgoTree
	xs, err := cs.Crossovers(tree, ring, 1, 1<<30)
	if err != nil || len(xs) == 0 {
		t.Fatalf("crossovers %+v %v", xs, err)
	}
	at := xs[0].At
	a, b := model1(t, s, tree, float64(at-1)), model1(t, s, ring, float64(at-1))
	a2, b2 := model1(t, s, tree, float64(at)), model1(t, s, ring, float64(at))
	if !(a.Time <= b.Time*(1+1e-9)) || !(b2.Time < a2.Time) || xs[0].Faster != CollectiveLabel(ring) {
		t.Errorf("crossover %+v: below tree %v ring %v, at tree %v ring %v", xs[0], a.Time, b.Time, a2.Time, b2.Time)
	}
	// paths: tcp against gdr never crosses (gdr is faster at every size)
	tcp, gdr := c, c
	tcp.Path = "tcp"
	if xs, _ := cs.Crossovers(gdr, tcp, 1, 1<<30); len(xs) != 0 {
		t.Errorf("tcp overtakes gdr: %+v", xs)
	}
	if _, err := cs.Choices(c, 0, 8); err == nil {
		t.Error("lo 0 accepted")
	}
}

// What GDR buys, and the cores TCP burns, as functions of the node count.
func TestCollectiveGDRGainAndTCPCores(t *testing.T) {
	s, _ := Preset("dgx-h100-ndr")
	cs := s.Collectives()
	nodes := []int{2, 8, 64, 1024, 16384}
	c := CollectiveSpec{Op: AllReduce, GPUsPerNode: 8}
	gain, err := cs.GDRGain(c, 256<<20, nodes)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gain {
		if g.Ratio < 1 || !near9(g.Ratio, float64(g.HostStaged/g.GDR)) {
			t.Errorf("GDR gain %+v", g)
		}
	}
	small, _ := cs.GDRGain(c, 8, nodes)
	tcp, err := cs.TCPCores(c, 256<<20, nodes)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range tcp {
		if x.Cores <= 1 || x.Cores <= 4*x.GDRCores || !near9(x.Cores, float64(x.CPU/x.Time)) {
			t.Errorf("TCP cores %+v", x)
		}
		t.Logf("%5d nodes: GDR buys ×%.2f at 256 MiB (%s vs %s), ×%.2f at 8 B; TCP burns %.1f cores per node (gdr %.2f), busbw %s",
			x.Nodes, gain[i].Ratio, gain[i].GDRAlgo, gain[i].HostAlgo, small[i].Ratio, x.Cores, x.GDRCores, x.BusBW.Human())
	}
}

// BenchmarkCollectiveSweep is the sweep the report and the notebooks make:
// 7 operations × 4 paths × 6 node counts × 32 sizes, every algorithm and
// protocol NCCL weighs evaluated at each (NCCL's choice with all its
// alternatives, and its choice on its own path beside), on a scenario where
// all four paths are feasible and every algorithm allowed.
func BenchmarkCollectiveSweep(b *testing.B) {
	s := Default() // RoCE: tcp, rdma, gdr and devmem all feasible
	for k, v := range map[string]string{"gpu.nvlink_rate": "450GB/s", "gpu.nvlink_efficiency": "0.88", "topology.nvswitch": "true", "network.sharp": "true"} {
		if err := s.Set(k, v); err != nil {
			b.Fatal(err)
		}
	}
	sizes := make([]units.Bytes, 32)
	for i := range sizes {
		sizes[i] = units.Bytes(1) << i
	}
	nodes := []int{1, 2, 8, 64, 1024, 16384}
	cs := s.Collectives()
	results := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		results = 0
		for _, op := range CollectiveOps {
			for _, p := range CollectivePaths {
				for _, n := range nodes {
					rs, err := cs.Model(CollectiveSpec{Op: op, Nodes: n, GPUsPerNode: 8, Path: p}, sizes)
					if err != nil {
						b.Fatal(err)
					}
					results += len(rs)
					for _, r := range rs {
						results += len(r.Alternatives) + len(r.Unavailable) - 1
					}
				}
			}
		}
	}
	b.ReportMetric(float64(results), "options/sweep")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/sweep")
	if testing.Verbose() {
		fmt.Printf("BenchmarkCollectiveSweep: %d (op, path, nodes, size, algorithm, protocol) options per sweep\n", results)
	}
}
