package doctor

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/topo"
	"github.com/gpupath/gpupath/pkg/units"
)

// pcieCheck compares every link between the GPUs and the NICs — their own
// and every bridge's on the way — with what both ends can do (a link
// trained down to a lower speed or width anywhere on the route; NCCL reads
// only the maximum, so it cannot see this), and reads MPS and MRRS from
// config space.
type pcieCheck struct{}

func (pcieCheck) Name() string { return "pcie" }

// pcieSet returns the functions to check, by address: every GPU, every
// physical NIC and every bridge between a GPU and a NIC (or above a lone GPU
// or NIC).
func pcieSet(e *Env, s *topo.System) map[string]topo.PCIDevice {
	set := map[string]topo.PCIDevice{}
	add := func(addr string) {
		if d, ok := s.Device(addr); ok {
			set[addr] = d
		}
	}
	for _, g := range s.GPUs() {
		add(g.Address)
		for _, b := range g.Bridges {
			add(b)
		}
	}
	for _, n := range s.NICs() {
		if !physicalNIC(n) {
			continue
		}
		add(n.Address)
		for _, b := range n.Bridges {
			add(b)
		}
	}
	return set
}

// pciLink is the link between a function and the bridge above it.
type pciLink struct {
	upper *topo.PCIDevice // nil: no bridge above (a flat bus)
	lower topo.PCIDevice
}

func (l pciLink) name() string {
	if l.upper == nil {
		return l.lower.Address + " (" + devKind(l.lower) + ")"
	}
	return l.upper.Address + " ↔ " + l.lower.Address + " (" + devKind(l.lower) + ")"
}

func devKind(d topo.PCIDevice) string {
	switch {
	case d.IsGPU():
		return "GPU"
	case d.IsNIC():
		return "NIC"
	case d.IsBridge():
		return "bridge"
	}
	return fmt.Sprintf("class 0x%06x", d.Class)
}

// capable is the most the link can do: the lower of both ends' maxima.
func (l pciLink) capable() (gen, width int) {
	gen, width = l.lower.Link.MaxGen(), l.lower.Link.MaxWidth
	if l.upper != nil {
		if g := l.upper.Link.MaxGen(); g > 0 && (gen == 0 || g < gen) {
			gen = g
		}
		if w := l.upper.Link.MaxWidth; w > 0 && (width == 0 || w < width) {
			width = w
		}
	}
	return gen, width
}

// current is the trained link: the lower end's status, else the upper's.
func (l pciLink) current() (gen, width int) {
	gen, width = l.lower.Link.CurrentGen(), l.lower.Link.CurrentWidth
	if gen == 0 && l.upper != nil {
		gen = l.upper.Link.CurrentGen()
	}
	if width == 0 && l.upper != nil {
		width = l.upper.Link.CurrentWidth
	}
	return gen, width
}

func linkText(gen, width int) string {
	g, w := "gen?", "x?"
	if gen > 0 {
		g = fmt.Sprintf("gen%d", gen)
	}
	if width > 0 {
		w = fmt.Sprintf("x%d", width)
	}
	return g + " " + w
}

func (pcieCheck) Run(e *Env) []Finding {
	s, err := e.system()
	if err != nil {
		return []Finding{{ID: "pcie.link", Severity: Unknown, Title: "could not read the PCI tree",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Error: whyNot(err)}}}}
	}
	set := pcieSet(e, s)
	if len(set) == 0 {
		return []Finding{{ID: "pcie.link", Severity: Info, Title: "no GPU or physical NIC: no link to check",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Value: fmt.Sprintf("%d PCI functions", len(s.PCI))}}}}
	}
	out := linkFindings(e, s, set)
	return append(out, payloadFindings(e, s, set)...)
}

