// Package sysfstest writes small sysfs trees in the layout of the real one,
// for the tests of the readers of PCIe topology and RDMA devices (the topo,
// rdma and perftest probes of pkg/measure, the this-host scenario of
// pkg/calib). For tests only.
package sysfstest

import (
	"os"
	"path/filepath"
	"testing"
)

// Opts describe the tree Write makes.
type Opts struct {
	GPU      bool   // an H200 next to the NIC, under one PCIe switch
	IB       bool   // the NIC has an RDMA device
	State    string // its port state ("4: ACTIVE")
	Layer    string // "InfiniBand" or "Ethernet"
	Rate     string // "400 Gb/sec (4X NDR)"
	NetSpeed string // the interface's speed in Mb/s
}

// Write builds a small sysfs tree in the layout of the real one: one
// PCIe switch below root port 0000:00:01.0 with the GPU (0000:03:00.0) and
// a ConnectX-7 (0000:04:00.0) on two downstream ports.
func Write(t testing.TB, o Opts) string {
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
	if o.Layer == "InfiniBand" {
		cls = "0x020700"
	}
	dev(nic, cls, "0x15b3", "0x1021")
	if o.GPU {
		dev(sw+"/0000:02:00.0/0000:03:00.0", "0x030200", "0x10de", "0x2335")
	}
	if err := os.MkdirAll(filepath.Join(root, "class", "infiniband"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o.IB {
		ib := "devices/" + nic + "/infiniband/mlx5_0"
		link("../../../0000:04:00.0", ib+"/device")
		link("../../"+ib, "class/infiniband/mlx5_0")
		file(ib+"/hca_type", "MT4129")
		file(ib+"/ports/1/state", o.State)
		file(ib+"/ports/1/phys_state", "5: LinkUp")
		file(ib+"/ports/1/rate", o.Rate)
		file(ib+"/ports/1/link_layer", o.Layer)
		file(ib+"/ports/1/gids/0", "fe80:0000:0000:0000:9c63:c003:00d4:20f0")
	}
	if o.NetSpeed != "" {
		n := "devices/" + nic + "/net/ibp4s0"
		link("../../../0000:04:00.0", n+"/device")
		link("../../"+n, "class/net/ibp4s0")
		file(n+"/speed", o.NetSpeed)
		file(n+"/operstate", "up")
	}
	return root
}
