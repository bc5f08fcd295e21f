package nb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// The collectives notebook's tables and its answer, from NCCL's cost model
// (model.Collectives); its figures are pkg/plots' (CollectiveBusBW,
// CollectiveScale, CollectiveGain, CollectiveCores), as in the report.

// CollectiveTable is the collective c on each path (model.PathNCCL for
// NCCL's own) at each size, as `gpupath model --collective` gives it: the
// time, busbw, NCCL's algorithm and protocol, what bounds it and the cores
// a node keeps busy.
func CollectiveTable(s *model.Scenario, c model.CollectiveSpec, paths []string, sizes ...units.Bytes) (string, error) {
	c, res, err := s.CollectiveSweep(context.Background(), c, paths, sizes)
	if err != nil {
		return "", err
	}
	t := Table{Caption: model.CollectiveHeadline(c) + ": NCCL's cost model",
		Head:  []string{"path", "size", "time", "busbw", "NCCL's choice", "bound by", "cores per node"},
		Right: []bool{false, true, true, true, false, false, true}}
	for _, p := range res {
		label := p.Asked
		if p.Asked == model.PathNCCL && p.Path != "" {
			label = "NCCL's own: " + p.Path
		}
		if p.Reason != "" {
			t.Add(label, "—", "not modeled: "+p.Reason, "", "", "", "")
			continue
		}
		for _, r := range p.Results {
			t.Add(label, r.Bytes.Human(), r.Time.Human(), r.BusBW.Human(), r.Algo+"/"+r.Proto, shortBound(r.Bottleneck), units.FormatSig(r.CoresPerNode, 2))
		}
	}
	return t.HTML(), nil
}

// shortBound is a bottleneck's name without its explanation in brackets.
func shortBound(b string) string {
	if i := strings.Index(b, " ("); i > 0 {
		return b[:i]
	}
	return b
}

// CollectiveChoices lists the size ranges over which NCCL picks one
// algorithm and protocol for c, from lo to hi (model.Collectives.Choices).
func CollectiveChoices(s *model.Scenario, c model.CollectiveSpec, lo, hi units.Bytes) (string, error) {
	segs, err := s.Collectives().Choices(c, lo, hi)
	if err != nil {
		return "", err
	}
	path := c.Path
	if path == "" {
		path, _ = s.NCCLPath(c.GPUsPerNode)
	}
	t := Table{Caption: "NCCL's choice by size on " + path, Head: []string{"from", "to", "algorithm", "protocol"}, Right: []bool{true, true, false, false}}
	for _, g := range segs {
		t.Add(g.From.Human(), g.To.Human(), g.Algo, g.Proto)
	}
	return t.HTML(), nil
}

// CollectiveCrossovers lists the sizes, from lo to hi, at which one path
// overtakes another for c (each on NCCL's choice for it).
func CollectiveCrossovers(s *model.Scenario, c model.CollectiveSpec, paths []string, lo, hi units.Bytes) (string, error) {
	cs := s.Collectives()
	t := Table{Caption: "Where one path overtakes another (" + c.Op + ", NCCL's choice on each)",
		Head: []string{"from", "faster", "slower"}, Right: []bool{true, false, false}}
	// A path the scenario cannot take is named with its reason, not compared.
	var ok []string
	var not []string
	for _, p := range paths {
		one := c
		one.Path = p
		if _, err := cs.Model(one, []units.Bytes{lo}); err != nil {
			not = append(not, err.Error())
			continue
		}
		ok = append(ok, p)
	}
	paths = ok
	for i, a := range paths {
		for _, b := range paths[i+1:] {
			ca, cb := c, c
			ca.Path, cb.Path = a, b
			xs, err := cs.Crossovers(ca, cb, lo, hi)
			if err != nil {
				return "", err
			}
			for _, x := range xs {
				t.Add(x.At.Human(), x.Faster, x.Slower)
			}
		}
	}
	if len(t.Rows) == 0 {
		t.Add("—", "no path overtakes another between "+lo.Human()+" and "+hi.Human(), "")
	}
	for _, why := range not {
		t.Add("—", "not compared: "+why, "")
	}
	return t.HTML(), nil
}

// CollectiveScaleTable is c of n bytes on each node count: what GPUDirect
// RDMA buys over NCCL's host-staged transport (model GDRGain), and the
// cores a node's socket transport burns beside gdr's (model TCPCores).
func CollectiveScaleTable(s *model.Scenario, c model.CollectiveSpec, n units.Bytes, nodes ...int) (string, error) {
	cs := s.Collectives()
	gain, err := cs.GDRGain(c, n, nodes)
	if err != nil {
		return "", err
	}
	cores, err := cs.TCPCores(c, n, nodes)
	if err != nil {
		return "", err
	}
	t := Table{Caption: fmt.Sprintf("%s of %s by node count (%d GPUs per node)", c.Op, n.Human(), c.GPUsPerNode),
		Head:  []string{"nodes", "gdr", "host-staged rdma", "GDR buys", "tcp", "tcp busbw", "tcp cores per node", "gdr cores per node"},
		Right: []bool{true, true, true, true, true, true, true, true}}
	for i := range nodes {
		g, k := gain[i], cores[i]
		t.Add(strconv.Itoa(g.Nodes), g.GDR.Human()+" "+g.GDRAlgo, g.HostStaged.Human()+" "+g.HostAlgo, units.FormatSig(g.Ratio, 3)+"×",
			k.Time.Human(), k.BusBW.Human(), units.FormatSig(k.Cores, 3), units.FormatSig(k.GDRCores, 2))
	}
	return t.HTML(), nil
}

// CollectiveAnswer answers, in one paragraph of Markdown computed from the
// model, what GPUDirect RDMA buys c of n bytes on nodes nodes and how many
// cores the socket transport burns there instead.
func CollectiveAnswer(s *model.Scenario, c model.CollectiveSpec, n units.Bytes, nodes int) (string, error) {
	cs := s.Collectives()
	gain, err := cs.GDRGain(c, n, []int{nodes})
	if err != nil {
		return "", err
	}
	cores, err := cs.TCPCores(c, n, []int{nodes})
	if err != nil {
		return "", err
	}
	g, k := gain[0], cores[0]
	ncclPath, why := s.NCCLPath(c.GPUsPerNode)
	buys := fmt.Sprintf("GPUDirect RDMA takes %s (%s) against %s (%s) through NCCL's host buffers: %s×", g.GDR.Human(), g.GDRAlgo, g.HostStaged.Human(), g.HostAlgo, units.FormatSig(g.Ratio, 3))
	if g.Ratio < 1.01 && g.Ratio > 0.99 {
		buys += ", the same to within 1 %: at this size the bandwidth of the links, not the staging, sets the time"
	}
	return fmt.Sprintf("**%s of %s on %d nodes × %d GPUs.** %s. NCCL's socket transport would take %s at %s busbw and keep %s cores of each node busy for it (gdr: %s). NCCL itself takes %s here: %s.",
		c.Op, n.Human(), nodes, c.GPUsPerNode, buys, k.Time.Human(), k.BusBW.Human(), units.FormatSig(k.Cores, 3), units.FormatSig(k.GDRCores, 2), ncclPath, why), nil
}
