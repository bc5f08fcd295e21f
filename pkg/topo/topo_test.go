package topo

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/fstree"
)

func TestParseLinkSpeed(t *testing.T) {
	for _, tc := range []struct {
		in   string
		gts  float64
		gen  int
		fail bool
	}{
		{"32.0 GT/s PCIe\n", 32, 5, false},
		{"16.0 GT/s PCIe", 16, 4, false},
		{"8.0 GT/s PCIe", 8, 3, false},
		{"8 GT/s", 8, 3, false}, // kernels before 5.2
		{"5.0 GT/s PCIe", 5, 2, false},
		{"2.5 GT/s PCIe", 2.5, 1, false},
		{"64.0 GT/s PCIe", 64, 6, false},
		{"8GT/s", 8, 3, false},
		{"Unknown", 0, 0, true},
		{"Unknown speed", 0, 0, true},
		{"", 0, 0, true},
		{"fast", 0, 0, true},
		{"-8 GT/s", 0, 0, true},
		{"8 Gb/s", 0, 0, true},
	} {
		got, err := ParseLinkSpeed(tc.in)
		if (err != nil) != tc.fail {
			t.Errorf("ParseLinkSpeed(%q) error %v", tc.in, err)
			continue
		}
		if got != tc.gts || Gen(got) != tc.gen {
			t.Errorf("ParseLinkSpeed(%q) = %v (gen %d), want %v (gen %d)", tc.in, got, Gen(got), tc.gts, tc.gen)
		}
	}
}

