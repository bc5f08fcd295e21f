package doctor

import (
	"fmt"
	"strings"
)

// peerMemCheck looks for the peer-memory module that lets an RDMA NIC
// register GPU memory (the nv_peer_mem / nvidia-peermem route of GPUDirect
// RDMA) under every name the libraries look for. The libraries disagree on
// the names, so a module can be loaded and still invisible to one of them.
type peerMemCheck struct{}

func (peerMemCheck) Name() string { return "peermem" }

// peerMemName is one place a library looks for the module.
type peerMemName struct {
	name string // as the report says it
	file string // in the sysfs tree
	// seenBy lists the libraries that test this path (access(F_OK) on it):
	// NCCL src/transport/net_ib.cc ibGdrSupportInitOnce (nv_mem, nv_mem_nc,
	// nvidia_peermem); UCX src/uct/ib/base/ib_md.c uct_ib_md_open_common
	// (nv_mem, nvidia_peermem, nv_peer_mem); Open MPI's openib BTL and GASNet
	// (nv_mem only); nccl-rdma-sharp-plugins' nccl_p2p_gdr_support (nv_mem only).
	seenBy []string
}

var peerMemNames = []peerMemName{
	{"memory_peers/nv_mem", "kernel/mm/memory_peers/nv_mem/version", []string{"NCCL", "UCX", "Open MPI (openib)", "GASNet", "nccl-rdma-sharp-plugins"}},
	{"memory_peers/nv_mem_nc", "kernel/mm/memory_peers/nv_mem_nc/version", []string{"NCCL"}},
	{"module nvidia_peermem", "module/nvidia_peermem/version", []string{"NCCL", "UCX"}},
	{"module nv_peer_mem (legacy)", "module/nv_peer_mem/version", []string{"UCX"}},
}

// peerMemState is what the names say, shared with the DMA-BUF check.
type peerMemState struct {
	facts  []Fact
	found  []string        // names present
	seenBy map[string]bool // libraries that find the module
	loaded []string        // peer-memory modules in /proc/modules
}

func (p peerMemState) any() bool { return len(p.found) > 0 }

func readPeerMem(e *Env) peerMemState {
	return once(e, "peermem", func() peerMemState {
		st := peerMemState{seenBy: map[string]bool{}}
		for _, n := range peerMemNames {
			ok, f := e.exists(sysTree, n.file)
			st.facts = append(st.facts, f)
			if ok {
				st.found = append(st.found, n.name)
				for _, l := range n.seenBy {
					st.seenBy[l] = true
				}
			}
		}
		mods, f := readModules(e)
		if f.OK() {
			for _, m := range []string{"nvidia_peermem", "nv_peer_mem"} {
				if _, ok := mods[m]; ok {
					st.loaded = append(st.loaded, m)
				}
			}
			v := "none of nvidia_peermem, nv_peer_mem"
			if len(st.loaded) > 0 {
				v = strings.Join(st.loaded, ", ") + " loaded"
			}
			f.Value = v
		}
		st.facts = append(st.facts, f)
		return st
	})
}

// readModules reads /proc/modules, once.
func readModules(e *Env) (map[string]string, Fact) {
	type res struct {
		m map[string]string
		f Fact
	}
	r := once(e, "modules", func() res {
		s, f := e.text(procTree, "modules")
		if !f.OK() {
			return res{nil, f}
		}
		return res{ParseModules(s), f}
	})
	return r.m, r.f
}

// ParseModules parses /proc/modules ("nvidia_peermem 16384 0 - Live
// 0xffffffffc0a1b000 (OE)") into module name → state ("Live", "Loading").
// Lines that do not have the six fields are skipped.
func ParseModules(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		out[f[0]] = f[4]
	}
	return out
}

var allLibraries = []string{"NCCL", "UCX", "Open MPI (openib)", "GASNet", "nccl-rdma-sharp-plugins"}