func linkFindings(e *Env, s *topo.System, set map[string]topo.PCIDevice) []Finding {
	var links []pciLink
	for _, addr := range sortedKeys(set) {
		d := set[addr]
		if k := portKind(e, d); k == portRoot || k == portDownstream {
			continue // its link status is the link below it, judged from the lower end
		}
		l := pciLink{lower: d}
		if n := len(d.Bridges); n > 0 {
			if u, ok := s.Device(d.Bridges[n-1]); ok {
				l.upper = &u
			}
		}
		links = append(links, l)
	}
	var out []Finding
	var okFacts, partial []Fact
	unread := 0
	for _, l := range links {
		cg, cw := l.capable()
		ng, nw := l.current()
		if cg == 0 && cw == 0 && ng == 0 && nw == 0 {
			unread++
			continue
		}
		if cg == 0 || cw == 0 || ng == 0 || nw == 0 {
			partial = append(partial, Fact{Source: "PCI link " + l.name(), Error: "could not read: " + linkText(ng, nw) + " of " + linkText(cg, cw) + " (some link attributes unreadable)"})
			continue
		}
		fact := Fact{Source: "PCI link " + l.name(), Value: linkText(ng, nw) + " of " + linkText(cg, cw)}
		if l.lower.Link.Max() != "" && l.upper != nil && l.upper.Link.Max() != "" && l.upper.Link.Max() != l.lower.Link.Max() {
			fact.Value += fmt.Sprintf(" (ends: %s can %s, %s can %s)", l.upper.Address, linkText(l.upper.Link.MaxGen(), l.upper.Link.MaxWidth), l.lower.Address, linkText(l.lower.Link.MaxGen(), l.lower.Link.MaxWidth))
		}
		slow := ng > 0 && cg > 0 && ng < cg
		narrow := nw > 0 && cw > 0 && nw < cw
		if !slow && !narrow {
			okFacts = append(okFacts, fact)
			continue
		}
		f := Finding{ID: "pcie.link", Subject: "PCI link " + l.name(), Facts: []Fact{
			devLinkFact(l.lower, "current_link_speed"), devLinkFact(l.lower, "current_link_width"),
			devLinkFact(l.lower, "max_link_speed"), devLinkFact(l.lower, "max_link_width")}}
		if l.upper != nil {
			f.Facts = append(f.Facts, devLinkFact(*l.upper, "max_link_speed"), devLinkFact(*l.upper, "max_link_width"))
		}
		f.Title = fmt.Sprintf("link trained to %s of the %s both ends can do", linkText(ng, nw), linkText(cg, cw))
		idleGPU := l.lower.IsGPU() && !narrow
		if idleGPU {
			f.Severity = Info
			f.Title += " (a GPU lowers its link speed when idle)"
			f.Why = "GPUs drop to a low PCIe generation at idle to save power and come back under load; only a reading under load tells a trained-down link."
			f.Fix = "Read it while the GPU copies: nvidia-smi -q -d PCIE (Link Info: Current) or lspci -vv -s " + l.lower.Address + " (LnkSta) during a cudaMemcpy loop."
		} else {
			f.Severity = Warn
			f.Why = "Everything that crosses this link — GPUDirect peer traffic, the NIC's DMA, host-staged copies — is held to the trained rate. A link that trains below both ends' maximum usually means a riser, cable or slot problem, a BIOS setting, or signal errors at the higher speed."
			f.Fix = "Reseat the card or riser and check the slot's wiring and BIOS link settings; look for AER errors (dmesg | grep -i aer); compare lspci -vv -s " + l.lower.Address + " (LnkCap vs LnkSta)." + retrainHint(l)
			f.Cost = linkCost(e, s, l, cg, cw, ng, nw)
		}
		out = append(out, f)
	}
	out = append(out, nvmlLinkFindings(e, s, set)...)
	if len(partial) > 0 {
		out = append(out, Finding{ID: "pcie.link", Severity: Unknown, Facts: partial,
			Title: fmt.Sprintf("%s only partly readable", count(len(partial), "PCIe link"))})
	}
	if len(out) > 0 {
		return out
	}
	if len(okFacts) == 0 {
		return []Finding{{ID: "pcie.link", Severity: Unknown,
			Title: fmt.Sprintf("no PCIe link attributes for the %d GPU, NIC and bridge functions (a VM's flat bus shows none), and no NVML", unread),
			Facts: []Fact{{Source: "/sys/bus/pci/devices/*/current_link_speed", Error: "could not read: not found"}}}}
	}
	f := Finding{ID: "pcie.link", Severity: OK, Facts: okFacts,
		Title: fmt.Sprintf("%s at the most both ends can do", count(len(okFacts), "PCIe link"))}
	if unread > 0 {
		f.Title += fmt.Sprintf(" (%s without link attributes)", count(unread, "function"))
	}
	return []Finding{f}
}

