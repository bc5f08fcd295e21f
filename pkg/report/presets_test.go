package report

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
)

// Every preset renders, and so do scenarios where whole groups of paths are
// infeasible: no RDMA, the loopback device (no NIC: no diagram).
func TestRenderEveryScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every preset: skipped with -short")
	}
	var scenarios []*model.Scenario
	for _, name := range model.PresetNames() {
		s, err := model.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		scenarios = append(scenarios, s)
	}
	for _, sets := range [][]string{
		{"nic.kind=ethernet", "nic.rdma=false", "nic.header_split=false"},
		{"nic.kind=loopback", "nic.rdma=false"},
		{"topology.gpu_nic=NODE", "stack.flows=8", "nic.tso=false", "nic.gro=false", "nic.checksum_offload=false"},
	} {
		s := model.Default()
		s.Name = "default with " + strings.Join(sets, ", ")
		for _, kv := range sets {
			k, v, _ := strings.Cut(kv, "=")
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("%v: %v", sets, err)
		}
		scenarios = append(scenarios, s)
	}
	for _, s := range scenarios {
		in := goldenInput()
		in.Scenario = s
		r, err := Render(in)
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		page := string(r.File(HTMLFile))
		if r.Pages < len(SectionTitles()) || len(r.Figures) < 3 || strings.Count(page, "<svg ") != len(r.Figures) {
			t.Errorf("%s: %d pages, %d figures, %d SVGs", s.Name, r.Pages, len(r.Figures), strings.Count(page, "<svg "))
		}
	}
}
