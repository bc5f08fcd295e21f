package doctor

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Prices are what the model says, in the order of the cases; checked as
// properties (the model's own numbers are pkg/model's tests' business).
func TestPrice(t *testing.T) {
	p := NewPricer(model.Default(), "preset default")
	pr := p.Price(Cost{Lead: "GPUDirect RDMA unavailable", Before: Case{Path: "gdr"}, After: Case{Path: "rdma"}}, nil)
	if pr.Note != "" || len(pr.Points) != 3 || pr.Points[1].Bytes != 1<<20 {
		t.Fatalf("%+v", pr)
	}
	for _, pt := range pr.Points {
		if !(pt.LatencyAfter > pt.LatencyBefore) || pt.BandwidthBefore <= 0 || pt.BandwidthAfter <= 0 {
			t.Errorf("host staging is not slower at %d B: %+v", pt.Bytes, pt)
		}
	}
	if pr.CopiesAfter-pr.CopiesBefore != 2 || pr.DDRBefore != 0 || pr.DDRAfter <= 0 {
		t.Errorf("copies %d → %d, DDR %g → %g", pr.CopiesBefore, pr.CopiesAfter, pr.DDRBefore, pr.DDRAfter)
	}
	for _, want := range []string{"GPUDirect RDMA unavailable: the rdma path (RDMA, host-staged) moves 1 MiB in ", " instead of ", "on gdr", "2 extra copies"} {
		if !strings.Contains(pr.Summary, want) {
			t.Errorf("summary %q lacks %q", pr.Summary, want)
		}
	}
	// A degraded link on the same path.
	pr = p.Price(Cost{Lead: "x", Before: Case{Path: "gdr", Set: []model.Override{{Key: "gpu.pcie", Value: model.Link{Gen: 5, Lanes: 16}}}}, After: Case{Path: "gdr", Set: []model.Override{{Key: "gpu.pcie", Value: model.Link{Gen: 3, Lanes: 8}}}}}, nil)
	if !strings.HasPrefix(pr.Summary, "x: the gdr path moves") || pr.Points[2].BandwidthAfter >= pr.Points[2].BandwidthBefore {
		t.Errorf("%+v", pr)
	}
	// Not priceable, infeasible, bad key.
	if pr = p.Price(Cost{Lead: "x", Unpriced: "no parameter"}, nil); pr.Note != "no parameter" || len(pr.Points) != 0 {
		t.Errorf("%+v", pr)
	}
	if pr = p.Price(Cost{Lead: "x", Before: Case{Path: "gdr", Set: []model.Override{{Key: "nic.kind", Value: model.KindEthernet}, {Key: "nic.rdma", Value: false}}}, After: Case{Path: "tcp"}}, nil); !strings.Contains(pr.Note, "not priced") {
		t.Errorf("infeasible: %+v", pr)
	}
	if pr = p.Price(Cost{Lead: "x", Before: Case{Path: "gdr", Set: []model.Override{{Key: "no.such", Value: "key"}}}, After: Case{Path: "tcp"}}, nil); !strings.Contains(pr.Note, "not priced") {
		t.Errorf("bad key: %+v", pr)
	}
	// Identical cases: no difference.
	if pr = p.Price(Cost{Lead: "x", Before: Case{Path: "tcp"}, After: Case{Path: "tcp"}}, nil); !strings.Contains(pr.Summary, "no difference") {
		t.Errorf("same: %q", pr.Summary)
	}
}

// Host keys change the scenario under both cases; keys a person fixed
// (--set) stand.
func TestHostKeysAndFix(t *testing.T) {
	p := NewPricer(model.Default(), "preset default")
	c := Cost{Lead: "x", Before: Case{Path: "gdr"}, After: Case{Path: "gdr"}}
	slow := p.Price(c, []model.Override{{Key: "gpu.pcie", Value: model.Link{Gen: 3, Lanes: 4}}})
	fast := p.Price(c, nil)
	if !(slow.Points[2].BandwidthBefore < fast.Points[2].BandwidthBefore) {
		t.Errorf("host key ignored: %g vs %g", slow.Points[2].BandwidthBefore, fast.Points[2].BandwidthBefore)
	}
	p.Fix("gpu.pcie=gen5x16")
	host := []model.Override{{Key: "gpu.pcie", Value: model.Link{Gen: 3, Lanes: 4}}, {Key: "nic.mtu", Value: units.Bytes(1500)}}
	if got := p.hostKeys(host); len(got) != 1 || got[0].Key != "nic.mtu" {
		t.Errorf("fixed key overridden: %v", got)
	}
	r := runTree(t, "cross-socket")
	if len(r.Host) == 0 {
		t.Fatal("no host keys")
	}
}

// Every key a check suggests is typed: what it read reaches the scenario
// through calib.Overrides, never as "key=value" text parsed back; only
// names, kinds and families are text.
func TestCaseKeysTyped(t *testing.T) {
	text := map[string]bool{"gpu.model": true, "cpu.model": true, "cpu.family": true, "nic.model": true, "nic.kind": true, "network.switch": true}
	n := 0
	for _, tree := range []string{"cross-socket", "bridge-bad", "bad", "h200-vm", "pix-good"} {
		r := runTree(t, tree)
		for _, f := range r.Findings {
			if f.Cost == nil {
				continue
			}
			for _, o := range append(append([]model.Override(nil), f.Cost.Before.Set...), f.Cost.After.Set...) {
				n++
				if _, isText := o.Value.(string); isText && !text[o.Key] {
					t.Errorf("%s %s: %s given as text %q", tree, f.ID, o.Key, o.Value)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no case keys seen")
	}
}
