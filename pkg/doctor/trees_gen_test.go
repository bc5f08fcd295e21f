package doctor

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/fstree"
	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/record"
)

// The fixture trees in testdata/trees/<name>/tree.txt are generated from
// the specs below (go test ./pkg/doctor -run TestRegenerateTrees
// -update-fixtures), except cpu-vm, which gpupath doctor --save-tree captured on
// the CI machine. Each tree's README.md says what is copied from a real
// machine and what is written by hand.

// builder assembles a tree: sys/, proc/, boot/ and nvml.json.
type builder struct {
	t  *testing.T
	es map[string]fstree.Entry
}

func newBuilder(t *testing.T) *builder { return &builder{t: t, es: map[string]fstree.Entry{}} }

func (b *builder) dir(p string)          { b.es[p] = fstree.Entry{Kind: 'd', Path: p} }
func (b *builder) file(p, data string)   { b.es[p] = fstree.Entry{Kind: 'f', Path: p, Data: data} }
func (b *builder) link(p, target string) { b.es[p] = fstree.Entry{Kind: 'l', Path: p, Data: target} }
func (b *builder) remove(prefix string) {
	for k := range b.es {
		if k == prefix || strings.HasPrefix(k, prefix+"/") {
			delete(b.es, k)
		}
	}
}

// topo loads a pkg/topo sysfs fixture archive under sys/, leaving out the
// empty GID, GID attribute and rate files (sysfs answers EINVAL for them,
// which a plain file cannot) and the .keep markers.
func (b *builder) topo(name string) {
	f, err := os.Open(filepath.Join("..", "topo", "testdata", "sysfs", name+".txt"))
	if err != nil {
		b.t.Fatal(err)
	}
	defer f.Close()
	es, err := fstree.Parse(f)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, e := range es {
		if e.Kind == 'f' && e.Data == "" && (strings.Contains(e.Path, "/gids/") || strings.Contains(e.Path, "/gid_attrs/") || strings.HasSuffix(e.Path, "/rate")) {
			continue
		}
		if strings.HasSuffix(e.Path, "/.keep") {
			continue
		}
		e.Path = path.Join("sys", e.Path)
		b.es[e.Path] = e
	}
}

// devDir is the directory of a PCI function, from its bus/pci/devices link.
func (b *builder) devDir(addr string) string {
	l, ok := b.es["sys/bus/pci/devices/"+addr]
	if !ok || l.Kind != 'l' {
		b.t.Fatalf("no PCI function %s in the tree", addr)
	}
	return path.Join("sys/bus/pci/devices", l.Data)
}

func (b *builder) attr(addr, name, v string) { b.file(path.Join(b.devDir(addr), name), v) }

