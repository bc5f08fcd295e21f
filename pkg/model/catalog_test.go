package model

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestCatalogLoads(t *testing.T) {
	if err := CheckCatalog(); err != nil {
		t.Fatal(err)
	}
	for _, k := range CatalogKinds {
		if len(Catalog(k)) == 0 {
			t.Errorf("no %s entries", k)
		}
	}
	if got, want := len(Catalog("")), len(Catalog(CatalogGPU))+len(Catalog(CatalogNIC))+len(Catalog(CatalogCPU))+len(Catalog(CatalogSwitch))+len(Catalog(CatalogInfiniBand)); got != want {
		t.Errorf("Catalog(\"\") has %d entries, the kinds %d", got, want)
	}
}

// Every fact is a scenario key of its kind's sections, its value parses
// (within the key's bounds) on every preset, and every fact and note has a
// source.
func TestCatalogFactsParseAndCite(t *testing.T) {
	sections := map[string][]string{
		CatalogGPU:        {"gpu."},
		CatalogNIC:        {"nic."},
		CatalogInfiniBand: {"nic."},
		CatalogCPU:        {"cpu.", "memory.", "topology.inter_socket_rate"},
		CatalogSwitch:     {"network."},
	}
	facts, sources := 0, map[string]bool{}
	for _, e := range Catalog("") {
		if e.Summary == "" || len(e.Facts) == 0 {
			t.Errorf("%s %q: no summary or no facts", e.Kind, e.Name)
		}
		for _, f := range e.Facts {
			facts++
			sources[f.Source] = true
			if _, ok := lookupKey(f.Key); !ok {
				t.Errorf("%s %q: %s is not a scenario key", e.Kind, e.Name, f.Key)
			}
			ok := false
			for _, p := range sections[e.Kind] {
				ok = ok || strings.HasPrefix(f.Key, p)
			}
			if !ok {
				t.Errorf("%s %q: %s is not a key of a %s (%v)", e.Kind, e.Name, f.Key, e.Kind, sections[e.Kind])
			}
			if strings.TrimSpace(f.Source) == "" {
				t.Errorf("%s %q: %s has no source", e.Kind, e.Name, f.Key)
			}
		}
		for _, n := range e.Notes {
			if strings.TrimSpace(n.Source) == "" || strings.TrimSpace(n.Fact) == "" {
				t.Errorf("%s %q: note %q has no source", e.Kind, e.Name, n.Fact)
			}
		}
		// Named in a scenario, the entry's facts resolve on every preset,
		// each with the catalog as its rule.
		for _, p := range PresetNames() {
			if _, err := Resolve(p, Override{Key: catalogKey(e.Kind), Value: e.Name}); err != nil {
				t.Errorf("on preset %s: %v", p, err)
			}
		}
		s, err := Resolve("default", Override{Key: catalogKey(e.Kind), Value: e.Name})
		if err != nil {
			continue
		}
		rules := map[string]Rule{}
		for _, r := range s.Resolution() {
			rules[r.Key] = r.Rule
		}
		for _, f := range e.Facts {
			if f.Key == catalogKey(e.Kind) {
				continue // the name given stays as written
			}
			var want Scenario
			k, _ := lookupKey(f.Key)
			k.parse(&want, f.Value)
			if got, w := k.Text(s), k.Text(&want); got != w {
				t.Errorf("%s %q: %s reads back %q, want %q", e.Kind, e.Name, f.Key, got, w)
			}
			if rules[f.Key] != RuleCatalog {
				t.Errorf("%s %q: %s resolved by %s, want the catalog", e.Kind, e.Name, f.Key, rules[f.Key])
			}
		}
	}
	t.Logf("%d entries, %d facts, %d distinct sources", len(Catalog("")), facts, len(sources))
}