func devLinkFact(d topo.PCIDevice, attr string) Fact {
	var v string
	switch attr {
	case "current_link_speed":
		v = fmt.Sprintf("%g GT/s", d.Link.CurrentGTs)
	case "current_link_width":
		v = fmt.Sprint(d.Link.CurrentWidth)
	case "max_link_speed":
		v = fmt.Sprintf("%g GT/s", d.Link.MaxGTs)
	case "max_link_width":
		v = fmt.Sprint(d.Link.MaxWidth)
	}
	return Fact{Source: src(sysTree, "bus/pci/devices/"+d.Address+"/"+attr), Value: v}
}

// portKind returns a function's PCIe port type: from config space when
// it can be read, else, for a bridge, from its place in the chain (topo's
// convention: the root port first, then upstream and downstream switch
// ports alternating).
func portKind(e *Env, d topo.PCIDevice) int {
	if !d.IsBridge() {
		return portEndpoint
	}
	if c, _, err := readConfig(e, d.Address); err == nil && c.PCIe {
		return c.PortType
	}
	switch n := len(d.Bridges); {
	case n == 0:
		return portRoot
	case n%2 == 1:
		return portUpstream
	}
	return portDownstream
}

// onPeerRoute reports whether the link above addr carries GPUDirect
// traffic: the peer-to-peer traffic between a GPU and its closest RDMA NIC,
// when they are close enough for NCCL to use GPUDirect (the link is below
// their common ancestor).
func onPeerRoute(e *Env, addr string) bool {
	for _, r := range closest(e) {
		if !r.rdma || r.Class.Rank() > ncclGDRLevel.Rank() {
			continue // no GPUDirect between them (NCCL stages through the host)
		}
		if r.gpu.Address == addr || r.nic.Address == addr {
			return true
		}
		bs := r.bridges()
		for i, b := range bs {
			if b == addr && (i > 0 || r.Ancestor != b) {
				return true
			}
		}
	}
	return false
}

// linkCost prices a trained-down link on the side it is on: the GPU's
// (the link is the GPU's or above it) or the NIC's; on GPUDirect's path
// when the link carries the peer traffic, else on the host-staged path.
func linkCost(e *Env, s *topo.System, l pciLink, cg, cw, ng, nw int) *Cost {
	capable := topo.LinkName(cg, cw)
	now := topo.LinkName(ng, nw)
	if capable == "" || now == "" {
		return &Cost{Lead: "a trained-down link", Unpriced: "the link's generation or width is unknown"}
	}
	var before, after calib.Facts
	side := func(d topo.PCIDevice) bool {
		if d.Address == l.lower.Address {
			return true
		}
		for _, b := range d.Bridges {
			if b == l.lower.Address {
				return true
			}
		}
		return false
	}
	gpu, nic := false, false
	for _, g := range s.GPUs() {
		gpu = gpu || side(g)
	}
	for _, n := range s.NICs() {
		nic = nic || (physicalNIC(n) && side(n))
	}
	if gpu {
		before.GPUPCIe, after.GPUPCIe = link(cg, cw), link(ng, nw)
	}
	if nic {
		before.NICPCIe, after.NICPCIe = link(cg, cw), link(ng, nw)
	}
	if !gpu && !nic {
		return nil
	}
	p := "rdma"
	if hasRDMA(e) && onPeerRoute(e, l.lower.Address) {
		p = "gdr"
	}
	return &Cost{Lead: "a link trained down to " + now + " (" + capable + " possible)",
		Before: Case{Path: p, Set: caseKeys(before)}, After: Case{Path: p, Set: caseKeys(after)}}
}

