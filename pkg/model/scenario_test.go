package model

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

func TestScenarioFileBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // all must appear in the error
	}{
		{"unknown key", "gpu:\n  pcie: gen5x16\n  foo: 1\n", []string{"s.yaml:3", "gpu.foo", "unknown key"}},
		{"unknown section", "gpus:\n  pcie: gen5x16\n", []string{"s.yaml:1", "gpus", "unknown key"}},
		{"bad unit", "nic:\n  rate: 400 parsecs\n", []string{"s.yaml:2", "nic.rate", "unknown rate unit"}},
		{"negative rate", "memory:\n  rate: -3GB/s\n", []string{"s.yaml:2", "memory.rate", "positive"}},
		{"zero rate", "nic:\n  rate: 0Gbit/s\n", []string{"nic.rate", "positive"}},
		{"mtu 0", "nic:\n  mtu: 0\n", []string{"s.yaml:2", "nic.mtu", "out of range"}},
		{"gen9", "gpu:\n  pcie: gen9x16\n", []string{"s.yaml:2", "gpu.pcie", "generation 9"}},
		{"lanes", "nic:\n  pcie: gen4x3\n", []string{"nic.pcie", "x3"}},
		{"bad class", "topology:\n  gpu_nic: NEAR\n", []string{"topology.gpu_nic", "PIX"}},
		{"list value", "network:\n  hops: [1, 2]\n", []string{"network.hops", "list"}},
		{"empty value", "nic:\n  rate:\n", []string{"nic.rate", "no value"}},
		{"duplicate", "nic:\n  mtu: 4096\n  mtu: 9000\n", []string{"s.yaml:3", "nic.mtu", "twice"}},
		{"section as value", "nic: 5\n", []string{"nic", "section"}},
		{"value as section", "nic:\n  rate:\n    x: 1\n", []string{"nic.rate", "section"}},
		{"empty", "   \n# only a comment\n", []string{"empty"}},
		{"not yaml", "gpu: [unclosed\n  pcie: : :\n", []string{"s.yaml", "not valid YAML"}},
		{"not a mapping", "- just\n- a list\n", []string{"not a scenario"}},
		{"plain text", "Hello, this is a README.\n", []string{"not a scenario"}},
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00", []string{"not a text file"}},
		{"unknown base", "base: nonesuch\n", []string{"base", "unknown preset"}},
		{"ib mtu", "nic:\n  kind: ib\n  mtu: 9000\n", []string{"nic.mtu", "InfiniBand MTU"}},
		{"ethernet rdma", "nic:\n  kind: ethernet\n  rdma: true\n", []string{"nic.rdma", "roce"}},
		{"factor", "topology:\n  phb_read_factor: 1.5\n", []string{"topology.phb_read_factor", "out of range"}},
		{"factor zero", "pcie:\n  bidir_factor: 0\n", []string{"pcie.bidir_factor", "out of range"}},
		{"inline", "nic:\n  inline_size: 8KiB\n", []string{"nic.inline_size", "out of range"}},
		{"hbm", "gpu:\n  memory_rate: 200000GB/s\n", []string{"gpu.memory_rate", "out of range"}},
		{"proxy", "nccl:\n  net_overhead: 1ms\n", []string{"nccl.net_overhead", "out of range"}},
		{"stack", "software:\n  stack: mpich\n", []string{"software.stack", "unknown software stack", "ucx"}},
		{"encoding", "nic:\n  encoding: manchester\n", []string{"nic.encoding", "not one of"}},
	} {
		_, err := Parse([]byte(tc.yaml), "s.yaml")
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: %T is not an InputError", tc.name, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error spans lines: %q", tc.name, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, msg, w)
			}
		}
	}
}

