package calib

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
	"github.com/gpupath/gpupath/pkg/units"
)

// RunFacts gathers what a run found about its host: from the records of
// the host probes (memcpy, syscall, TCP ping-pong: the CPU's copy rate and
// the stack's costs, hostFacts), from the GPU probes' inventories and
// records (the GPU's name and PCIe link, its copies and NVLink, and the
// NIC closest to it in the PCI tree, gpuFacts) and from the manifest (the
// CPU and its cores). notes says, for every host cost it could not
// derive, why.
func RunFacts(d *record.RunData) (Facts, []string, error) {
	f, notes := hostFacts(d.Results)
	inv, err := d.Inventories()
	if err != nil {
		return f, notes, err
	}
	g := gpuFacts(inv, d.Results)
	f = f.Merge(g)
	h := d.Manifest.Host
	if h.CPUs > 0 {
		f.Cores = Found(h.CPUs, fmt.Sprintf("manifest: %d logical CPUs in /proc/cpuinfo (%s)", h.CPUs, h.CPUModel))
	}
	// The CPU's name only where it names one catalog entry: a name the
	// catalog does not know, or one as vague as a VM's "Intel(R) Xeon(R)
	// Processor", would stand for the CPU without its facts and keep the
	// model from assuming the CPU of the GPU's era.
	if m := model.CatalogMatches(model.CatalogCPU, h.CPUModel); len(m) == 1 {
		f.CPU = Found(h.CPUModel, "manifest: /proc/cpuinfo model name")
	}
	return f, notes, nil
}

// ThisHost returns the scenario overrides a run supports (Overrides of
// RunFacts), with the notes of what could not be derived.
func ThisHost(d *record.RunData) ([]model.Override, []string, error) {
	f, notes, err := RunFacts(d)
	return Overrides(f), notes, err
}

