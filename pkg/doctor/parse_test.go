package doctor

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

// A config space laid out by hand: a switch downstream port with the power
// management capability at 0x40, the PCI Express capability at 0x60, and in
// extended space AER at 0x100 followed by ACS at 0x148.
func handConfig() []byte {
	c := make([]byte, 4096)
	le := binary.LittleEndian
	le.PutUint16(c[0x00:], 0x1000) // vendor
	le.PutUint16(c[0x02:], 0xc030) // device
	le.PutUint16(c[0x06:], 0x0010) // status: capability list
	c[0x34] = 0x40
	c[0x40], c[0x41] = 0x01, 0x60       // PM, next 0x60
	c[0x60], c[0x61] = 0x10, 0x00       // PCIe, end
	le.PutUint16(c[0x62:], 0x0062)      // version 2, type 6 (downstream port)
	le.PutUint32(c[0x64:], 0x00000002)  // DevCap: MPS supported 512 (2)
	le.PutUint16(c[0x68:], 0x2030)      // DevCtl: MPS 256 (bits 7:5 = 1), MRRS 512 (bits 14:12 = 2)
	le.PutUint32(c[0x6c:], 0x00000105)  // LinkCap: gen5, x16
	le.PutUint16(c[0x72:], 0x0084)      // LinkSta: gen4, x8
	le.PutUint32(c[0x100:], 0x14810001) // AER, version 1, next 0x148
	le.PutUint32(c[0x148:], 0x0001000d) // ACS, version 1, end
	le.PutUint16(c[0x14c:], 0x005f)
	le.PutUint16(c[0x14e:], 0x000d) // SV RR CR
	return c
}

