package measure

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/record"
)

type sysfsOpts struct {
	gpu      bool   // an H200 next to the record.NIC, under one PCIe switch
	ib       bool   // the record.NIC has an RDMA device
	state    string // its port state ("4: ACTIVE")
	layer    string // "InfiniBand" or "Ethernet"
	rate     string // "400 Gb/sec (4X NDR)"
	netSpeed string // the interface's speed in Mb/s
}

// writeSysfs builds a small sysfs tree in the layout of the real one: one
// PCIe switch below root port 0000:00:01.0 with the GPU (0000:03:00.0) and
// a ConnectX-7 (0000:04:00.0) on two downstream ports.
func writeSysfs(t *testing.T, o sysfsOpts) string {
	t.Helper()
	root := t.TempDir()
	file := func(p, content string) {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	dev := func(path, class, vendor, device string) {
		base := "devices/" + path
		file(base+"/class", class)
		file(base+"/vendor", vendor)
		file(base+"/device", device)
		file(base+"/numa_node", "0")
		for _, a := range []string{"current", "max"} {
			file(base+"/"+a+"_link_speed", "32.0 GT/s PCIe")
			file(base+"/"+a+"_link_width", "16")
		}
		link("../../../devices/"+path, "bus/pci/devices/"+filepath.Base(path))
	}
	sw := "pci0000:00/0000:00:01.0/0000:01:00.0"
	dev("pci0000:00/0000:00:01.0", "0x060400", "0x8086", "0x352a")
	dev(sw, "0x060400", "0x1000", "0xc030")
	dev(sw+"/0000:02:00.0", "0x060400", "0x1000", "0xc030")
	dev(sw+"/0000:02:01.0", "0x060400", "0x1000", "0xc030")
	nic := sw + "/0000:02:01.0/0000:04:00.0"
	cls := "0x020000"
	if o.layer == "InfiniBand" {
		cls = "0x020700"
	}
	dev(nic, cls, "0x15b3", "0x1021")
	if o.gpu {
		dev(sw+"/0000:02:00.0/0000:03:00.0", "0x030200", "0x10de", "0x2335")
	}
	if err := os.MkdirAll(filepath.Join(root, "class", "infiniband"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o.ib {
		ib := "devices/" + nic + "/infiniband/mlx5_0"
		link("../../../0000:04:00.0", ib+"/device")
		link("../../"+ib, "class/infiniband/mlx5_0")
		file(ib+"/hca_type", "MT4129")
		file(ib+"/ports/1/state", o.state)
		file(ib+"/ports/1/phys_state", "5: LinkUp")
		file(ib+"/ports/1/rate", o.rate)
		file(ib+"/ports/1/link_layer", o.layer)
		file(ib+"/ports/1/gids/0", "fe80:0000:0000:0000:9c63:c003:00d4:20f0")
	}
	if o.netSpeed != "" {
		n := "devices/" + nic + "/net/ibp4s0"
		link("../../../0000:04:00.0", n+"/device")
		link("../../"+n, "class/net/ibp4s0")
		file(n+"/speed", o.netSpeed)
		file(n+"/operstate", "up")
	}
	return root
}

func TestRDMAProbe(t *testing.T) {
	root := writeSysfs(t, sysfsOpts{ib: true, state: "4: ACTIVE", layer: "InfiniBand", rate: "400 Gb/sec (4X NDR)", netSpeed: "400000"})
	p := &RDMAProbe{SysRoot: root}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	res, err := runCollect(t, p, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Target != "mlx5_0/1" || res[0].Extra["rate_bps"] != 400e9 || res[0].Extra["active"] != 1 ||
		res[0].Extra["infiniband"] != 1 || res[0].Extra["gids"] != 1 || !strings.Contains(res[0].Note, "ACTIVE InfiniBand 400 Gb/sec (4X NDR)") {
		t.Errorf("records %+v", res)
	}
	inv := p.Inventory().(*RDMAInventory)
	if len(inv.Devices) != 1 || inv.Devices[0].PCIAddress != "0000:04:00.0" || strings.Join(inv.Devices[0].NetDevs, ",") != "ibp4s0" {
		t.Errorf("inventory %+v", inv)
	}
}

func TestRDMAAbsent(t *testing.T) {
	empty := writeSysfs(t, sysfsOpts{})
	for _, root := range []string{empty, t.TempDir()} {
		p := &RDMAProbe{SysRoot: root}
		err := p.Available()
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no RDMA device") {
			t.Errorf("Available = %v", err)
		}
		if _, err := runCollect(t, p, Plan{}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Run = %v", err)
		}
	}
	err := (&RDMAProbe{SysRoot: empty}).Available()
	if !strings.HasSuffix(err.Error(), "class/infiniband is empty)") {
		t.Errorf("message %q", err)
	}
}

func TestTopoProbe(t *testing.T) {
	root := writeSysfs(t, sysfsOpts{gpu: true, ib: true, state: "4: ACTIVE", layer: "InfiniBand", rate: "400 Gb/sec (4X NDR)"})
	p := &TopoProbe{SysRoot: root}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	res, err := runCollect(t, p, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Variant != "gpu" || res[1].Variant != "nic" || res[2].Variant != "gpu-nic" {
		t.Fatalf("records %+v", res)
	}
	if res[2].Note != "PIX" || res[2].Target != "gpu@0000:03:00.0->nic@0000:04:00.0" || res[0].Extra["pcie_gen_max"] != 5 {
		t.Errorf("records %+v", res)
	}
	inv := p.Inventory().(*record.TopoInventory)
	if len(inv.GPUs) != 1 || len(inv.Pairs) != 1 || inv.System == nil {
		t.Errorf("inventory %+v", inv)
	}
	if err := (&TopoProbe{SysRoot: t.TempDir()}).Available(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("empty root: %v", err)
	}
	if _, err := runCollect(t, &TopoProbe{SysRoot: t.TempDir()}, Plan{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("empty root Run: %v", err)
	}
}

// TestProbesOnThisHost runs the sysfs probes on the real /sys: whatever
// the machine has, they must not fail (absence is ErrUnavailable).
func TestProbesOnThisHost(t *testing.T) {
	for _, p := range []Probe{&TopoProbe{}, &RDMAProbe{}, &PerftestProbe{}} {
		_, err := runCollect(t, p, Plan{Quick: true})
		switch {
		case err == nil:
			t.Logf("%s: ok", p.Name())
		case errors.Is(err, ErrUnavailable):
			t.Logf("%s: %v", p.Name(), err)
		default:
			t.Errorf("%s: %v", p.Name(), err)
		}
	}
}