// link speeds by generation, as sysfs prints them.
var gts = map[int]string{1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe"}

// current sets a function's trained link.
func (b *builder) current(addr string, gen, width int) {
	b.attr(addr, "current_link_speed", gts[gen]+"\n")
	b.attr(addr, "current_link_width", fmt.Sprintf("%d\n", width))
}

// pciAddrs lists the functions of the tree.
func (b *builder) pciAddrs() []string {
	var out []string
	for k, e := range b.es {
		if rest, ok := strings.CutPrefix(k, "sys/bus/pci/devices/"); ok && e.Kind == 'l' && !strings.Contains(rest, "/") {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out
}

func (b *builder) readAttr(addr, name string) string {
	return strings.TrimSpace(b.es[path.Join(b.devDir(addr), name)].Data)
}

// cfgSpec describes a config space to generate.
type cfgSpec struct {
	size               int // bytes: 64 (no root), 256, 4096
	portType           int // PCIe device/port type
	mpsSup, mps, mrrs  int // bytes
	capGen, capWidth   int
	linkGen, linkWidth int
	acs                int // ACS control; -1: no ACS capability
	noPCIe             bool
}

func log2(v int) uint16 {
	n := uint16(0)
	for v > 128 {
		v >>= 1
		n++
	}
	return n
}

// config builds config space bytes: a type-0/1 header with the
// capability list at 0x40 (the PCI Express capability) and, past 256 bytes,
// an ACS extended capability at 0x100.
func (b *builder) config(addr string, s cfgSpec) {
	c := make([]byte, 4096)
	le := binary.LittleEndian
	var vendor, device uint64
	fmt.Sscanf(b.readAttr(addr, "vendor"), "0x%x", &vendor)
	fmt.Sscanf(b.readAttr(addr, "device"), "0x%x", &device)
	var class uint64
	fmt.Sscanf(b.readAttr(addr, "class"), "0x%x", &class)
	le.PutUint16(c[0:], uint16(vendor))
	le.PutUint16(c[2:], uint16(device))
	c[0x09], c[0x0a], c[0x0b] = byte(class), byte(class>>8), byte(class>>16)
	if class>>8 == 0x0604 {
		c[0x0e] = 1 // header type 1: a bridge
	}
	if !s.noPCIe {
		le.PutUint16(c[cfgStatus:], cfgStatusCapBit)
		c[cfgCapPtr] = 0x40
		p := 0x40
		c[p], c[p+1] = capIDPCIe, 0
		le.PutUint16(c[p+pcieCaps:], uint16(s.portType)<<4|2)
		le.PutUint32(c[p+pcieDevCap:], uint32(log2(s.mpsSup)))
		le.PutUint16(c[p+pcieDevCtl:], log2(s.mps)<<5|log2(s.mrrs)<<12)
		le.PutUint32(c[p+pcieLinkCap:], uint32(s.capGen)|uint32(s.capWidth)<<4)
		le.PutUint16(c[p+pcieLinkSta:], uint16(s.linkGen)|uint16(s.linkWidth)<<4)
	}
	if s.acs >= 0 && !s.noPCIe {
		le.PutUint32(c[extCapStart:], extCapIDACS|1<<16) // version 1, no next
		le.PutUint16(c[extCapStart+4:], 0x005f)          // SV TB RR CR UF EC? (capabilities offered)
		le.PutUint16(c[extCapStart+6:], uint16(s.acs))
	}
	b.attr(addr, "config", string(c[:s.size]))
}

// configAll gives every function a config space from its sysfs link
// attributes: root ports and switch ports by their place in the chain.
func (b *builder) configAll(size, mps, mrrs int, acs func(addr string, portType int) int) {
	for _, a := range b.pciAddrs() {
		l := b.es["sys/bus/pci/devices/"+a].Data
		depth := 0
		for _, p := range strings.Split(l, "/") {
			if strings.Count(p, ":") == 2 {
				depth++
			}
		}
		pt := portEndpoint
		if b.readAttr(a, "class") == "0x060400" {
			switch {
			case depth == 1:
				pt = portRoot
			case depth%2 == 0:
				pt = portUpstream
			default:
				pt = portDownstream
			}
		}
		gen := map[string]int{"2.5 GT/s PCIe": 1, "5.0 GT/s PCIe": 2, "8.0 GT/s PCIe": 3, "16.0 GT/s PCIe": 4, "32.0 GT/s PCIe": 5}
		var cw, w int
		fmt.Sscan(b.readAttr(a, "max_link_width"), &cw)
		fmt.Sscan(b.readAttr(a, "current_link_width"), &w)
		a := a
		ac := -1
		if acs != nil && pt != portEndpoint {
			ac = acs(a, pt)
		}
		b.config(a, cfgSpec{size: size, portType: pt, mpsSup: 256, mps: mps, mrrs: mrrs,
			capGen: gen[b.readAttr(a, "max_link_speed")], capWidth: cw,
			linkGen: gen[b.readAttr(a, "current_link_speed")], linkWidth: w, acs: ac})
	}
}

// rdma adds an RDMA device on a PCI function, laid out as sysfs does.
type portSpec struct {
	state, phys, rate, layer string
	gids, types, ndevs       []string
}

func (b *builder) rdma(name, addr, hca string, ports ...portSpec) {
	base := path.Join(b.devDir(addr), "infiniband", name)
	rel := strings.TrimPrefix(base, "sys/")
	b.link("sys/class/infiniband/"+name, "../../"+rel)
	b.link(base+"/device", "../../../"+addr)
	b.file(base+"/hca_type", hca+"\n")
	b.file(base+"/node_type", "1: CA\n")
	for i, p := range ports {
		pb := fmt.Sprintf("%s/ports/%d", base, i+1)
		b.file(pb+"/state", p.state+"\n")
		b.file(pb+"/phys_state", p.phys+"\n")
		if p.rate != "" {
			b.file(pb+"/rate", p.rate+"\n")
		}
		b.file(pb+"/link_layer", p.layer+"\n")
		b.dir(pb + "/gids")
		for g, gid := range p.gids {
			b.file(fmt.Sprintf("%s/gids/%d", pb, g), gid+"\n")
			if g < len(p.types) {
				b.file(fmt.Sprintf("%s/gid_attrs/types/%d", pb, g), p.types[g]+"\n")
			}
			if g < len(p.ndevs) {
				b.file(fmt.Sprintf("%s/gid_attrs/ndevs/%d", pb, g), p.ndevs[g]+"\n")
			}
		}
	}
}

// netdev adds a network interface on a PCI function with rx/tx queues.
func (b *builder) netdev(name, addr string, mtu, queues int, oper, speed string) {
	base := path.Join(b.devDir(addr), "net", name)
	b.link("sys/class/net/"+name, "../../"+strings.TrimPrefix(base, "sys/"))
	b.link(base+"/device", "../../../"+addr)
	b.file(base+"/mtu", fmt.Sprintf("%d\n", mtu))
	b.file(base+"/operstate", oper+"\n")
	b.file(base+"/speed", speed+"\n")
	for q := 0; q < queues; q++ {
		b.dir(fmt.Sprintf("%s/queues/rx-%d", base, q))
		b.dir(fmt.Sprintf("%s/queues/tx-%d", base, q))
	}
}

// iommu puts every function in a group of its own with the given type.
func (b *builder) iommu(typ string) {
	for i, a := range b.pciAddrs() {
		g := fmt.Sprint(i + 1)
		depth := strings.Count(b.devDir(a), "/")
		b.link(b.devDir(a)+"/iommu_group", strings.Repeat("../", depth)+"kernel/iommu_groups/"+g)
		b.file("sys/kernel/iommu_groups/"+g+"/type", typ+"\n")
		b.link("sys/kernel/iommu_groups/"+g+"/devices/"+a, "../../../../devices/"+strings.TrimPrefix(b.devDir(a), "sys/devices/"))
	}
}

// numa writes local_cpulist of every function from its numa_node, and the
// nodes' CPU lists.
func (b *builder) numa(cpus map[int]string) {
	for n, l := range cpus {
		b.file(fmt.Sprintf("sys/devices/system/node/node%d/cpulist", n), l+"\n")
	}
	for _, a := range b.pciAddrs() {
		var n int
		fmt.Sscan(b.readAttr(a, "numa_node"), &n)
		if l, ok := cpus[n]; ok {
			b.attr(a, "local_cpulist", l+"\n")
		}
	}
}

func (b *builder) module(name, version string) {
	b.file("sys/module/"+name+"/version", version+"\n")
	b.file("sys/module/"+name+"/initstate", "live\n")
}

// kernelConfig writes a kernel config with the given CONFIG_ lines, plain
// at name or gzipped when name ends in .gz.
func (b *builder) kernelConfig(name string, lines ...string) {
	text := "#\n# Automatically generated file; DO NOT EDIT.\n#\n" + strings.Join(lines, "\n") + "\n"
	if !strings.HasSuffix(name, ".gz") {
		b.file(name, text)
		return
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write([]byte(text))
	zw.Close()
	b.file(name, buf.String())
}

func (b *builder) nvml(g *record.GPUInventory) {
	var s strings.Builder
	if err := WriteGPUInventory(&s, g); err != nil {
		b.t.Fatal(err)
	}
	b.file("nvml.json", s.String())
}

// modulesFile writes /proc/modules with the named modules.
func (b *builder) modulesFile(names ...string) {
	var s strings.Builder
	for i, n := range names {
		fmt.Fprintf(&s, "%s %d %d - Live 0xffffffffc%07x%s\n", n, 16384*(i+1), 0, 0x1000*(i+1), map[bool]string{true: " (OE)"}[strings.HasPrefix(n, "nv")])
	}
	b.file("proc/modules", s.String())
}

func (b *builder) write(dir string, header []string) {
	var es []fstree.Entry
	for _, e := range b.es {
		es = append(es, e)
	}
	fstree.Sort(es)
	var buf bytes.Buffer
	if err := fstree.Write(&buf, header, es); err != nil {
		b.t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tree.txt"), buf.Bytes(), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// nvLinks returns n NVLink 4 links, the ones in down inactive.
func nvLinks(n int, remote string, down ...int) []record.GPUNVLink {
	off := map[int]bool{}
	for _, d := range down {
		off[d] = true
	}
	var out []record.GPUNVLink
	for i := 0; i < n; i++ {
		if off[i] {
			out = append(out, record.GPUNVLink{Link: i})
			continue
		}
		out = append(out, record.GPUNVLink{Link: i, Active: true, Version: 4, RemoteType: remote})
	}
	return out
}

// gpuMatrix is the topology matrix of n GPUs joined pairwise by class, as
// the nvml probe records it ("X" on the diagonal).
func gpuMatrix(n int, class string) [][]string {
	m := make([][]string, n)
	for i := range m {
		m[i] = make([]string, n)
		for j := range m[i] {
			m[i][j] = class
		}
		m[i][i] = "X"
	}
	return m
}

const (
	params = "ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nModifyDeviceFiles: 1\nDeviceFileUID: 0\nDeviceFileGID: 0\nDeviceFileMode: 438\n" +
		"InitializeSystemMemoryAllocations: 1\nUsePageAttributeTable: 4294967295\nEnableMSI: 1\nEnablePCIeGen3: 0\nMemoryPoolSize: 0\n" +
		"KMallocHeapMaxSize: 0\nVMallocHeapMaxSize: 0\nIgnoreMMIOCheck: 0\nEnableStreamMemOPs: %s\nEnableUserNUMAManagement: 1\nNvLinkDisable: 0\n" +
		"RmProfilingAdminOnly: 1\nPreserveVideoMemoryAllocations: 0\nEnableS0ixPowerManagement: 0\nS0ixPowerManagementVideoMemoryThreshold: 256\n" +
		"DynamicPowerManagement: 3\nDynamicPowerManagementVideoMemoryThreshold: 200\nRegisterPCIDriver: 1\nEnablePCIERelaxedOrderingMode: 0\n" +
		"EnableResizableBar: 0\nEnableGpuFirmware: 18\nEnableGpuFirmwareLogs: 2\nRmNvlinkBandwidthLinkCount: 0\nEnableDbgBreakpoint: 0\n" +
		"OpenRmEnableUnsupportedGpus: 1\nDmaRemapPeerMmio: %s\nImexChannelCount: 2048\nCreateImexChannel0: 0\nGrdmaPciTopoCheckOverride: 0\n" +
		"RegistryDwords: \"%s\"\nRegistryDwordsPerDevice: \"\"\nRmMsg: \"\"\nGpuBlacklist: \"\"\nTemporaryFilePath: \"\"\nExcludedGpus: \"\"\n"
	openVersion        = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (dvs-builder@U22-I3-AE18-09-3)  Thu Oct  2 00:00:00 UTC 2025\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n"
	proprietaryVersion = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Thu Oct 19 18:56:32 UTC 2023\nGCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n"
	procDevices        = "Character devices:\n  1 mem\n  4 /dev/vc/0\n  4 tty\n195 nvidia\n%s235 nvidia-caps\n510 nvidia-uvm\n\nBlock devices:\n  7 loop\n  8 sd\n259 blkext\n"
)

var goodConfig = []string{"CONFIG_DMA_SHARED_BUFFER=y", "CONFIG_INFINIBAND=m", "CONFIG_INFINIBAND_USER_ACCESS=m", "CONFIG_INFINIBAND_USER_MEM=y",
	"CONFIG_PCI_P2PDMA=y", "CONFIG_NET_DEVMEM=y", "CONFIG_PAGE_POOL=y", "CONFIG_GENERIC_ALLOCATOR=y", "CONFIG_IOMMU_DEFAULT_DMA_LAZY=y"}

type treeSpec struct {
	name   string
	readme string
	build  func(b *builder)
}

func treeSpecs() []treeSpec {
	return []treeSpec{
		{name: "pix-good", readme: readmePixGood, build: buildPixGood},
		{name: "bridge-bad", readme: readmeBridgeBad, build: buildBridgeBad},
		{name: "cross-socket", readme: readmeCrossSocket, build: buildCrossSocket},
		{name: "h200-vm", readme: readmeH200VM, build: buildH200VM},
		{name: "bad", readme: readmeBad, build: buildBad},
		{name: "empty", readme: readmeEmpty, build: func(b *builder) { b.dir("sys"); b.dir("proc"); b.dir("boot") }},
	}
}

func TestRegenerateTrees(t *testing.T) {
	if !golden.UpdateFixtures() {
		t.Skip("fixture trees are committed; run with -update-fixtures to rewrite them")
	}
	for _, s := range treeSpecs() {
		b := newBuilder(t)
		s.build(b)
		dir := filepath.Join("testdata", "trees", s.name)
		b.write(dir, []string{"doctor fixture tree " + s.name + ": see README.md next to this file",
			"generated by TestRegenerateTrees (trees_gen_test.go); unpacked by the tests with internal/fstree"})
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(strings.TrimLeft(s.readme, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSeeds(t)
}

// writeSeeds writes the fuzz seed corpus in testdata/fuzz.
func writeSeeds(t *testing.T) {
	write := func(target, name string, vals ...any) {
		var s strings.Builder
		s.WriteString("go test fuzz v1\n")
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				fmt.Fprintf(&s, "[]byte(%q)\n", v)
			case string:
				fmt.Fprintf(&s, "string(%q)\n", v)
			case uint8:
				fmt.Fprintf(&s, "byte(%q)\n", rune(v))
			}
		}
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hc := handConfig()
	write("FuzzParseConfig", "seed00", hc[:0x160])
	write("FuzzParseConfig", "seed01", hc[:64])
	write("FuzzParseConfig", "seed02", hc[:256])
	write("FuzzParseConfig", "seed03", bytes.Repeat([]byte{0xff}, 64))
	write("FuzzParseKernelConfig", "seed00", []byte("CONFIG_DMA_SHARED_BUFFER=y\nCONFIG_INFINIBAND_USER_MEM=y\n# CONFIG_NET_DEVMEM is not set\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("CONFIG_NET_DEVMEM=y\n"))
	zw.Close()
	write("FuzzParseKernelConfig", "seed01", gz.Bytes())
	write("FuzzParseKernelConfig", "seed02", []byte("\x1f\x8bnot a gzip stream"))
	for i, s := range []string{"6.8.0-45-generic", "5.14.0-427.el9.x86_64",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U22)",
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023",
		fmt.Sprintf(params, "1", "1", "PeerMappingOverride=1;"),
		`BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=pt pci=noacs,disable_acs_redir=0000:04:00.0 dyndbg="a b" -- --x`,
		"0-27,56-83", "7-3", fmt.Sprintf(procDevices, "234 gdrdrv\n"),
		"nvidia_peermem 16384 0 - Live 0xffffffffc0a1b000 (OE)\nnvidia 1 1 nvidia_peermem, Live 0x0\n",
		`{"nvml_version":"13.580.159.04","devices":[{"index":0,"name":"NVIDIA H200","uuid":"","pci_bus_id":"0000:05:00.0","nvlinks":[{"link":0,"active":true,"version":4}]}],"matrix":[["X"]]}`} {
		write("FuzzParseText", fmt.Sprintf("seed%02d", i), s)
	}
	for i, d := range [][]byte{[]byte("garbage\x00\xff"), []byte(""), hc[:70], []byte("32.0 GT/s PCIe"), []byte("4: ACTIVE"),
		[]byte("fe80:0000:0000:0000:0e42:a1ff:fe2b:07a4"), []byte("65536"), []byte("DMA-FQ"), []byte("{")} {
		write("FuzzRun", fmt.Sprintf("seed%02d", i), uint8(i), d, uint8(i+7), []byte("\xff\xfe"))
	}
}
