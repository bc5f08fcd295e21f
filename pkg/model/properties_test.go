package model

import (
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// propertyScenarios are every preset alone, every preset with each
// catalog GPU named (gpu.model), and with each catalog NIC named
// (nic.model): what the catalog's facts and the rules make of them.
func propertyScenarios(t *testing.T) map[string]*Scenario {
	t.Helper()
	out := map[string]*Scenario{}
	for _, name := range PresetNames() {
		s, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = s
		for _, kind := range []struct{ catalog, key string }{{CatalogGPU, "gpu.model"}, {CatalogNIC, "nic.model"}} {
			for _, e := range Catalog(kind.catalog) {
				v, err := Resolve(name, Override{Key: kind.key, Value: e.Name})
				if err != nil {
					continue // a combination Validate refuses (a plain NIC on a preset that asks for RDMA, …)
				}
				out[name+" + "+e.Name] = v
			}
		}
	}
	return out
}

// The model's physics over presets × catalog GPUs and NICs, under every
// software stack: latency never falls with size (one-message, step by
// step and pipelined); no inter-node path streams faster than the wire's
// data rate or the NIC's PCIe link; gdr is never faster than host-rdma at
// 8 B (GPU memory is never inline and its read goes through BAR1).
func TestPropertiesPresetsCatalog(t *testing.T) {
	sizes := []units.Bytes{1, 8, 64, 220, 221, 1024, 4095, 4096, 4097, 8192, 12 << 10, 64 << 10, 64<<10 + 1, 256 << 10, 1 << 20, 16 << 20, 1 << 30}
	if testing.Short() {
		sizes = []units.Bytes{1, 8, 221, 4097, 64 << 10, 1 << 20, 1 << 30}
	}
	stacks := StackNames()
	checked := 0
	for name, base := range propertyScenarios(t) {
		for _, stack := range stacks {
			if testing.Short() && stack != StackNone && stack != StackUCX {
				continue
			}
			s := base.WithStack(stack)
			limit := math.Min(float64(s.DataRate()), float64(s.nicLinkRate()))
			for _, p := range Paths() {
				r := p.Route(s)
				if !r.Feasible {
					continue
				}
				var prev Result
				for i, n := range sizes {
					res := r.Evaluate(n)
					checked++
					if i > 0 && (res.Latency < prev.Latency || res.StepByStep < prev.StepByStep || res.Pipelined < prev.Pipelined) {
						t.Errorf("%s [%s] %s: latency fell from %d B to %d B: %v → %v (step by step %v → %v, pipelined %v → %v)",
							name, stack, p.Name, prev.Bytes, n, prev.Latency, res.Latency, prev.StepByStep, res.StepByStep, prev.Pipelined, res.Pipelined)
					}
					if p.Internode && s.NIC.Kind != KindLoopback && float64(res.Bandwidth) > limit*(1+1e-12) {
						t.Errorf("%s [%s] %s at %d B: %v above the slowest link %v", name, stack, p.Name, n, res.Bandwidth.Human(), units.Rate(limit).Human())
					}
					if res.Latency > res.StepByStep*(1+1e-12) || res.Pipelined > res.Latency*(1+1e-12) {
						t.Errorf("%s [%s] %s at %d B: pipelined %v ≤ latency %v ≤ step by step %v broken", name, stack, p.Name, n, res.Pipelined, res.Latency, res.StepByStep)
					}
					prev = res
				}
			}
			g, h := s.MustRoute("gdr"), s.MustRoute("host-rdma")
			if g.Feasible && h.Feasible {
				if gl, hl := g.Evaluate(8).Latency, h.Evaluate(8).Latency; gl < hl {
					t.Errorf("%s [%s]: gdr 8 B %v faster than host-rdma %v", name, stack, gl, hl)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}