func (peerMemCheck) Run(e *Env) []Finding {
	st := readPeerMem(e)
	rdma := hasRDMA(e)
	f := Finding{ID: "peermem.module", Facts: st.facts}
	var blind []string
	for _, l := range allLibraries {
		if !st.seenBy[l] {
			blind = append(blind, l)
		}
	}
	fix := "Load NVIDIA's peer-memory module, which ships with the driver: modprobe nvidia-peermem (with MLNX_OFED/DOCA-OFED, whose peer-memory API it needs); add it to /etc/modules-load.d/ to keep it. Or use DMA-BUF instead (open kernel modules, Linux ≥ 5.12; NCCL_DMABUF_ENABLE=1 is the default)."
	switch {
	case !st.any() && len(st.loaded) > 0:
		f.Severity = Warn
		f.Title = strings.Join(st.loaded, ", ") + " is loaded but none of the files the libraries test exists"
		f.Why = "Libraries find the module by its sysfs files, not /proc/modules; a module without them (built without MODULE_VERSION, or not registered as a memory peer) is invisible to all of them."
		f.Fix = "Reload the module from the NVIDIA driver's own package (modprobe -r nvidia-peermem; modprobe nvidia-peermem) and check that /sys/module/nvidia_peermem/version appears."
	case !st.any() && !sysfsReadable(e):
		f.Severity = Unknown
		f.Title = "no peer-memory module found, and the sysfs tree is unreadable: whether an RDMA device needs one is unknown"
	case !st.any() && !rdma:
		f.Severity = Info
		f.Title = "no peer-memory module under any name; there is no RDMA device here, so nothing needs it now"
		f.Why = "A host with an RDMA NIC would need it (or DMA-BUF) for GPUDirect RDMA."
		f.Fix = fix
	case !st.any():
		f.Severity = Error
		if dmabufUsable(e) {
			f.Severity = Warn
		}
		f.Title = "no peer-memory module under any name: GPUDirect RDMA through peer memory is off"
		f.Why = "Without it the NIC cannot register GPU memory (ibv_reg_mr on a cudaMalloc pointer fails) and every library stages through host memory, unless DMA-BUF serves instead (see the dmabuf check)."
		f.Fix = fix
	case len(blind) == 0:
		f.Severity = OK
		f.Title = "peer-memory module present as " + strings.Join(st.found, " and ") + ": every library finds it"
	default:
		f.Severity = Info
		if !st.seenBy["NCCL"] || !st.seenBy["UCX"] {
			f.Severity = Warn
		}
		f.Title = fmt.Sprintf("peer-memory module present only as %s: %s do not look there", strings.Join(st.found, " and "), strings.Join(blind, ", "))
		f.Why = "Each library tests its own list of paths; a library that finds none of them turns GPUDirect RDMA off and stages through host memory."
		f.Fix = "Load nvidia-peermem from the NVIDIA driver with MLNX_OFED/DOCA-OFED's peer-memory API present, which registers the memory peer nv_mem as well (/sys/kernel/mm/memory_peers/nv_mem/version); or configure the blind library for DMA-BUF."
	}
	if f.Severity != OK && rdma {
		f.Cost = &Cost{Lead: "GPUDirect RDMA unavailable (to the libraries that do not see the module)",
			Before: Case{Path: "gdr"}, After: Case{Path: "rdma"}}
		if !st.any() {
			f.Cost.Lead = "GPUDirect RDMA unavailable"
		}
	}
	return []Finding{f}
}

// gdrCopyCheck looks for GDRCopy's kernel module, gdrdrv: it maps GPU
// memory into the CPU's address space so that small host↔GPU copies are CPU
// stores instead of DMA (NCCL uses it for its proxy's flags, UCX's gdr_copy
// transport for small messages, NVSHMEM as an alternative to IBGDA).
type gdrCopyCheck struct{}

func (gdrCopyCheck) Name() string { return "gdrcopy" }

func (gdrCopyCheck) Run(e *Env) []Finding {
	dir, df := e.exists(sysTree, "module/gdrdrv")
	ver, vf := e.text(sysTree, "module/gdrdrv/version")
	facts := []Fact{df}
	if dir {
		facts = append(facts, vf)
	}
	devs, pf := e.text(procTree, "devices")
	major := ""
	if pf.OK() {
		major = ParseCharDevice(devs, "gdrdrv")
		pf.Value = "no character device gdrdrv"
		if major != "" {
			pf.Value = "character device gdrdrv, major " + major
		}
	}
	facts = append(facts, pf, Fact{Source: "/dev/gdrdrv", Error: "could not read: not in the given trees (devtmpfs); check: ls -l /dev/gdrdrv"})
	f := Finding{ID: "gdrcopy.module", Facts: facts,
		Cost: &Cost{Lead: "no GDRCopy", Unpriced: "the model has no GDRCopy path (small copies as CPU stores through BAR1 instead of cudaMemcpy)"}}
	switch {
	case dir || major != "":
		f.Severity = OK
		f.Title = "GDRCopy's module gdrdrv is loaded"
		if ver != "" {
			f.Title += " (version " + oneLine(ver) + ")"
		}
		f.Cost = nil
	default:
		f.Severity = Info
		f.Title = "GDRCopy's module gdrdrv is not loaded"
		f.Why = "Without it, NCCL and UCX move small host↔GPU messages with cudaMemcpy (several µs each) instead of CPU stores into mapped GPU memory (about 1 µs), and NVSHMEM's low-latency paths want it or IBGDA."
		f.Fix = "Install GDRCopy (github.com/NVIDIA/gdrcopy: the gdrdrv DKMS package) and load it: modprobe gdrdrv."
	}
	return []Finding{f}
}

// ParseCharDevice returns the major number of the character device name in
// /proc/devices ("Character devices:\n  1 mem\n...\n235 gdrdrv"), or "".
func ParseCharDevice(s, name string) string {
	inChar := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "Character devices"):
			inChar = true
			continue
		case strings.HasPrefix(t, "Block devices"):
			inChar = false
			continue
		}
		if !inChar {
			continue
		}
		f := strings.Fields(t)
		if len(f) == 2 && f[1] == name {
			return f[0]
		}
	}
	return ""
}

// sysfsReadable reports whether the PCI tree could be read at all.
func sysfsReadable(e *Env) bool { _, err := e.system(); return err == nil }
