package topo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
)

// The sysfs fixture trees are generated from the specs below
// (go test ./pkg/topo -run TestRegenerateFixtures -update-fixtures) and committed as
// one text archive per tree, testdata/sysfs/<name>.txt, that each test
// unpacks into a temporary directory (see archive_test.go). The archive
// keeps the repository free of the ':' in PCI addresses (not allowed in Go
// module file paths) and of symbolic links. Each tree mirrors a real system whose `nvidia-smi topo -m` or
// ibv_devinfo output is among the shared fixtures (sharedFixtures; testdata/SOURCES.md
// lists which, the shared SOURCES.md traces them to their sources): the PCI tree is built so
// that the documented classes come out, with the layout real sysfs uses
// (devices under devices/pciDDDD:BB/..., relative links from bus/pci/devices,
// class/infiniband and class/net).

// sharedFixtures is the one copy of the project's real tool outputs.
const sharedFixtures = "../importers/testdata/fixtures"

type fxDev struct {
	path   string // from the host bridge down, the device last: "pci0000:00/0000:00:01.1/0000:01:00.0"
	class  string // "0x030200"
	vendor string // "0x10de"
	device string // "0x2335"
	numa   int
	speed  string // current = max link speed, "" for none
	width  string
	driver string
}

type fxPort struct {
	state, physState, rate, linkLayer string
	// gids[i] is the text of gids/<i>; "" makes an entry that fails with
	// EINVAL, as empty GID entries do in sysfs.
	gids  []string
	types []string // gid_attrs/types/<i>
	ndevs []string // gid_attrs/ndevs/<i>
}

type fxIB struct {
	name, pci, hcaType, fw, nodeGUID string
	ports                            []fxPort
}

type fxNet struct {
	name, pci, speed, operstate, mtu string
}

type fxSystem struct {
	name     string
	comment  string    // the first lines of the archive: what it mirrors
	rootPort [2]string // vendor, device of root ports
	swPort   [2]string // vendor, device of switch ports
	devs     []fxDev
	ib       []fxIB
	net      []fxNet
}

const (
	h200   = "0x2335" // H200 SXM (PCI id)
	b200   = "0x2901" // B200
	rtx6k  = "0x26b1" // RTX 6000 Ada Generation
	cx7    = "0x1021" // ConnectX-7 (ibv_devinfo vendor_part_id 4129)
	cx6    = "0x101b" // ConnectX-6 (4123)
	cx5    = "0x1017" // ConnectX-5 (4119)
	gen5   = "32.0 GT/s PCIe"
	gen4   = "16.0 GT/s PCIe"
	gpu3D  = "0x030200"
	gpuVGA = "0x030000"
	eth    = "0x020000"
	ibCls  = "0x020700"
	nv     = "0x10de"
	mlx    = "0x15b3"
)

func gpuAt(p string, numa int, dev, class, speed string) fxDev {
	return fxDev{path: p, class: class, vendor: nv, device: dev, numa: numa, speed: speed, width: "16", driver: "nvidia"}
}

func nicAt(p string, numa int, dev, class, speed string) fxDev {
	return fxDev{path: p, class: class, vendor: mlx, device: dev, numa: numa, speed: speed, width: "16", driver: "mlx5_core"}
}

// switchUnder returns the paths of n endpoints, each below its own
// downstream port of one switch below root port rp ("pci0000:00/0000:00:01.0").
// bus is the switch's upstream bus number: the upstream port is bus:00.0,
// downstream ports (bus+1):0i.0, endpoints on bus+2+i.
func switchUnder(rp string, dom string, bus, n int) []string {
	usp := fmt.Sprintf("%s:%02x:00.0", dom, bus)
	var out []string
	for i := 0; i < n; i++ {
		dsp := fmt.Sprintf("%s:%02x:%02x.0", dom, bus+1, i)
		ep := fmt.Sprintf("%s:%02x:00.0", dom, bus+2+i)
		out = append(out, rp+"/"+usp+"/"+dsp+"/"+ep)
	}
	return out
}

