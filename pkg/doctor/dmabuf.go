package doctor

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// dmabufCheck says whether GPU memory can be given to the NIC as a DMA-BUF
// (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr), the kernel's own
// route to GPUDirect RDMA that needs no peer-memory module: the kernel must
// import dma-bufs into RDMA memory regions (Linux 5.12, "RDMA/umem: Support
// importing dma-buf as user memory region"), with CONFIG_DMA_SHARED_BUFFER
// and CONFIG_INFINIBAND_USER_MEM; the NVIDIA driver must export them, which
// only the open kernel modules do, from R515 (open-gpu-kernel-modules
// README; NCCL's init.cc also wants CUDA driver ≥ 11.7).
type dmabufCheck struct{}

func (dmabufCheck) Name() string { return "dmabuf" }

// Minimums for DMA-BUF GPUDirect RDMA (see dmabufCheck).
const (
	dmabufKernelMajor, dmabufKernelMinor = 5, 12
	dmabufDriverMajor                    = 515
)

// kernelFacts are the kernel release and config, read once and shared with
// the devmem check.
type kernelFacts struct {
	release      string
	major, minor int
	relFact      Fact
	config       map[string]string // nil: not readable
	configFacts  []Fact
	configSource string
}

func readKernel(e *Env) kernelFacts {
	return once(e, "kernel", func() kernelFacts {
		var k kernelFacts
		k.release, k.relFact = e.text(procTree, "sys/kernel/osrelease")
		if k.relFact.OK() {
			var err error
			if k.major, k.minor, err = ParseKernelRelease(k.release); err != nil {
				k.relFact.Error, k.relFact.Value = "could not read: "+err.Error(), ""
			}
		}
		try := func(t tree, name string) bool {
			b, err := e.read(t, name)
			if err != nil {
				k.configFacts = append(k.configFacts, Fact{Source: src(t, name), Error: whyNot(err)})
				return false
			}
			cfg, err := ParseKernelConfig(b)
			if err != nil {
				k.configFacts = append(k.configFacts, Fact{Source: src(t, name), Error: "could not read: " + err.Error()})
				return false
			}
			k.config, k.configSource = cfg, src(t, name)
			return true
		}
		if !try(procTree, "config.gz") && k.release != "" && k.relFact.OK() {
			try(bootTree, "config-"+k.release)
		}
		return k
	})
}

// configFact says what the kernel config has for key.
func (k kernelFacts) configFact(key string) Fact {
	v, ok := k.config[key]
	if !ok {
		v = "not set"
	}
	return Fact{Source: k.configSource + ": " + key, Value: v}
}

// has reports whether key is built in or a module (y or m).
func (k kernelFacts) has(key string) bool { v := k.config[key]; return v == "y" || v == "m" }

func (k kernelFacts) atLeast(major, minor int) bool {
	return k.major > major || (k.major == major && k.minor >= minor)
}

var releaseRe = regexp.MustCompile(`^(\d+)\.(\d+)`)

// ParseKernelRelease parses a kernel release ("6.8.0-45-generic",
// "5.14.0-427.el9.x86_64") into its major and minor version.
func ParseKernelRelease(s string) (major, minor int, err error) {
	m := releaseRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, 0, fmt.Errorf("not a kernel release: %q", oneLine(s))
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || major > 1000 || minor > 1000 {
		return 0, 0, fmt.Errorf("not a kernel release: %q", oneLine(s))
	}
	return major, minor, nil
}

// maxConfig bounds a decompressed kernel config (real ones are under 1 MiB).
const maxConfig = 16 << 20

// ParseKernelConfig parses a kernel config (/boot/config-*, or gzipped as
// /proc/config.gz) into CONFIG_* → value ("y", "m", "\"string\"", "64").
// "# CONFIG_X is not set" lines are left out, as unset keys are.
func ParseKernelConfig(b []byte) (map[string]string, error) {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("kernel config: %w", err)
		}
		plain, err := io.ReadAll(io.LimitReader(zr, maxConfig+1))
		if err != nil {
			return nil, fmt.Errorf("kernel config: %w", err)
		}
		if len(plain) > maxConfig {
			return nil, errors.New("kernel config: larger than 16 MiB")
		}
		b = plain
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 4096), 1<<20)
	lines := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "CONFIG_") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		out[k] = v
		lines++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("kernel config: %w", err)
	}
	if lines == 0 {
		return nil, errors.New("kernel config: no CONFIG_ lines")
	}
	return out, nil
}

