package doctor

import (
	"strings"
)

// nvParamsCheck reads the NVIDIA driver's registry parameters
// (/proc/driver/nvidia/params, one "Name: value" per line, the NVreg_*
// module options as the driver took them) that matter for peer mappings.
type nvParamsCheck struct{}

func (nvParamsCheck) Name() string { return "nvparams" }

const paramsFile = "driver/nvidia/params"

// ParseParams parses /proc/driver/nvidia/params into name → value, with
// string values unquoted (RegistryDwords: "" → ""). Lines without a colon
// are returned in bad.
func ParseParams(s string) (params map[string]string, bad []string) {
	params = map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"") {
			bad = append(bad, oneLine(t))
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		params[k] = v
	}
	return params, bad
}

// ParseRegistryDwords parses the NVreg_RegistryDwords string
// ("PeerMappingOverride=1;RMForcePcieConfigSave=1") into key → value.
// Entries are separated by ';' (or ','); an entry without '=' is kept with
// value "".
func ParseRegistryDwords(s string) map[string]string {
	out := map[string]string{}
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' }) {
		k, v, _ := strings.Cut(strings.TrimSpace(e), "=")
		if k = strings.TrimSpace(k); k != "" {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

func (nvParamsCheck) Run(e *Env) []Finding {
	s, fact := e.text(procTree, paramsFile)
	if !fact.OK() {
		return []Finding{{ID: "nvparams.read", Severity: Unknown, Facts: []Fact{fact},
			Title: "the NVIDIA driver's parameters could not be read (driver not loaded?)",
			Why:   "/proc/driver/nvidia/params exists while the nvidia module is loaded; without it EnableStreamMemOPs, RegistryDwords and DmaRemapPeerMmio are unknown."}}
	}
	params, bad := ParseParams(s)
	var out []Finding
	if len(bad) > 0 || len(params) == 0 {
		f := Finding{ID: "nvparams.read", Severity: Unknown, Title: "lines of the NVIDIA driver's parameters could not be parsed"}
		for _, b := range bad {
			f.Facts = append(f.Facts, Fact{Source: src(procTree, paramsFile), Error: "could not read: not \"Name: value\": " + b})
		}
		if len(params) == 0 {
			f.Facts = append(f.Facts, Fact{Source: src(procTree, paramsFile), Error: "could not read: no parameter in the file"})
			return append(out, f)
		}
		out = append(out, f)
	}
	pf := func(k string) (string, Fact) {
		v, ok := params[k]
		if !ok {
			return "", Fact{Source: src(procTree, paramsFile) + ": " + k, Error: "could not read: not in the file (older driver?)"}
		}
		return v, Fact{Source: src(procTree, paramsFile) + ": " + k, Value: v}
	}
	unpriced := "the model has no GPU-initiated (IBGDA) path"

	// EnableStreamMemOPs: cuStreamWaitValue/WriteValue, which NVSHMEM's IBGDA
	// transport (GPU-initiated RDMA, used by DeepEP's low-latency kernels)
	// needs (NVSHMEM install guide; DeepEP README: NVreg_EnableStreamMemOPs=1).
	v, f1 := pf("EnableStreamMemOPs")
	smo := Finding{ID: "nvparams.streammemops", Facts: []Fact{f1}}
	switch v {
	case "1":
		smo.Severity, smo.Title = OK, "EnableStreamMemOPs=1: stream memory operations on (GPU-initiated RDMA can work)"
	case "":
		smo.Severity, smo.Title = Unknown, "EnableStreamMemOPs not reported by this driver"
	default:
		smo.Severity = Info
		smo.Title = "EnableStreamMemOPs=" + v + ": stream memory operations off"
		smo.Why = "NCCL does not need them; NVSHMEM's IBGDA transport (GPU-initiated RDMA, e.g. DeepEP's low-latency kernels) does, and falls back or fails without them."
		smo.Fix = "echo 'options nvidia NVreg_EnableStreamMemOPs=1' > /etc/modprobe.d/nvidia-streammemops.conf, then reload the nvidia modules (or reboot; update the initramfs if nvidia loads from it)."
		smo.Cost = &Cost{Lead: "no stream memory operations", Unpriced: unpriced}
	}
	out = append(out, smo)

	// PeerMappingOverride in RegistryDwords: lets the driver map peer memory
	// on topologies it does not vouch for (NVSHMEM/DeepEP docs:
	// NVreg_RegistryDwords="PeerMappingOverride=1;").
	rd, f2 := pf("RegistryDwords")
	pm := Finding{ID: "nvparams.peermapping", Facts: []Fact{f2}}
	dw := ParseRegistryDwords(rd)
	switch {
	case !f2.OK():
		pm.Severity, pm.Title = Unknown, "RegistryDwords not reported by this driver"
	case dw["PeerMappingOverride"] == "1":
		pm.Severity, pm.Title = OK, "RegistryDwords sets PeerMappingOverride=1 (peer mappings allowed on any topology)"
	default:
		pm.Severity = Info
		pm.Title = "PeerMappingOverride is not set in RegistryDwords"
		pm.Why = "The driver decides by itself where peer mappings are allowed; NVSHMEM's IBGDA setup asks for the override. Ordinary GPUDirect RDMA and NCCL do not need it."
		pm.Fix = "echo 'options nvidia NVreg_RegistryDwords=\"PeerMappingOverride=1;\"' > /etc/modprobe.d/nvidia-peermapping.conf, then reload the nvidia modules."
		pm.Cost = &Cost{Lead: "no peer-mapping override", Unpriced: unpriced}
	}
	out = append(out, pm)

	// DmaRemapPeerMmio: with the IOMMU translating, the driver must map a
	// peer's BAR through the IOMMU for P2P to work (open-gpu-kernel-modules
	// nv-reg.h: NVreg_DmaRemapPeerMmio, default 1).
	dm, f3 := pf("DmaRemapPeerMmio")
	dr := Finding{ID: "nvparams.dmaremap", Facts: []Fact{f3}}
	translating := iommuTranslates(e)
	switch {
	case !f3.OK():
		dr.Severity, dr.Title = Unknown, "DmaRemapPeerMmio not reported by this driver"
	case dm == "0" && translating:
		dr.Severity = Warn
		dr.Title = "DmaRemapPeerMmio=0 while the IOMMU translates DMA: peer MMIO is not remapped, GPU peer-to-peer may fail"
		dr.Fix = "Remove NVreg_DmaRemapPeerMmio=0 from /etc/modprobe.d (the default is 1), or boot with iommu=pt."
		dr.Cost = &Cost{Lead: "peer mappings not remapped", Unpriced: "the model has no IOMMU parameter"}
	case dm == "0":
		dr.Severity, dr.Title = Info, "DmaRemapPeerMmio=0 (harmless while the IOMMU does not translate)"
	default:
		dr.Severity, dr.Title = OK, "DmaRemapPeerMmio="+dm+": peer MMIO is remapped through the IOMMU when it translates"
	}
	out = append(out, dr)
	return out
}