func fixtureSystems() []fxSystem {
	var systems []fxSystem

	// Mirrors stelline-puget-wrx90-2xrtx6000ada-2nic-phb-spaces.txt: two GPUs
	// PHB to each other (one host bridge, two root ports), a dual-port mlx5
	// NIC (NIC0/NIC1 PIX: two functions below one root port) NODE to both
	// GPUs (another host bridge), one NUMA node.
	systems = append(systems, fxSystem{
		name: "puget-wrx90", comment: "mirrors nvidia-smi topo -m of stelline-puget-wrx90-2xrtx6000ada-2nic-phb-spaces.txt (see ../SOURCES.md)", rootPort: [2]string{"0x1022", "0x14ab"},
		devs: []fxDev{
			gpuAt("pci0000:20/0000:20:01.1/0000:21:00.0", 0, rtx6k, gpuVGA, gen4),
			gpuAt("pci0000:20/0000:20:03.1/0000:23:00.0", 0, rtx6k, gpuVGA, gen4),
			nicAt("pci0000:40/0000:40:01.1/0000:41:00.0", 0, cx7, eth, gen5),
			nicAt("pci0000:40/0000:40:01.1/0000:41:00.1", 0, cx7, eth, gen5),
		},
		ib: []fxIB{
			{name: "mlx5_0", pci: "0000:41:00.0", hcaType: "MT4129"},
			{name: "mlx5_1", pci: "0000:41:00.1", hcaType: "MT4129"},
		},
	})

	// Mirrors stelline-asus-esc8000a-4xrtx6000ada-4nic-node-sys-pix-spaces.txt
	// (two sockets; GPUs NODE within a socket, SYS across; two dual-port
	// NICs, PIX within a card) with the RDMA ports of
	// stelline-4x-cx7-4129-roce-port-down-spaces.txt (ibv_devinfo of the same
	// machine: 4x ConnectX-7, fw 28.41.1000, Ethernet link layer, ports down).
	down := fxPort{state: "1: DOWN", physState: "3: Disabled", linkLayer: "Ethernet", gids: []string{"", ""}}
	systems = append(systems, fxSystem{
		name: "asus-esc8000a", comment: "mirrors nvidia-smi topo -m of stelline-asus-esc8000a-4xrtx6000ada-4nic-node-sys-pix-spaces.txt and ibv_devinfo of stelline-4x-cx7-4129-roce-port-down-spaces.txt (see ../SOURCES.md)", rootPort: [2]string{"0x1022", "0x14ab"},
		devs: []fxDev{
			gpuAt("pci0000:00/0000:00:01.1/0000:01:00.0", 0, rtx6k, gpuVGA, gen4),
			gpuAt("pci0000:20/0000:20:01.1/0000:21:00.0", 0, rtx6k, gpuVGA, gen4),
			gpuAt("pci0000:80/0000:80:01.1/0000:81:00.0", 1, rtx6k, gpuVGA, gen4),
			gpuAt("pci0000:a0/0000:a0:01.1/0000:a1:00.0", 1, rtx6k, gpuVGA, gen4),
			nicAt("pci0000:40/0000:40:01.1/0000:41:00.0", 0, cx7, eth, gen5),
			nicAt("pci0000:40/0000:40:01.1/0000:41:00.1", 0, cx7, eth, gen5),
			nicAt("pci0000:c0/0000:c0:01.1/0000:c1:00.0", 1, cx7, eth, gen5),
			nicAt("pci0000:c0/0000:c0:01.1/0000:c1:00.1", 1, cx7, eth, gen5),
		},
		ib: []fxIB{
			{name: "mlx5_0", pci: "0000:41:00.0", hcaType: "MT4129", fw: "28.41.1000", nodeGUID: "9c63:c003:00d4:20f0", ports: []fxPort{down}},
			{name: "mlx5_1", pci: "0000:41:00.1", hcaType: "MT4129", fw: "28.41.1000", nodeGUID: "9c63:c003:00d4:20f1", ports: []fxPort{down}},
			{name: "mlx5_2", pci: "0000:c1:00.0", hcaType: "MT4129", fw: "28.43.1014", ports: []fxPort{down}},
			{name: "mlx5_3", pci: "0000:c1:00.1", hcaType: "MT4129", fw: "28.43.1014", ports: []fxPort{down}},
		},
		net: []fxNet{
			{name: "enp65s0f0np0", pci: "0000:41:00.0", speed: "-1", operstate: "down", mtu: "1500"},
			{name: "enp65s0f1np1", pci: "0000:41:00.1", speed: "-1", operstate: "down", mtu: "1500"},
		},
	})

	// Mirrors dranet-gke-a4-b200x8-8nic-pix-pairs-spaces.txt: four PCIe
	// switches, each with two GPUs and two NICs (all PIX), two switches per
	// host bridge pair and NUMA node (NODE across switches, SYS across
	// sockets). GKE A4 NICs run RoCE (Ethernet link layer), as the perftest
	// runs in the same source group show ("Link type : Ethernet").
	a4 := fxSystem{name: "gke-a4-b200x8", comment: "mirrors nvidia-smi topo -m of dranet-gke-a4-b200x8-8nic-pix-pairs-spaces.txt (see ../SOURCES.md)", rootPort: [2]string{"0x8086", "0x352a"}, swPort: [2]string{"0x1000", "0xc030"}}
	roce400 := fxPort{state: "4: ACTIVE", physState: "5: LinkUp", rate: "400 Gb/sec (4X NDR)", linkLayer: "Ethernet"}
	hostBridges := []string{"00", "20", "80", "a0"}
	for s, hb := range hostBridges {
		numa := s / 2
		rp := fmt.Sprintf("pci0000:%s/0000:%s:01.0", hb, hb)
		var busBase int
		fmt.Sscanf(hb, "%x", &busBase)
		eps := switchUnder(rp, "0000", busBase+1, 4)
		for i, ep := range eps {
			if i < 2 {
				a4.devs = append(a4.devs, gpuAt(ep, numa, b200, gpu3D, gen5))
			} else {
				a4.devs = append(a4.devs, nicAt(ep, numa, cx7, eth, gen5))
				nic := 2*s + i - 2
				a4.ib = append(a4.ib, fxIB{name: fmt.Sprintf("mlx5_%d", nic), pci: path.Base(ep), hcaType: "MT4129", ports: []fxPort{roce400}})
			}
		}
	}
	systems = append(systems, a4)

	// Mirrors h200x8-nv18-10nic-ansi-underline.txt: eight PCIe switches on
	// eight host bridges (four per NUMA node), one GPU each; NICs PIX to one
	// GPU (GPU3's switch holds three NICs, NIC0-NIC2, PIX to each other).
	h := fxSystem{name: "h200x8-10nic", comment: "mirrors nvidia-smi topo -m of h200x8-nv18-10nic-ansi-underline.txt (see ../SOURCES.md)", rootPort: [2]string{"0x8086", "0x352a"}, swPort: [2]string{"0x1000", "0xc030"}}
	// nicsOf[g] lists the NIC numbers under GPU g's switch.
	nicsOf := [][]int{{3}, {5}, {4}, {0, 1, 2}, {7}, {9}, {8}, {6}}
	hbs := []string{"10", "20", "30", "40", "90", "a0", "b0", "c0"}
	for g, hb := range hbs {
		numa := g / 4
		rp := fmt.Sprintf("pci0000:%s/0000:%s:01.0", hb, hb)
		var busBase int
		fmt.Sscanf(hb, "%x", &busBase)
		eps := switchUnder(rp, "0000", busBase+1, 1+len(nicsOf[g]))
		h.devs = append(h.devs, gpuAt(eps[0], numa, h200, gpu3D, gen5))
		for i, n := range nicsOf[g] {
			h.devs = append(h.devs, nicAt(eps[1+i], numa, cx7, ibCls, gen5))
			h.ib = append(h.ib, fxIB{name: fmt.Sprintf("mlx5_%d", n), pci: path.Base(eps[1+i]), hcaType: "MT4129"})
		}
	}
	systems = append(systems, h)

	// Mirrors v-chrysalis-3hca-cx6-ib-cx5-roce.txt (ibv_devinfo -v): one
	// ConnectX-6 on InfiniBand, 4X at 50 Gb/s per lane (HDR, 200 Gb/s), and
	// two ConnectX-5 ports on Ethernet (RoCE), 4X at 25 Gb/s (100 Gb/s), with
	// the GID tables shown there (RoCE v1 and v2 entries, then empty ones).
	// No GPU: this is a CPU cluster node.
	ib200 := fxPort{state: "4: ACTIVE", physState: "5: LinkUp", rate: "200 Gb/sec (4X HDR)", linkLayer: "InfiniBand",
		gids:  []string{"fe80:0000:0000:0000:0c42:a103:0065:d6b6", "", "0000:0000:0000:0000:0000:0000:0000:0000"},
		types: []string{"IB/RoCE v1", "", ""}}
	roce := func(mac, v4 string, nd string) fxPort {
		return fxPort{state: "4: ACTIVE", physState: "5: LinkUp", rate: "100 Gb/sec (4X EDR)", linkLayer: "Ethernet",
			gids:  []string{"fe80:0000:0000:0000:" + mac, "fe80:0000:0000:0000:" + mac, "0000:0000:0000:0000:0000:ffff:" + v4, "0000:0000:0000:0000:0000:ffff:" + v4, ""},
			types: []string{"IB/RoCE v1", "RoCE v2", "IB/RoCE v1", "RoCE v2", ""},
			ndevs: []string{nd, nd, nd, nd, ""}}
	}
	systems = append(systems, fxSystem{
		name: "chrysalis-rdma", comment: "mirrors ibv_devinfo -v of v-chrysalis-3hca-cx6-ib-cx5-roce.txt (see ../SOURCES.md)", rootPort: [2]string{"0x1022", "0x1483"},
		devs: []fxDev{
			nicAt("pci0000:20/0000:20:03.1/0000:21:00.0", 1, cx6, ibCls, gen4),
			nicAt("pci0000:40/0000:40:01.1/0000:41:00.0", 2, cx5, eth, "8.0 GT/s PCIe"),
			nicAt("pci0000:40/0000:40:01.1/0000:41:00.1", 2, cx5, eth, "8.0 GT/s PCIe"),
		},
		ib: []fxIB{
			{name: "mlx5_0", pci: "0000:21:00.0", hcaType: "MT4123", fw: "20.29.2002", ports: []fxPort{ib200}},
			{name: "mlx5_1", pci: "0000:41:00.0", hcaType: "MT4119", ports: []fxPort{roce("0e42:a1ff:fe2b:07a4", "8cdd:3c0b", "enp65s0f0")}},
			{name: "mlx5_2", pci: "0000:41:00.1", hcaType: "MT4119", ports: []fxPort{roce("0e42:a1ff:fe2b:07a5", "0a3c:200b", "enp65s0f1")}},
		},
		net: []fxNet{
			{name: "enp65s0f0", pci: "0000:41:00.0", speed: "100000", operstate: "up", mtu: "9000"},
			{name: "enp65s0f1", pci: "0000:41:00.1", speed: "100000", operstate: "up", mtu: "9000"},
		},
	})

	// Synthetic (hand-worked, no real source): a GPU below two nested
	// switches with one NIC on the outer switch (PXB: two bridges traversed)
	// and one next to the GPU on the inner switch (PIX); a second GPU on
	// another root port of the same host bridge (PHB to all).
	systems = append(systems, fxSystem{
		name: "synthetic-pxb", comment: "synthetic, hand-worked: nested PCIe switches (PXB), no real source", rootPort: [2]string{"0x8086", "0x352a"}, swPort: [2]string{"0x1000", "0xc030"},
		devs: []fxDev{
			// outer switch: usp 01:00.0, dsps 02:00.0 (to inner switch) and 02:01.0 (NIC A)
			// inner switch: usp 03:00.0, dsps 04:00.0 (GPU) and 04:01.0 (NIC B)
			gpuAt("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0", 0, h200, gpu3D, gen5),
			nicAt("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:07:00.0", 0, cx7, ibCls, gen5),
			nicAt("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:01.0/0000:06:00.0", 0, cx7, ibCls, gen5),
			gpuAt("pci0000:00/0000:00:02.0/0000:08:00.0", 0, h200, gpu3D, gen5),
		},
	})

	// Illustrates the GPU machine as ENVIRONMENT.md describes it (no real
	// sysfs dump): a Firecracker VM with a flat virtual PCI bus, two H200
	// and a virtio NIC directly on bus 0, no root ports, no NUMA information,
	// no RDMA device. NVML reports HOSTBRIDGE there; Classify gives PHB.
	systems = append(systems, fxSystem{
		name: "firecracker-flat", comment: "illustrates the GPU machine of ENVIRONMENT.md (flat virtual PCI bus, no NUMA, no RDMA); not a real dump",
		devs: []fxDev{
			{path: "pci0000:00/0000:00:02.0", class: eth, vendor: "0x1af4", device: "0x1041", numa: -1, driver: "virtio-pci"},
			{path: "pci0000:00/0000:00:05.0", class: gpu3D, vendor: nv, device: h200, numa: -1, driver: "nvidia"},
			{path: "pci0000:00/0000:00:06.0", class: gpu3D, vendor: nv, device: h200, numa: -1, driver: "nvidia"},
		},
	})
	return systems
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil && !errors.Is(err, fs.ErrExist) {
		t.Fatal(err)
	}
}