func TestLinkNames(t *testing.T) {
	l := Link{CurrentGTs: 2.5, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}
	if l.Max() != "gen5x16" || l.Current() != "gen1x16" {
		t.Errorf("Max %q Current %q", l.Max(), l.Current())
	}
	if (Link{MaxGTs: 7, MaxWidth: 16}).Max() != "" {
		t.Error("unknown generation should give no name")
	}
	g, w, err := ParseLinkName("gen5x16")
	if err != nil || g != 5 || w != 16 {
		t.Errorf("ParseLinkName = %d %d %v", g, w, err)
	}
	for _, bad := range []string{"gen7x16", "gen5x3", "5x16", "gen5", "genx16"} {
		if _, _, err := ParseLinkName(bad); err == nil {
			t.Errorf("ParseLinkName(%q) accepted", bad)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
	}{{"16", 16}, {"x8", 8}, {"0", 0}, {"255", 0}} {
		if got, err := ParseLinkWidth(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseLinkWidth(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestParseAddressAndPath(t *testing.T) {
	for in, want := range map[string]string{
		"0000:8F:00.0":     "0000:8f:00.0",
		"00000000:8F:00.0": "0000:8f:00.0", // NVML's form
		"0000:00:01.1":     "0000:00:01.1",
	} {
		if got, err := ParseAddress(in); err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"8f:00.0", "0000:8f:00.8", "0000:8g:00.0", ""} {
		if _, err := ParseAddress(bad); err == nil {
			t.Errorf("ParseAddress(%q) accepted", bad)
		}
	}
	hb, chain, err := ParsePCIPath("../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:00.0/0000:8F:00.0")
	if err != nil || hb != "pci0000:80" || strings.Join(chain, " ") != "0000:80:01.0 0000:81:00.0 0000:82:00.0 0000:8f:00.0" {
		t.Errorf("ParsePCIPath = %q %v %v", hb, chain, err)
	}
	// Hyper-V style: ACPI and VMBus nodes before the host bridge.
	hb, chain, err = ParsePCIPath("../../../devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A03:00/device:07/VMBUS:01/47505500-0001-0000-3130-444531303244/pci0001:00/0001:00:00.0")
	if err != nil || hb != "pci0001:00" || len(chain) != 1 || chain[0] != "0001:00:00.0" {
		t.Errorf("ParsePCIPath(vmbus) = %q %v %v", hb, chain, err)
	}
	for _, bad := range []string{"../../devices/platform/foo", "../devices/pci0000:00", "../devices/pci0000:00/usb1"} {
		if _, _, err := ParsePCIPath(bad); err == nil {
			t.Errorf("ParsePCIPath(%q) accepted", bad)
		}
	}
}

func TestParsePortRateStateGID(t *testing.T) {
	for _, tc := range []struct {
		in    string
		bps   float64
		width int
		speed string
	}{
		{"400 Gb/sec (4X NDR)\n", 400e9, 4, "NDR"},
		{"200 Gb/sec (4X HDR)", 200e9, 4, "HDR"},
		{"2.5 Gb/sec (1X SDR)", 2.5e9, 1, "SDR"},
		{"56 Gb/sec (4X FDR)", 56e9, 4, "FDR"},
		{"100 Gb/sec (4X EDR)", 100e9, 4, "EDR"},
		{"800 Gb/sec (4X XDR)", 800e9, 4, "XDR"},
		{"25 Gb/sec (1X)", 25e9, 1, ""}, // old libibumad-style text without a speed name
		{"10 Gb/sec", 10e9, 0, ""},
	} {
		bps, w, sp, err := ParsePortRate(tc.in)
		if err != nil || bps != tc.bps || w != tc.width || sp != tc.speed {
			t.Errorf("ParsePortRate(%q) = %v %d %q %v", tc.in, bps, w, sp, err)
		}
	}
	for _, bad := range []string{"", "fast", "400 GB/s (4X NDR)", "-1 Gb/sec"} {
		if _, _, _, err := ParsePortRate(bad); err == nil {
			t.Errorf("ParsePortRate(%q) accepted", bad)
		}
	}
	if c, n, err := ParsePortState("4: ACTIVE\n"); err != nil || c != 4 || n != "ACTIVE" {
		t.Errorf("ParsePortState = %d %q %v", c, n, err)
	}
	if _, _, err := ParsePortState("ACTIVE"); err == nil {
		t.Error("state without code accepted")
	}
	g, ok, err := ParseGID("fe80:0000:0000:0000:0c42:a103:0065:d6b6\n")
	if err != nil || !ok || g != "fe80::c42:a103:65:d6b6" {
		t.Errorf("ParseGID = %q %v %v", g, ok, err)
	}
	if _, ok, err := ParseGID("0000:0000:0000:0000:0000:0000:0000:0000"); err != nil || ok {
		t.Errorf("zero GID: populated %v, err %v", ok, err)
	}
	if g, _, _ := ParseGID("0000:0000:0000:0000:0000:ffff:8cdd:3c0b"); g != "::ffff:140.221.60.11" {
		t.Errorf("RoCE v2 IPv4 GID = %q (ibv_devinfo shows ::ffff:140.221.60.11)", g)
	}
}

func TestClassifyRules(t *testing.T) {
	dev := func(addr, hb string, numa int, bridges ...string) PCIDevice {
		return PCIDevice{Address: addr, HostBridge: hb, NUMANode: numa, Bridges: bridges}
	}
	gpu := dev("0000:05:00.0", "pci0000:00", 0, "0000:00:01.0", "0000:01:00.0", "0000:02:00.0")
	for _, tc := range []struct {
		name string
		nic  PCIDevice
		want Class
		n    int
	}{
		{"same switch", dev("0000:06:00.0", "pci0000:00", 0, "0000:00:01.0", "0000:01:00.0", "0000:02:01.0"), PIX, 1},
		{"other root port", dev("0000:09:00.0", "pci0000:00", 0, "0000:00:02.0"), PHB, 0},
		{"other host bridge", dev("0000:41:00.0", "pci0000:40", 0, "0000:40:01.0"), NODE, 0},
		{"other socket", dev("0000:81:00.0", "pci0000:80", 1, "0000:80:01.0"), SYS, 0},
		{"numa unknown, other host bridge", dev("0000:41:00.0", "pci0000:40", -1, "0000:40:01.0"), NODE, 0},
		{"behind a nested switch", dev("0000:0a:00.0", "pci0000:00", 0, "0000:00:01.0", "0000:01:00.0", "0000:02:03.0", "0000:07:00.0", "0000:08:00.0"), PXB, 2},
		{"itself", gpu, Self, 0},
	} {
		c := Classify(gpu, tc.nic)
		if c.Class != tc.want || c.Bridges != tc.n {
			t.Errorf("%s: %+v, want %s over %d bridges", tc.name, c, tc.want, tc.n)
		}
		if back := Classify(tc.nic, gpu); back.Class != c.Class {
			t.Errorf("%s: not symmetric: %s vs %s", tc.name, c.Class, back.Class)
		}
	}
	// Two functions of one dual-port NIC below one root port: PIX (nvidia-smi
	// shows NIC0/NIC1 of stelline-puget as PIX).
	f0 := dev("0000:41:00.0", "pci0000:40", 0, "0000:40:01.1")
	f1 := dev("0000:41:00.1", "pci0000:40", 0, "0000:40:01.1")
	if c := Classify(f0, f1); c.Class != PIX || c.Ancestor != "0000:40:01.1" {
		t.Errorf("dual-port NIC functions: %+v", c)
	}
}

func TestClassRank(t *testing.T) {
	order := []Class{Self, NVLink(18), PIX, PXB, PHB, NODE, SYS, "BOGUS"}
	for i := 1; i < len(order); i++ {
		if order[i-1].Rank() >= order[i].Rank() {
			t.Errorf("%s should rank before %s", order[i-1], order[i])
		}
	}
	if n, ok := Class("NV18").NVLinks(); !ok || n != 18 {
		t.Error("NV18")
	}
	if c, err := ParseClass("SOC"); err != nil || c != SYS {
		t.Errorf("SOC = %v %v", c, err)
	}
	if _, err := ParseClass("NV0"); err == nil {
		t.Error("NV0 accepted")
	}
}

func readMatrix(t *testing.T, name string) *SMIMatrix {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedFixtures, "nvidia-smi-topo", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseSMIMatrixBytes(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func TestParseSMIMatrixFixtures(t *testing.T) {
	for _, tc := range []struct {
		file        string
		gpus, nics  int
		a, b        string
		want        Class
		cpu, nic9   string
		numaOfGPU0  string
		gpuNUMAOfG0 string
	}{
		{"h200x8-nv18-10nic-ansi-underline.txt", 8, 10, "GPU3", "NIC2", PIX, "0-63,128-191", "mlx5_9", "0", "N/A"},
		{"dranet-gke-a4-b200x8-8nic-pix-pairs-spaces.txt", 8, 8, "GPU0", "GPU7", NVLink(18), "0-55,112-167", "", "0", "N/A"},
		{"stelline-asus-esc8000a-4xrtx6000ada-4nic-node-sys-pix-spaces.txt", 4, 4, "GPU1", "GPU2", SYS, "0-31", "", "0", "N/A"},
		{"stelline-puget-wrx90-2xrtx6000ada-2nic-phb-spaces.txt", 2, 2, "GPU0", "GPU1", PHB, "0-23", "", "0", "N/A"},
	} {
		m := readMatrix(t, tc.file)
		var g, n int
		for _, d := range m.Devices {
			if strings.HasPrefix(d, "GPU") {
				g++
			} else {
				n++
			}
		}
		if g != tc.gpus || n != tc.nics {
			t.Errorf("%s: %d GPUs %d NICs", tc.file, g, n)
		}
		if c, ok := m.Link(tc.a, tc.b); !ok || c != tc.want {
			t.Errorf("%s: %s-%s = %q", tc.file, tc.a, tc.b, c)
		}
		if m.CPUAffinity["GPU0"] != tc.cpu || m.NUMAAffinity["GPU0"] != tc.numaOfGPU0 || m.GPUNUMAID["GPU0"] != tc.gpuNUMAOfG0 {
			t.Errorf("%s: GPU0 affinity %q %q %q", tc.file, m.CPUAffinity["GPU0"], m.NUMAAffinity["GPU0"], m.GPUNUMAID["GPU0"])
		}
		if tc.nic9 != "" && m.NICNames["NIC9"] != tc.nic9 {
			t.Errorf("%s: NIC9 = %q", tc.file, m.NICNames["NIC9"])
		}
		if len(m.NICNames) != tc.nics {
			t.Errorf("%s: NIC legend has %d entries", tc.file, len(m.NICNames))
		}
		// The matrix is symmetric in every fixture.
		for i := range m.Devices {
			for j := range m.Devices {
				if m.Links[i][j] != m.Links[j][i] {
					t.Errorf("%s: %s-%s asymmetric", tc.file, m.Devices[i], m.Devices[j])
				}
			}
		}
	}
}

func TestParseSMIMatrixErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":       "",
		"no header":   "Legend:\n  X = Self\n",
		"short row":   "\tGPU0\tGPU1\nGPU0\t X \nGPU1\tPHB\t X \n",
		"bad class":   "\tGPU0\tGPU1\nGPU0\t X \tFOO\nGPU1\tFOO\t X \n",
		"missing row": "\tGPU0\tGPU1\nGPU0\t X \tPHB\n",
		"not self":    "\tGPU0\nGPU0\tPIX\n",
	} {
		if _, err := ParseSMIMatrix(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestClassifyMirrorsNvidiaSMI reads each sysfs tree built to mirror a real
// system and checks that Classify reproduces every PCIe class that
// nvidia-smi printed for that system (NV# cells are NVLink, which sysfs does
// not show, and are skipped). GPUs are numbered in PCI address order, as
// NVML does by default; NICs are matched through the NIC legend.
func TestClassifyMirrorsNvidiaSMI(t *testing.T) {
	for _, tc := range []struct{ tree, matrix string }{
		{"puget-wrx90", "stelline-puget-wrx90-2xrtx6000ada-2nic-phb-spaces.txt"},
		{"asus-esc8000a", "stelline-asus-esc8000a-4xrtx6000ada-4nic-node-sys-pix-spaces.txt"},
		{"gke-a4-b200x8", "dranet-gke-a4-b200x8-8nic-pix-pairs-spaces.txt"},
		{"h200x8-10nic", "h200x8-nv18-10nic-ansi-underline.txt"},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			sys, err := fixtureReader(t, tc.tree).Read()
			if err != nil {
				t.Fatal(err)
			}
			m := readMatrix(t, tc.matrix)
			dev := map[string]PCIDevice{}
			for i, g := range sys.GPUs() {
				dev["GPU"+itoa(i)] = g
			}
			for label, name := range m.NICNames {
				for _, r := range sys.RDMA {
					if r.Name == name {
						d, _ := sys.Device(r.PCIAddress)
						dev[label] = d
					}
				}
			}
			if len(dev) != len(m.Devices) {
				t.Fatalf("tree has %d of the matrix's %d devices", len(dev), len(m.Devices))
			}
			checked := 0
			for i, a := range m.Devices {
				for j, b := range m.Devices {
					want := m.Links[i][j]
					if _, nv := want.NVLinks(); nv {
						continue
					}
					if got := Classify(dev[a], dev[b]).Class; got != want {
						t.Errorf("%s-%s: Classify %s, nvidia-smi %s", a, b, got, want)
					}
					checked++
				}
			}
			t.Logf("%d cells agree with nvidia-smi", checked)
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestSyntheticAndFlatTrees(t *testing.T) {
	sys, err := fixtureReader(t, "synthetic-pxb").Read()
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := sys.Device("0000:05:00.0")
	for nic, want := range map[string]Class{"0000:06:00.0": PIX, "0000:07:00.0": PXB} {
		n, _ := sys.Device(nic)
		if got := Classify(gpu, n); got.Class != want {
			t.Errorf("GPU-%s: %+v, want %s", nic, got, want)
		}
	}
	other, _ := sys.Device("0000:08:00.0")
	if c := Classify(gpu, other); c.Class != PHB || c.Ancestor != "pci0000:00" {
		t.Errorf("GPU-GPU on two root ports: %+v", c)
	}
	if p, ok := sys.ClosestNIC("0000:05:00.0"); !ok || p.NIC != "0000:06:00.0" || p.Class != PIX {
		t.Errorf("closest NIC %+v", p)
	}

	vm, err := fixtureReader(t, "firecracker-flat").Read()
	if err != nil {
		t.Fatal(err)
	}
	gpus := vm.GPUs()
	if len(gpus) != 2 || len(vm.NICs()) != 1 || len(vm.RDMA) != 0 {
		t.Fatalf("flat VM: %d GPUs %d NICs %d RDMA", len(gpus), len(vm.NICs()), len(vm.RDMA))
	}
	if c := Classify(gpus[0], gpus[1]); c.Class != PHB {
		t.Errorf("flat bus GPU pair = %s, want PHB (NVML says HOSTBRIDGE there)", c.Class)
	}
	if gpus[0].NUMANode != -1 || gpus[0].Link.Max() != "" {
		t.Errorf("flat VM GPU: %+v", gpus[0])
	}
	if len(vm.Warnings) != 0 {
		t.Errorf("warnings: %v", vm.Warnings)
	}
}

func TestReadTrees(t *testing.T) {
	sys, err := fixtureReader(t, "h200x8-10nic").Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.GPUs()) != 8 || len(sys.NICs()) != 10 || len(sys.RDMA) != 10 {
		t.Fatalf("%d GPUs %d NICs %d RDMA", len(sys.GPUs()), len(sys.NICs()), len(sys.RDMA))
	}
	g0 := sys.GPUs()[0]
	if g0.Link.Max() != "gen5x16" || g0.NUMANode != 0 || g0.Driver != "nvidia" || g0.Device != 0x2335 || len(g0.Bridges) != 3 {
		t.Errorf("GPU0 = %+v", g0)
	}
	// GPU3 shares its switch with NIC0-NIC2 (mlx5_0..2): the closest is mlx5_0.
	g3 := sys.GPUs()[3]
	p, ok := sys.ClosestNIC(g3.Address)
	if !ok || p.Class != PIX || strings.Join(p.NICNames, ",") != "mlx5_0" {
		t.Errorf("closest NIC of GPU3: %+v", p)
	}
	if len(sys.GPUNICPairs()) != 80 {
		t.Errorf("%d pairs", len(sys.GPUNICPairs()))
	}
	// The tree mirrors a topology matrix only: its RDMA devices have no
	// ports directory, which the reader reports (a real device has one).
	if len(sys.Warnings) != 10 || !strings.Contains(sys.Warnings[0], "ports") {
		t.Errorf("warnings: %v", sys.Warnings)
	}
}

func TestReadRDMA(t *testing.T) {
	sys, err := fixtureReader(t, "chrysalis-rdma").Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Warnings) != 0 {
		t.Errorf("warnings: %v", sys.Warnings)
	}
	if len(sys.RDMA) != 3 {
		t.Fatalf("%d RDMA devices", len(sys.RDMA))
	}
	ib := sys.RDMA[0]
	if ib.Name != "mlx5_0" || ib.PCIAddress != "0000:21:00.0" || ib.HCAType != "MT4123" || ib.FWVersion != "20.29.2002" || len(ib.Ports) != 1 {
		t.Fatalf("mlx5_0 = %+v", ib)
	}
	p := ib.Ports[0]
	// ibv_devinfo: PORT_ACTIVE, InfiniBand, 4X at 50 Gbps (HDR), one GID.
	if !p.Active() || p.PhysState != "LinkUp" || p.RateBps != 200e9 || p.Width != 4 || p.Speed != "HDR" || LinkKind(p.LinkLayer) != "ib" {
		t.Errorf("mlx5_0 port = %+v", p)
	}
	if len(p.GIDs) != 1 || p.GIDs[0].GID != "fe80::c42:a103:65:d6b6" {
		t.Errorf("mlx5_0 GIDs (empty and zero entries skipped) = %+v", p.GIDs)
	}
	roce := sys.RDMA[1].Ports[0]
	if LinkKind(roce.LinkLayer) != "roce" || roce.RateBps != 100e9 || len(roce.GIDs) != 4 {
		t.Fatalf("mlx5_1 port = %+v", roce)
	}
	if roce.GIDs[1].Type != "RoCE v2" || roce.GIDs[3].GID != "::ffff:140.221.60.11" || roce.GIDs[0].NetDev != "enp65s0f0" {
		t.Errorf("mlx5_1 GIDs = %+v", roce.GIDs)
	}
	if strings.Join(sys.RDMA[1].NetDevs, ",") != "enp65s0f0" {
		t.Errorf("mlx5_1 netdevs %v", sys.RDMA[1].NetDevs)
	}
	if len(sys.Net) != 2 || sys.Net[0].SpeedMbps != 100000 || sys.Net[0].MTU != 9000 || sys.Net[0].OperState != "up" {
		t.Errorf("net = %+v", sys.Net)
	}

	// Without the sysfs-like reader the empty GID entry is an unparsable
	// value: a warning, not a failure.
	r := fixtureReader(t, "chrysalis-rdma")
	r.ReadFile = nil
	sys2, err := r.Read()
	if err != nil || len(sys2.RDMA) != 3 || len(sys2.Warnings) == 0 {
		t.Errorf("plain reader: %v, %d devices, warnings %v", err, len(sys2.RDMA), sys2.Warnings)
	}
}

func TestReadPortsDown(t *testing.T) {
	sys, err := fixtureReader(t, "asus-esc8000a").Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Warnings) != 0 {
		t.Errorf("warnings: %v", sys.Warnings)
	}
	var names []string
	for _, d := range sys.RDMA {
		names = append(names, d.Name)
		p := d.Ports[0]
		// ibv_devinfo: PORT_DOWN, link_layer Ethernet; rate unreadable (EINVAL).
		if p.Active() || p.State != "DOWN" || p.LinkLayer != "Ethernet" || p.RateBps != 0 || len(p.GIDs) != 0 {
			t.Errorf("%s port = %+v", d.Name, p)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "mlx5_0 mlx5_1 mlx5_2 mlx5_3" {
		t.Errorf("devices %v", names)
	}
	if n := sys.Net[0]; n.SpeedMbps != 0 || n.OperState != "down" {
		t.Errorf("down interface = %+v", n)
	}
}

func TestReadMissingSysfs(t *testing.T) {
	if _, err := (Reader{Root: t.TempDir()}).Read(); err == nil {
		t.Error("a tree without bus/pci read without error")
	}
	// A tree with PCI devices but no class directories is fine.
	dir := t.TempDir()
	if err := fstree.UnpackFile(filepath.Join("testdata", "sysfs", "firecracker-flat.txt"), dir); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "class")); err != nil {
		t.Fatal(err)
	}
	sys, err := (Reader{Root: dir}).Read()
	if err != nil || len(sys.PCI) != 3 || len(sys.Warnings) != 0 {
		t.Errorf("no class dirs: %v %+v", err, sys)
	}
}

func TestGen(t *testing.T) {
	for g := 1; g <= 6; g++ {
		if Gen(GenRate(g)) != g {
			t.Errorf("gen %d round trip", g)
		}
	}
	if Gen(math.NaN()) != 0 || GenRate(7) != 0 {
		t.Error("out of range")
	}
}
