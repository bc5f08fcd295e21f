package calib

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// allFacts knows every fact, with names the catalog knows exactly.
func allFacts() Facts {
	src := "test"
	return Facts{
		GPU: Found("NVIDIA H100 80GB HBM3", src), GPUPCIe: Found(model.Link{Gen: 5, Lanes: 16}, src),
		CopyLatency: Found(units.Seconds(2.5e-6), src), CopyRate: Found(units.Rate(50e9), src), NVLinkRate: Found(units.Rate(390e9), src),
		CPU: Found("Intel(R) Xeon(R) Platinum 8480C", src), CPUFamily: Found(model.FamilyIntelSRP, src), Cores: Found(112, src),
		MemcpyRate: Found(units.Rate(12e9), src), Syscall: Found(units.Seconds(100e-9), src),
		TxPerMessage: Found(units.Seconds(2e-6), src), RxPerMessage: Found(units.Seconds(1e-6), src), Wakeup: Found(units.Seconds(3e-6), src),
		NIC: Found("ConnectX-7 NDR", src), NICKind: Found(model.KindIB, src), NICRate: Found(units.Rate(400e9/8), src),
		PortsUsed: Found(1, src), NICPCIe: Found(model.Link{Gen: 5, Lanes: 16}, src), RDMA: Found(true, src), MTU: Found(units.Bytes(4096), src),
		MPS: Found(units.Bytes(256), src), GPUNIC: Found(model.PIX, src), CPUGPU: Found(model.PHB, src),
		Hops: Found(1, src), Cable: Found(units.Meters(6), src), Switch: Found("Quantum-2 QM9700", src),
	}
}

// The one path from facts to a scenario is typed: no fact is formatted into
// text and parsed back. Only names, kinds and families are text.
func TestOverridesTyped(t *testing.T) {
	ovs := Overrides(allFacts())
	keys := map[string]bool{}
	for _, o := range ovs {
		keys[o.Key] = true
		if _, isText := o.Value.(string); isText && !textKeys[o.Key] {
			t.Errorf("%s is given as text %q: a fact must reach the scenario typed", o.Key, o.Value)
		}
		if o.Source == "" {
			t.Errorf("%s has no source", o.Key)
		}
	}
	// Every field of Facts reaches a key.
	for _, k := range []string{"gpu.model", "gpu.pcie", "gpu.copy_latency", "gpu.copy_rate", "gpu.nvlink_rate", "cpu.model", "cpu.family", "cpu.cores",
		"cpu.memcpy_rate", "stack.syscall", "stack.tx_per_message", "stack.rx_per_message", "stack.wakeup", "nic.model", "nic.kind", "nic.rate",
		"nic.pcie", "nic.mtu", "nic.rdma", "pcie.mps", "topology.gpu_nic", "topology.cpu_gpu", "network.switch", "network.hops", "network.cable"} {
		if !keys[k] {
			t.Errorf("no override of %s", k)
		}
	}
	s, err := model.Resolve("default", ovs...)
	if err != nil {
		t.Fatal(err)
	}
	if s.GPU.Model != "H100-SXM5-80GB" || s.CPU.Model != "Xeon Platinum 8480C" || s.NIC.Rate != 50e9 || s.Network.Cable != 6 {
		t.Errorf("resolved: gpu %q cpu %q rate %v cable %v", s.GPU.Model, s.CPU.Model, s.NIC.Rate, s.Network.Cable)
	}
	for _, r := range s.Resolution() {
		if r.Key == "gpu.memory_rate" && r.Rule != model.RuleCatalog {
			t.Errorf("gpu.memory_rate %s from %s, want the catalog's", r.Value, r.Rule)
		}
	}
}