// nvidiaDriver is the NVIDIA kernel module as /proc/driver/nvidia/version
// describes it.
type nvidiaDriver struct {
	Version string // "580.95.05"
	Major   int
	Open    bool // the open kernel modules ("Open Kernel Module")
}

var nvVersionRe = regexp.MustCompile(`Kernel Module(?: for [A-Za-z0-9_]+)?\s+(\d+)\.(\d+)(?:\.(\d+))?`)

// ParseNVIDIAVersion parses /proc/driver/nvidia/version, whose first line
// reads "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64
// 580.95.05  Release Build  (...)" for the open modules and "NVRM version:
// NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 ..." for the
// proprietary ones.
func ParseNVIDIAVersion(s string) (nvidiaDriver, error) {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if !strings.HasPrefix(line, "NVRM version:") {
		return nvidiaDriver{}, fmt.Errorf("not an NVRM version line: %q", oneLine(line))
	}
	m := nvVersionRe.FindStringSubmatch(line)
	if m == nil {
		return nvidiaDriver{}, fmt.Errorf("no driver version in %q", oneLine(line))
	}
	major, err := strconv.Atoi(m[1])
	if err != nil || major > 100000 {
		return nvidiaDriver{}, fmt.Errorf("no driver version in %q", oneLine(line))
	}
	v := m[1] + "." + m[2]
	if m[3] != "" {
		v += "." + m[3]
	}
	return nvidiaDriver{Version: v, Major: major, Open: strings.Contains(line, "Open Kernel Module")}, nil
}

// readDriver reads the NVIDIA driver's version file, once.
func readDriver(e *Env) (nvidiaDriver, Fact, error) {
	type res struct {
		d   nvidiaDriver
		f   Fact
		err error
	}
	r := once(e, "nvdriver", func() res {
		s, f := e.text(procTree, "driver/nvidia/version")
		if !f.OK() {
			return res{f: f, err: errors.New(f.Error)}
		}
		d, err := ParseNVIDIAVersion(s)
		if err != nil {
			f.Value, f.Error = "", "could not read: "+err.Error()
		}
		return res{d, f, err}
	})
	return r.d, r.f, r.err
}

// dmabufState is the verdict of both halves, shared with the peermem check.
type dmabufState struct {
	kernelOK, driverOK bool
}

func dmabufVerdict(e *Env) dmabufState {
	return once(e, "dmabuf", func() dmabufState {
		k := readKernel(e)
		d, _, err := readDriver(e)
		kok := k.relFact.OK() && k.atLeast(dmabufKernelMajor, dmabufKernelMinor) &&
			(k.config == nil || (k.has("CONFIG_DMA_SHARED_BUFFER") && k.has("CONFIG_INFINIBAND_USER_MEM")))
		return dmabufState{kernelOK: kok, driverOK: err == nil && d.Open && d.Major >= dmabufDriverMajor}
	})
}

// dmabufUsable reports whether DMA-BUF GPUDirect looks possible (an
// unreadable kernel config counts as possible when the release is new
// enough).
func dmabufUsable(e *Env) bool { s := dmabufVerdict(e); return s.kernelOK && s.driverOK }

func (dmabufCheck) Run(e *Env) []Finding {
	return []Finding{dmabufKernel(e), dmabufDriver(e)}
}

func dmabufCost(e *Env) *Cost {
	if !hasRDMA(e) || readPeerMem(e).any() {
		return nil // no NIC to use it, or peer memory serves GPUDirect
	}
	return &Cost{Lead: "GPUDirect RDMA unavailable (no DMA-BUF and no peer-memory module)",
		Before: Case{Path: "gdr"}, After: Case{Path: "rdma"}}
}

