package calib

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Fact is one thing known about the hardware and where it was found: a
// file and line ("ibstat.txt line 9"), a probe ("sysfs: mlx5_0 port 1
// rate"), a row of the published table ("S08-01, nic column"). A fact
// without a source is not known.
type Fact[T comparable] struct {
	Value  T
	Source string
}

// Known reports whether the fact was found.
func (f Fact[T]) Known() bool { return f.Source != "" }

// Found is the fact of v, found at source.
func Found[T comparable](v T, source string) Fact[T] { return Fact[T]{Value: v, Source: source} }

// Or is f where known, else g.
func (f Fact[T]) Or(g Fact[T]) Fact[T] {
	if f.Known() {
		return f
	}
	return g
}

// Port is one port of a NIC as a listing names it (ibstat, ibv_devinfo,
// sysfs).
type Port struct {
	Name string // "mlx5_0 port 1"
	// Kind is the model's NIC kind of the port's link layer
	// (model.KindIB, KindRoCE, KindEthernet); "" when not said.
	Kind string
	// Rate is the port's rate as the listing prints it (ibstat's "Rate:
	// 200" is 200 Gbit/s, as sold); 0 when not said.
	Rate units.Rate
	// Down is true when the listing says the port is not active.
	Down   bool
	Source string
}

// Facts are the hardware facts a source knows about the two (identical)
// nodes: the topology probe and the measurements of a run (RunFacts), the
// hardware another tool's output names (the report's imports), a row of the
// published table (pkg/validate), the machine doctor reads. Every field is
// optional. Overrides turns them into the scenario's keys.
type Facts struct {
	// GPU is the GPU's name as printed or written ("NVIDIA H100 80GB
	// HBM3", "Tesla V100-SXM2-32GB", "A100"); the catalog knows its PCIe
	// link, memory and NVLink.
	GPU Fact[string]
	// GPUPCIe is the GPU's PCIe link as read (NVML, sysfs) or stated.
	GPUPCIe Fact[model.Link]
	// CopyLatency and CopyRate are measured synchronous pinned copies: the
	// fixed cost of one and the rate at large sizes; NVLinkRate the
	// streaming peer-copy rate between two GPUs of a node.
	CopyLatency Fact[units.Seconds]
	CopyRate    Fact[units.Rate]
	NVLinkRate  Fact[units.Rate]

	// CPU is the CPU's model name ("Intel(R) Xeon(R) Platinum 8480C",
	// "Xeon E5-2643 v4"); CPUFamily NCCL's class of it where only the
	// generation is known (model.FamilyIntelBDW, ...); Cores the cores of a
	// node.
	CPU       Fact[string]
	CPUFamily Fact[string]
	Cores     Fact[int]
	// Measured host costs: one core's large-copy rate, a bare system call,
	// a TCP send and receive, the CPU of being woken.
	MemcpyRate   Fact[units.Rate]
	Syscall      Fact[units.Seconds]
	TxPerMessage Fact[units.Seconds]
	RxPerMessage Fact[units.Seconds]
	Wakeup       Fact[units.Seconds]

	// NIC is the NIC's product or InfiniBand generation name
	// ("ConnectX-5 EDR", "InfiniBand NDR200", "EFA"); NICKind its link layer
	// (model.KindIB, KindRoCE, KindEthernet, KindLoopback).
	NIC     Fact[string]
	NICKind Fact[string]
	// Ports are the NIC ports a listing names: the kind is the first
	// port's that says one, the rate the most common rate of the active
	// ports.
	Ports []Port
	// NICRate is the rate of one port as sold, where it is stated without
	// a port list ("100 Gb/s"); it wins over the ports'.
	NICRate Fact[units.Rate]
	// PortsUsed is how many ports one transfer drives at once (both ports
	// of a dual-port adapter): the scenario's NIC is their sum.
	PortsUsed Fact[int]
	NICPCIe   Fact[model.Link]
	RDMA      Fact[bool]
	// MTU is the link MTU as the model counts it: the IP MTU on Ethernet
	// and RoCE, the InfiniBand MTU on InfiniBand.
	MTU Fact[units.Bytes]
	// Inline is the largest send whose payload the test wrote into the
	// work request, as the test's own banner says (perftest's "Max inline
	// data"): a setting of that run, not of the NIC.
	Inline Fact[units.Bytes]

	// MPS is the PCIe Max_Payload_Size on the way between GPU, NIC and
	// the root complex.
	MPS Fact[units.Bytes]

	// GPUNIC is the PCIe class between the GPU and its NIC; CPUGPU where
	// the core that loads and stores GPU memory sits (SYS: across the
	// inter-socket link).
	GPUNIC Fact[model.Class]
	CPUGPU Fact[model.Class]
	// Hops are the switches between the two NICs (0: back to back), Cable
	// the cable between them, Switch the switch's name.
	Hops   Fact[int]
	Cable  Fact[units.Meters]
	Switch Fact[string]
}