// Facts agree with the rules they cite: the NCCL class sets the
// inter-socket rate, an Ethernet NIC without RoCE has no RDMA, GPUs flush
// below compute capability 9.0, InfiniBand generations are ib.
func TestCatalogFactsConsistent(t *testing.T) {
	ncclBW := map[string]string{ // NCCL src/graph/topo.h at 5067397c
		FamilyIntelBDW: "6GB/s", FamilyIntelSKL: "10GB/s", FamilyIntelSRP: "22GB/s", FamilyIntelERP: "40GB/s",
		FamilyAMD: "16GB/s", FamilyARM: "6GB/s", FamilyPower9: "32GB/s",
	}
	cc := regexp.MustCompile(`compute capability (\d+)\.(\d+)`)
	for _, e := range Catalog("") {
		v := func(key string) string { f, _ := e.Fact(key); return f.Value }
		switch e.Kind {
		case CatalogCPU:
			fam := v("cpu.family")
			if fam == "" {
				t.Errorf("cpu %q: no cpu.family", e.Name)
			}
			if got := v("topology.inter_socket_rate"); got != ncclBW[fam] {
				t.Errorf("cpu %q: topology.inter_socket_rate %s, NCCL's %s figure is %s", e.Name, got, fam, ncclBW[fam])
			}
		case CatalogNIC, CatalogInfiniBand:
			if v("nic.kind") == KindEthernet && v("nic.rdma") == "true" {
				t.Errorf("%s %q: an ethernet NIC with RDMA (use roce)", e.Kind, e.Name)
			}
			if v("nic.kind") == KindIB && v("nic.header_split") == "true" {
				t.Errorf("%s %q: header split on InfiniBand (devmem TCP is Ethernet only)", e.Kind, e.Name)
			}
			if e.Kind == CatalogInfiniBand && (v("nic.kind") != KindIB || v("nic.rate") == "" || v("nic.encoding") == "") {
				t.Errorf("infiniband %q: needs nic.kind ib, nic.rate and nic.encoding", e.Name)
			}
		case CatalogGPU:
			flush := v("gpu.gdr_flush")
			for _, n := range e.Notes {
				if m := cc.FindStringSubmatch(n.Fact); m != nil && flush != "" {
					major, _ := strconv.Atoi(m[1])
					if want := strconv.FormatBool(major < 9); flush != want {
						t.Errorf("gpu %q: compute capability %s.%s but gpu.gdr_flush %s", e.Name, m[1], m[2], flush)
					}
				}
			}
			if v("gpu.memory_rate") == "" {
				t.Errorf("gpu %q: needs gpu.memory_rate", e.Name)
			}
			if v("gpu.pcie") == "" && !notesMention(e, "gpu.pcie is left to the scenario") {
				t.Errorf("gpu %q: no gpu.pcie, and no note says why", e.Name)
			}
		case CatalogSwitch:
			if v("network.switch") == "" {
				t.Errorf("switch %q: no network.switch", e.Name)
			}
		}
	}
}

// Every name and alias finds its own entry, and no two entries of a kind
// share a spelling.
func TestCatalogNamesUnique(t *testing.T) {
	for _, k := range CatalogKinds {
		seen := map[string]string{}
		for _, e := range Catalog(k) {
			for _, n := range e.names() {
				key := normalizeCatalogName(n)
				if prev, dup := seen[key]; dup && prev != e.Name {
					t.Errorf("%s: %q names both %q and %q", k, n, prev, e.Name)
				}
				seen[key] = e.Name
				if got, ok := LookupCatalog(k, n); !ok || got.Name != e.Name {
					t.Errorf("LookupCatalog(%s, %q) = %q, %v; want %q", k, n, got.Name, ok, e.Name)
				}
			}
		}
	}
}