func TestOverridesNames(t *testing.T) {
	byKey := func(ovs []model.Override) map[string]model.Override {
		m := map[string]model.Override{}
		for _, o := range ovs {
			m[o.Key] = o
		}
		return m
	}
	// A name of several entries gives what they share: the four A100s
	// agree on their PCIe link and flush, not on memory.
	got := byKey(Overrides(Facts{GPU: Found("A100", "row")}))
	if got["gpu.model"].Value != "A100" || got["gpu.pcie"].Value != "gen4x16" || !strings.Contains(got["gpu.pcie"].Source, "A100-SXM4-80GB") {
		t.Errorf("A100: %v", got)
	}
	if _, ok := got["gpu.memory_rate"]; ok {
		t.Errorf("A100: memory %v, which the entries do not share", got["gpu.memory_rate"])
	}
	// The NIC's kind and rate pick one of several entries.
	got = byKey(Overrides(Facts{NIC: Found("ConnectX-4", "row"), NICKind: Found(model.KindIB, "row"), NICRate: Found(units.Rate(100e9/8), "row")}))
	if got["nic.model"].Value != "ConnectX-4 EDR" || !strings.Contains(got["nic.model"].Source, "fits the other facts") {
		t.Errorf("ConnectX-4 on InfiniBand at 100G: %+v", got["nic.model"])
	}
	// An InfiniBand generation is a NIC's name too; an unknown name is
	// given as written.
	if got := byKey(Overrides(Facts{NIC: Found("EDR", "row")})); got["nic.model"].Value != "EDR" {
		t.Errorf("EDR: %v", got)
	}
	if got := byKey(Overrides(Facts{NIC: Found("Frobnicator 9000", "row")})); len(got) != 1 || got["nic.model"].Value != "Frobnicator 9000" {
		t.Errorf("unknown: %v", got)
	}
	// Ports: the most common active rate, times the ports a transfer uses.
	f := Facts{Ports: []Port{{Name: "mlx5_0 port 1", Kind: model.KindIB, Rate: 200e9 / 8}, {Name: "mlx5_1 port 1", Kind: model.KindIB, Rate: 200e9 / 8},
		{Name: "mlx5_2 port 1", Kind: model.KindRoCE, Rate: 100e9 / 8}, {Name: "mlx5_3 port 1", Rate: 400e9 / 8, Down: true}}, PortsUsed: Found(2, "dual-port")}
	got = byKey(Overrides(f))
	if got["nic.kind"].Value != model.KindIB || got["nic.rate"].Value != units.Rate(400e9/8) || !strings.Contains(got["nic.rate"].Source, "2 of 4 ports") {
		t.Errorf("ports: %v", got)
	}
}

func TestMerge(t *testing.T) {
	file := Facts{GPU: Found("H100", "file"), Ports: []Port{{Name: "mlx5_0", Kind: model.KindIB}}}
	run := Facts{GPU: Found("A100", "run"), GPUNIC: Found(model.PIX, "run"), Ports: []Port{{Name: "mlx5_0", Rate: 200e9 / 8}}}
	m := file.Merge(run)
	if m.GPU.Value != "H100" || m.GPUNIC.Value != model.PIX || len(m.Ports) != 2 {
		t.Errorf("merged %+v", m)
	}
	if r, ok := m.nicRate(); !ok || r.Value != 200e9/8 {
		t.Errorf("rate %v", r)
	}
}

// The packages that bring facts to a scenario (calib, validate, doctor,
// report, nb) give values typed: a test of the sources, so that a new site
// that formats a value into "key=value" text, or gives an override a
// formatted value, fails here.
func TestNoFormattedOverrides(t *testing.T) {
	bad := []*regexp.Regexp{
		regexp.MustCompile(`\.Set\("[a-z_]+\.[a-z_]+",`),  // Scenario.Set of a key with text
		regexp.MustCompile(`Sprintf\("[a-z_]+\.[a-z_]+=`), // "key=value" built from a value
		regexp.MustCompile(`Key:\s*"[a-z_]+\.[a-z_]+",\s*Value:\s*(fmt\.Sprint|strconv\.|[^,}]*\.(String|BitString|Compact|Human)\(\))`), // an override of a formatted value
	}
	n := 0
	for _, dir := range []string{".", "../validate", "../doctor", "../report", "../nb", "../nb/measured"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for i, line := range strings.Split(string(b), "\n") {
				for _, re := range bad {
					if re.MatchString(line) {
						t.Errorf("%s:%d: a value formatted for a scenario key: %s", file, i+1, strings.TrimSpace(line))
					}
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d files read", n)
	}
}
