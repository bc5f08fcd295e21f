package model

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// resolvedBy returns the rule and source of key in s.
func resolvedBy(s *Scenario, key string) Resolved {
	for _, r := range s.Resolution() {
		if r.Key == key {
			return r
		}
	}
	return Resolved{}
}

// TestDefaultsFollowTheDeclaredHardware: what a partial scenario states
// decides the keys it implies (given > catalog > derived > preset), each
// with its rule and source.
func TestDefaultsFollowTheDeclaredHardware(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want map[string]string // key → value as Get prints it
		rule map[string]Rule
	}{
		{name: "nic.kind ib alone",
			// The default's MTU 9000 is no InfiniBand MTU: 4096; its 200
			// Gbit/s port meets an HDR switch (Quantum QM8700: 130 ns).
			yaml: "nic:\n  kind: ib\n",
			want: map[string]string{"nic.mtu": "4096", "nic.rdma": "true", "network.hop_latency": "130ns", "nic.header_split": "false"},
			rule: map[string]Rule{"nic.kind": RuleGiven, "nic.mtu": RuleDerived, "network.hop_latency": RuleDerived, "nic.rate": RulePreset}},
		{name: "EDR back to back",
			// 100 Gbit/s InfiniBand: Switch-IB 2 (90 ns) if there were a
			// switch; no hops: one 2 m cable; a 100 Gbit/s NIC on Gen3 x16.
			yaml: "nic:\n  kind: ib\n  rate: 100Gbit/s\nnetwork:\n  hops: 0\n",
			want: map[string]string{"network.cable": "2m", "network.hop_latency": "90ns", "nic.pcie": "gen3x16"},
			rule: map[string]Rule{"network.cable": RuleDerived, "nic.pcie": RuleDerived}},
		{name: "leaf-spine-leaf cable",
			// 3 hops: 2 × 3 m + 2 × 12 m = 30 m.
			yaml: "network:\n  hops: 3\n",
			want: map[string]string{"network.cable": "30m"}},
		{name: "Gen3 GPU, no CPU named",
			// The copy efficiency measured on Gen3 (0.873), and the CPU of
			// the era: Skylake-SP (Xeon Gold 6130: NCCL's SKL class, 10 GB/s
			// between sockets, 6 × DDR4-2666 = 128 GB/s).
			yaml: "gpu:\n  pcie: gen3x16\n",
			want: map[string]string{"gpu.h2d_efficiency": "0.873", "gpu.d2h_efficiency": "0.873", "cpu.family": "intel-skl",
				"topology.inter_socket_rate": "10GB/s", "memory.rate": "128GB/s"},
			rule: map[string]Rule{"cpu.family": RuleDerived, "gpu.h2d_efficiency": RuleDerived}},
		{name: "a named CPU beats the era",
			yaml: "gpu:\n  pcie: gen3x16\ncpu:\n  model: EPYC 7742\n",
			want: map[string]string{"cpu.family": "amd", "topology.inter_socket_rate": "16GB/s", "gpu.h2d_efficiency": "0.873"},
			rule: map[string]Rule{"cpu.family": RuleCatalog, "cpu.model": RuleGiven}},
		{name: "a family alone",
			yaml: "cpu:\n  family: intel-bdw\n",
			want: map[string]string{"topology.inter_socket_rate": "6GB/s"},
			rule: map[string]Rule{"topology.inter_socket_rate": RuleDerived}},
		{name: "given beats the catalog",
			yaml: "gpu:\n  model: A100-SXM4-80GB\n  pcie: gen5x16\n",
			want: map[string]string{"gpu.pcie": "gen5x16", "gpu.gdr_flush": "true", "gpu.memory_rate": "2039GB/s", "gpu.h2d_efficiency": "0.975"},
			rule: map[string]Rule{"gpu.pcie": RuleGiven, "gpu.gdr_flush": RuleCatalog}},
		{name: "the catalog beats a rule",
			// ConnectX-6 HDR is a Gen4 x16 card: the catalog says so before
			// the rate's rule could.
			yaml: "nic:\n  model: ConnectX-6 HDR\n",
			want: map[string]string{"nic.kind": "ib", "nic.rate": "200Gbit/s", "nic.pcie": "gen4x16", "nic.mtu": "4096"},
			rule: map[string]Rule{"nic.kind": RuleCatalog, "nic.pcie": RuleCatalog, "nic.mtu": RuleDerived}},
	} {
		s, err := Parse([]byte(tc.yaml), "partial.yaml")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for k, want := range tc.want {
			if got, _ := s.Get(k); got != want {
				r := resolvedBy(s, k)
				t.Errorf("%s: %s = %s (%s: %s), want %s", tc.name, k, got, r.Rule, r.Source, want)
			}
		}
		for k, want := range tc.rule {
			if r := resolvedBy(s, k); r.Rule != want || r.Source == "" {
				t.Errorf("%s: %s resolved by %s (%q), want %s with a source", tc.name, k, r.Rule, r.Source, want)
			}
		}
	}
}