// gpuFacts are the GPU-side facts: the measured GPU (the one the cuda
// probe's records name, gpu0 by default, matched to NVML and sysfs by PCI
// address), its name, its PCIe link (NVML's current link read under load
// during the sustained copy if there was one, else NVML's maximum link,
// else sysfs's; the measured pinned bandwidth is quoted in the source),
// the fixed cost of a synchronous pinned copy (the median wall time at the
// smallest size, at most 64 B, mean of H2D and D2H), the synchronous
// pinned copy rate (the largest size, at least 16 MiB, mean of both
// directions), the streaming peer-copy rate with peer access (largest
// size, mean of both directions), and the NIC closest to the GPU in the
// sysfs tree: class, PCIe link, RDMA devices, the link layer and rate of
// its port (else the interface's speed). A run read back from disk keeps
// the topo probe's inventory, not its full reading: the PCI tree is
// rebuilt from the GPUs and NICs the inventory lists, which is all the
// classification reads.
func gpuFacts(inv record.Inventories, rs []record.Result) Facts {
	var f Facts
	ord := measuredOrdinal(rs)
	bus := ""
	if inv.CUDA != nil && ord < len(inv.CUDA.Devices) {
		bus, _ = topo.ParseAddress(inv.CUDA.Devices[ord].PCIBusID)
	}
	var nv *record.GPUDevice
	if inv.NVML != nil {
		for i := range inv.NVML.Devices {
			d := &inv.NVML.Devices[i]
			if (bus != "" && d.PCIBusID == bus) || (bus == "" && d.Index == ord) {
				nv = d
				break
			}
		}
		if nv != nil && bus == "" {
			bus = nv.PCIBusID
		}
	}
	sys, readBack := (*topo.System)(nil), ""
	var sysGPU *topo.PCIDevice
	if t := inv.Topo; t != nil {
		sys = t.System
		if sys == nil && len(t.GPUs) > 0 && len(t.NICs) > 0 {
			sys = &topo.System{PCI: append(append([]topo.PCIDevice(nil), t.GPUs...), t.NICs...), RDMA: t.RDMA, Net: t.Net}
			readBack = " (read back from the topo probe's inventory in the run's manifest)"
		}
		for i := range t.GPUs {
			g := &t.GPUs[i]
			if (bus != "" && g.Address == bus) || (bus == "" && i == ord) {
				sysGPU = g
				break
			}
		}
		if sysGPU != nil && bus == "" {
			bus = sysGPU.Address
		}
	}
	gpuName := fmt.Sprintf("gpu%d", ord)
	switch {
	case nv != nil:
		gpuName = fmt.Sprintf("gpu%d (%s, %s)", ord, nv.Name, nv.PCIBusID)
		if nv.Name != "" {
			f.GPU = Found(nv.Name, "NVML name of gpu"+strconv.Itoa(ord))
		}
	case bus != "":
		gpuName = fmt.Sprintf("gpu%d (%s)", ord, bus)
	}
	if !f.GPU.Known() && inv.CUDA != nil && ord < len(inv.CUDA.Devices) && inv.CUDA.Devices[ord].Name != "" {
		f.GPU = Found(inv.CUDA.Devices[ord].Name, "CUDA device name of gpu"+strconv.Itoa(ord))
	}

	pinned := pinnedSummary(rs)
	if gen, width := sustainedLink(rs); gen > 0 {
		f.GPUPCIe = linkFact(gen, width, "NVML current link of "+gpuName+" read under load (sustained copy)"+pinned)
	}
	if !f.GPUPCIe.Known() && nv != nil {
		f.GPUPCIe = linkFact(nv.PCIeGenMax, nv.PCIeWidthMax, "NVML maximum link of "+gpuName+pinned)
	}
	if !f.GPUPCIe.Known() && sysGPU != nil {
		f.GPUPCIe = linkFact(sysGPU.Link.MaxGen(), sysGPU.Link.MaxWidth, "sysfs max_link_speed/width of "+gpuName+pinned)
	}

	var lat []float64
	var parts []string
	var latBytes int64
	for _, v := range []string{"h2d-pinned", "d2h-pinned"} {
		if r, ok := cudaSmallest(rs, v, "wall", ord); ok && r.Bytes <= 64 && r.MedianS > 0 {
			if len(lat) == 0 {
				latBytes = r.Bytes
			}
			lat = append(lat, r.MedianS)
			parts = append(parts, fmt.Sprintf("%s %s", strings.ToUpper(v[:3]), units.Seconds(r.MedianS).Compact()))
		}
	}
	if len(lat) > 0 {
		f.CopyLatency = Found(units.Seconds(sig4(gpuMean(lat))),
			fmt.Sprintf("measured on %s: median wall time of one synchronous %d B pinned cuMemcpy (%s)", gpuName, latBytes, strings.Join(parts, ", ")))
	}

	var crates []float64
	var cparts []string
	var cbytes int64
	for _, v := range []string{"h2d-pinned", "d2h-pinned"} {
		if r, ok := cudaLargest(rs, v, "wall", ord); ok && r.Bytes >= 16<<20 && r.MedianS > 0 {
			crates = append(crates, float64(r.Bytes)/r.MedianS)
			cparts = append(cparts, fmt.Sprintf("%s %s", strings.ToUpper(v[:3]), units.Rate(float64(r.Bytes)/r.MedianS).Compact()))
			cbytes = r.Bytes
		}
	}
	if len(crates) > 0 {
		f.CopyRate = Found(units.Rate(sig4(gpuMean(crates))),
			fmt.Sprintf("measured on %s: synchronous pinned cuMemcpy of %d B, median wall time (%s)", gpuName, cbytes, strings.Join(cparts, ", ")))
	}

	if peers := largestPeer(rs); len(peers) > 0 {
		var rates []float64
		var dirs []string
		for _, r := range peers {
			rates = append(rates, r.ThroughputBps)
			dirs = append(dirs, fmt.Sprintf("%s %s", r.Target, units.Rate(r.ThroughputBps).Compact()))
		}
		src := fmt.Sprintf("measured: streaming peer copies of %d B with peer access enabled (%s)", peers[0].Bytes, strings.Join(dirs, ", "))
		if inv.NVML != nil && len(inv.NVML.Matrix) > 1 {
			src += "; NVML topology " + inv.NVML.Matrix[0][1]
		}
		f.NVLinkRate = Found(units.Rate(sig4(gpuMean(rates))), src)
	}
	if !f.NVLinkRate.Known() && nv != nil && len(nv.NVLinks) > 0 && nv.ActiveNVLinks() == 0 {
		// An NVLink part whose links are all down (a VM given one GPU of an
		// HGX board): no NVLink to a peer, whatever the catalog says.
		f.NVLinkRate = Found(units.Rate(0), fmt.Sprintf("NVML: none of the %d NVLink links of %s is active", len(nv.NVLinks), gpuName))
	}

	if sys != nil && bus != "" {
		nicFacts(&f, sys, bus, gpuName, readBack)
	}
	return f
}