func TestParseConfigHandWorked(t *testing.T) {
	c, err := ParseConfig(handConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := ConfigSpace{Len: 4096, PCIe: true, PortType: portDownstream, MPSSupported: 512, MPS: 256, MRRS: 512,
		LinkCapGen: 5, LinkCapWidth: 16, LinkGen: 4, LinkWidth: 8, Extended: true, ACS: &ACS{Cap: 0x5f, Ctrl: 0x0d}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
	if !c.ACS.Redirects() || c.ACS.Bits() != "SV RR CR" {
		t.Errorf("ACS %+v: %s", c.ACS, c.ACS.Bits())
	}
	// Without root: 64 bytes, the capability list points past them.
	c, err = ParseConfig(handConfig()[:64])
	if err != nil || !c.Short || c.PCIe {
		t.Errorf("64 bytes: %+v %v", c, err)
	}
	// 256 bytes: no extended space, so no ACS.
	c, err = ParseConfig(handConfig()[:256])
	if err != nil || c.Extended || c.ACS != nil || !c.PCIe {
		t.Errorf("256 bytes: %+v %v", c, err)
	}
	// A capability list that loops ends the walk.
	b := handConfig()
	b[0x61] = 0x40
	le := binary.LittleEndian
	le.PutUint32(b[0x148:], 0x1480000d) // ACS pointing to itself
	if c, err := ParseConfig(b); err != nil || !c.PCIe || c.ACS == nil {
		t.Errorf("looping lists: %+v %v", c, err)
	}
	if _, err := ParseConfig(make([]byte, 10)); err == nil {
		t.Error("10 bytes parsed")
	}
	if _, err := ParseConfig(bytes.Repeat([]byte{0xff}, 256)); err == nil {
		t.Error("all-ones config parsed")
	}
}

func TestParseKernelConfig(t *testing.T) {
	text := "#\n# Linux config\nCONFIG_DMA_SHARED_BUFFER=y\n# CONFIG_NET_DEVMEM is not set\nCONFIG_INFINIBAND=m\nCONFIG_LOCALVERSION=\"-x\"\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	want := map[string]string{"CONFIG_DMA_SHARED_BUFFER": "y", "CONFIG_INFINIBAND": "m", "CONFIG_LOCALVERSION": "\"-x\""}
	for name, b := range map[string][]byte{"plain": []byte(text), "gzip": gz.Bytes()} {
		got, err := ParseKernelConfig(b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
	for _, bad := range []string{"", "hello", "\x1f\x8bjunk"} {
		if _, err := ParseKernelConfig([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseKernelRelease(t *testing.T) {
	for s, want := range map[string][2]int{"6.8.0-45-generic": {6, 8}, "5.14.0-427.el9.x86_64\n": {5, 14}, "6.18.44-fc-v1045": {6, 18}} {
		ma, mi, err := ParseKernelRelease(s)
		if err != nil || ma != want[0] || mi != want[1] {
			t.Errorf("%q: %d.%d %v", s, ma, mi, err)
		}
	}
	for _, s := range []string{"", "banana", "6", "99999999999999999999.1"} {
		if _, _, err := ParseKernelRelease(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestParseNVIDIAVersion(t *testing.T) {
	cases := map[string]nvidiaDriver{
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U22)  Thu Sep 25\nGCC version: 12": {Version: "580.95.05", Major: 580, Open: true},
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023":                                          {Version: "535.129.03", Major: 535},
		"NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.86.15  Release Build":                                                {Version: "570.86.15", Major: 570, Open: true},
	}
	for s, want := range cases {
		got, err := ParseNVIDIAVersion(s)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v", s, got, err)
		}
	}
	for _, s := range []string{"", "GCC version: 12", "NVRM version: nonsense"} {
		if _, err := ParseNVIDIAVersion(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestParseParams(t *testing.T) {
	p, bad := ParseParams("EnableStreamMemOPs: 1\nRegistryDwords: \"PeerMappingOverride=1;RMForcePcieConfigSave=1\"\nRmMsg: \"\"\n\nno colon here\n")
	if p["EnableStreamMemOPs"] != "1" || p["RmMsg"] != "" || len(bad) != 1 {
		t.Fatalf("%v %v", p, bad)
	}
	dw := ParseRegistryDwords(p["RegistryDwords"])
	if !reflect.DeepEqual(dw, map[string]string{"PeerMappingOverride": "1", "RMForcePcieConfigSave": "1"}) {
		t.Errorf("%v", dw)
	}
	if len(ParseRegistryDwords("")) != 0 || ParseRegistryDwords("A=1,B")["B"] != "" {
		t.Error("registry dwords edge cases")
	}
}

func TestParseCmdline(t *testing.T) {
	got := ParseCmdline(`BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=pt dyndbg="file x +p" -- --init-arg iommu=off`)
	want := []string{"BOOT_IMAGE=/vmlinuz", "ro", "intel_iommu=on", "iommu=pt", "dyndbg=file x +p"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
	if ps := iommuParams(got); !reflect.DeepEqual(ps, []string{"intel_iommu=on", "iommu=pt"}) {
		t.Errorf("iommu params %q", ps)
	}
	if len(ParseCmdline("  ")) != 0 || len(ParseCmdline(`"unterminated`)) != 1 {
		t.Error("edge cases")
	}
}

func TestSmallParsers(t *testing.T) {
	for s, want := range map[string]int{"0-27,56-83": 56, "3": 1, "": 0, "0-0": 1} {
		if n, err := ParseCPUList(s); err != nil || n != want {
			t.Errorf("ParseCPUList(%q) = %d %v", s, n, err)
		}
	}
	for _, s := range []string{"7-3", "x-y", "1,,2", "-1"} {
		if _, err := ParseCPUList(s); err == nil {
			t.Errorf("ParseCPUList(%q) parsed", s)
		}
	}
	m := ParseModules("nvidia_peermem 16384 0 - Live 0xffffffffc0a1b000 (OE)\nnvidia 1234 3 nvidia_peermem, Live 0x0\nshort line\n")
	if m["nvidia_peermem"] != "Live" || m["nvidia"] != "Live" || len(m) != 2 {
		t.Errorf("modules %v", m)
	}
	dev := "Character devices:\n  1 mem\n234 gdrdrv\n\nBlock devices:\n  8 gdrdrv\n"
	if ParseCharDevice(dev, "gdrdrv") != "234" || ParseCharDevice(dev, "mem") != "1" || ParseCharDevice("8 gdrdrv", "gdrdrv") != "" {
		t.Error("ParseCharDevice")
	}
	// iboe_get_mtu: 1500 − 96 = 1404 → 1024; 4200 − 96 = 4104 → 4096.
	for mtu, want := range map[int]int{1500: 1024, 9000: 4096, 4200: 4096, 4191: 2048, 2144: 2048, 2143: 1024, 300: 0} {
		if got := RoCEMTU(mtu); got != want {
			t.Errorf("RoCEMTU(%d) = %d, want %d", mtu, got, want)
		}
	}
}

func TestParseGPUInventory(t *testing.T) {
	if _, err := ParseGPUInventory([]byte(`{"nvml_version":"x","devices":[{"index":0,"pci_bus_id":"0000:05:00.0","extra":1}]}`)); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("unknown field: %v", err)
	}
	// The GPU facts of an older gpupath (via, gpus, bus_id) are refused by name.
	if _, err := ParseGPUInventory([]byte(`{"via":"x","gpus":[{"index":0,"bus_id":"0000:05:00.0"}]}`)); err == nil || !strings.Contains(err.Error(), `"via"`) {
		t.Errorf("old form: %v", err)
	}
	if _, err := ParseGPUInventory([]byte(`{"devices":[{"index":0}]}`)); err == nil {
		t.Error("GPU without bus id parsed")
	}
	g, err := ParseGPUInventory([]byte(`{"nvml_version":"13.580.159.04","devices":[{"index":0,"name":"","uuid":"","pci_bus_id":"0000:05:00.0","nvlinks":[{"link":0,"active":true}]}],"matrix":[["X"]]}`))
	if err != nil || g.Devices[0].ActiveNVLinks() != 1 || via(g) != "NVML 13.580.159.04" {
		t.Errorf("%+v %v", g, err)
	}
	if c, ok := matrixClass(g, 0, 0); !ok || c != "X" {
		t.Errorf("matrixClass(0, 0) = %q, %v", c, ok)
	}
	if _, ok := matrixClass(g, 0, 1); ok {
		t.Error("matrixClass(0, 1) of one GPU")
	}
}

func TestWhyNotAndOneLine(t *testing.T) {
	if got := oneLine("a\x00b\nsecond"); got != "a?b …" {
		t.Errorf("oneLine = %q", got)
	}
	if got := oneLine(strings.Repeat("x", 200)); len(got) != 160+len(" …") {
		t.Errorf("oneLine long: %d", len(got))
	}
}
