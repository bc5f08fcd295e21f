package doctor

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// iommuCheck reads the IOMMU groups and their type
// (/sys/kernel/iommu_groups/*/type: identity = pass-through, DMA and DMA-FQ
// = every DMA translated) for the GPUs and NICs, and the IOMMU and ACS
// settings on the kernel command line.
type iommuCheck struct{}

func (iommuCheck) Name() string { return "iommu" }

// iommuGroup is a device's group and the group's type.
type iommuGroup struct {
	dev, group, typ string
	facts           []Fact
}

func readGroups(e *Env) (groups []iommuGroup, total int, listFact Fact) {
	type res struct {
		g     []iommuGroup
		total int
		f     Fact
	}
	r := once(e, "iommu", func() res {
		var r res
		ents, err := e.readDir(sysTree, "kernel/iommu_groups")
		if err != nil {
			r.f = Fact{Source: "/sys/kernel/iommu_groups", Error: whyNot(err)}
		} else {
			r.total = len(ents)
			r.f = Fact{Source: "/sys/kernel/iommu_groups", Value: count(len(ents), "group")}
		}
		s, err := e.system()
		if err != nil {
			return r
		}
		var devs []string
		for _, g := range s.GPUs() {
			devs = append(devs, g.Address)
		}
		for _, n := range s.NICs() {
			if physicalNIC(n) {
				devs = append(devs, n.Address)
			}
		}
		for _, d := range devs {
			g := iommuGroup{dev: d}
			link := "bus/pci/devices/" + d + "/iommu_group"
			t, err := e.readLink(sysTree, link)
			if err != nil {
				g.facts = append(g.facts, Fact{Source: src(sysTree, link), Error: whyNot(err)})
				r.g = append(r.g, g)
				continue
			}
			g.group = path.Base(t)
			if _, err := strconv.Atoi(g.group); err != nil || path.Base(path.Dir(t)) != "iommu_groups" {
				g.facts = append(g.facts, Fact{Source: src(sysTree, link), Error: "could not read: links to " + oneLine(t) + ", not an IOMMU group"})
				g.group = ""
				r.g = append(r.g, g)
				continue
			}
			g.facts = append(g.facts, Fact{Source: src(sysTree, link), Value: "group " + g.group})
			var tf Fact
			g.typ, tf = e.text(sysTree, "kernel/iommu_groups/"+g.group+"/type")
			g.facts = append(g.facts, tf)
			r.g = append(r.g, g)
		}
		return r
	})
	return r.g, r.total, r.f
}

// translating reports whether an IOMMU domain type translates DMA.
func translating(typ string) bool { return typ == "DMA" || typ == "DMA-FQ" }

// iommuTranslates reports whether any GPU's or NIC's DMA is translated.
func iommuTranslates(e *Env) bool {
	gs, _, _ := readGroups(e)
	for _, g := range gs {
		if translating(g.typ) {
			return true
		}
	}
	return false
}

func (iommuCheck) Run(e *Env) []Finding {
	return []Finding{groupsFinding(e), cmdlineFinding(e)}
}

func groupsFinding(e *Env) Finding {
	gs, total, lf := readGroups(e)
	f := Finding{ID: "iommu.groups", Facts: []Fact{lf}}
	var trans, other []string
	unread := 0
	for _, g := range gs {
		f.Facts = append(f.Facts, g.facts...)
		switch {
		case g.group == "" || g.typ == "":
			unread++
		case translating(g.typ):
			trans = append(trans, g.dev)
		case g.typ != "identity":
			other = append(other, g.dev+" ("+g.typ+")")
		}
	}
	switch {
	case !lf.OK() && len(gs) == 0:
		f.Severity = Unknown
		f.Title = "IOMMU groups could not be read"
	case total == 0 || (!lf.OK() && unread == len(gs)):
		f.Severity = OK
		f.Title = "no IOMMU groups: the IOMMU is off or absent, DMA is not translated"
	case len(trans) > 0:
		f.Severity = Warn
		f.Title = fmt.Sprintf("the IOMMU translates every DMA of %s (domain type DMA)", strings.Join(trans, ", "))
		f.Why = "Each DMA of the NIC and the GPU goes through IOMMU page tables (IOTLB misses on large transfers), and peer-to-peer between GPU and NIC needs both mapped; GPUDirect RDMA guides ask for pass-through."
		f.Fix = "Boot with iommu=pt (with intel_iommu=on or amd_iommu=on where the IOMMU must stay on for VFIO), or set it in the GRUB_CMDLINE_LINUX of /etc/default/grub and update-grub."
		f.Cost = &Cost{Lead: "DMA translated by the IOMMU", Unpriced: "the model has no IOMMU parameter; a measured host-staged or GPUDirect run shows the cost"}
	case unread > 0:
		f.Severity = Unknown
		f.Title = fmt.Sprintf("%d GPU or NIC IOMMU groups could not be read", unread)
	case len(other) > 0:
		f.Severity = Info
		f.Title = "IOMMU groups not in pass-through: " + strings.Join(other, ", ") + " (owned by VFIO or blocked)"
	case len(gs) == 0:
		f.Severity = OK
		f.Title = fmt.Sprintf("%d IOMMU groups; no GPU or NIC to check", total)
	default:
		f.Severity = OK
		f.Title = "GPUs and NICs are in pass-through IOMMU groups (identity): DMA is not translated"
	}
	return f
}