// nicFacts are the facts of the NIC closest to the GPU at bus.
func nicFacts(f *Facts, sys *topo.System, bus, gpuName, readBack string) {
	pr, ok := sys.ClosestNIC(bus)
	if !ok || !pr.Class.PCIe() {
		return
	}
	nic, _ := sys.Device(pr.NIC)
	nicName := fmt.Sprintf("NIC %s %04x:%04x", nic.Address, nic.Vendor, nic.Device)
	if len(pr.NICNames) > 0 {
		nicName += " (" + strings.Join(pr.NICNames, ",") + ")"
	}
	f.GPUNIC = Found(model.Class(pr.Class), fmt.Sprintf("sysfs PCI tree: %s to %s, closest NIC (common ancestor %s)%s", gpuName, nicName, orNone(pr.Ancestor), readBack))
	f.NICPCIe = linkFact(nic.Link.MaxGen(), nic.Link.MaxWidth, "sysfs max_link_speed/width of "+nicName+readBack)
	f.RDMA = Found(len(nic.RDMADevs) > 0, fmt.Sprintf("sysfs: %s has %d RDMA devices%s", nicName, len(nic.RDMADevs), readBack))
	port, rdev, hasPort := nicPort(sys, nic)
	switch {
	case hasPort && topo.LinkKind(port.LinkLayer) != "":
		f.NICKind = Found(topo.LinkKind(port.LinkLayer), fmt.Sprintf("sysfs: %s port %d link_layer %s%s", rdev, port.Port, port.LinkLayer, readBack))
	case len(nic.RDMADevs) == 0 && nic.BaseClass() == 0x0200:
		f.NICKind = Found(model.KindEthernet, "sysfs: "+nicName+" is an Ethernet controller without RDMA"+readBack)
	}
	switch {
	case hasPort && port.Active() && port.RateBps > 0:
		f.NICRate = Found(units.Rate(port.RateBps/8), fmt.Sprintf("sysfs: %s port %d rate %q%s", rdev, port.Port, port.Rate, readBack))
	default:
		for _, nd := range sys.Net {
			if nd.PCIAddress == nic.Address && nd.SpeedMbps > 0 {
				f.NICRate = Found(units.Rate(float64(nd.SpeedMbps)*1e6/8), fmt.Sprintf("sysfs: %s speed %d Mb/s%s", nd.Name, nd.SpeedMbps, readBack))
				break
			}
		}
	}
}

// linkFact is the fact of a PCIe link of gen and width, unknown when
// either is (or the model knows no such link).
func linkFact(gen, width int, src string) Fact[model.Link] {
	l := model.Link{Gen: gen, Lanes: width}
	if gen <= 0 || width <= 0 || l.Validate() != nil {
		return Fact[model.Link]{}
	}
	return Found(l, src)
}

func orNone(s string) string {
	if s == "" {
		return "none below the NUMA node"
	}
	return s
}

