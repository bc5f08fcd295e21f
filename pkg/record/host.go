package record

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/internal/termtext"
)

// Host describes the machine a run was measured on, as far as it can be read
// cheaply from /proc and /sys (pkg/measure's ReadHost). Fields that cannot be
// read stay empty; Notes says why.
type Host struct {
	Hostname      string `json:"hostname"`
	Kernel        string `json:"kernel"`                   // release, as uname -r
	KernelVersion string `json:"kernel_version,omitempty"` // build, as uname -v
	OS            string `json:"os,omitempty"`             // PRETTY_NAME of os-release
	Arch          string `json:"arch"`
	CPUModel      string `json:"cpu_model,omitempty"`
	CPUs          int    `json:"cpus"`                // logical CPUs in /proc/cpuinfo
	MemoryBytes   int64  `json:"memory_bytes"`        // MemTotal
	LLCBytes      int64  `json:"llc_bytes,omitempty"` // largest CPU cache of cpu0 (sysfs)
	// GPUs and Driver come from /proc/driver/nvidia when the NVIDIA driver
	// is loaded; the GPU probes record the full picture.
	GPUs      []GPU    `json:"gpus,omitempty"`
	Driver    string   `json:"driver,omitempty"`
	NICs      []NIC    `json:"nics,omitempty"`
	GoVersion string   `json:"go_version"`
	Notes     []string `json:"notes,omitempty"`
}

// GPU is one GPU as /proc/driver/nvidia/gpus lists it.
type GPU struct {
	Model string `json:"model"`
	BusID string `json:"bus_id"`
}

// NIC is one network interface from /sys/class/net.
type NIC struct {
	Name   string `json:"name"`
	Driver string `json:"driver,omitempty"` // kernel driver of the device; empty for virtual
	MAC    string `json:"mac,omitempty"`
	State  string `json:"state,omitempty"` // operstate
	MTU    int    `json:"mtu,omitempty"`
	// SpeedMbps is the link speed the driver reports; 0 when unknown.
	SpeedMbps int `json:"speed_mbps,omitempty"`
	// Virtual is true for interfaces without a device (lo, veth, bridges).
	Virtual bool `json:"virtual"`
}

// Name is the host's name, "unknown host" when it was not read.
func (h Host) Name() string {
	if h.Hostname == "" {
		return "unknown host"
	}
	return h.Hostname
}

// Line describes the host in one line: its name, CPU and kernel ("vm,
// Intel(R) Xeon(R) … × 16, Linux 6.18").
func (h Host) Line() string {
	parts := []string{h.Name()}
	if h.CPUModel != "" {
		parts = append(parts, fmt.Sprintf("%s × %d", h.CPUModel, h.CPUs))
	} else if h.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", h.CPUs))
	}
	if h.Kernel != "" {
		parts = append(parts, "Linux "+h.Kernel)
	}
	return strings.Join(parts, ", ")
}

// CleanName makes a name from outside fit a manifest: one line with no
// control character (termtext.Name), at most MaxNameBytes after escaping,
// cut at a character with "…" past that. Every writer of a Host passes its
// texts through it (Host.Clean), so that what it writes reads back.
func CleanName(s string) string {
	s = termtext.Name(s)
	if len(s) <= MaxNameBytes {
		return s
	}
	cut := 0
	for i := range s {
		if i > MaxNameBytes-len("…") {
			break
		}
		cut = i
	}
	return s[:cut] + "…"
}

// Clean passes every text of h through CleanName: the hostname, kernel,
// OS, architecture, CPU model, the GPUs' models and bus IDs, the NICs'
// names, drivers and states.
func (h *Host) Clean() {
	for _, p := range []*string{&h.Hostname, &h.Kernel, &h.KernelVersion, &h.OS, &h.Arch, &h.CPUModel, &h.Driver} {
		*p = CleanName(*p)
	}
	for i := range h.GPUs {
		h.GPUs[i].Model, h.GPUs[i].BusID = CleanName(h.GPUs[i].Model), CleanName(h.GPUs[i].BusID)
	}
	for i := range h.NICs {
		n := &h.NICs[i]
		n.Name, n.Driver, n.MAC, n.State = CleanName(n.Name), CleanName(n.Driver), CleanName(n.MAC), CleanName(n.State)
	}
}