// TestResolutionSources: a preset's value cites the comment beside it;
// a given one where it was given.
func TestResolutionSources(t *testing.T) {
	s, err := Parse([]byte("network:\n  hops: 1\n"), "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if r := resolvedBy(s, "network.hops"); r.Rule != RuleGiven || r.Source != "mine.yaml:2" {
		t.Errorf("hops: %+v", r)
	}
	if r := resolvedBy(s, "pcie.mps"); r.Rule != RulePreset || !strings.HasPrefix(r.Source, "preset default: ") || len(r.Source) < 30 {
		t.Errorf("mps: %+v, want the preset's comment", r)
	}
	if s.Base() != "default" || len(s.Given()) != 3 { // hops, and the name and description the file does not give
		t.Errorf("base %q, given %v", s.Base(), s.Given())
	}
	// ResolvedYAML reads back as the same scenario.
	back, err := Parse(s.ResolvedYAML(), "resolved.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(s, back); len(d) > 0 {
		t.Errorf("ResolvedYAML does not read back: %v", d)
	}
}

// TestApplyTogether: the overrides of one Apply are resolved together, so
// a combination valid only as a whole is accepted; one at a time it is
// not, and a refused Apply leaves the scenario as it was.
func TestApplyTogether(t *testing.T) {
	s, err := Parse([]byte("nic:\n  kind: roce\n  rdma: true\n"), "roce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	before := s.Clone()
	err = s.Apply(Override{Key: "nic.kind", Value: KindEthernet, Source: "test"})
	if err == nil || !strings.Contains(err.Error(), "nic.rdma") {
		t.Fatalf("ethernet with rdma given true: %v", err)
	}
	if d := Diff(before, s); len(d) > 0 {
		t.Errorf("a refused Apply changed %v", d)
	}
	if err := s.Apply(Override{Key: "nic.kind", Value: KindEthernet}, Override{Key: "nic.rdma", Value: false}); err != nil {
		t.Fatalf("together: %v", err)
	}
	if s.NIC.RDMA || s.NIC.Kind != KindEthernet {
		t.Errorf("kind %s rdma %v", s.NIC.Kind, s.NIC.RDMA)
	}
}

// TestTypedOverrides: a typed value takes the key's bounds as text does; a
// value of another type is refused with both types named.
func TestTypedOverrides(t *testing.T) {
	s := Default()
	if err := s.Apply(Override{Key: "nic.rate", Value: units.Rate(50e9), Source: "ibstat line 9"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get("nic.rate"); got != "400Gbit/s" {
		t.Errorf("nic.rate %s", got)
	}
	if r := resolvedBy(s, "nic.rate"); r.Source != "ibstat line 9" || r.Rule != RuleGiven {
		t.Errorf("%+v", r)
	}
	for _, o := range []Override{
		{Key: "nic.rate", Value: 5.0},
		{Key: "nic.rate", Value: units.Rate(-1)},
		{Key: "gpu.copy_latency", Value: units.Seconds(1)},
		{Key: "topology.gpu_nic", Value: Class("XYZ")},
		{Key: "nic.mtu", Value: units.Bytes(10)},
	} {
		if err := s.Clone().Apply(o); err == nil {
			t.Errorf("%s = %v (%T) accepted", o.Key, o.Value, o.Value)
		}
	}
}

// TestUnknownModelWarns: a name the catalog does not know stays free text
// and the other keys keep their values, with a warning naming near names.
func TestUnknownModelWarns(t *testing.T) {
	s, err := Parse([]byte("gpu:\n  model: A100\n"), "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := Default()
	if d := Diff(base, s); strings.Join(d, ",") != "description,gpu.model,name" {
		t.Errorf("changed %v", d)
	}
	w := strings.Join(s.Warnings(), "; ")
	if !strings.Contains(w, `gpu.model "A100" is not in the catalog`) || !strings.Contains(w, "A100-SXM4-80GB") {
		t.Errorf("warning %q", w)
	}
}