// The names people write — nvidia-smi, /proc/cpuinfo, ibstat, the
// validation table — find the right entry; partial names find one entry
// only when they begin one entry's names.
func TestLookupCatalog(t *testing.T) {
	for _, tc := range []struct {
		kind, name, want string // want "": no entry
	}{
		// nvidia-smi / nccl-tests / nvbandwidth / bandwidthTest names (fixtures)
		{"gpu", "NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"},
		{"gpu", "NVIDIA H200", "H200-SXM-141GB"},
		{"gpu", "NVIDIA B200", "B200"},
		{"gpu", "NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"},
		{"gpu", "A100-SXM4-40GB", "A100-SXM4-40GB"},
		{"gpu", "Tesla K80", "K80"},
		{"gpu", "Tesla V100-PCIE-32GB", "V100-PCIE-32GB"},
		{"gpu", "NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada Generation"},
		{"gpu", "AMD Instinct MI355X", "Instinct MI355X"},
		{"gpu", "NVIDIA H100 PCIe", "H100-PCIE-80GB"},
		// the validation table's spellings
		{"gpu", "Tesla V100-SXM2-32GB", "V100-SXM2-32GB"},
		{"gpu", "Tesla P100-PCIE-16GB", "P100-PCIE-16GB"},
		{"gpu", "Tesla K40m", "K40"},
		{"gpu", "Tesla T4", "T4"},
		{"gpu", "Quadro RTX 6000", "Quadro RTX 6000"},
		{"gpu", "H100 Mega 80GB", "H100-SXM5-80GB"},
		// case and separators
		{"gpu", "a100 sxm4 80gb", "A100-SXM4-80GB"},
		{"gpu", "A100_SXM4_80GB", "A100-SXM4-80GB"},
		{"gpu", "nvidia-h200", "H200-SXM-141GB"},
		// partial names
		{"gpu", "A100", ""},      // four A100 entries
		{"gpu", "H100", ""},      // PCIe, SXM5, NVL
		{"gpu", "V100", ""},      // four
		{"gpu", "K40", "K40"},    // a name
		{"gpu", "A100-SXM4", ""}, // 40GB and 80GB
		{"gpu", "P100-SXM2", "P100-SXM2-16GB"},
		{"gpu", "RTX 6000", ""}, // Quadro RTX 6000 (Turing) or RTX 6000 Ada
		{"gpu", "B2", ""},       // letters inside a word never match
		{"gpu", "H1", ""},
		{"nic", "ConnectX-7", ""}, // one entry per speed
		{"nic", "ConnectX-6 Dx", ""},
		{"nic", "Mellanox ConnectX-5 EDR", "ConnectX-5 EDR"},
		{"nic", "ConnectX-6 HDR", "ConnectX-6 HDR"},
		{"nic", "connectx6 hdr100", "ConnectX-6 HDR100"},
		{"nic", "Connect-IB", "Connect-IB"},
		{"nic", "NVIDIA ConnectX-7 NDR", "ConnectX-7 NDR"},
		{"nic", "Broadcom Thor2 400GbE", "Broadcom Thor2 400GbE"},
		{"nic", "gve", "gVNIC"},
		{"nic", "EFA", ""},
		{"nic", "AWS EFA v3", "EFA v3"},
		// /proc/cpuinfo model names
		{"cpu", "Intel(R) Xeon(R) Platinum 8480C CPU @ 2.00GHz", "Xeon Platinum 8480C"},
		{"cpu", "Intel(R) Xeon(R) Platinum 8480+", "Xeon Platinum 8480+"},
		{"cpu", "AMD EPYC 7742 64-Core Processor", "EPYC 7742"},
		{"cpu", "Intel(R) Xeon(R) CPU E5-2698 v4 @ 2.20GHz", "Xeon E5-2698 v4"},
		{"cpu", "Intel(R) Xeon(R) Processor", ""}, // a VM's masked model: no model
		{"cpu", "AMD EPYC", ""},
		{"cpu", "Xeon 8380", "Xeon Platinum 8380"},
		{"cpu", "E5-2698 v4", "Xeon E5-2698 v4"},
		{"cpu", "Grace", "Grace"},
		// switches and generations
		{"switch", "QM9700", "Quantum-2 QM9700"},
		{"switch", "Quantum QM8700", "Quantum QM8700"},
		{"switch", "NVIDIA Quantum-2 QM9700", "Quantum-2 QM9700"},
		{"infiniband", "NDR200", "NDR200"},
		{"infiniband", "InfiniBand FDR", "FDR"},
		// any kind
		{"", "QM8700", "Quantum QM8700"},
		{"", "EDR", "EDR"},
		{"", "", ""},
		{"gpu", "   ", ""},
	} {
		got, ok := LookupCatalog(tc.kind, tc.name)
		if ok != (tc.want != "") || got.Name != tc.want {
			t.Errorf("LookupCatalog(%q, %q) = %q, %v; want %q", tc.kind, tc.name, got.Name, ok, tc.want)
		}
	}
}

func TestNearCatalogNames(t *testing.T) {
	for _, tc := range []struct {
		kind, name string
		want       []string // all of them, in any order, among the names given
		none       bool
	}{
		{"gpu", "A100", []string{"A100-PCIE-40GB", "A100-PCIE-80GB", "A100-SXM4-40GB", "A100-SXM4-80GB"}, false},
		{"gpu", "RTX 6000", []string{"Quadro RTX 6000", "RTX 6000 Ada Generation"}, false},
		{"nic", "ConectX-7 NDR", []string{"ConnectX-7 NDR"}, false},
		{"nic", "ConnectX-7", []string{"ConnectX-7 NDR", "ConnectX-7 NDR200", "ConnectX-7 400GbE", "ConnectX-7 200GbE"}, false},
		{"cpu", "Xeon 8480", []string{"Xeon Platinum 8480+", "Xeon Platinum 8480C"}, false},
		{"switch", "zzzz", nil, true},
		{"gpu", "", nil, true},
	} {
		got := NearCatalogNames(tc.kind, tc.name)
		if tc.none != (len(got) == 0) {
			t.Errorf("NearCatalogNames(%q, %q) = %q", tc.kind, tc.name, got)
		}
		for _, w := range tc.want {
			if !contains(got, w) {
				t.Errorf("NearCatalogNames(%q, %q) = %q, lacks %q", tc.kind, tc.name, got, w)
			}
		}
		if len(got) > 10 {
			t.Errorf("NearCatalogNames(%q, %q): %d names, more than 10", tc.kind, tc.name, len(got))
		}
	}
}