// nvmlLinkFindings judge GPU links from NVML where sysfs has none (a VM):
// NVML reads the GPU's own link status.
func nvmlLinkFindings(e *Env, s *topo.System, set map[string]topo.PCIDevice) []Finding {
	g, err := e.gpuInventory()
	if err != nil {
		return nil
	}
	var out []Finding
	for _, d := range g.Devices {
		sd, ok := set[d.PCIBusID]
		if ok && sd.Link.Max() != "" {
			continue // sysfs has it
		}
		if d.PCIeGenMax == 0 || d.PCIeWidthMax == 0 {
			continue
		}
		fact := func(call string, v int) Fact {
			return Fact{Source: fmt.Sprintf("NVML %s(gpu%d)", call, d.Index), Value: fmt.Sprint(v)}
		}
		f := Finding{ID: "pcie.link", Subject: fmt.Sprintf("GPU %s (NVML gpu%d)", d.PCIBusID, d.Index), Facts: []Fact{
			fact("nvmlDeviceGetCurrPcieLinkGeneration", d.PCIeGenCurrent), fact("nvmlDeviceGetCurrPcieLinkWidth", d.PCIeWidthCurrent),
			fact("nvmlDeviceGetMaxPcieLinkGeneration", d.PCIeGenMax), fact("nvmlDeviceGetMaxPcieLinkWidth", d.PCIeWidthMax)}}
		cur, max := linkText(d.PCIeGenCurrent, d.PCIeWidthCurrent), linkText(d.PCIeGenMax, d.PCIeWidthMax)
		switch {
		case d.PCIeWidthCurrent > 0 && d.PCIeWidthCurrent < d.PCIeWidthMax:
			f.Severity = Warn
			f.Title = "GPU link trained to " + cur + " of " + max + " (NVML; the width does not drop at idle)"
			f.Fix = "Reseat the GPU or its riser; check the slot's wiring and the BIOS link settings."
			f.Cost = &Cost{Lead: "a trained-down GPU link",
				Before: Case{Path: gpuPath(e), Set: caseKeys(calib.Facts{GPUPCIe: link(d.PCIeGenMax, d.PCIeWidthMax)})},
				After:  Case{Path: gpuPath(e), Set: caseKeys(calib.Facts{GPUPCIe: link(max1(d.PCIeGenCurrent, d.PCIeGenMax), d.PCIeWidthCurrent)})}}
		case d.PCIeGenCurrent > 0 && d.PCIeGenCurrent < d.PCIeGenMax:
			f.Severity = Info
			f.Title = "GPU link at " + cur + " of " + max + " now (NVML): a GPU lowers its link speed when idle"
			f.Fix = "Read it under load: nvidia-smi -q -d PCIE while the GPU copies."
		default:
			f.Severity = OK
			f.Title = "GPU link at " + cur + " of " + max + " (NVML)"
		}
		out = append(out, f)
	}
	return out
}

