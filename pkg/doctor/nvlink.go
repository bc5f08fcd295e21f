package doctor

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// nvlinkCheck reads, through the GPU source (NVML), which GPUs the driver
// sees and the state of each NVLink link.
type nvlinkCheck struct{}

func (nvlinkCheck) Name() string { return "nvlink" }

// nvlinkRate is one NVLink link's data rate per direction by NVLink
// version: NVLink 3 (A100: 600 GB/s over 12 links, both directions) and
// NVLink 4 (H100/H200: 900 GB/s over 18 links) carry 25 GB/s per link per
// direction, NVLink 5 (B200: 1.8 TB/s over 18 links) 50 GB/s (NVIDIA
// A100/H100/H200/B200 datasheets). nvidia-smi prints 26.562 GB/s per link
// for NVLink 4: the signalling rate, before protocol overhead.
var nvlinkRate = map[uint32]float64{2: 25e9, 3: 25e9, 4: 25e9, 5: 50e9}

func (nvlinkCheck) Run(e *Env) []Finding {
	g, err := e.gpuInventory()
	if err != nil {
		sev := Unknown
		if s, serr := e.system(); serr == nil && len(s.GPUs()) == 0 {
			sev = Info // no GPU here: nothing NVML could add
		}
		f := Finding{ID: "nvlink.source", Severity: sev, Title: "no NVML: NVLink, and the GPUs' own view of their links, unknown",
			Facts: []Fact{{Source: "NVML nvmlInit", Error: "could not read: " + err.Error()}},
			Fix:   "Run on the GPU host with the NVIDIA driver loaded, with a gpupath built with cgo (go-nvml loads libnvidia-ml.so.1)."}
		if fs, ok := e.opts.GPU.(FileGPUSource); ok {
			// The facts were to come from a file, not from NVML: say which.
			f.Title = "the file of GPU facts could not be read: NVLink, and the GPUs' own view of their links, unknown"
			f.Facts[0].Source = "file " + fs.Name
			f.Fix = "Give --nvml the nvml.json that gpupath doctor --save-tree writes on the GPU host (or run there with --nvml auto)."
		}
		return []Finding{f}
	}
	src := Finding{ID: "nvlink.source", Severity: OK, Title: fmt.Sprintf("%s sees %s (driver %s)", via(g), count(len(g.Devices), "GPU"), orDash(g.DriverVersion)),
		Facts: []Fact{{Source: "NVML nvmlDeviceGetCount", Value: fmt.Sprint(len(g.Devices))}}}
	for _, w := range g.Warnings {
		src.Facts = append(src.Facts, Fact{Source: "NVML", Error: "could not read: " + w})
	}
	// The GPUs NVML sees against those in the PCI tree.
	if s, err := e.system(); err == nil {
		inTree := map[string]bool{}
		for _, d := range s.GPUs() {
			inTree[d.Address] = true
		}
		var missing []string
		for _, d := range g.Devices {
			src.Facts = append(src.Facts, Fact{Source: fmt.Sprintf("NVML nvmlDeviceGetPciInfo(gpu%d)", d.Index), Value: d.PCIBusID + " " + d.Name})
			if !inTree[d.PCIBusID] {
				missing = append(missing, d.PCIBusID)
			}
		}
		if len(missing) > 0 {
			src.Severity = Warn
			src.Title += "; not in the sysfs PCI tree: " + strings.Join(missing, ", ")
			src.Why = "The sysfs tree and NVML describe different machines (a tree given with --sysfs from another host?), or the GPUs are behind a bus the tree does not show."
		}
	}
	out := []Finding{src}
	for _, d := range g.Devices {
		out = append(out, nvlinkFinding(e, d, len(g.Devices)))
	}
	return out
}

func nvlinkFinding(e *Env, d record.GPUDevice, gpus int) Finding {
	f := Finding{ID: "nvlink.links", Subject: fmt.Sprintf("GPU %s (NVML gpu%d)", d.PCIBusID, d.Index)}
	if len(d.NVLinks) == 0 {
		f.Severity = Info
		f.Title = "no NVLink: peer copies to other GPUs use PCIe"
		f.Facts = []Fact{{Source: fmt.Sprintf("NVML nvmlDeviceGetNvLinkState(gpu%d, 0)", d.Index), Value: "not supported"}}
		return f
	}
	var down []string
	var version uint32
	// Consecutive links in the same state make one fact ("links 0-17").
	first, prev, run := -1, "", ""
	flush := func(last int) {
		if first < 0 {
			return
		}
		links := fmt.Sprint(first)
		if last > first {
			links += "-" + fmt.Sprint(last)
		}
		f.Facts = append(f.Facts, Fact{Source: fmt.Sprintf("NVML nvmlDeviceGetNvLinkState(gpu%d, link %s)", d.Index, links), Value: run})
	}
	last := -1
	for _, l := range d.NVLinks {
		v := "active"
		if !l.Active {
			v = "inactive"
			down = append(down, fmt.Sprint(l.Link))
		} else {
			if l.Version > 0 {
				v += fmt.Sprintf(", NVLink %d", l.Version)
			}
			if l.RemoteType != "" || l.RemoteBusID != "" {
				v += " → " + strings.TrimSpace(l.RemoteType+" "+l.RemoteBusID)
			}
		}
		if l.Version > version {
			version = l.Version
		}
		if v != prev || l.Link != last+1 {
			flush(last)
			first, run = l.Link, v
		}
		prev, last = v, l.Link
	}
	flush(last)
	n, act := len(d.NVLinks), d.ActiveNVLinks()
	switch {
	case len(down) == 0:
		f.Severity = OK
		f.Title = fmt.Sprintf("all %d NVLink links active", n)
		if version > 0 {
			f.Title += fmt.Sprintf(" (NVLink %d)", version)
		}
	default:
		f.Severity = Warn
		if act == 0 {
			f.Severity = Error
		}
		f.Title = fmt.Sprintf("%d of %d NVLink links active; inactive: %s", act, n, strings.Join(down, ", "))
		if act == 0 {
			f.Title = fmt.Sprintf("none of the %d NVLink links is active", n)
		}
		if act == 0 && gpus == 1 {
			// One GPU of an NVLink board, alone in this machine (a VM given
			// one GPU): nothing to link to here.
			f.Severity = Info
			f.Title += ", and it is the only GPU here: no NVLink peer to reach (a VM given one GPU of an NVLink board?)"
			f.Fix = "Nothing to do for a single GPU; with peers, check nvidia-smi nvlink -s."
			return f
		}
		f.Why = "Peer copies and NCCL's intra-node traffic spread over the active links only; with none, they fall back to PCIe peer-to-peer or host staging."
		f.Fix = "Check nvidia-smi nvlink -s and -e (error counters); on NVSwitch systems check the fabric manager (systemctl status nvidia-fabricmanager); a reset (nvidia-smi -r) or a power cycle retrains links."
		if rate, ok := nvlinkRate[version]; ok {
			after := caseKeys(calib.Facts{NVLinkRate: is(units.Rate(rate * float64(act)))})
			f.Cost = &Cost{Lead: fmt.Sprintf("%d of %d NVLink links", act, n),
				Before: Case{Path: "gpu-peer", Set: caseKeys(calib.Facts{NVLinkRate: is(units.Rate(rate * float64(n)))})},
				After:  Case{Path: "gpu-peer", Set: after}}
		} else {
			f.Cost = &Cost{Lead: "inactive NVLink links", Unpriced: "no active link reports its NVLink version, so the rate per link is unknown"}
		}
	}
	return f
}