func TestScenarioFileOverridesBase(t *testing.T) {
	s, err := Parse([]byte("base: dgx-h100-ndr\nname: mine\nnic:\n  rate: 200Gbit/s\n"), "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Preset("dgx-h100-ndr")
	// The rate given, and the NIC's PCIe link derived from it (a 200
	// Gbit/s NIC is built on Gen4 x16): nothing else moves.
	if d := Diff(base, s); strings.Join(d, ",") != "description,name,nic.pcie,nic.rate" {
		t.Errorf("changed keys %v, want name, description (the file names none: the preset with its keys), nic.rate and the nic.pcie it implies", d)
	}
	for _, r := range s.Resolution() {
		want := map[string]Rule{"name": RuleGiven, "nic.rate": RuleGiven, "nic.pcie": RuleDerived, "nic.kind": RulePreset}[r.Key]
		if want != "" && r.Rule != want {
			t.Errorf("%s resolved by %s (%s), want %s", r.Key, r.Rule, r.Source, want)
		}
	}
	if s.NIC.Rate != 25e9 {
		t.Errorf("nic.rate = %v", s.NIC.Rate)
	}
}

func TestSetNamesKey(t *testing.T) {
	s := Default()
	for _, tc := range []struct{ key, val, want string }{
		{"nic.rat", "1Gbit/s", "did you mean nic.rate"},
		{"nic.rate", "-1Gbit/s", "nic.rate"},
		{"nic.mtu", "0", "nic.mtu"},
		{"gpu.pcie", "gen9x16", "gpu.pcie"},
		{"stack.flows", "0", "stack.flows"},
		{"pipeline.chunk", "1B", "pipeline.chunk"},
		{"zzz", "1", "unknown key"},
	} {
		err := s.Set(tc.key, tc.val)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s=%s) = %v, want an error containing %q", tc.key, tc.val, err, tc.want)
		}
	}
	if err := s.Set("nic.rate", "100Gbps"); err != nil || s.NIC.Rate != 12.5e9 {
		t.Errorf("Set nic.rate: %v, %v", err, s.NIC.Rate)
	}
	if v, _ := s.Get("nic.rate"); v != "100Gbit/s" {
		t.Errorf("Get nic.rate = %q", v)
	}
}

func FuzzParseScenario(f *testing.F) {
	for _, n := range PresetNames() {
		src, _ := PresetSource(n)
		f.Add(src)
	}
	f.Add([]byte("nic:\n  rate: 1e400Gbit/s\n"))
	f.Add([]byte("gpu: {pcie: gen5x16, copy_latency: 1us}\n"))
	f.Add([]byte("&a [*a]"))
	f.Add([]byte("base: default\nbase: gen3-edr\n"))
	// Extreme floats: subnormals, 1e±300, overflow to ±Inf; and a second
	// document, an alias to a plain value.
	f.Add([]byte("nic:\n  rate: 5e-324Gbit/s\nstack:\n  syscall: 4.9e-324s\n"))
	f.Add([]byte("nic:\n  rate: 1e-300bit/s\n  latency: 1e300s\n"))
	f.Add([]byte("memory:\n  rate: 1e300GB/s\ncpu:\n  memcpy_rate: -1e999GB/s\n"))
	f.Add([]byte("topology:\n  phb_factor: 5e-324\n  sys_factor: NaN\n  node_factor: .inf\n"))
	f.Add([]byte("name: a\n---\nname: b\n"))
	f.Add([]byte("name: &n fast\ndescription: *n\nnic: &s {rate: 1kbit/s}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		back, err := Parse(s.YAML(), "rewritten.yaml")
		if err != nil {
			t.Fatalf("accepted scenario does not re-parse: %v\n%s", err, s.YAML())
		}
		if d := Diff(s, back); len(d) > 0 {
			t.Fatalf("round trip changed %v", d)
		}
		// every path evaluates without panicking, and the JSON output
		// holds only finite numbers (encoding/json refuses ±Inf and NaN)
		for _, p := range Paths() {
			p.Route(s).Evaluate(4096)
		}
		if err := WriteJSON(io.Discard, s, Sweep(s, Paths(), []units.Bytes{1, 4096, 1 << 40})); err != nil {
			t.Fatalf("JSON output: %v", err)
		}
	})
}

// TestTextValuesBounded: a scenario's text values are at most
// MaxTextBytes, from a file and from --set alike (a name of 100,000 bytes
// kept a report busy for minutes in one caption).
func TestTextValuesBounded(t *testing.T) {
	long := strings.Repeat("N", MaxTextBytes+1)
	if _, err := Parse([]byte("name: "+long+"\n"), "s.yaml"); err == nil || !strings.Contains(err.Error(), "at most 1024") {
		t.Errorf("file: %v", err)
	}
	s, _ := Preset("default")
	if err := s.Set("gpu.model", long); err == nil {
		t.Error("--set gpu.model of 1025 bytes accepted")
	}
	if err := s.Set("description", long[:MaxTextBytes]); err != nil {
		t.Errorf("1024 bytes: %v", err)
	}
}
