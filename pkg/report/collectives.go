package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

// The section "Collectives": NCCL's own cost model (pkg/model's
// Collectives) of one collective, model.DefaultCollectiveSpec, on each
// inter-node path NCCL can take between this scenario's nodes. Every
// number comes from the model; the figures from pkg/plots.

// The sizes the section quotes: the crossovers are searched over the
// figure's range, nccl-tests' 8 B to 16 GiB.
const (
	collLo  units.Bytes = 8
	collHi  units.Bytes = 16 << 30
	collBig units.Bytes = 1 << 30 // the size the text quotes busbw at
)

// collSection is the section's model, prepared once: the collective, the
// scenario's Collectives, the paths NCCL can take here and the one it
// takes.
type collSection struct {
	s        *model.Scenario
	cs       *model.Collectives
	spec     model.CollectiveSpec
	feasible []string // of model.CollectivePaths, in their order
	nccl     string   // the path NCCL takes (Scenario.NCCLPath)
	ncclWhy  string
}

func newCollSection(s *model.Scenario) *collSection {
	c := &collSection{s: s, cs: s.Collectives(), spec: model.DefaultCollectiveSpec(s)}
	for _, p := range model.CollectivePaths {
		if r, err := s.NCCLRoute(p); err == nil && r.Feasible {
			c.feasible = append(c.feasible, p)
		}
	}
	c.nccl, c.ncclWhy = s.NCCLPath(c.spec.GPUsPerNode)
	return c
}

// on is the collective on path p ("" for NCCL's own) over nodes nodes.
func (m *collSection) on(p string, nodes int) model.CollectiveSpec {
	sp := m.spec
	sp.Path, sp.Nodes = p, nodes
	return sp
}

// at is the collective on path p over nodes nodes at size n; ok is false
// when the model cannot take it.
func (m *collSection) at(p string, nodes int, n units.Bytes) (model.CollectiveResult, bool) {
	r, err := m.cs.Model(m.on(p, nodes), []units.Bytes{n})
	if err != nil {
		return model.CollectiveResult{}, false
	}
	return r[0], true
}

func choice(r model.CollectiveResult) string { return r.Algo + "/" + r.Proto }

// collectives fills the section "Collectives": what is shown, NCCL's own
// path, bus bandwidth against size with NCCL's choices, where they change
// and where the paths overtake each other, and the collective at scale
// (bus bandwidth, what GPUDirect RDMA buys, the cores NCCL's socket
// transport burns) with its table.
func (b *builder) collectives(sec *section, a *analysis, modeled string) {
	m := newCollSection(a.s)
	sp := m.spec
	ranks := sp.Nodes * sp.GPUsPerNode
	_, formula, _ := model.BusFactor(sp.Op, ranks)
	nics := "one NIC per GPU"
	if sp.NICsPerNode != sp.GPUsPerNode {
		nics = units.Thousands(sp.NICsPerNode) + " NICs a node"
	}
	sec.p("NCCL's own cost model — the tuner of NCCL (src/graph/tuning.cc at NVIDIA/nccl 5067397c), every algorithm and protocol it weighs, with its latency and bandwidth tables — on the links of this scenario's paths. "+
		"The collective shown is %s on %s nodes × %s GPUs (the report's default; gpupath model --collective … models any other): %s ranks, %s, NCCL choosing the algorithm and the protocol. "+
		"Bus bandwidth is nccl-tests' busbw, algbw × %s.", withArticle(collectiveLabel(sp)), units.Thousands(sp.Nodes), units.Thousands(sp.GPUsPerNode), units.Thousands(ranks), nics, formula)
	sec.text("Between nodes NCCL's traffic takes one of four paths: tcp, NCCL's socket transport (the GPU kernel stores each step into NCCL's pinned host buffers and its proxy threads send them through the kernel's TCP stack); " +
		"rdma, its InfiniBand verbs transport through the same host buffers (no cudaMemcpy per step, unlike the rdma path of the sections above); gdr, GPUDirect RDMA; and devmem, device-memory TCP through a net plugin (TCPX, TCPXO). " +
		m.ncclSentence())
	if len(m.feasible) == 0 {
		sec.note("No inter-node path of a collective can run on this scenario (" + pathsSection + " says why).")
		return
	}
	in := plots.CollectiveInput{Scenario: a.s, Collectives: m.cs, Spec: sp, Sizes: plots.CollectiveSizes(), Size: plots.CollectiveScaleSize, Nodes: plots.CollectiveNodes(),
		ReasonsAt: pathsSection, ReasonsSaid: a.said()}
	b.plot(sec, "collective-busbw", "modeled", modeled)(plots.CollectiveBusBW(in))
	if t := m.boundTable(); t != nil {
		sec.table(t)
	}

	sec.h3("Where NCCL's choice changes, and where the paths overtake each other")
	if t := m.choicesTable(); t != nil {
		sec.table(t)
	}
	t, never := m.crossoverTable()
	if t != nil {
		sec.table(t)
	}
	if len(never) > 0 {
		sec.text("At every size from " + collLo.Human() + " to " + collHi.Human() + ", " + strings.Join(never, "; ") + ".")
	}

	nodes := plots.CollectiveNodes()
	sec.h3("At scale: " + collectiveLabel(sp) + " of " + plots.CollectiveScaleSize.Human() + " on " + units.Thousands(nodes[0]) + " to " + units.Thousands(nodes[len(nodes)-1]) + " nodes")
	if s := m.scaleSentence(); s != "" {
		sec.text(s)
	}
	b.plot(sec, "collective-scale", "modeled", modeled)(plots.CollectiveScale(in))
	if miss := m.missing("gdr", "rdma"); len(miss) == 0 {
		b.plot(sec, "collective-gdr-gain", "modeled", modeled)(plots.CollectiveGain(in))
	} else {
		sec.note("No figure of what GPUDirect RDMA buys: it compares gdr with rdma, and " + list(miss) + " cannot run on this scenario (" + pathsSection + " says why).")
	}
	if miss := m.missing("tcp"); len(miss) == 0 {
		b.plot(sec, "collective-cores", "modeled", modeled)(plots.CollectiveCores(in))
	} else {
		sec.note("No figure of the cores NCCL's socket transport burns: tcp cannot run on this scenario (" + pathsSection + " says why).")
	}
	sec.table(m.scaleTable())
}