// ParseCmdline splits a kernel command line into its parameters, keeping
// double-quoted values whole, and stops at "--" (what follows goes to init).
func ParseCmdline(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, have := false, false
	flush := func() {
		if have {
			out = append(out, cur.String())
		}
		cur.Reset()
		have = false
	}
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			have = true
		case !quoted && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			if have && cur.String() == "--" {
				return out
			}
			flush()
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have && cur.String() == "--" {
		return out
	}
	flush()
	return out
}

// iommuParams picks the IOMMU and ACS parameters from a command line.
func iommuParams(params []string) []string {
	var out []string
	for _, p := range params {
		k, _, _ := strings.Cut(p, "=")
		switch k {
		case "iommu", "intel_iommu", "amd_iommu", "iommu.passthrough", "iommu.strict", "pci", "pcie_acs_override", "vfio_iommu_type1.allow_unsafe_interrupts":
			out = append(out, p)
		}
	}
	return out
}

func cmdlineFinding(e *Env) Finding {
	s, f0 := e.text(procTree, "cmdline")
	f := Finding{ID: "iommu.cmdline", Facts: []Fact{f0}}
	if !f0.OK() {
		f.Severity, f.Title = Unknown, "the kernel command line could not be read"
		return f
	}
	ps := iommuParams(ParseCmdline(s))
	f0.Value = "none of iommu=, intel_iommu=, amd_iommu=, iommu.passthrough=, pci="
	if len(ps) > 0 {
		f0.Value = strings.Join(ps, " ")
	}
	f0.Source += " (IOMMU and PCI parameters)"
	f.Facts = []Fact{f0}
	has := map[string]bool{}
	var notes []string
	for _, p := range ps {
		has[p] = true
		if k, v, _ := strings.Cut(p, "="); k == "pci" {
			for _, o := range strings.Split(v, ",") {
				switch {
				case o == "noacs":
					notes = append(notes, "pci=noacs is not a mainline kernel parameter (an out-of-tree patch); mainline has pci=disable_acs_redir=<devices>")
				case strings.HasPrefix(o, "disable_acs_redir"):
					notes = append(notes, "pci=disable_acs_redir turns ACS redirect off on the devices it names")
				case strings.HasPrefix(o, "config_acs"):
					notes = append(notes, "pci=config_acs sets ACS bits on the devices it names (Linux ≥ 6.11)")
				}
			}
		}
		if strings.HasPrefix(p, "pcie_acs_override=") {
			notes = append(notes, "pcie_acs_override is an out-of-tree patch (ACS override for VFIO), not mainline")
		}
	}
	pt := has["iommu=pt"] || has["iommu.passthrough=1"] || has["iommu.passthrough=on"]
	off := has["iommu=off"] || has["intel_iommu=off"] || has["amd_iommu=off"]
	on := has["intel_iommu=on"] || has["amd_iommu=on"] || has["amd_iommu=force_isolation"]
	switch {
	case pt:
		f.Severity, f.Title = OK, "iommu=pt: the IOMMU passes device DMA through untranslated"
	case off:
		f.Severity, f.Title = OK, "the IOMMU is turned off on the command line"
	case on && iommuTranslates(e):
		f.Severity = Warn
		f.Title = "the IOMMU is turned on without iommu=pt, and the GPUs' or NICs' DMA is translated"
		f.Fix = "Add iommu=pt to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub; update-grub; reboot)."
		f.Cost = &Cost{Lead: "DMA translated by the IOMMU", Unpriced: "the model has no IOMMU parameter"}
	case on:
		f.Severity, f.Title = Info, "the IOMMU is turned on without iommu=pt (the groups show no translated GPU or NIC)"
	default:
		f.Severity, f.Title = Info, "no IOMMU parameter on the command line: the kernel's built-in default applies (see the IOMMU groups)"
	}
	if len(notes) > 0 {
		f.Why = strings.Join(notes, "; ") + "."
	}
	return f
}