// build writes one fixture tree under dir.
func (s fxSystem) build(t *testing.T, dir string) {
	done := map[string]bool{}
	pciDir := map[string]string{} // address → path below devices/
	writeDev := func(p string, d fxDev) {
		addr := path.Base(p)
		if done[addr] {
			return
		}
		done[addr] = true
		pciDir[addr] = p
		base := filepath.Join(dir, "devices", filepath.FromSlash(p))
		writeFile(t, filepath.Join(base, "class"), d.class+"\n")
		writeFile(t, filepath.Join(base, "vendor"), d.vendor+"\n")
		writeFile(t, filepath.Join(base, "device"), d.device+"\n")
		writeFile(t, filepath.Join(base, "numa_node"), fmt.Sprintf("%d\n", d.numa))
		if d.speed != "" {
			writeFile(t, filepath.Join(base, "current_link_speed"), d.speed+"\n")
			writeFile(t, filepath.Join(base, "max_link_speed"), d.speed+"\n")
			writeFile(t, filepath.Join(base, "current_link_width"), d.width+"\n")
			writeFile(t, filepath.Join(base, "max_link_width"), d.width+"\n")
		}
		if d.driver != "" {
			depth := strings.Count(p, "/") + 1
			symlink(t, strings.Repeat("../", depth+1)+"bus/pci/drivers/"+d.driver, filepath.Join(base, "driver"))
			if err := os.MkdirAll(filepath.Join(dir, "bus", "pci", "drivers", d.driver), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		symlink(t, "../../../devices/"+p, filepath.Join(dir, "bus", "pci", "devices", addr))
	}
	for _, d := range s.devs {
		parts := strings.Split(d.path, "/")
		for i := 1; i < len(parts)-1; i++ {
			v := s.swPort
			if i == 1 || v[0] == "" {
				v = s.rootPort
			}
			writeDev(strings.Join(parts[:i+1], "/"), fxDev{class: "0x060400", vendor: v[0], device: v[1], numa: d.numa, speed: d.speed, width: d.width, driver: "pcieport"})
		}
		writeDev(d.path, d)
	}
	for _, ib := range s.ib {
		p, ok := pciDir[ib.pci]
		if !ok {
			t.Fatalf("%s: %s on unknown PCI function %s", s.name, ib.name, ib.pci)
		}
		base := filepath.Join(dir, "devices", filepath.FromSlash(p), "infiniband", ib.name)
		symlink(t, "../../../"+ib.pci, filepath.Join(base, "device"))
		symlink(t, "../../devices/"+p+"/infiniband/"+ib.name, filepath.Join(dir, "class", "infiniband", ib.name))
		if ib.hcaType != "" {
			writeFile(t, filepath.Join(base, "hca_type"), ib.hcaType+"\n")
		}
		if ib.fw != "" {
			writeFile(t, filepath.Join(base, "fw_ver"), ib.fw+"\n")
		}
		if ib.nodeGUID != "" {
			writeFile(t, filepath.Join(base, "node_guid"), ib.nodeGUID+"\n")
		}
		writeFile(t, filepath.Join(base, "node_type"), "1: CA\n")
		for i, port := range ib.ports {
			pb := filepath.Join(base, "ports", fmt.Sprint(i+1))
			writeFile(t, filepath.Join(pb, "state"), port.state+"\n")
			writeFile(t, filepath.Join(pb, "phys_state"), port.physState+"\n")
			if port.rate != "" {
				writeFile(t, filepath.Join(pb, "rate"), port.rate+"\n")
			} else {
				writeFile(t, filepath.Join(pb, "rate"), "") // reads as EINVAL (see sysfsReadFile)
			}
			writeFile(t, filepath.Join(pb, "link_layer"), port.linkLayer+"\n")
			for g, gid := range port.gids {
				content := ""
				if gid != "" {
					content = gid + "\n"
				}
				writeFile(t, filepath.Join(pb, "gids", fmt.Sprint(g)), content)
				at := func(list []string, sub string) {
					c := ""
					if g < len(list) && list[g] != "" {
						c = list[g] + "\n"
					}
					writeFile(t, filepath.Join(pb, "gid_attrs", sub, fmt.Sprint(g)), c)
				}
				at(port.types, "types")
				at(port.ndevs, "ndevs")
			}
		}
	}
	for _, n := range s.net {
		p := pciDir[n.pci]
		base := filepath.Join(dir, "devices", filepath.FromSlash(p), "net", n.name)
		symlink(t, "../../../"+n.pci, filepath.Join(base, "device"))
		symlink(t, "../../devices/"+p+"/net/"+n.name, filepath.Join(dir, "class", "net", n.name))
		writeFile(t, filepath.Join(base, "speed"), n.speed+"\n")
		writeFile(t, filepath.Join(base, "operstate"), n.operstate+"\n")
		writeFile(t, filepath.Join(base, "mtu"), n.mtu+"\n")
	}
	// Every sysfs has these class directories, empty or not.
	for _, c := range []string{"infiniband", "net"} {
		if err := os.MkdirAll(filepath.Join(dir, "class", c), 0o755); err != nil {
			t.Fatal(err)
		}
		keep := filepath.Join(dir, "class", c, ".keep")
		if ents, _ := os.ReadDir(filepath.Join(dir, "class", c)); len(ents) == 0 {
			writeFile(t, keep, "")
		}
	}
}

func TestRegenerateFixtures(t *testing.T) {
	if !golden.UpdateFixtures() {
		t.Skip("fixture trees are committed; run with -update-fixtures to rewrite them")
	}
	if err := os.MkdirAll(filepath.Join("testdata", "sysfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range fixtureSystems() {
		dir := t.TempDir()
		s.build(t, dir)
		ar, err := packTree(dir, s.comment)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join("testdata", "sysfs", s.name+".txt"), ar)
	}
}

// sysfsReadFile reads like sysfs: an empty attribute file stands for one
// whose read fails with EINVAL (empty GID table entries, the rate of a port
// whose link is down).
func sysfsReadFile(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err == nil && len(b) == 0 {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EINVAL}
	}
	return b, err
}

// fixtureReader unpacks the named fixture tree and returns a Reader on it.
func fixtureReader(t *testing.T, name string) Reader {
	t.Helper()
	return Reader{Root: unpackFixture(t, name), ReadFile: sysfsReadFile}
}
