package measured

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// RunHost is an HTML table of the machine a run was measured on: host,
// OS and kernel, CPU and memory, each GPU as NVML saw it (PCIe link now
// and at most, BAR1, memory), the driver and CUDA versions, the network
// interfaces, the GPU–NIC topology class, and the run itself.
func RunHost(rd *record.RunData) (string, error) {
	if rd == nil {
		return "", fmt.Errorf("nb: no run")
	}
	h, man := rd.Manifest.Host, rd.Manifest
	inv, err := rd.Inventories()
	if err != nil {
		return "", err
	}
	t := &nb.Table{Caption: fmt.Sprintf("The machine of run %s: %s", dirName(rd.Dir), rd.Manifest.Host.Name()), Head: []string{"what", "found"}}
	t.Add("host", strings.Join(nonEmpty(rd.Manifest.Host.Name(), h.OS, "Linux "+h.Kernel, h.Arch), ", "))
	cpu := fmt.Sprintf("%d CPUs", h.CPUs)
	if h.CPUModel != "" {
		cpu = fmt.Sprintf("%s × %d", h.CPUModel, h.CPUs)
	}
	if h.LLCBytes > 0 {
		cpu += ", last-level cache " + units.Bytes(h.LLCBytes).Human()
	}
	t.Add("CPU", cpu)
	t.Add("memory", units.Bytes(h.MemoryBytes).Human())
	switch {
	case inv.NVML != nil && len(inv.NVML.Devices) > 0:
		for _, d := range inv.NVML.Devices {
			t.Add(fmt.Sprintf("GPU %d", d.Index), gpuLine(d))
		}
	case len(h.GPUs) > 0:
		for i, g := range h.GPUs {
			t.Add(fmt.Sprintf("GPU %d", i), g.Model+", "+g.BusID)
		}
	default:
		t.Add("GPU", "none found")
	}
	var drv []string
	if inv.NVML != nil && inv.NVML.DriverVersion != "" {
		drv = append(drv, "NVIDIA "+inv.NVML.DriverVersion)
	} else if h.Driver != "" {
		drv = append(drv, "NVIDIA "+h.Driver)
	}
	if v := cudaVersion(inv); v != "" {
		drv = append(drv, "CUDA "+v)
	}
	t.Add("driver", cmp.Or(strings.Join(drv, ", "), "none found"))
	var nics []string
	for _, n := range h.NICs {
		s := n.Name + " (" + strings.Join(nonEmpty(n.Driver, n.State, "MTU "+strconv.Itoa(n.MTU)), ", ") + ")"
		if n.Virtual {
			s += " virtual"
		}
		nics = append(nics, s)
	}
	t.Add("network interfaces", cmp.Or(strings.Join(nics, "; "), "none found"))
	if inv.Topo != nil {
		for _, p := range inv.Topo.Pairs {
			line := fmt.Sprintf("%s: GPU %s to NIC %s", p.Class, p.GPU, p.NIC)
			if names := nonEmpty(p.NICNames...); len(names) > 0 {
				line += " (" + strings.Join(names, ", ") + ")"
			}
			t.Add("GPU–NIC topology", line)
		}
	}
	dur := ""
	if !man.End.IsZero() {
		dur = fmt.Sprintf(" in %.0f s", man.End.Sub(man.Start).Seconds())
	}
	t.Add("run", fmt.Sprintf("%s %s, %s%s, %s: %d records", man.Tool, man.Version, stamp(man.Start), dur, man.Status, len(rd.Results)))
	if len(rd.Skipped) > 0 {
		t.Add("skipped lines", fmt.Sprint(len(rd.Skipped)))
	}
	return t.HTML(), nil
}

func gpuLine(d record.GPUDevice) string {
	parts := []string{d.Name, d.PCIBusID}
	if d.PCIeGenCurrent > 0 {
		link := fmt.Sprintf("PCIe gen%d x%d", d.PCIeGenCurrent, d.PCIeWidthCurrent)
		if d.PCIeGenMax > 0 && (d.PCIeGenMax != d.PCIeGenCurrent || d.PCIeWidthMax != d.PCIeWidthCurrent) {
			link += fmt.Sprintf(" (at most gen%d x%d)", d.PCIeGenMax, d.PCIeWidthMax)
		}
		parts = append(parts, link)
	}
	if d.MemTotalBytes > 0 {
		parts = append(parts, units.Bytes(d.MemTotalBytes).Human()+" memory")
	}
	if d.BAR1TotalBytes > 0 {
		parts = append(parts, "BAR1 "+units.Bytes(d.BAR1TotalBytes).Human())
	}
	if n := d.ActiveNVLinks(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d NVLinks active", n))
	}
	return strings.Join(parts, ", ")
}

// cudaVersion reads the CUDA version the driver supports (13000 is 13.0).
func cudaVersion(f record.Inventories) string {
	v := 0
	if f.NVML != nil {
		v = f.NVML.CUDADriverVersion
	}
	if v == 0 && f.CUDA != nil {
		v = f.CUDA.DriverVersion
	}
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if t := strings.TrimSpace(s); t != "" && t != "Linux" && t != "MTU 0" {
			out = append(out, t)
		}
	}
	return out
}

// RunProbes is an HTML table of a run's probes: what each measured, or
// why it could not.
func RunProbes(rd *record.RunData) string {
	t := &nb.Table{Caption: "Probes of the run", Head: []string{"probe", "outcome", "records", "reason"}, Right: []bool{false, false, true, false}}
	for _, p := range rd.Manifest.Probes {
		t.Add(p.Name, string(p.Status), strconv.Itoa(p.Results), p.Reason)
	}
	return t.HTML()
}

// ThisHost is the scenario base with every "this host" value the run
// supports (calib.ThisHost: the GPU and its PCIe link, copy latency and
// rate, the NIC, memcpy, system-call and TCP stack costs, ...), then the
// sets (e.g. "nic.kind=loopback"), resolved together.
func ThisHost(base *model.Scenario, rd *record.RunData, sets ...string) (*model.Scenario, error) {
	if base == nil {
		return nil, fmt.Errorf("nb: no scenario")
	}
	ovs, _, err := calib.ThisHost(rd)
	if err != nil {
		return nil, err
	}
	more, err := model.ParseSets(sets, "set")
	if err != nil {
		return nil, err
	}
	s := base.Clone()
	if err := s.Apply(append(ovs, more...)...); err != nil {
		return nil, err
	}
	s.Name = rd.Manifest.Host.Name() + "'s measured values"
	if s.NIC.Kind == model.KindLoopback {
		s.Name += " on loopback"
	}
	return s, nil
}

// ThisHostTable is an HTML table of the scenario values a run supports
// (rd.ThisHost), each next to base's value, with where it comes from, and
// the keys that could not be derived below it.
func ThisHostTable(base *model.Scenario, rd *record.RunData) (string, error) {
	ovs, notes, err := calib.ThisHost(rd)
	if err != nil {
		return "", err
	}
	t := &nb.Table{Caption: fmt.Sprintf("This host's scenario values, measured on %s (the rest stays as in %s)", rd.Manifest.Host.Name(), base.Name),
		Head: []string{"key", base.Name, "this host", "where it comes from"}, Right: []bool{false, true, true, false}}
	for _, o := range ovs {
		before, err := base.Get(o.Key)
		if err != nil {
			return "", err
		}
		v, err := o.Text()
		if err != nil {
			return "", err
		}
		t.Add(o.Key, before, v, o.Source)
	}
	for _, n := range notes {
		t.Add("", "", "", "not derived: "+n)
	}
	return t.HTML(), nil
}
