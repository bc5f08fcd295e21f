package model

import (
	"fmt"
	"math"

	"github.com/gpupath/gpupath/pkg/units"
)

// CollectiveSegment is a range of sizes, From to To (both included), over
// which NCCL picks Algo with Proto.
type CollectiveSegment struct {
	Algo  string      `json:"algo"`
	Proto string      `json:"proto"`
	From  units.Bytes `json:"from_bytes"`
	To    units.Bytes `json:"to_bytes"`
}

// CollectiveCrossover is a size at which two collectives change places:
// from At on (to the pair's next crossover) Faster takes less time, below
// At Slower did. Faster and Slower are the specs' labels (CollectiveLabel).
type CollectiveCrossover struct {
	Faster string      `json:"faster"`
	Slower string      `json:"slower"`
	At     units.Bytes `json:"at_bytes"`
}

// GDRGain is what GPUDirect RDMA buys a collective on a node count: its
// time on gdr and on NCCL's host-staged RDMA transport (rdma), NCCL's
// choice on each, and Ratio = HostStaged / GDR (above 1: GDR is faster).
type GDRGain struct {
	Nodes      int           `json:"nodes"`
	GDR        units.Seconds `json:"gdr_s"`
	HostStaged units.Seconds `json:"host_staged_s"`
	Ratio      float64       `json:"ratio"`
	GDRAlgo    string        `json:"gdr_algo"`
	HostAlgo   string        `json:"host_staged_algo"`
}

// TCPCores is what NCCL's socket transport costs a node's CPU on a node
// count: the cores busy for the whole operation, its CPU seconds, its time
// and bus bandwidth, and the cores gdr keeps busy for the same operation.
type TCPCores struct {
	Nodes    int           `json:"nodes"`
	Cores    float64       `json:"cores_per_node"`
	CPU      units.Seconds `json:"cpu_s_per_node"`
	Time     units.Seconds `json:"time_s"`
	BusBW    units.Rate    `json:"busbw_Bps"`
	GDRCores float64       `json:"gdr_cores_per_node"`
}

// CollectiveLabel names a spec in a crossover: "all_reduce ring/LL gdr
// 8×8" (auto where NCCL chooses).
func CollectiveLabel(c CollectiveSpec) string {
	algo, proto, path := c.Algo, c.Proto, c.Path
	if algo == "" {
		algo = AlgoAuto
	}
	if proto == "" {
		proto = AlgoAuto
	}
	if path == "" {
		path = "nccl"
	}
	op, _ := CollectiveOp(c.Op)
	return fmt.Sprintf("%s %s/%s %s %d×%d", op, algo, proto, path, c.Nodes, c.GPUsPerNode)
}

// prepared is a spec ready to evaluate size by size (a Model call without
// the result's texts).
func (cs *Collectives) prepared(c CollectiveSpec) (*collModel, error) {
	c, err := c.normalize()
	if err != nil {
		return nil, err
	}
	path := c.Path
	if c.Nodes == 1 {
		path = ""
	} else if path == "" {
		path, _ = cs.s.ncclPath(c.GPUsPerNode, cs.cc)
	}
	m, err := cs.prepare(c, path)
	if err != nil {
		return nil, err
	}
	if err := m.checkChoice(); err != nil {
		return nil, err
	}
	return m, nil
}

// pick is the option the spec selects at n and its time.
func (m *collModel) pick(n units.Bytes) (int, units.Seconds) {
	n = max(n, 1)
	ev := m.evals(n, m.scratch)
	i := m.choose(n, m.spec.Algo, m.spec.Proto, ev)
	if i < 0 {
		return -1, units.Seconds(math.Inf(1))
	}
	return i, ev[i].time
}

func checkRange(lo, hi units.Bytes) error {
	if lo < 1 || hi < lo {
		return fmt.Errorf("model: need 1 ≤ lo ≤ hi, got %d, %d", lo, hi)
	}
	return nil
}

