package nb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Variation is one what-if axis: scenario keys that are set together to
// each of Values in turn (the same keys and values as in a scenario file or
// `gpupath model --set`).
type Variation struct {
	Name   string   // "NIC rate"
	Keys   []string // {"gpu.pcie", "nic.pcie"}: set together
	Values []string // {"gen3x16", "gen4x16", ...}
}

// WhatIfs are the axes the what-if notebook explores: NIC rate, PCIe
// generation (GPU and NIC together), the GPU–NIC topology class, MTU and the
// pipeline's chunk size.
func WhatIfs() []Variation {
	var classes []string
	for _, c := range model.Classes {
		classes = append(classes, string(c))
	}
	return []Variation{
		{Name: "NIC rate", Keys: []string{"nic.rate"}, Values: []string{"100Gbit/s", "200Gbit/s", "400Gbit/s", "800Gbit/s"}},
		{Name: "PCIe generation", Keys: []string{"gpu.pcie", "nic.pcie"}, Values: []string{"gen3x16", "gen4x16", "gen5x16", "gen6x16"}},
		{Name: "GPU–NIC topology", Keys: []string{"topology.gpu_nic"}, Values: classes},
		{Name: "MTU", Keys: []string{"nic.mtu"}, Values: []string{"1500", "4096", "9000"}},
		{Name: "chunk size", Keys: []string{"pipeline.chunk"}, Values: []string{"64KiB", "256KiB", "1MiB", "4MiB"}},
	}
}

// Apply returns a copy of base with the variation's keys set to value.
func (v Variation) Apply(base *model.Scenario, value string) (*model.Scenario, error) {
	s := base.Clone()
	ovs := make([]model.Override, len(v.Keys))
	for i, k := range v.Keys {
		ovs[i] = model.Override{Key: k, Value: value, Source: "what-if " + v.Name}
	}
	if err := s.Apply(ovs...); err != nil {
		return nil, err
	}
	return s, nil
}

// segments formats "gdr", "devmem, then rdma from 280 KiB", or, where the
// lead changes back and forth (pipelined latency steps at each chunk),
// "devmem, then rdma from 384 KiB; 4 more changes; rdma from 512 KiB on"
// (the last segment counts among the changes).
func segments(segs []model.Segment) string {
	switch len(segs) {
	case 0:
		return "—"
	case 1:
		return segs[0].Path + " throughout"
	case 2:
		return fmt.Sprintf("%s, then %s from %s", segs[0].Path, segs[1].Path, segs[1].From.Human())
	}
	last, more := segs[len(segs)-1], "1 more change"
	if len(segs) > 3 {
		more = strconv.Itoa(len(segs)-2) + " more changes"
	}
	return fmt.Sprintf("%s, then %s from %s; %s; %s from %s on", segs[0].Path, segs[1].Path,
		segs[1].From.Human(), more, last.Path, last.From.Human())
}

// CrossoverTable tabulates, for each value of v, the fastest path at each
// message size (1 B to 1 GiB, pipelined latency) and, for each pair of
// paths whose order changes with size somewhere along v, where it changes.
func CrossoverTable(base *model.Scenario, v Variation, paths []string) (string, error) {
	const lo, hi = units.Bytes(1), units.Bytes(1 << 30)
	type row struct {
		value   string
		fastest []model.Segment
		pairs   map[string][]model.Segment
	}
	var rows []row
	var pairNames []string
	crosses := map[string]bool{}
	for _, val := range v.Values {
		s, err := v.Apply(base, val)
		if err != nil {
			return "", err
		}
		r := row{value: val, pairs: map[string][]model.Segment{}}
		if r.fastest, err = model.Fastest(s, paths, lo, hi); err != nil {
			return "", err
		}
		for i, a := range paths {
			for _, b := range paths[i+1:] {
				name := a + " vs " + b
				if len(rows) == 0 {
					pairNames = append(pairNames, name)
				}
				segs, err := model.Fastest(s, []string{a, b}, lo, hi)
				if err != nil {
					return "", err
				}
				r.pairs[name] = segs
				if len(segs) > 1 {
					crosses[name] = true
				}
			}
		}
		rows = append(rows, r)
	}
	t := &Table{Caption: fmt.Sprintf("%s (%s) on %s: fastest path by message size from %s to %s, and where pairs of paths cross",
		v.Name, strings.Join(v.Keys, ", "), base.Name, lo.Human(), hi.Human()),
		Head: []string{v.Name, "fastest"}}
	var shown []string
	for _, p := range pairNames {
		if crosses[p] {
			shown = append(shown, p)
			t.Head = append(t.Head, p)
		}
	}
	for _, r := range rows {
		cells := []string{r.value, segments(r.fastest)}
		for _, p := range shown {
			cells = append(cells, segments(r.pairs[p]))
		}
		t.Add(cells...)
	}
	if len(shown) == 0 {
		t.Caption += " — no two paths cross at any setting"
	}
	return t.HTML(), nil
}

// CoresTable tabulates, for each value of v and each message size, the
// CPU cores (both nodes together) each path needs to carry its line rate,
// and that line rate.
func CoresTable(base *model.Scenario, v Variation, paths []string, sizes ...units.Bytes) (string, error) {
	if len(sizes) == 0 {
		return "", fmt.Errorf("nb: no message size")
	}
	t := &Table{Caption: fmt.Sprintf("%s (%s) on %s: CPU cores both nodes need at line rate",
		v.Name, strings.Join(v.Keys, ", "), base.Name),
		Head: []string{v.Name, "message"}, Right: []bool{false, true}}
	for _, p := range paths {
		t.Head = append(t.Head, p)
		t.Right = append(t.Right, true)
	}
	for _, val := range v.Values {
		s, err := v.Apply(base, val)
		if err != nil {
			return "", err
		}
		for _, n := range sizes {
			cells := []string{val, n.Human()}
			for _, p := range paths {
				r, err := s.Route(p)
				if err != nil {
					return "", err
				}
				if !r.Feasible {
					cells = append(cells, "infeasible")
					continue
				}
				res := r.Evaluate(n)
				cells = append(cells, fmt.Sprintf("%s at %s", cores(res.Cores), rate(res.LineRate)))
			}
			t.Add(cells...)
		}
	}
	return t.HTML(), nil
}
