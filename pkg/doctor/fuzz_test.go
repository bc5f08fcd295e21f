package doctor

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpupath/gpupath/internal/fstree"
)

// The parsers of outside input, fuzzed: they must not panic on any input,
// and what they accept must be sane. The seed corpus is in testdata/fuzz
// (written by TestRegenerateTrees); go test runs it, go test -fuzz explores.

func FuzzParseConfig(f *testing.F) {
	f.Add(handConfig())
	f.Add(handConfig()[:64])
	f.Add(handConfig()[:256])
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfig(b)
		if err != nil {
			return
		}
		for _, v := range []int{c.MPS, c.MRRS, c.MPSSupported} {
			if v != 0 && (v < 128 || v > 4096 || v&(v-1) != 0) {
				t.Fatalf("payload size %d from %x", v, b[:min(len(b), 64)])
			}
		}
		if c.Len != len(b) {
			t.Fatalf("Len %d of %d bytes", c.Len, len(b))
		}
	})
}

func FuzzParseKernelConfig(f *testing.F) {
	f.Add([]byte("CONFIG_DMA_SHARED_BUFFER=y\n# CONFIG_NET_DEVMEM is not set\n"))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseKernelConfig(b)
		if err == nil && len(m) == 0 {
			t.Fatal("accepted a config without keys")
		}
		for k := range m {
			if !strings.HasPrefix(k, "CONFIG_") {
				t.Fatalf("key %q", k)
			}
		}
	})
}

// FuzzParseText drives every line parser with the same text.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"6.8.0-45-generic", "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build",
		"EnableStreamMemOPs: 1\nRegistryDwords: \"PeerMappingOverride=1;\"\n", `ro iommu=pt dyndbg="a b" -- x`, "0-27,56-83",
		"nvidia 1 0 - Live 0x0\n", "Character devices:\n234 gdrdrv\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ma, mi, err := ParseKernelRelease(s); err == nil && (ma < 0 || mi < 0) {
			t.Fatalf("release %d.%d", ma, mi)
		}
		if d, err := ParseNVIDIAVersion(s); err == nil && (d.Version == "" || d.Major < 0) {
			t.Fatalf("driver %+v", d)
		}
		p, _ := ParseParams(s)
		for k, v := range p {
			if k == "" || strings.Contains(k, ":") {
				t.Fatalf("param %q=%q", k, v)
			}
			ParseRegistryDwords(v)
		}
		for _, a := range ParseCmdline(s) {
			if a == "--" {
				t.Fatal("-- kept")
			}
		}
		iommuParams(ParseCmdline(s))
		if n, err := ParseCPUList(s); err == nil && n < 0 {
			t.Fatalf("%d CPUs", n)
		}
		ParseModules(s)
		ParseCharDevice(s, "gdrdrv")
		oneLine(s)
		ParseGPUInventory([]byte(s))
	})
}

// fuzzTargets are the files FuzzRun replaces in the pix-good tree.
var fuzzTargets = []string{
	"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0/config",
	"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0/current_link_speed",
	"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0/numa_node",
	"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/config",
	"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:07:00.0/infiniband/mlx5_1/ports/1/state",
	"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:07:00.0/infiniband/mlx5_1/ports/1/gids/1",
	"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:07:00.0/net/enp7s0np0/mtu",
	"sys/kernel/iommu_groups/8/type",
	"proc/driver/nvidia/params",
	"proc/driver/nvidia/version",
	"proc/cmdline",
	"proc/config.gz",
	"proc/sys/kernel/osrelease",
	"proc/modules",
	"proc/devices",
	"nvml.json",
}

func loadMapFS(t testing.TB, name string) fstest.MapFS {
	f, err := os.Open(filepath.Join("testdata", "trees", name, "tree.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	es, err := fstree.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	for _, e := range es {
		switch e.Kind {
		case 'd':
			m[e.Path] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		case 'f':
			m[e.Path] = &fstest.MapFile{Data: []byte(e.Data), Mode: 0o644}
		case 'l':
			m[e.Path] = &fstest.MapFile{Data: []byte(e.Data), Mode: fs.ModeSymlink | 0o777}
		}
	}
	return m
}

// FuzzRun drives the readers: doctor runs on the pix-good tree with up to
// two of its files replaced by the input, and no check may stop.
func FuzzRun(f *testing.F) {
	base := loadMapFS(f, "pix-good")
	for i := range fuzzTargets {
		f.Add(uint8(i), []byte("garbage\x00\xff"), uint8(i+1), []byte(""))
	}
	f.Add(uint8(0), handConfig()[:70], uint8(8), []byte("EnableStreamMemOPs 1\n"))
	f.Fuzz(func(t *testing.T, w1 uint8, d1 []byte, w2 uint8, d2 []byte) {
		m := fstest.MapFS{}
		for k, v := range base {
			m[k] = v
		}
		m[fuzzTargets[int(w1)%len(fuzzTargets)]] = &fstest.MapFile{Data: d1, Mode: 0o644}
		m[fuzzTargets[int(w2)%len(fuzzTargets)]] = &fstest.MapFile{Data: d2, Mode: 0o644}
		sys, _ := fs.Sub(m, "sys")
		proc, _ := fs.Sub(m, "proc")
		r := Run(Options{Sys: readLinkSub{sys, m, "sys"}, Proc: readLinkSub{proc, m, "proc"},
			GPU: FileGPUSource{FS: m, Name: "nvml.json"}, Roots: Roots{Sys: "sys", Proc: "proc"}})
		var buf bytes.Buffer
		if err := WriteText(&buf, r); err != nil {
			t.Fatal(err)
		}
		for _, fi := range r.Findings {
			if strings.HasSuffix(fi.ID, ".internal") {
				t.Fatalf("%s", fi.Title)
			}
		}
	})
}

// readLinkSub is fs.Sub of a MapFS that keeps ReadLink and Lstat.
type readLinkSub struct {
	fs.FS
	m      fstest.MapFS
	prefix string
}

func (s readLinkSub) ReadLink(name string) (string, error) {
	return s.m.ReadLink(s.prefix + "/" + name)
}
func (s readLinkSub) Lstat(name string) (fs.FileInfo, error) {
	return s.m.Lstat(s.prefix + "/" + name)
}

// The trees read the same through the in-memory file system as from disk
// (so FuzzRun explores what the golden tests fix).
func TestMapFSMatchesDisk(t *testing.T) {
	m := loadMapFS(t, "pix-good")
	sys, _ := fs.Sub(m, "sys")
	proc, _ := fs.Sub(m, "proc")
	boot, _ := fs.Sub(m, "boot")
	r := Run(Options{Sys: readLinkSub{sys, m, "sys"}, Proc: readLinkSub{proc, m, "proc"}, Boot: readLinkSub{boot, m, "boot"},
		GPU: FileGPUSource{FS: m, Name: "nvml.json"}, Roots: Roots{Sys: "sys", Proc: "proc", Boot: "boot"}})
	d := runTree(t, "pix-good")
	if r.Summary != d.Summary {
		t.Errorf("in memory %+v, on disk %+v", r.Summary, d.Summary)
	}
}