// Choices splits the sizes from lo to hi into the segments over which
// NCCL picks one algorithm and protocol for c (within c's Algo and Proto),
// with the exact byte at which the pick changes: the crossovers between
// NCCL's algorithms and protocols. The sizes are searched on a grid of
// steps of 2^(1/8) and each change pinned down by bisection (as Fastest).
func (cs *Collectives) Choices(c CollectiveSpec, lo, hi units.Bytes) ([]CollectiveSegment, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	m, err := cs.prepared(c)
	if err != nil {
		return nil, err
	}
	winner := func(n units.Bytes) int { i, _ := m.pick(n); return i }
	seg := func(i int, from units.Bytes) CollectiveSegment {
		o := m.options[i]
		return CollectiveSegment{Algo: o.algo, Proto: Protocols[o.p], From: from}
	}
	w := winner(lo)
	out := []CollectiveSegment{seg(w, lo)}
	prev := lo
	for _, n := range sizeGrid(lo, hi) {
		for winner(n) != w {
			a, b := prev, n
			for b-a > 1 {
				mid := a + (b-a)/2
				if winner(mid) == w {
					a = mid
				} else {
					b = mid
				}
			}
			out[len(out)-1].To = b - 1
			w, prev = winner(b), b
			out = append(out, seg(w, b))
		}
		prev = n
	}
	out[len(out)-1].To = hi
	return out, nil
}

// Crossovers lists every size from lo to hi at which collectives a and b
// change places by time: two algorithms, protocols or paths of one
// operation (or two operations) compared.
func (cs *Collectives) Crossovers(a, b CollectiveSpec, lo, hi units.Bytes) ([]CollectiveCrossover, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	ma, err := cs.prepared(a)
	if err != nil {
		return nil, err
	}
	mb, err := cs.prepared(b)
	if err != nil {
		return nil, err
	}
	la, lb := CollectiveLabel(a), CollectiveLabel(b)
	// bFaster: b takes less time than a at n (ties go to a).
	bFaster := func(n units.Bytes) bool {
		_, ta := ma.pick(n)
		_, tb := mb.pick(n)
		return tb < ta && !Near(float64(ta), float64(tb))
	}
	var out []CollectiveCrossover
	state := bFaster(lo)
	prev := lo
	for _, n := range sizeGrid(lo, hi) {
		if bFaster(n) != state {
			x, y := prev, n
			for y-x > 1 {
				mid := x + (y-x)/2
				if bFaster(mid) == state {
					x = mid
				} else {
					y = mid
				}
			}
			state = !state
			if state {
				out = append(out, CollectiveCrossover{Faster: lb, Slower: la, At: y})
			} else {
				out = append(out, CollectiveCrossover{Faster: la, Slower: lb, At: y})
			}
		}
		prev = n
	}
	return out, nil
}

// GDRGain is what GPUDirect RDMA buys collective c of n bytes on each node
// count: NCCL's choice on gdr against its choice on the host-staged rdma
// transport (c's Path is ignored).
func (cs *Collectives) GDRGain(c CollectiveSpec, n units.Bytes, nodes []int) ([]GDRGain, error) {
	var out []GDRGain
	for _, k := range nodes {
		g, h := c, c
		g.Nodes, h.Nodes = k, k
		g.Path, h.Path = "gdr", "rdma"
		rg, err := cs.Model(g, []units.Bytes{n})
		if err != nil {
			return nil, err
		}
		rh, err := cs.Model(h, []units.Bytes{n})
		if err != nil {
			return nil, err
		}
		out = append(out, GDRGain{Nodes: k, GDR: rg[0].Time, HostStaged: rh[0].Time, Ratio: float64(rh[0].Time / rg[0].Time),
			GDRAlgo: rg[0].Algo + "/" + rg[0].Proto, HostAlgo: rh[0].Algo + "/" + rh[0].Proto})
	}
	return out, nil
}

// TCPCores is the CPU that NCCL's socket transport burns per node for
// collective c of n bytes on each node count (c's Path is ignored): the
// socket calls, the TCP stack and the copies between NCCL's host buffers
// and the kernel, from the tcp route's CPU time per byte, beside what gdr
// costs (the proxy's posts and polls).
func (cs *Collectives) TCPCores(c CollectiveSpec, n units.Bytes, nodes []int) ([]TCPCores, error) {
	var out []TCPCores
	for _, k := range nodes {
		t, g := c, c
		t.Nodes, g.Nodes = k, k
		t.Path, g.Path = "tcp", "gdr"
		rt, err := cs.Model(t, []units.Bytes{n})
		if err != nil {
			return nil, err
		}
		x := TCPCores{Nodes: k, Cores: rt[0].CoresPerNode, CPU: rt[0].CPUPerNode, Time: rt[0].Time, BusBW: rt[0].BusBW}
		if rg, err := cs.Model(g, []units.Bytes{n}); err == nil {
			x.GDRCores = rg[0].CoresPerNode
		}
		out = append(out, x)
	}
	return out, nil
}