// Merge returns f with what g knows where f knows nothing (a file's
// hardware completed by the run's inventory, a row's statements by the
// assumptions of its era). Ports and the NIC's name, kind and rate go
// together: g's are taken only when f names no NIC rate at all.
func (f Facts) Merge(g Facts) Facts {
	out := f
	out.GPU, out.GPUPCIe = f.GPU.Or(g.GPU), f.GPUPCIe.Or(g.GPUPCIe)
	out.CopyLatency, out.CopyRate, out.NVLinkRate = f.CopyLatency.Or(g.CopyLatency), f.CopyRate.Or(g.CopyRate), f.NVLinkRate.Or(g.NVLinkRate)
	out.CPU, out.CPUFamily, out.Cores = f.CPU.Or(g.CPU), f.CPUFamily.Or(g.CPUFamily), f.Cores.Or(g.Cores)
	out.MemcpyRate, out.Syscall = f.MemcpyRate.Or(g.MemcpyRate), f.Syscall.Or(g.Syscall)
	out.TxPerMessage, out.RxPerMessage, out.Wakeup = f.TxPerMessage.Or(g.TxPerMessage), f.RxPerMessage.Or(g.RxPerMessage), f.Wakeup.Or(g.Wakeup)
	out.NIC, out.NICKind = f.NIC.Or(g.NIC), f.NICKind.Or(g.NICKind)
	if _, ok := f.nicRate(); !ok {
		out.Ports = append(append([]Port(nil), f.Ports...), g.Ports...)
		out.NICRate = g.NICRate
	}
	out.PortsUsed, out.NICPCIe, out.RDMA, out.MTU = f.PortsUsed.Or(g.PortsUsed), f.NICPCIe.Or(g.NICPCIe), f.RDMA.Or(g.RDMA), f.MTU.Or(g.MTU)
	out.MPS, out.GPUNIC, out.CPUGPU = f.MPS.Or(g.MPS), f.GPUNIC.Or(g.GPUNIC), f.CPUGPU.Or(g.CPUGPU)
	out.Hops, out.Cable, out.Switch = f.Hops.Or(g.Hops), f.Cable.Or(g.Cable), f.Switch.Or(g.Switch)
	return out
}

// nicKind is the NIC's kind: NICKind, else the first port's that says one.
func (f Facts) nicKind() (Fact[string], bool) {
	if f.NICKind.Known() {
		return f.NICKind, true
	}
	for _, p := range f.Ports {
		if p.Kind != "" && !p.Down {
			return Found(p.Kind, p.Name+" link layer"+sourceSuffix(p.Source)), true
		}
	}
	for _, p := range f.Ports {
		if p.Kind != "" {
			return Found(p.Kind, p.Name+" link layer"+sourceSuffix(p.Source)), true
		}
	}
	return Fact[string]{}, false
}

// nicRate is the rate of one port: NICRate, else the most common rate of
// the active ports (the higher of equally common ones).
func (f Facts) nicRate() (Fact[units.Rate], bool) {
	if f.NICRate.Known() {
		return f.NICRate, true
	}
	count := map[units.Rate]int{}
	first := map[units.Rate]Port{}
	for _, p := range f.Ports {
		if p.Rate > 0 && !p.Down {
			count[p.Rate]++
			if _, ok := first[p.Rate]; !ok {
				first[p.Rate] = p
			}
		}
	}
	if len(count) == 0 {
		return Fact[units.Rate]{}, false
	}
	rates := make([]units.Rate, 0, len(count))
	for r := range count {
		rates = append(rates, r)
	}
	sort.Slice(rates, func(i, j int) bool {
		if count[rates[i]] != count[rates[j]] {
			return count[rates[i]] > count[rates[j]]
		}
		return rates[i] > rates[j]
	})
	p := first[rates[0]]
	src := p.Name + " port rate" + sourceSuffix(p.Source)
	if n := len(f.Ports); n > 1 {
		src += fmt.Sprintf("; %d of %d ports listed at this rate", count[rates[0]], n)
	}
	return Found(rates[0], src), true
}

