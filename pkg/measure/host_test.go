package measure

import (
	"runtime"
	"testing"

	"github.com/gpupath/gpupath/pkg/record"
)

func TestReadHostFixture(t *testing.T) {
	h := ReadHost("testdata/host")
	if h.Hostname != "node1" || h.Kernel != "6.1.0-26-amd64" || h.OS != "Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("names: %+v", h)
	}
	if h.CPUModel != "AMD EPYC 9454 48-Core Processor" || h.CPUs != 3 {
		t.Errorf("cpu: %q × %d", h.CPUModel, h.CPUs)
	}
	if h.MemoryBytes != 396362216*1024 { // meminfo's kB are KiB
		t.Errorf("memory %d", h.MemoryBytes)
	}
	if h.LLCBytes != 32<<20 {
		t.Errorf("LLC %d, want 32MiB", h.LLCBytes)
	}
	if h.Driver != "580.159.04" || len(h.GPUs) != 1 || h.GPUs[0] != (record.GPU{Model: "NVIDIA H200", BusID: "0000:19:00.0"}) {
		t.Errorf("gpus %+v driver %q", h.GPUs, h.Driver)
	}
	if len(h.NICs) != 2 {
		t.Fatalf("nics %+v", h.NICs)
	}
	eth, lo := h.NICs[0], h.NICs[1]
	if eth != (record.NIC{Name: "eth0", Driver: "mlx5_core", MAC: "02:00:00:aa:bb:cc", State: "up", MTU: 9000, SpeedMbps: 100000}) {
		t.Errorf("eth0 %+v", eth)
	}
	if lo.Name != "lo" || !lo.Virtual || lo.SpeedMbps != 0 || lo.MTU != 65536 {
		t.Errorf("lo %+v", lo)
	}
	if h.Arch != runtime.GOARCH || len(h.Notes) != 0 {
		t.Errorf("arch %q notes %v", h.Arch, h.Notes)
	}
}

func TestReadHostMissing(t *testing.T) {
	h := ReadHost(t.TempDir())
	if h.Kernel != "" || h.CPUs != 0 || len(h.Notes) != 3 {
		t.Errorf("empty root: %+v", h)
	}
}

func TestReadHostThisMachine(t *testing.T) {
	h := ReadHost("")
	if h.Hostname == "" || h.Kernel == "" || h.CPUs < 1 || h.MemoryBytes <= 0 {
		t.Errorf("this machine: %+v", h)
	}
}

func TestHostParsers(t *testing.T) {
	if m := parseMeminfo("MemTotal: 1024 kB\n"); m != 1<<20 {
		t.Errorf("meminfo %d", m)
	}
	if m := parseMeminfo("MemTotal: x kB\n"); m != 0 {
		t.Errorf("bad meminfo %d", m)
	}
	if m, n := parseCPUInfo("processor : 0\nModel Name : Neoverse-V2\nprocessor : 1\n"); m != "Neoverse-V2" || n != 2 {
		t.Errorf("arm cpuinfo %q %d", m, n)
	}
	for in, want := range map[string]int64{"32K": 32 << 10, "1M": 1 << 20, "512": 512, "x": 0, "-1K": 0} {
		if got := parseCacheSize(in); got != want {
			t.Errorf("parseCacheSize(%q) = %d, want %d", in, got, want)
		}
	}
	if v := parseNvidiaVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n"); v != "570.86.15" {
		t.Errorf("open driver version %q", v)
	}
}
