package calib

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
	"github.com/gpupath/gpupath/pkg/units"
)

// GPUHostFacts gathers what the GPU-side probes found on this host. Any
// part may be nil or empty; the overrides are the ones the facts support.
type GPUHostFacts struct {
	NVML *record.GPUInventory  // from the nvml probe
	CUDA *record.CUDAInventory // from the cuda probe
	Topo *record.TopoInventory // from the topo probe (sysfs)
	// Results are the run's records; the cuda probe's are used.
	Results []record.Result
}

// GPUHostOverrides turns the facts into scenario overrides:
//
//   - gpu.pcie: the GPU's PCIe link — NVML's current link read under load
//     during the sustained copy if there was one, else NVML's maximum link,
//     else sysfs's; the measured pinned bandwidth is quoted in the source;
//   - gpu.copy_latency: the median wall time of a synchronous pinned copy of
//     the smallest size (at most 64 B), the mean of H2D and D2H;
//   - gpu.copy_rate: the synchronous pinned copy rate at the largest size
//     (at least 16 MiB), the mean of H2D and D2H;
//   - gpu.nvlink_rate: the streaming peer-copy bandwidth at the largest
//     size, mean of both directions, when peer access was enabled;
//   - topology.gpu_nic, nic.pcie, nic.rdma, nic.kind, nic.rate: from the NIC
//     closest to the measured GPU in the sysfs topology (nic.kind from the
//     RDMA port's link layer: ib or roce, else ethernet; nic.rate from the
//     RDMA port rate, else the interface speed).
//
// The measured GPU is the one the cuda probe's records name (gpu0 by
// default), matched to NVML and sysfs by PCI address.
func GPUHostOverrides(f GPUHostFacts) []Override {
	var out []Override
	add := func(k, v, src string) {
		if v != "" {
			out = append(out, Override{Key: k, Value: v, Source: src})
		}
	}
	ord := measuredOrdinal(f.Results)
	bus := ""
	if f.CUDA != nil && ord < len(f.CUDA.Devices) {
		bus, _ = topo.ParseAddress(f.CUDA.Devices[ord].PCIBusID)
	}
	var nv *record.GPUDevice
	if f.NVML != nil {
		for i := range f.NVML.Devices {
			d := &f.NVML.Devices[i]
			if (bus != "" && d.PCIBusID == bus) || (bus == "" && d.Index == ord) {
				nv = d
				break
			}
		}
		if nv != nil && bus == "" {
			bus = nv.PCIBusID
		}
	}
	var sysGPU *topo.PCIDevice
	if f.Topo != nil {
		for i := range f.Topo.GPUs {
			g := &f.Topo.GPUs[i]
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
	if nv != nil {
		gpuName = fmt.Sprintf("gpu%d (%s, %s)", ord, nv.Name, nv.PCIBusID)
	} else if bus != "" {
		gpuName = fmt.Sprintf("gpu%d (%s)", ord, bus)
	}

	// gpu.pcie
	pinned := pinnedSummary(f.Results)
	switch load := sustainedLink(f.Results); {
	case load != "":
		add("gpu.pcie", load, "NVML current link of "+gpuName+" read under load (sustained copy)"+pinned)
	case nv != nil && topo.LinkName(nv.PCIeGenMax, nv.PCIeWidthMax) != "":
		add("gpu.pcie", topo.LinkName(nv.PCIeGenMax, nv.PCIeWidthMax), "NVML maximum link of "+gpuName+pinned)
	case sysGPU != nil && sysGPU.Link.Max() != "":
		add("gpu.pcie", sysGPU.Link.Max(), "sysfs max_link_speed/width of "+gpuName+pinned)
	}

	// gpu.copy_latency
	var lat []float64
	var parts []string
	for _, v := range []string{"h2d-pinned", "d2h-pinned"} {
		if r, ok := cudaSmallest(f.Results, v, "wall", ord); ok && r.Bytes <= 64 && r.MedianS > 0 {
			lat = append(lat, r.MedianS)
			parts = append(parts, fmt.Sprintf("%s %s", strings.ToUpper(v[:3]), units.Seconds(r.MedianS).Compact()))
		}
	}
	if len(lat) > 0 {
		r, _ := cudaSmallest(f.Results, "h2d-pinned", "wall", ord)
		if len(lat) == 1 {
			r, _ = cudaSmallest(f.Results, "d2h-pinned", "wall", ord)
		}
		add("gpu.copy_latency", units.Seconds(gpuMean(lat)).Compact(),
			fmt.Sprintf("measured on %s: median wall time of one synchronous %d B pinned cuMemcpy (%s)", gpuName, r.Bytes, strings.Join(parts, ", ")))
	}

	// gpu.copy_rate: synchronous pinned copies at the largest size (≥ 16 MiB,
	// where the fixed cost is under 1 % of the time), mean of both directions.
	var crates []float64
	var cparts []string
	var cbytes int64
	for _, v := range []string{"h2d-pinned", "d2h-pinned"} {
		if r, ok := cudaLargest(f.Results, v, "wall", ord); ok && r.Bytes >= 16<<20 && r.MedianS > 0 {
			crates = append(crates, float64(r.Bytes)/r.MedianS)
			cparts = append(cparts, fmt.Sprintf("%s %s", strings.ToUpper(v[:3]), units.Rate(float64(r.Bytes)/r.MedianS).Compact()))
			cbytes = r.Bytes
		}
	}
	if len(crates) > 0 {
		add("gpu.copy_rate", units.Rate(gpuMean(crates)).Compact(),
			fmt.Sprintf("measured on %s: synchronous pinned cuMemcpy of %d B, median wall time (%s)", gpuName, cbytes, strings.Join(cparts, ", ")))
	}

	// gpu.nvlink_rate
	var rates []float64
	var dirs []string
	for _, r := range largestPeer(f.Results) {
		rates = append(rates, r.ThroughputBps)
		dirs = append(dirs, fmt.Sprintf("%s %s", r.Target, units.Rate(r.ThroughputBps).Compact()))
	}
	if len(rates) > 0 {
		r := largestPeer(f.Results)[0]
		src := fmt.Sprintf("measured: streaming peer copies of %d B with peer access enabled (%s)", r.Bytes, strings.Join(dirs, ", "))
		if f.NVML != nil && len(f.NVML.Matrix) > 1 {
			src += "; NVML topology " + f.NVML.Matrix[0][1]
		}
		add("gpu.nvlink_rate", units.Rate(gpuMean(rates)).Compact(), src)
	}

	// The NIC closest to the GPU.
	if f.Topo != nil && f.Topo.System != nil && bus != "" {
		if pr, ok := f.Topo.System.ClosestNIC(bus); ok && pr.Class.PCIe() {
			nic, _ := f.Topo.System.Device(pr.NIC)
			nicName := fmt.Sprintf("NIC %s %04x:%04x", nic.Address, nic.Vendor, nic.Device)
			if len(pr.NICNames) > 0 {
				nicName += " (" + strings.Join(pr.NICNames, ",") + ")"
			}
			add("topology.gpu_nic", string(pr.Class), fmt.Sprintf("sysfs PCI tree: %s to %s, closest NIC (common ancestor %s)", gpuName, nicName, orNone(pr.Ancestor)))
			add("nic.pcie", nic.Link.Max(), "sysfs max_link_speed/width of "+nicName)
			port, rdev, hasPort := nicPort(f.Topo.System, nic)
			add("nic.rdma", strconv.FormatBool(len(nic.RDMADevs) > 0), fmt.Sprintf("sysfs: %s has %d RDMA devices", nicName, len(nic.RDMADevs)))
			switch {
			case hasPort && topo.LinkKind(port.LinkLayer) != "":
				add("nic.kind", topo.LinkKind(port.LinkLayer), fmt.Sprintf("sysfs: %s port %d link_layer %s", rdev, port.Port, port.LinkLayer))
			case len(nic.RDMADevs) == 0 && nic.BaseClass() == 0x0200:
				add("nic.kind", "ethernet", "sysfs: "+nicName+" is an Ethernet controller without RDMA")
			}
			switch {
			case hasPort && port.Active() && port.RateBps > 0:
				add("nic.rate", units.Rate(port.RateBps/8).CompactBits(), fmt.Sprintf("sysfs: %s port %d rate %q", rdev, port.Port, port.Rate))
			default:
				for _, nd := range f.Topo.Net {
					if nd.PCIAddress == nic.Address && nd.SpeedMbps > 0 {
						add("nic.rate", units.Rate(float64(nd.SpeedMbps)*1e6/8).CompactBits(), fmt.Sprintf("sysfs: %s speed %d Mb/s", nd.Name, nd.SpeedMbps))
						break
					}
				}
			}
		}
	}
	return out
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
func sustainedLink(rs []record.Result) string {
	for _, r := range rs {
		if r.Probe == "cuda" && strings.HasSuffix(r.Variant, "-sustained") && r.Extra["pcie_gen_load"] > 0 {
			return topo.LinkName(int(r.Extra["pcie_gen_load"]), int(r.Extra["pcie_width_load"]))
		}
	}
	return ""
}

func gpuMean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