func sourceSuffix(src string) string {
	if src == "" {
		return ""
	}
	return " (" + src + ")"
}

// textKeys are the keys whose values are text by nature (names, kinds,
// families): the only overrides Overrides gives as strings.
var textKeys = map[string]bool{
	"gpu.model": true, "cpu.model": true, "cpu.family": true, "nic.model": true, "nic.kind": true, "network.switch": true,
}

// Overrides turns facts into the scenario's keys, typed, each with the
// fact's source: the one path from what is known of the hardware to a
// scenario (Scenario.Apply, model.Resolve). A GPU, CPU, NIC or switch name
// the catalog knows is given as the catalog's name (gpu.model, nic.model,
// ...), so that resolution fills what the entry implies; a name that
// could mean several entries ("A100": four; "ConnectX-4": four, of which
// the NIC's kind and rate may pick one) gives the facts those entries share;
// a name the catalog does not know is given as written. Measured and read
// values are given as measured: they win over the catalog's.
func Overrides(f Facts) []model.Override {
	var out []model.Override
	add := func(key string, v any, src string) {
		out = append(out, model.Override{Key: key, Value: v, Source: src})
	}
	if f.GPU.Known() {
		out = append(out, named(model.CatalogGPU, "gpu.model", f.GPU, nil)...)
	}
	if f.GPUPCIe.Known() {
		add("gpu.pcie", f.GPUPCIe.Value, f.GPUPCIe.Source)
	}
	if f.CopyLatency.Known() {
		add("gpu.copy_latency", f.CopyLatency.Value, f.CopyLatency.Source)
	}
	if f.CopyRate.Known() {
		add("gpu.copy_rate", f.CopyRate.Value, f.CopyRate.Source)
	}
	if f.NVLinkRate.Known() {
		add("gpu.nvlink_rate", f.NVLinkRate.Value, f.NVLinkRate.Source)
	}
	if f.CPU.Known() {
		out = append(out, named(model.CatalogCPU, "cpu.model", f.CPU, nil)...)
	}
	if f.CPUFamily.Known() {
		add("cpu.family", f.CPUFamily.Value, f.CPUFamily.Source)
	}
	if f.Cores.Known() {
		add("cpu.cores", f.Cores.Value, f.Cores.Source)
	}
	if f.MemcpyRate.Known() {
		add("cpu.memcpy_rate", f.MemcpyRate.Value, f.MemcpyRate.Source)
	}
	for _, s := range []struct {
		key string
		f   Fact[units.Seconds]
	}{{"stack.syscall", f.Syscall}, {"stack.tx_per_message", f.TxPerMessage}, {"stack.rx_per_message", f.RxPerMessage}, {"stack.wakeup", f.Wakeup}} {
		if s.f.Known() {
			add(s.key, s.f.Value, s.f.Source)
		}
	}
	kind, hasKind := f.nicKind()
	rate, hasRate := f.nicRate()
	if f.NIC.Known() {
		fits := func(e model.CatalogEntry) bool {
			if hasKind {
				if k, ok := e.Fact("nic.kind"); ok && k.Value != kind.Value {
					return false
				}
			}
			if hasRate {
				if r, ok := e.Fact("nic.rate"); ok {
					if x, err := units.ParseRate(r.Value); err == nil && x != rate.Value {
						return false
					}
				}
			}
			return true
		}
		out = append(out, named(model.CatalogNIC, "nic.model", f.NIC, fits)...)
	}
	if hasKind {
		add("nic.kind", kind.Value, kind.Source)
	}
	if hasRate {
		r, src := rate.Value, rate.Source
		if n := f.PortsUsed; n.Known() && n.Value > 1 {
			r, src = r*units.Rate(n.Value), fmt.Sprintf("%d ports × %s (%s; %s)", n.Value, rate.Value.BitString(), src, n.Source)
		}
		add("nic.rate", r, src)
	}
	if f.NICPCIe.Known() {
		add("nic.pcie", f.NICPCIe.Value, f.NICPCIe.Source)
	}
	if f.MTU.Known() {
		add("nic.mtu", f.MTU.Value, f.MTU.Source)
	}
	if f.RDMA.Known() {
		add("nic.rdma", f.RDMA.Value, f.RDMA.Source)
	}
	if f.Inline.Known() {
		add("nic.inline_size", f.Inline.Value, f.Inline.Source)
	}
	if f.MPS.Known() {
		add("pcie.mps", f.MPS.Value, f.MPS.Source)
	}
	if f.GPUNIC.Known() {
		add("topology.gpu_nic", f.GPUNIC.Value, f.GPUNIC.Source)
	}
	if f.CPUGPU.Known() {
		add("topology.cpu_gpu", f.CPUGPU.Value, f.CPUGPU.Source)
	}
	if f.Switch.Known() {
		out = append(out, named(model.CatalogSwitch, "network.switch", f.Switch, nil)...)
	}
	if f.Hops.Known() {
		add("network.hops", f.Hops.Value, f.Hops.Source)
	}
	if f.Cable.Known() {
		add("network.cable", f.Cable.Value, f.Cable.Source)
	}
	// A key given twice (a fact the entries of a name share, and the
	// fact itself) keeps the later value, the fact's own.
	last := map[string]int{}
	for i, o := range out {
		last[o.Key] = i
	}
	kept := out[:0]
	for i, o := range out {
		if last[o.Key] == i {
			kept = append(kept, o)
		}
	}
	return kept
}