// nicPort returns the port to describe a NIC by: the first active port of
// its RDMA devices, else the first port.
func nicPort(sys *topo.System, nic topo.PCIDevice) (topo.RDMAPort, string, bool) {
	var first *topo.RDMAPort
	var firstDev string
	for _, d := range sys.RDMA {
		if d.PCIAddress != nic.Address {
			continue
		}
		for i := range d.Ports {
			if d.Ports[i].Active() {
				return d.Ports[i], d.Name, true
			}
			if first == nil {
				first, firstDev = &d.Ports[i], d.Name
			}
		}
	}
	if first != nil {
		return *first, firstDev, true
	}
	return topo.RDMAPort{}, "", false
}

// measuredOrdinal returns the CUDA ordinal of the GPU the cuda probe
// measured ("gpu1" in its records' Target), 0 by default.
func measuredOrdinal(rs []record.Result) int {
	for _, r := range rs {
		if r.Probe == "cuda" && !strings.Contains(r.Target, "->") {
			if n, err := strconv.Atoi(strings.TrimPrefix(r.Target, "gpu")); err == nil {
				return n
			}
		}
	}
	return 0
}

func onGPU(r record.Result, ord int) bool { return r.Target == fmt.Sprintf("gpu%d", ord) }

func cudaSmallest(rs []record.Result, variant, timer string, ord int) (record.Result, bool) {
	var best record.Result
	ok := false
	for _, r := range rs {
		if r.Probe == "cuda" && r.Variant == variant && r.Timer == timer && onGPU(r, ord) && r.Iterations > 0 {
			if !ok || r.Bytes < best.Bytes {
				best, ok = r, true
			}
		}
	}
	return best, ok
}

func cudaLargest(rs []record.Result, variant, timer string, ord int) (record.Result, bool) {
	var best record.Result
	ok := false
	for _, r := range rs {
		if r.Probe == "cuda" && r.Variant == variant && r.Timer == timer && onGPU(r, ord) && r.Iterations > 0 {
			if !ok || r.Bytes > best.Bytes {
				best, ok = r, true
			}
		}
	}
	return best, ok
}

