package doctor

import (
	"errors"
	"fmt"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/topo"
)

// acsCheck reads the ACS control bits of the bridges between each GPU and
// NIC (config space extended capability 0x000D; readable by root only). P2P
// Request or Completion Redirect on a switch port sends peer-to-peer traffic
// up to the root complex instead of across the switch.
type acsCheck struct{}

func (acsCheck) Name() string { return "acs" }

func (acsCheck) Run(e *Env) []Finding {
	s, err := e.system()
	if err != nil {
		return []Finding{{ID: "acs.bridges", Severity: Unknown, Title: "could not read the PCI tree",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Error: whyNot(err)}}}}
	}
	// The bridges on the routes between GPUs and physical NICs.
	onRoute := map[string]route{}
	for _, r := range routes(e) {
		if !physicalNIC(r.nic) {
			continue
		}
		for _, b := range r.bridges() {
			if _, ok := onRoute[b]; !ok {
				onRoute[b] = r
			}
		}
	}
	if len(onRoute) == 0 {
		return []Finding{{ID: "acs.bridges", Severity: Info,
			Title: "no PCIe bridge between a GPU and a NIC (none of either, or a flat bus): nothing for ACS to redirect",
			Facts: []Fact{{Source: "/sys/bus/pci/devices", Value: count(len(s.GPUs()), "GPU") + ", " + count(len(s.NICs()), "NIC")}}}}
	}
	var out []Finding
	var okFacts, bad []Fact
	needRoot := false
	for _, addr := range sortedKeys(onRoute) {
		c, f, err := readConfig(e, addr)
		if err != nil {
			bad = append(bad, f)
			needRoot = needRoot || errors.Is(err, errNeedsRoot)
			continue
		}
		d, _ := s.Device(addr)
		kind := "bridge"
		if c.PCIe {
			kind = portTypeName(c.PortType)
		}
		switch {
		case !c.Extended:
			bad = append(bad, Fact{Source: f.Source + " (" + kind + ")", Error: fmt.Sprintf("could not read: no extended config space (%d bytes)", c.Len)})
		case c.ACS == nil:
			okFacts = append(okFacts, Fact{Source: f.Source + " (" + kind + ")", Value: "no ACS capability"})
		case !c.ACS.Redirects():
			okFacts = append(okFacts, Fact{Source: f.Source + " (" + kind + ")", Value: "ACSCtl: " + c.ACS.Bits()})
		default:
			r := onRoute[addr]
			inSwitch := c.PortType == portDownstream || (!c.PCIe && len(d.Bridges) > 0)
			fi := Finding{ID: "acs.bridges", Subject: fmt.Sprintf("%s %s (between GPU %s and NIC %s)", kind, addr, r.gpu.Address, r.nicName()),
				Facts: []Fact{{Source: f.Source + ": ACS control (ECAP 0x000d +6)", Value: fmt.Sprintf("0x%04x: %s", c.ACS.Ctrl, c.ACS.Bits())}}}
			fi.Why = "With P2P Request/Completion Redirect set, every peer-to-peer request between GPU and NIC is sent up to the root complex and back (the IOMMU may then check it) instead of turning around in the switch."
			fi.Fix = fmt.Sprintf("Disable ACS redirect on this port: boot with pci=disable_acs_redir=%s (Linux ≥ 5.1), turn ACS off in the BIOS, or once as root: setpci -s %s ECAP_ACS+6.w=0:1c. Only where the devices need no isolation from each other (no VFIO pass-through).", addr, addr)
			if inSwitch && r.Class.Rank() <= topo.PXB.Rank() {
				fi.Severity = Warn
				fi.Title = "ACS redirects peer-to-peer traffic on a switch port between GPU and NIC (" + c.ACS.Bits() + ")"
				fi.Cost = &Cost{Lead: "ACS sends GPU↔NIC traffic up to the root complex",
					Before: Case{Path: "gdr", Set: caseKeys(calib.Facts{GPUNIC: class(r.Class)})},
					After:  Case{Path: "gdr", Set: caseKeys(calib.Facts{GPUNIC: is(model.PHB)})}}
			} else {
				fi.Severity = Info
				fi.Title = "ACS redirect set on a " + kind + " the GPU↔NIC traffic already crosses the root complex through (" + c.ACS.Bits() + ")"
				fi.Why = "This pair is " + string(r.Class) + ": its peer traffic goes through the root complex whatever the ACS bits say, so the redirect costs nothing more here."
				fi.Fix = ""
			}
			out = append(out, fi)
		}
	}
	if len(bad) > 0 {
		bad = append(bad, okFacts...)
		title := "ACS control of bridges between GPU and NIC could not be read"
		if needRoot {
			title = "ACS control needs root: config space beyond its first 64 bytes is readable only by root"
		}
		out = append(out, Finding{ID: "acs.bridges", Severity: Unknown, Title: title, Facts: bad,
			Fix: "Run gpupath doctor as root, or: sudo lspci -vvv | grep -i acsctl."})
	}
	if len(out) == 0 {
		out = append(out, Finding{ID: "acs.bridges", Severity: OK, Facts: okFacts,
			Title: fmt.Sprintf("no ACS redirect on the %s between GPUs and NICs", count(len(okFacts), "bridge"))})
	}
	return out
}