// named gives the key that names a catalog entry: the catalog's name for
// the one entry the name means (among those that fit the other facts),
// else the name as written and the facts the entries it may mean share.
func named(kind, key string, name Fact[string], fits func(model.CatalogEntry) bool) []model.Override {
	kinds := []string{kind}
	if kind == model.CatalogNIC {
		kinds = append(kinds, model.CatalogInfiniBand) // nic.model: HDR
	}
	one := func(e model.CatalogEntry, among []model.CatalogEntry) []model.Override {
		src := name.Source
		if !strings.EqualFold(strings.TrimSpace(name.Value), e.Name) {
			src = fmt.Sprintf("%q (%s): the catalog's %s", name.Value, name.Source, e.Name)
			if len(among) > 1 {
				src += fmt.Sprintf(", the one of %d entries (%s) that fits the other facts", len(among), entryNames(among))
			}
		}
		return []model.Override{{Key: key, Value: e.Name, Source: src}}
	}
	for _, k := range kinds {
		if e, ok := model.LookupCatalog(k, name.Value); ok {
			return one(e, nil) // a name the catalog knows is not overruled
		}
	}
	var all, fit []model.CatalogEntry
	for _, k := range kinds {
		all = append(all, model.CatalogMatches(k, name.Value)...)
	}
	for _, e := range all {
		if fits == nil || fits(e) {
			fit = append(fit, e)
		}
	}
	if len(fit) == 1 {
		return one(fit[0], all)
	}
	out := []model.Override{{Key: key, Value: name.Value, Source: name.Source}}
	if len(fit) == 0 {
		return out
	}
	for _, fa := range fit[0].Facts {
		shared := true
		for _, e := range fit[1:] {
			g, ok := e.Fact(fa.Key)
			shared = shared && ok && g.Value == fa.Value
		}
		if shared {
			// The catalog's facts are text, checked when the catalog loads.
			out = append(out, model.Override{Key: fa.Key, Value: fa.Value,
				Source: fmt.Sprintf("%q (%s) may be any of the catalog's %s, which agree: %s", name.Value, name.Source, entryNames(fit), fa.Source)})
		}
	}
	return out
}

func entryNames(es []model.CatalogEntry) string {
	ns := make([]string, len(es))
	for i, e := range es {
		ns[i] = e.Name
	}
	return strings.Join(ns, ", ")
}