// largestPeer returns, per direction, the streaming peer-copy record at the
// largest size, among copies made with peer access enabled.
func largestPeer(rs []record.Result) []record.Result {
	best := map[string]record.Result{}
	for _, r := range rs {
		if r.Probe != "cuda" || r.Variant != "peer-stream" || r.Timer != "cuda-event" || r.Extra["peer_access"] != 1 || r.ThroughputBps <= 0 {
			continue
		}
		if b, ok := best[r.Target]; !ok || r.Bytes > b.Bytes {
			best[r.Target] = r
		}
	}
	var out []record.Result
	for _, r := range best {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

// pinnedSummary quotes the measured streaming pinned bandwidth for a source.
func pinnedSummary(rs []record.Result) string {
	ord := measuredOrdinal(rs)
	var parts []string
	var n int64
	for _, v := range []string{"h2d-pinned-stream", "d2h-pinned-stream"} {
		if r, ok := cudaLargest(rs, v, "cuda-event", ord); ok && r.ThroughputBps > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", strings.ToUpper(v[:3]), units.Rate(r.ThroughputBps).Compact()))
			n = r.Bytes
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; measured pinned copies %s at %d B", strings.Join(parts, ", "), n)
}

// sustainedLink returns the link NVML read during the sustained copy.
func sustainedLink(rs []record.Result) (gen, width int) {
	for _, r := range rs {
		if r.Probe == "cuda" && strings.HasSuffix(r.Variant, "-sustained") && r.Extra["pcie_gen_load"] > 0 {
			return int(r.Extra["pcie_gen_load"]), int(r.Extra["pcie_width_load"])
		}
	}
	return 0, 0
}

// sig4 keeps a measured value to four significant digits, as a number
// (never through text): a run's medians repeat to about 0.1 % at best, so
// further digits say nothing, and the scenario and the files written from
// it read 7.506us, not 7.5062499999999995us.
func sig4(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	k := 3 - int(math.Floor(math.Log10(math.Abs(x))))
	if k >= 0 {
		p := math.Pow(10, float64(k))
		return math.Round(x*p) / p
	}
	p := math.Pow(10, float64(-k))
	return math.Round(x/p) * p
}

func gpuMean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// hostFacts are the host's costs measured by the host probes. It is a
// pure function of the records:
//
//	MemcpyRate    memcpy probe, cold (else warm) copies: best per-size median ≥ 16 MiB
//	Syscall       syscall probe, getppid: a bare system call
//	TxPerMessage  syscall probe, tcp-send at its smallest size (else half the
//	              ping-pong CPU per message)
//	RxPerMessage  syscall probe, tcp-recv at its smallest size (else the other half)
//	Wakeup        ping-pong CPU per one-way message (both ends, rusage) minus
//	              tx and rx: the CPU cost of sleeping and being woken; left
//	              out when not positive
//
// notes says, for every fact it left out, why.
func hostFacts(rs []record.Result) (f Facts, notes []string) {
	// The memcpy rate: the best per-size median at 16 MiB or more. Each
	// median is already robust within its size; across sizes, interference
	// (other work on the machine, a VM's neighbours) only ever slows a copy,
	// so the best large-copy median is the rate one core sustains.
	for _, variant := range []string{"cold", "warm"} {
		var best record.Result
		n := 0
		for _, r := range records(rs, "memcpy", variant) {
			if r.Bytes >= 16<<20 && r.ThroughputBps > 0 {
				n++
				if r.ThroughputBps > best.ThroughputBps {
					best = r
				}
			}
		}
		if n == 0 {
			continue
		}
		f.MemcpyRate = Found(units.Rate(sig4(best.ThroughputBps)),
			fmt.Sprintf("measured: memcpy probe, Go copy on one core, %s caches; the best of %d per-size medians at 16MiB or more (%s copies, %d repetitions); bytes copied per second",
				variant, n, units.Bytes(best.Bytes), best.Iterations))
		break
	}
	if !f.MemcpyRate.Known() {
		notes = append(notes, "cpu.memcpy_rate: no memcpy record at 16MiB or more")
	}

	if sc := timed(records(rs, "syscall", "getppid"), "stack.syscall", &notes); len(sc) > 0 {
		f.Syscall = Found(units.Seconds(sig4(stats.Median(medians(sc)))),
			fmt.Sprintf("measured: syscall probe, median time of one getppid(2) (a bare system call: entry and exit), %d record(s)", len(sc)))
	} else {
		notes = append(notes, "stack.syscall: no syscall/getppid record")
	}

	var tx, rx float64
	send, sendSize := atSmallest(timed(records(rs, "syscall", "tcp-send"), "stack.tx_per_message", &notes))
	recv, recvSize := atSmallest(timed(records(rs, "syscall", "tcp-recv"), "stack.rx_per_message", &notes))
	pp := pingPongForHost(rs)
	ppSmall, ppSize := atSmallest(pp)
	switch {
	case len(send) > 0 && len(recv) > 0:
		tx, rx = sig4(stats.Median(medians(send))), sig4(stats.Median(medians(recv)))
		f.TxPerMessage = Found(units.Seconds(tx),
			fmt.Sprintf("measured: syscall probe, median time of one send(2) of %s on loopback TCP (TCP_NODELAY, receiver not waiting): the transmit path; on loopback it also carries the receiver's IP/TCP input and the ACK, so it overstates the transmit side alone", units.Bytes(sendSize)))
		f.RxPerMessage = Found(units.Seconds(rx),
			fmt.Sprintf("measured: syscall probe, median time of one recv(2) of %s already queued on loopback TCP: system call and copy to user (the protocol input ran in the sender's call)", units.Bytes(recvSize)))
	case len(ppSmall) > 0:
		var cpu []float64
		for _, r := range ppSmall {
			cpu = append(cpu, r.CPUUserS+r.CPUSysS)
		}
		c := stats.Median(cpu)
		if physical(c) {
			tx, rx = sig4(c/2), sig4(c/2)
			src := fmt.Sprintf("measured: tcp ping-pong at %s (%s), CPU per one-way message of both ends from rusage (%s), split evenly between send and receive for want of a direct send/recv timing; includes the wake-up",
				units.Bytes(ppSize), ppSmall[0].Target, units.Seconds(c).Compact())
			f.TxPerMessage, f.RxPerMessage = Found(units.Seconds(tx), src), Found(units.Seconds(rx), src)
		} else {
			notes = append(notes, "stack.tx_per_message, stack.rx_per_message: no send/recv timing and no CPU time in the ping-pong records")
		}
	default:
		notes = append(notes, "stack.tx_per_message, stack.rx_per_message: no syscall tcp-send/tcp-recv and no ping-pong records")
	}

	// The wake-up is CPU, not latency. The one-way ping-pong latency cannot
	// be split into send + wake-up + receive: the two ends' system calls
	// overlap (the receiver is already inside recv when the data comes), so
	// α − send − receive is only a lower bound. CPU times do add up: the
	// ping-pong's CPU per one-way message (both ends, rusage) minus the CPU
	// of a send and a receive that never wait is the cost of sleeping in
	// recv and being woken (wake-up, context switches).
	ppFit, ppFitted := pingPongAlpha(pp, 64<<10)
	var cpuMsg float64
	if len(ppSmall) > 0 {
		var cpu []float64
		for _, r := range ppSmall {
			cpu = append(cpu, r.CPUUserS+r.CPUSysS)
		}
		cpuMsg = stats.Median(cpu)
	}
	switch {
	case len(ppSmall) == 0 || !physical(cpuMsg):
		notes = append(notes, "stack.wakeup: no ping-pong record with CPU times on loopback or an unshaped veth")
	case len(send) == 0 || len(recv) == 0:
		notes = append(notes, "stack.wakeup: needs the send/recv timings of the syscall probe (tcp-send, tcp-recv)")
	case !physical(cpuMsg - tx - rx):
		notes = append(notes, fmt.Sprintf("stack.wakeup: ping-pong CPU per message %s is not above send %s + receive %s; left out",
			units.Seconds(cpuMsg).Compact(), units.Seconds(tx).Compact(), units.Seconds(rx).Compact()))
	default:
		w := sig4(cpuMsg - tx - rx)
		src := fmt.Sprintf("derived: tcp ping-pong at %s (%s) costs %s of CPU per one-way message, both ends (rusage); minus send %s and receive %s timed without waiting leaves the CPU cost of blocking in recv and being woken (wake-up, context switches). A CPU cost: the latency it adds is smaller, as the two ends overlap",
			units.Bytes(ppSize), ppSmall[0].Target, units.Seconds(cpuMsg).Compact(), units.Seconds(tx).Compact(), units.Seconds(rx).Compact())
		if ppFitted {
			src += fmt.Sprintf(" (the ping-pong fit latency = α + n/β over %d sizes up to %s gives α = %s one-way)",
				ppFit.Sizes, units.Bytes(64<<10), units.Seconds(ppFit.Alpha.Value).Compact())
		}
		f.Wakeup = Found(units.Seconds(w), src)
	}
	return f, notes
}

// pingPongAlpha fits latency = α + n/β (fit.AlphaBeta, relative error)
// to the medians of the ping-pong records up to maxBytes; false when they do
// not hold two sizes. Only the point estimate is used (one resample).
func pingPongAlpha(rs []record.Result, maxBytes int64) (fit.Result, bool) {
	var obs []fit.Observation
	for _, r := range rs {
		if r.Bytes <= maxBytes && r.MedianS > 0 {
			obs = append(obs, fit.Observation{Bytes: float64(r.Bytes), Seconds: []float64{r.MedianS}})
		}
	}
	f, err := fit.AlphaBeta(obs, fit.Options{Resamples: 1})
	return f, err == nil
}

// pingPongForHost returns the ping-pong records that measure this host's
// stack alone: loopback, else an unshaped veth pair (a remote peer's
// records include a wire and another host).
func pingPongForHost(rs []record.Result) []record.Result {
	all := records(rs, "tcp", "pingpong")
	for _, want := range []string{"loopback", "veth"} {
		var out []record.Result
		for _, r := range all {
			if r.Target == want {
				out = append(out, r)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}