// dmabufSeverity is sev when DMA-BUF is the only way left to GPUDirect
// RDMA (an RDMA NIC and no peer-memory module), Info otherwise: then its
// absence costs nothing here.
func dmabufSeverity(e *Env, sev Severity) Severity {
	if !hasRDMA(e) || readPeerMem(e).any() {
		return Info
	}
	return sev
}

func dmabufKernel(e *Env) Finding {
	k := readKernel(e)
	f := Finding{ID: "dmabuf.kernel", Facts: []Fact{k.relFact}}
	if k.config != nil {
		f.Facts = append(f.Facts, k.configFact("CONFIG_DMA_SHARED_BUFFER"), k.configFact("CONFIG_INFINIBAND_USER_MEM"))
	} else {
		f.Facts = append(f.Facts, k.configFacts...)
	}
	need := fmt.Sprintf("Linux ≥ %d.%d", dmabufKernelMajor, dmabufKernelMinor)
	switch {
	case !k.relFact.OK():
		f.Severity = Unknown
		f.Title = "kernel release unreadable: DMA-BUF support unknown"
	case !k.atLeast(dmabufKernelMajor, dmabufKernelMinor):
		f.Severity = dmabufSeverity(e, Error)
		f.Title = fmt.Sprintf("kernel %s is older than %s: RDMA cannot import DMA-BUFs", k.release, need)
		f.Fix = "Boot a kernel ≥ 5.12 (or use the peer-memory module)."
		f.Cost = dmabufCost(e)
	case k.config == nil:
		f.Severity = Unknown
		f.Title = fmt.Sprintf("kernel %s is new enough, but its config is not readable: CONFIG_DMA_SHARED_BUFFER unknown", k.release)
		f.Fix = "Give the boot directory (--boot) that holds config-" + k.release + ", or build the kernel with CONFIG_IKCONFIG_PROC for /proc/config.gz."
	case !k.has("CONFIG_DMA_SHARED_BUFFER") || !k.has("CONFIG_INFINIBAND_USER_MEM"):
		f.Severity = dmabufSeverity(e, Error)
		f.Title = fmt.Sprintf("kernel %s lacks CONFIG_DMA_SHARED_BUFFER or CONFIG_INFINIBAND_USER_MEM: no DMA-BUF memory regions", k.release)
		f.Fix = "Use a kernel built with CONFIG_DMA_SHARED_BUFFER=y and CONFIG_INFINIBAND_USER_MEM=y (every distribution kernel is)."
		f.Cost = dmabufCost(e)
	default:
		f.Severity = OK
		f.Title = fmt.Sprintf("kernel %s imports DMA-BUFs into RDMA memory regions (%s, CONFIG_DMA_SHARED_BUFFER, CONFIG_INFINIBAND_USER_MEM)", k.release, need)
	}
	return f
}

func dmabufDriver(e *Env) Finding {
	d, fact, err := readDriver(e)
	f := Finding{ID: "dmabuf.driver", Facts: []Fact{fact}}
	switch {
	case err != nil:
		f.Severity = Unknown
		f.Title = "no NVIDIA driver version to read: DMA-BUF export unknown"
		f.Why = "/proc/driver/nvidia/version exists while the nvidia module is loaded."
	case !d.Open:
		f.Severity = dmabufSeverity(e, Warn)
		f.Title = "NVIDIA driver " + d.Version + " is the proprietary kernel module: it does not export GPU memory as DMA-BUF"
		f.Fix = fmt.Sprintf("Install the open kernel modules of the same driver (e.g. the nvidia-driver-%d-open package, or the .run installer with -m=kernel-open).", d.Major)
		f.Cost = dmabufCost(e)
	case d.Major < dmabufDriverMajor:
		f.Severity = dmabufSeverity(e, Warn)
		f.Title = fmt.Sprintf("NVIDIA open kernel module %s predates R%d: no DMA-BUF export", d.Version, dmabufDriverMajor)
		f.Fix = fmt.Sprintf("Install an open-module driver ≥ R%d.", dmabufDriverMajor)
		f.Cost = dmabufCost(e)
	default:
		f.Severity = OK
		f.Title = fmt.Sprintf("NVIDIA open kernel module %s exports GPU memory as DMA-BUF (≥ R%d)", d.Version, dmabufDriverMajor)
	}
	return f
}