// missing are those of paths NCCL cannot take on this scenario.
func (m *collSection) missing(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if !slices.Contains(m.feasible, p) {
			out = append(out, p)
		}
	}
	return out
}

// withArticle puts "a" or "an" before w.
func withArticle(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// collectiveLabel names the operation as people write it: "all-reduce".
func collectiveLabel(c model.CollectiveSpec) string {
	op, _ := model.CollectiveOp(c.Op)
	return strings.ReplaceAll(op, "_", "-")
}

// ncclSentence says which path NCCL takes; the figure's caption says why.
func (m *collSection) ncclSentence() string {
	if slices.Contains(m.feasible, m.nccl) {
		return "NCCL itself takes " + m.nccl + " here (the first figure's caption gives its rule)."
	}
	return "NCCL itself would take " + m.nccl + " here, which cannot run on this scenario (the first figure's caption gives its rule)."
}

// boundTable gives each path's bus bandwidth at a middle and a large
// size, NCCL's pick there, and what bounds it at the large one.
func (m *collSection) boundTable() *docTable {
	mid := plots.CollectiveScaleSize
	t := &docTable{Caption: "Each path's bus bandwidth at " + mid.Human() + " and " + collBig.Human() + ", with NCCL's choice, and what bounds it at " + collBig.Human() + ".",
		Head: []string{"path", mid.Human(), collBig.Human(), "bound at " + collBig.Human() + " by"}, Widths: []float64{0.8, 1.1, 1.1, 4},
		Right: []bool{false, true, true, false}}
	for _, p := range m.feasible {
		rs, err := m.cs.Model(m.on(p, m.spec.Nodes), []units.Bytes{mid, collBig})
		if err != nil {
			continue
		}
		name := p
		if p == m.nccl {
			name += " (NCCL's)"
		}
		t.Rows = append(t.Rows, []cell{c(name), {Text: rs[0].BusBW.Human(), Sub: choice(rs[0])}, {Text: rs[1].BusBW.Human(), Sub: choice(rs[1])}, c(rs[1].Bottleneck)})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// choicesTable lists the ranges of sizes over which NCCL keeps one
// algorithm and protocol on its own path, with the bus bandwidth at either
// end (model Choices).
func (m *collSection) choicesTable() *docTable {
	segs, err := m.cs.Choices(m.on("", m.spec.Nodes), collLo, collHi)
	if err != nil || !slices.Contains(m.feasible, m.nccl) {
		return nil
	}
	t := &docTable{Caption: "NCCL's algorithm and protocol on its own path (" + m.nccl + ") from " + collLo.Human() + " to " + collHi.Human() + ": the first size of each range is where NCCL's choice changes.",
		Head: []string{"from", "to", "NCCL's choice", "busbw at the start", "busbw at the end"}, Widths: []float64{1, 1, 1.4, 1.2, 1.2},
		Right: []bool{true, true, false, true, true}}
	for _, sg := range segs {
		ends, err := m.cs.Model(m.on("", m.spec.Nodes), []units.Bytes{sg.From, sg.To})
		if err != nil {
			return nil
		}
		t.Rows = append(t.Rows, []cell{c(sg.From.Human()), c(sg.To.Human()), c(sg.Algo + "/" + sg.Proto), c(ends[0].BusBW.Human()), c(ends[1].BusBW.Human())})
	}
	return t
}

// crossoverTable lists the sizes at which one path overtakes another
// (model Crossovers, every pair of the paths NCCL can take here), and says
// of the pairs that never cross which is the faster.
func (m *collSection) crossoverTable() (*docTable, []string) {
	t := &docTable{Caption: "Where one path overtakes another (from " + collLo.Human() + " to " + collHi.Human() + "), each with NCCL's choice on it: from the size given on, the first path takes less time.",
		Head: []string{"size", "faster from here", "slower from here", "busbw there"}, Widths: []float64{1, 1.6, 1.6, 1.1},
		Right: []bool{true, false, false, true}}
	var never []string
	for i, p := range m.feasible {
		for _, q := range m.feasible[i+1:] {
			xs, err := m.cs.Crossovers(m.on(p, m.spec.Nodes), m.on(q, m.spec.Nodes), collLo, collHi)
			if err != nil {
				continue
			}
			if len(xs) == 0 {
				never = append(never, m.neverCross(p, q))
				continue
			}
			lp, lq := model.CollectiveLabel(m.on(p, m.spec.Nodes)), model.CollectiveLabel(m.on(q, m.spec.Nodes))
			for _, x := range xs {
				fast, slow := p, q
				if x.Faster == lq {
					fast, slow = q, p
				} else if x.Faster != lp {
					continue
				}
				rf, okf := m.at(fast, m.spec.Nodes, x.At)
				rs, oks := m.at(slow, m.spec.Nodes, x.At)
				if !okf || !oks {
					continue
				}
				t.Rows = append(t.Rows, []cell{c(x.At.Human()), {Text: fast, Sub: choice(rf)}, {Text: slow, Sub: choice(rs)}, c(rf.BusBW.Human())})
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil, never
	}
	return t, never
}

// neverCross says how two paths that never change places compare: which
// is the faster, and by how much (the least and the most over the
// figure's sizes), or that they take the same time.
func (m *collSection) neverCross(p, q string) string {
	sizes := plots.CollectiveSizes()
	rp, err1 := m.cs.Model(m.on(p, m.spec.Nodes), sizes)
	rq, err2 := m.cs.Model(m.on(q, m.spec.Nodes), sizes)
	if err1 != nil || err2 != nil {
		return p + " and " + q + " never change places"
	}
	fast, slow := p, q
	if rq[len(rq)-1].Time < rp[len(rp)-1].Time {
		fast, slow, rp, rq = q, p, rq, rp
	}
	lo, hi := math.Inf(1), 0.0
	for i := range rp {
		d := float64(rq[i].Time/rp[i].Time) - 1
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	if hi < 0.005 {
		return fast + " and " + slow + " take the same time to within 0.5 %"
	}
	return slow + " takes " + pctRange(lo, hi) + " longer than " + fast
}

// pctRange writes a range of relative differences in percent: "12 % to
// 31 %", "up to 3.1 %" from below 1 %, or one value.
func pctRange(lo, hi float64) string {
	a, b := units.FormatSig(100*lo, 2), units.FormatSig(100*hi, 2)
	switch {
	case a == b:
		return a + " %"
	case lo < 0.01:
		return "up to " + b + " %"
	}
	return a + " % to " + b + " %"
}

// scaleSentence says what one node reaches, what GPUDirect RDMA buys and
// what the socket transport burns at the report's node count.
func (m *collSection) scaleSentence() string {
	n, size := m.spec.Nodes, plots.CollectiveScaleSize
	var parts []string
	if r, ok := m.at("", 1, size); ok {
		parts = append(parts, fmt.Sprintf("On one node (no network) the %s of %s reaches %s of bus bandwidth (%s).", collectiveLabel(m.spec), size.Human(), r.BusBW.Human(), choice(r)))
	}
	if slices.Contains(m.feasible, "gdr") && slices.Contains(m.feasible, "rdma") {
		if g, err := m.cs.GDRGain(m.spec, size, []int{n}); err == nil {
			parts = append(parts, fmt.Sprintf("On %s nodes GPUDirect RDMA takes %s against %s through NCCL's host buffers: %s.", units.Thousands(n), g[0].GDR.Human(), g[0].HostStaged.Human(), gainText(g[0].Ratio)))
		}
	}
	if slices.Contains(m.feasible, "tcp") {
		if tc, err := m.cs.TCPCores(m.spec, size, []int{n}); err == nil {
			x := fmt.Sprintf("NCCL's socket transport keeps %s cores of each node busy for it (%s of CPU time a node)", units.FormatSig(tc[0].Cores, 3), tc[0].CPU.Human())
			if slices.Contains(m.feasible, "gdr") {
				x += ", where gdr keeps " + units.FormatSig(tc[0].GDRCores, 2) + " cores busy"
			}
			parts = append(parts, x+".")
		}
	}
	return strings.Join(parts, " ")
}

// gainText says a GDR gain in words: "1.52× faster", "the same to within
// 1 %".
func gainText(r float64) string {
	switch {
	case math.Abs(r-1) < 0.01:
		return "the same to within 1 %"
	case r < 1:
		return units.FormatSig(1/r, 3) + "× slower"
	}
	return units.FormatSig(r, 3) + "× faster"
}

// scaleTable is the collective at scale, one row per node count of two
// or more: each path's busbw with NCCL's pick and the time, what
// GPUDirect RDMA buys and the cores the socket transport burns.
func (m *collSection) scaleTable() *docTable {
	size := plots.CollectiveScaleSize
	head := []string{"nodes"}
	widths := []float64{0.7}
	right := []bool{true}
	for _, p := range m.feasible {
		head, widths, right = append(head, p+" busbw"), append(widths, 1.25), append(right, true)
	}
	gain := slices.Contains(m.feasible, "gdr") && slices.Contains(m.feasible, "rdma")
	tcp := slices.Contains(m.feasible, "tcp")
	if gain {
		head, widths, right = append(head, "GDR gain"), append(widths, 0.9), append(right, true)
	}
	if tcp {
		head, widths, right = append(head, "tcp cores a node"), append(widths, 0.9), append(right, true)
	}
	t := &docTable{Caption: "The " + collectiveLabel(m.spec) + " of " + size.Human() + " by node count: each path's bus bandwidth with NCCL's choice and the time, the time on rdma over the time on gdr, and the cores NCCL's socket transport keeps busy on each node.",
		Head: head, Widths: widths, Right: right}
	var nodes []int
	for _, n := range plots.CollectiveNodes() {
		if n >= 2 {
			nodes = append(nodes, n)
		}
	}
	var gains []model.GDRGain
	var cores []model.TCPCores
	if gain {
		gains, _ = m.cs.GDRGain(m.spec, size, nodes)
	}
	if tcp {
		cores, _ = m.cs.TCPCores(m.spec, size, nodes)
	}
	for i, n := range nodes {
		row := []cell{c(units.Thousands(n))}
		for _, p := range m.feasible {
			r, ok := m.at(p, n, size)
			if !ok {
				row = append(row, c("—"))
				continue
			}
			row = append(row, cell{Text: r.BusBW.Human(), Sub: choice(r) + ", " + r.Time.Human(), NoWrap: true})
		}
		if gain {
			if i < len(gains) {
				g := gains[i]
				cl := c(units.FormatSig(g.Ratio, 3) + "×")
				if g.GDRAlgo != g.HostAlgo {
					cl.Sub = "gdr " + g.GDRAlgo + ", rdma " + g.HostAlgo
				}
				row = append(row, cl)
			} else {
				row = append(row, c("—"))
			}
		}
		if tcp {
			if i < len(cores) {
				row = append(row, c(units.FormatSig(cores[i].Cores, 3)))
			} else {
				row = append(row, c("—"))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