func max1(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// payloadFindings read MPS and MRRS from config space for the GPUs, the
// NICs and the bridges between them.
func payloadFindings(e *Env, s *topo.System, set map[string]topo.PCIDevice) []Finding {
	type dev struct {
		d topo.PCIDevice
		c ConfigSpace
	}
	var devs []dev
	var bad []Fact
	needRoot := false
	for _, addr := range sortedKeys(set) {
		c, f, err := readConfig(e, addr)
		if err != nil {
			bad = append(bad, f)
			needRoot = needRoot || errors.Is(err, errNeedsRoot)
			continue
		}
		if !c.PCIe {
			continue // conventional PCI (a VM's emulated function): no MPS
		}
		devs = append(devs, dev{set[addr], c})
	}
	if len(devs) == 0 {
		title := "MPS and MRRS could not be read from config space"
		fix := "Run gpupath doctor as root (sudo), or read them with sudo lspci -vv (DevCtl: MaxPayload, MaxReadReq)."
		if needRoot {
			title = "MPS and MRRS need root: config space beyond its first 64 bytes is readable only by root"
		} else if len(bad) == 0 {
			title = "no PCI Express capability in the config space of the GPUs, NICs and bridges (a VM's emulated bus): MPS and MRRS unknown"
			fix = "The hypervisor shows an emulated bus; MPS and MRRS are set on the host (lspci -vv there)."
			for _, addr := range sortedKeys(set) {
				_, f, _ := readConfig(e, addr)
				f.Value += ", no PCI Express capability"
				bad = append(bad, f)
			}
		}
		return []Finding{{ID: "pcie.mps", Severity: Unknown, Title: title, Facts: bad, Fix: fix}}
	}
	// MPS: the smallest along the way rules; the kernel should set the
	// largest every device supports.
	mpsMin, supMin := 0, 0
	var mpsFacts []Fact
	for _, d := range devs {
		mpsFacts = append(mpsFacts, Fact{Source: src(sysTree, "bus/pci/devices/"+d.d.Address+"/config") + " (" + devKind(d.d) + ", " + portTypeName(d.c.PortType) + ")",
			Value: fmt.Sprintf("MaxPayload %d bytes, supported %d", d.c.MPS, d.c.MPSSupported)})
		if d.c.MPS > 0 && (mpsMin == 0 || d.c.MPS < mpsMin) {
			mpsMin = d.c.MPS
		}
		if d.c.MPSSupported > 0 && (supMin == 0 || d.c.MPSSupported < supMin) {
			supMin = d.c.MPSSupported
		}
	}
	mpsFacts = append(mpsFacts, bad...)
	mps := Finding{ID: "pcie.mps", Facts: mpsFacts}
	switch {
	case mpsMin == 0:
		mps.Severity, mps.Title = Unknown, "MPS unreadable"
	case mpsMin < supMin:
		mps.Severity = Warn
		mps.Title = fmt.Sprintf("Max_Payload_Size is %d bytes though every function on the way supports %d", mpsMin, supMin)
		mps.Why = "Every TLP carries at most MPS bytes of payload behind a fixed header: a smaller MPS spends more of the link on headers."
		mps.Fix = "Boot with pci=pcie_bus_perf (the kernel sets the largest MPS the hierarchy allows) or raise MPS in the BIOS."
		mps.Cost = &Cost{Lead: fmt.Sprintf("MPS %d B instead of %d B", mpsMin, supMin),
			Before: Case{Path: gpuPath(e), Set: caseKeys(calib.Facts{MPS: is(units.Bytes(supMin))})},
			After:  Case{Path: gpuPath(e), Set: caseKeys(calib.Facts{MPS: is(units.Bytes(mpsMin))})}}
	default:
		mps.Severity = OK
		mps.Title = fmt.Sprintf("Max_Payload_Size %d bytes: the largest every function on the way supports", mpsMin)
	}
	if len(bad) > 0 && mps.Severity == OK {
		mps.Severity = Unknown
		mps.Title += fmt.Sprintf("; %d functions unreadable", len(bad))
	}
	// MRRS: what the GPU's and NIC's DMA engines may ask for in one read.
	mr := Finding{ID: "pcie.mrrs", Severity: OK}
	small := 0
	for _, d := range devs {
		if d.d.IsBridge() {
			continue // bridges issue no reads of their own
		}
		mr.Facts = append(mr.Facts, Fact{Source: src(sysTree, "bus/pci/devices/"+d.d.Address+"/config") + " (" + devKind(d.d) + ")",
			Value: fmt.Sprintf("MaxReadReq %d bytes", d.c.MRRS)})
		if d.c.MRRS > 0 && d.c.MRRS < 512 {
			small++
			mr.Fix += fmt.Sprintf("setpci -s %s CAP_EXP+8.w=5000:7000 (MRRS 4096); ", d.d.Address)
		}
	}
	switch {
	case len(mr.Facts) == 0:
		return []Finding{mps}
	case small > 0:
		mr.Severity = Info
		mr.Title = fmt.Sprintf("%d GPU or NIC functions read in requests under 512 bytes (Max_Read_Request_Size)", small)
		mr.Why = "Each DMA read asks for at most MRRS bytes: small requests need more requests in flight for the same rate (ConnectX tuning guides set 4096)."
		mr.Fix = strings.TrimSuffix(mr.Fix, "; ") + " — as root; it lasts until reboot."
		mr.Cost = &Cost{Lead: "small read requests", Unpriced: "the model has no read-request-size parameter"}
	default:
		mr.Title = "GPU and NIC read requests of at least 512 bytes (Max_Read_Request_Size)"
	}
	sort.SliceStable(mr.Facts, func(i, j int) bool { return mr.Facts[i].Source < mr.Facts[j].Source })
	return []Finding{mps, mr}
}

// retrainHint says how to retrain the link from the port above it.
func retrainHint(l pciLink) string {
	if l.upper == nil {
		return ""
	}
	return " To retrain it once: setpci -s " + l.upper.Address + " CAP_EXP+10.w=20:20 (Link Control: Retrain Link, as root)."
}