func notesMention(e CatalogEntry, s string) bool {
	for _, n := range e.Notes {
		if strings.Contains(n.Fact, s) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestParseCatalogKind(t *testing.T) {
	for in, want := range map[string]string{"gpu": "gpu", "GPUs": "gpu", "nic": "nic", "switches": "switch", "cpu": "cpu", "ib": "infiniband", "InfiniBand": "infiniband"} {
		if got, err := ParseCatalogKind(in); err != nil || got != want {
			t.Errorf("ParseCatalogKind(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCatalogKind("fpga"); err == nil || !strings.Contains(err.Error(), "gpu, nic, cpu, switch, infiniband") {
		t.Errorf("ParseCatalogKind(fpga): %v", err)
	}
}

// The loader refuses what the data must not hold.
func TestParseCatalogRefuses(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"- {name: X, summary: s, facts: [{key: gpu.pcie, value: gen9x16, source: s}]}", "gen9x16"},
		{"- {name: X, summary: s, facts: [{key: gpu.speed, value: 1, source: s}]}", "unknown key"},
		{"- {name: X, summary: s, facts: [{key: gpu.pcie, value: gen4x16}]}", "no source"},
		{"- {name: X, summary: s, facts: []}", "no facts"},
		{"- {name: X, facts: [{key: gpu.pcie, value: gen4x16, source: s}]}", "summary"},
		{"- {name: X, summary: s, facts: [{key: gpu.memory_rate, value: 200TB/s, source: s}]}", "out of range"},
		{"- {name: X, summary: s, facts: [{key: gpu.pcie, value: gen4x16, source: s}, {key: gpu.pcie, value: gen4x16, source: s}]}", "twice"},
		{"- {name: X, summary: s, facts: [{key: gpu.pcie, value: gen4x16, source: s}], notes: [{fact: f}]}", "note"},
		{"- {name: A-1, summary: s, facts: [{key: gpu.pcie, value: gen4x16, source: s}]}\n- {name: a 1, summary: s, facts: [{key: gpu.pcie, value: gen4x16, source: s}]}", "also a name"},
		{"- {name: X, summary: s, fact: []}", "field fact not found"},
	} {
		_, err := parseCatalog("gpu", "test.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.yaml, err, tc.want)
		}
	}
}

// catalogRef is what a name in the data implies: the entries it names
// (kind:name), or none with the reason.
type catalogRef struct {
	names []string // "kind:name"
	why   string   // when names is empty: why the text names no entry
}

func checkRefs(t *testing.T, where string, refs map[string]catalogRef) {
	t.Helper()
	for text, r := range refs {
		if len(r.names) == 0 && r.why == "" {
			t.Errorf("%s %q: no entry and no reason", where, text)
		}
		for _, kn := range r.names {
			kind, name, _ := strings.Cut(kn, ":")
			if e, ok := LookupCatalog(kind, name); !ok || e.Name != name {
				t.Errorf("%s %q implies %s, which the catalog lacks (near: %q)", where, text, kn, NearCatalogNames(kind, name))
			}
		}
	}
}

// Every GPU and NIC the validation table names has an entry (or a reason
// it names none), and the table below covers every distinct value of the
// CSV's gpu and nic columns: a new value fails until it is mapped.
func TestCatalogCoversPublished(t *testing.T) {
	const dgxA100 = "DGX A100 ships A100 SXM4 40GB (DGX A100 320GB) or 80GB (640GB): NVIDIA DGX A100 user guide"
	gpus := map[string]catalogRef{
		"A100 (DGX-A100)":                                  {names: []string{"gpu:A100-SXM4-40GB", "gpu:A100-SXM4-80GB"}, why: dgxA100},
		"GPU0 of AWS p5en (H200)":                          {names: []string{"gpu:H200-SXM-141GB"}},
		"H100 (GCP A3-Mega) [gk for GPU model]":            {names: []string{"gpu:H100-SXM5-80GB"}},
		"H100 Mega 80GB (a3-megagpu-8g), 2 nodes x 8 GPUs": {names: []string{"gpu:H100-SXM5-80GB"}},
		"Quadro RTX 6000":                                  {names: []string{"gpu:Quadro RTX 6000"}},
		"Tesla K40":                                        {names: []string{"gpu:K40"}},
		"Tesla K40 (remote)":                               {names: []string{"gpu:K40"}},
		"Tesla K40m":                                       {names: []string{"gpu:K40"}},
		"Tesla P100-PCIE-16GB":                             {names: []string{"gpu:P100-PCIE-16GB"}},
		"Tesla T4":                                         {names: []string{"gpu:T4"}},
		"Tesla V100-PCIE-16GB":                             {names: []string{"gpu:V100-PCIE-16GB"}},
		"Tesla V100-SXM2-32GB":                             {names: []string{"gpu:V100-SXM2-32GB"}},
		"AMD GPU (model n/s), ROCm":                        {why: "no model named"},
		"NVIDIA GPU (model n/s)":                           {why: "no model named"},
		"n/s":                                              {why: "not stated"},
		"n/s (8 GPUs/node)":                                {why: "not stated"},
		"n/s (NVIDIA GPU)":                                 {why: "not stated"},
		"n/s in article (NVIDIA Tesla, 2015)":              {why: "not stated (a Tesla of 2015: K40 or K80, the article does not say)"},
		"none":                                             {why: "no GPU (host buffers)"},
		"none (DRAM)":                                      {why: "no GPU"},
		"none (host buffers)":                              {why: "no GPU"},
	}
	nics := map[string]catalogRef{
		"2x ConnectX-4 MT27700 100 Gb/s, 0.5 m passive copper, back-to-back":                                 {names: []string{"nic:ConnectX-4 EDR", "nic:ConnectX-4 100GbE"}, why: "a ConnectX-4 (MT27700) at 100 Gb/s: EDR or 100GbE, the row does not say which"},
		"8 GPUDirect-TCPXO NICs/node (MTU 8244)":                                                             {names: []string{"nic:A3 Mega GPU NIC (TCPXO)"}},
		"GCP A3-Mega GPU NICs (IPU-based; 8 GPU NICs per VM per S19 report; per-NIC speed not stated in PR)": {names: []string{"nic:A3 Mega GPU NIC (TCPXO)"}},
		"8x 400 Gb/s RDMA NICs/node, test uses mlx5_0 only":                                                  {why: "an mlx5 device at 400 Gb/s (ConnectX-7 or BlueField-3 class), no product named"},
		"AWS EFA (rdmap*), SRD transport, rdmap85s0":                                                         {names: []string{"nic:EFA v3"}, why: "EFA on p5en (the row's GPU) is EFAv3"},
		"AWS EFA (rdmap*), SRD transport, rdmap87s0":                                                         {names: []string{"nic:EFA v3"}, why: "EFA on p5en (the row's GPU) is EFAv3"},
		"Azure VM Ethernet": {why: "a cloud VM's Ethernet, no product named"},
		"Azure VM Ethernet (NTTTCP: 25 Gb/s uni); MTU 9000":                                 {why: "a cloud VM's Ethernet, no product named"},
		"Broadcom RoCEv2 100 Gb/s (bnxt_re)":                                                {why: "vendor, driver and speed only: bnxt_re serves NetXtreme-E BCM574xx and Thor BCM575xx parts"},
		"DGX-A100 IB NIC (model/speed not stated in issue)":                                 {names: []string{"nic:ConnectX-6 HDR"}, why: "DGX A100's compute NICs are 8 single-port ConnectX-6 HDR (NVIDIA DGX A100 user guide)"},
		"FDR InfiniBand (56 Gb/s [gk])":                                                     {names: []string{"infiniband:FDR"}},
		"HCA loopback":                                                                      {why: "no NIC model named (loopback through one HCA)"},
		"InfiniBand (generation n/s in article)":                                            {why: "no generation named"},
		"InfiniBand HCA (model n/s); TCP path = IP over the LAN link (type n/s)":            {why: "no model named"},
		"InfiniBand NDR200 (200 Gb/s)":                                                      {names: []string{"infiniband:NDR200"}},
		"InfiniBand SDR (8 Gb/s data), IPoIB datagram mode, MTU 2044":                       {names: []string{"infiniband:SDR"}},
		"InfiniBand SDR, IPoIB datagram, MTU 2044":                                          {names: []string{"infiniband:SDR"}},
		"Mellanox Connect-IB dual-port (FDR [gk])":                                          {names: []string{"nic:Connect-IB", "infiniband:FDR"}},
		"Mellanox ConnectX-5 EDR (100 Gb/s [gk])":                                           {names: []string{"nic:ConnectX-5 EDR", "infiniband:EDR"}},
		"Mellanox IB (model/speed n/s in excerpt; peak ~12.3 GB/s suggests 100 Gb/s class)": {why: "no model named (the speed is inferred)"},
		"loopback":                     {why: "no NIC"},
		"n/a":                          {why: "no NIC (intra-node or host-only rows)"},
		"single eth0 vNIC":             {names: []string{"nic:gVNIC"}, why: "eth0 of a GCP a3-megagpu-8g is a gVNIC (Google Cloud A3 Mega documentation)"},
		"single eth0 vNIC (speed n/s)": {names: []string{"nic:gVNIC"}, why: "eth0 of a GCP a3-megagpu-8g is a gVNIC"},
	}
	f, err := os.Open(filepath.Join("..", "validate", "data", "published.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, c := range []struct {
		name string
		refs map[string]catalogRef
	}{{"gpu", gpus}, {"nic", nics}} {
		present := map[string]bool{}
		for _, r := range rows[1:] {
			v := r[col[c.name]]
			present[v] = true
			if _, ok := c.refs[v]; !ok {
				t.Errorf("published.csv %s %s: %q is not mapped to the catalog (add it to this test's table: the entries it implies, or the reason it names none)", r[0], c.name, v)
			}
		}
		for v := range c.refs {
			if !present[v] {
				t.Errorf("published.csv column %s: the table maps %q, which the CSV no longer holds", c.name, v)
			}
		}
		checkRefs(t, "published.csv "+c.name, c.refs)
	}
}

// fixtureNames scans the real tool outputs for the names of GPUs and NICs:
// GPU names as nccl-tests, nvbandwidth, bandwidthTest and perftest's ROCm
// banner print them; HCA part numbers with their ports' rates and link
// layers (ibstat, ibv_devinfo); device names (perftest, NCCL's NET/IB line,
// nvidia-smi topo's NIC legend, Open MPI's warning), with the index cut
// (mlx5_3 → mlx5).
func fixtureNames(t *testing.T, root string) map[string]string {
	t.Helper()
	var (
		ncclDev   = regexp.MustCompile(`device\s+\d+\s+\[[0-9a-fx:.]+\]\s+(.+?)\s*$`)
		cudaDev   = regexp.MustCompile(`^\s*Device \d+: (.+?)(?:\s+\([0-9a-f:]+\))?\s*$`)
		rocmDev   = regexp.MustCompile(`Using ROCm Device .*Name: ([^,]+),`)
		ptDev     = regexp.MustCompile(`Device\s+:\s+(\S+)`)
		ncclNet   = regexp.MustCompile(`NET/IB : Using \[\d+\]([^:\s]+):\d+/(\w+)`)
		topoNIC   = regexp.MustCompile(`^\s*NIC\d+:\s+(\S+)\s*$`)
		ompiPart  = regexp.MustCompile(`Device vendor part ID:\s+(\d+)`)
		caType    = regexp.MustCompile(`^\s*CA type:\s+(\S+)`)
		rate      = regexp.MustCompile(`^\s*Rate:\s+(\S+)`)
		layer     = regexp.MustCompile(`^\s*Link layer:\s+(\S+)`)
		partID    = regexp.MustCompile(`^\s*vendor_part_id:\s+(\d+)`)
		portLine  = regexp.MustCompile(`^\s*port:\s+\d+`)
		hcaLine   = regexp.MustCompile(`^hca_id:`)
		linkLayer = regexp.MustCompile(`^\s*link_layer:\s+(\S+)`)
		width     = regexp.MustCompile(`^\s*active_width:\s+(\S+)`)
		speed     = regexp.MustCompile(`^\s*active_speed:\s+(\S+ \S+)`)
		index     = regexp.MustCompile(`^([a-z]+[0-9]*?)_?\d+$`)
	)
	dev := func(s string) string {
		if m := index.FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return s
	}
	found := map[string]string{}
	add := func(obs, file string) {
		if _, ok := found[obs]; !ok {
			found[obs] = file
		}
	}
	for _, dir := range []string{"nccl-tests", "nvbandwidth", "bandwidthTest", "nvidia-smi-topo", "perftest", "ibstat", "ibv_devinfo"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*"))
		if len(files) == 0 {
			t.Fatalf("no fixtures under %s", filepath.Join(root, dir))
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rel := dir + "/" + filepath.Base(file)
			var ca, r string           // ibstat
			var part, ll, w, sp string // ibv_devinfo
			flushPort := func() {
				if part != "" && ll != "" {
					obs := "ibv_devinfo " + part + " " + ll
					if w != "" {
						obs += " " + w + " " + sp
					}
					add(obs, rel)
				}
				ll, w, sp = "", "", ""
			}
			for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
				if m := ncclDev.FindStringSubmatch(line); m != nil && dir == "nccl-tests" {
					add("gpu "+m[1], rel)
				}
				if m := cudaDev.FindStringSubmatch(line); m != nil && (dir == "nvbandwidth" || dir == "bandwidthTest") {
					add("gpu "+m[1], rel)
				}
				if m := rocmDev.FindStringSubmatch(line); m != nil {
					add("gpu "+strings.TrimSpace(m[1]), rel)
				}
				if m := ptDev.FindStringSubmatch(line); m != nil && dir == "perftest" {
					add("device "+dev(m[1]), rel)
				}
				if m := ncclNet.FindStringSubmatch(line); m != nil {
					add("device "+dev(m[1])+" "+m[2], rel)
				}
				if m := topoNIC.FindStringSubmatch(line); m != nil && dir == "nvidia-smi-topo" {
					add("device "+dev(m[1]), rel)
				}
				if m := ompiPart.FindStringSubmatch(line); m != nil {
					add("openmpi part "+m[1], rel)
				}
				if dir == "ibstat" {
					if m := caType.FindStringSubmatch(line); m != nil {
						ca = m[1]
						add("ibstat "+ca, rel)
					}
					if m := rate.FindStringSubmatch(line); m != nil {
						r = m[1]
					}
					if m := layer.FindStringSubmatch(line); m != nil && ca != "" {
						add("ibstat "+ca+" Rate "+r+" "+m[1], rel)
					}
				}
				if dir == "ibv_devinfo" {
					switch {
					case hcaLine.MatchString(line):
						flushPort()
						part = ""
					case portLine.MatchString(line):
						flushPort()
					}
					if m := partID.FindStringSubmatch(line); m != nil {
						part = m[1]
					}
					if m := linkLayer.FindStringSubmatch(line); m != nil {
						ll = m[1]
					}
					if m := width.FindStringSubmatch(line); m != nil {
						w = m[1]
					}
					if m := speed.FindStringSubmatch(line); m != nil {
						sp = m[1]
					}
				}
			}
			flushPort()
		}
	}
	return found
}

// Every GPU and NIC name in the real tool outputs under
// pkg/importers/testdata/fixtures has an entry, or the reason it names
// none; a new fixture with a new name fails until it is mapped here.
func TestCatalogCoversFixtures(t *testing.T) {
	const mlx5 = "a device name of the mlx5 driver (ConnectX-4 and later, BlueField): names no product"
	cx3IB := []string{"nic:ConnectX-3 FDR", "nic:ConnectX-3 QDR"}
	refs := map[string]catalogRef{
		// GPUs
		"gpu NVIDIA H100 80GB HBM3":          {names: []string{"gpu:H100-SXM5-80GB"}},
		"gpu NVIDIA B200":                    {names: []string{"gpu:B200"}},
		"gpu NVIDIA H200":                    {names: []string{"gpu:H200-SXM-141GB"}},
		"gpu Tesla K80":                      {names: []string{"gpu:K80"}},
		"gpu A100-SXM4-40GB":                 {names: []string{"gpu:A100-SXM4-40GB"}},
		"gpu NVIDIA A100-SXM4-40GB":          {names: []string{"gpu:A100-SXM4-40GB"}},
		"gpu NVIDIA A100-SXM4-80GB":          {names: []string{"gpu:A100-SXM4-80GB"}},
		"gpu Tesla V100-PCIE-32GB":           {names: []string{"gpu:V100-PCIE-32GB"}},
		"gpu NVIDIA RTX 6000 Ada Generation": {names: []string{"gpu:RTX 6000 Ada Generation"}},
		"gpu AMD Instinct MI355X":            {names: []string{"gpu:Instinct MI355X"}},
		// ibstat: CA type, and per port rate and link layer
		"ibstat MT4099":                     {names: []string{"nic:ConnectX-3 FDR", "nic:ConnectX-3 QDR", "nic:ConnectX-3 40GbE", "nic:ConnectX-3 10GbE"}, why: "ConnectX-3 (PCI ID 0x1003), port speed not shown (ibstat -s)"},
		"ibstat MT4099 Rate 56 InfiniBand":  {names: []string{"nic:ConnectX-3 FDR", "infiniband:FDR"}},
		"ibstat MT4099 Rate 40 InfiniBand":  {names: []string{"nic:ConnectX-3 QDR", "infiniband:QDR", "infiniband:FDR10"}, why: "ibstat prints Rate 40 for QDR and FDR10 alike"},
		"ibstat MT4099 Rate 10 Ethernet":    {names: []string{"nic:ConnectX-3 10GbE"}},
		"ibstat MT4119":                     {names: []string{"nic:ConnectX-5 EDR", "nic:ConnectX-5 100GbE"}, why: "ConnectX-5 (PCI ID 0x1017)"},
		"ibstat MT4119 Rate 100 InfiniBand": {names: []string{"nic:ConnectX-5 EDR", "infiniband:EDR"}},
		"ibstat MT4119 Rate 56 InfiniBand":  {names: []string{"nic:ConnectX-5 EDR", "infiniband:FDR"}, why: "a ConnectX-5 port trained at FDR"},
		"ibstat MT4119 Rate 100 Ethernet":   {names: []string{"nic:ConnectX-5 100GbE"}},
		// ibv_devinfo: vendor_part_id, link layer, and active width/speed where shown
		"ibv_devinfo 4099 InfiniBand":              {names: cx3IB, why: "ConnectX-3 InfiniBand port, speed not shown"},
		"ibv_devinfo 4099 InfiniBand 4X 2.5 Gbps":  {names: append(cx3IB, "infiniband:SDR"), why: "a ConnectX-3 port that is down (POLLING) shows SDR's 2.5 Gbps lane speed"},
		"ibv_devinfo 4123 InfiniBand 4X 50.0 Gbps": {names: []string{"nic:ConnectX-6 HDR", "infiniband:HDR"}},
		"ibv_devinfo 4119 Ethernet 4X 25.0 Gbps":   {names: []string{"nic:ConnectX-5 100GbE"}, why: "4 lanes of 25 Gb/s: 100GbE"},
		"ibv_devinfo 4129 Ethernet":                {names: []string{"nic:ConnectX-7 400GbE", "nic:ConnectX-7 200GbE"}, why: "ConnectX-7 (PCI ID 0x1021) Ethernet ports, speed not shown (ports down)"},
		// device names
		"device mlx5":       {why: mlx5},
		"device mlx5 RoCE":  {why: mlx5 + " (RoCE port)"},
		"device ib":         {why: "an IPoIB interface name, not a product"},
		"device ionic":      {why: "a device name of AMD Pensando's ionic driver (Pollara 400 class per the fixture's source, not its text): names no product"},
		"openmpi part 4126": {why: "PCI ID 0x101e is the mlx5 driver's generic \"ConnectX Family mlx5Gen Virtual Function\" (drivers/net/ethernet/mellanox/mlx5/core/main.c): names no product"},
	}
	found := fixtureNames(t, filepath.Join("..", "importers", "testdata", "fixtures"))
	var missing []string
	for obs, file := range found {
		if _, ok := refs[obs]; !ok {
			missing = append(missing, obs+" ("+file+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("fixture name not mapped to the catalog: %s (add it to this test's table: the entries it implies, or the reason it names none)", m)
	}
	for obs := range refs {
		if _, ok := found[obs]; !ok {
			t.Errorf("the table maps %q, which no fixture holds any more", obs)
		}
	}
	checkRefs(t, "fixture", refs)
	// The GPU names themselves are names people write: LookupCatalog finds them.
	for obs := range found {
		if name, ok := strings.CutPrefix(obs, "gpu "); ok {
			want := strings.TrimPrefix(refs[obs].names[0], "gpu:")
			if e, ok := LookupCatalog(CatalogGPU, name); !ok || e.Name != want {
				t.Errorf("LookupCatalog(gpu, %q) = %q, %v; want %q", name, e.Name, ok, want)
			}
		}
	}
}
