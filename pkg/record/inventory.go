package record

import (
	"encoding/json"
	"fmt"

	"github.com/gpupath/gpupath/pkg/topo"
)

// GPUInventory is what NVML reports about the GPUs of this host (the nvml
// probe's inventory in the manifest).
type GPUInventory struct {
	DriverVersion     string      `json:"driver_version,omitempty"`
	NVMLVersion       string      `json:"nvml_version,omitempty"`
	CUDADriverVersion int         `json:"cuda_driver_version,omitempty"` // 13000 is CUDA 13.0
	Devices           []GPUDevice `json:"devices"`
	// Matrix is the GPU×GPU topology as `nvidia-smi topo -m` prints it:
	// Matrix[i][j] is "X", "NV18", "PIX", "PXB", "PHB", "NODE" or "SYS".
	Matrix [][]string `json:"matrix,omitempty"`
	// MatrixBasis says, per pair "i-j", how an NV# class was decided:
	// "direct" (links whose remote is the other GPU), "nvswitch" (both GPUs'
	// links end in NVSwitches) or "p2p" (remote unknown, NVLink P2P status OK).
	MatrixBasis map[string]string `json:"matrix_basis,omitempty"`
	P2P         []GPUP2P          `json:"p2p,omitempty"`
	// Warnings lists queries that failed without stopping the inventory
	// (ERROR_NOT_SUPPORTED and the like), one line each.
	Warnings []string `json:"warnings,omitempty"`
}

// GPUDevice is one GPU as NVML sees it.
type GPUDevice struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	UUID  string `json:"uuid"`
	// PCIBusID is the canonical PCI address ("0000:8f:00.0").
	PCIBusID string `json:"pci_bus_id"`
	// PCIe link: generation and width now (low when idle: GPUs train the
	// link down to save power) and at most (device and slot together).
	PCIeGenCurrent   int   `json:"pcie_gen_current,omitempty"`
	PCIeWidthCurrent int   `json:"pcie_width_current,omitempty"`
	PCIeGenMax       int   `json:"pcie_gen_max,omitempty"`
	PCIeWidthMax     int   `json:"pcie_width_max,omitempty"`
	BAR1TotalBytes   int64 `json:"bar1_total_bytes,omitempty"`
	BAR1UsedBytes    int64 `json:"bar1_used_bytes,omitempty"`
	MemTotalBytes    int64 `json:"mem_total_bytes,omitempty"`
	// NVLinks lists the device's NVLink links (active or not).
	NVLinks []GPUNVLink `json:"nvlinks,omitempty"`
	// IdleTxBps and IdleRxBps are NVML's PCIe throughput counters sampled at
	// rest (the noise floor of the counters), bytes per second.
	IdleTxBps float64 `json:"idle_tx_Bps,omitempty"`
	IdleRxBps float64 `json:"idle_rx_Bps,omitempty"`
}

// ActiveNVLinks counts the active links.
func (d GPUDevice) ActiveNVLinks() int {
	n := 0
	for _, l := range d.NVLinks {
		if l.Active {
			n++
		}
	}
	return n
}

// GPUNVLink is one NVLink link of a GPU.
type GPUNVLink struct {
	Link    int    `json:"link"`
	Active  bool   `json:"active"`
	Version uint32 `json:"version,omitempty"`
	// RemoteBusID is the PCI address of the far end; RemoteType is "gpu",
	// "switch", "ibmnpu" or "unknown".
	RemoteBusID string `json:"remote_bus_id,omitempty"`
	RemoteType  string `json:"remote_type,omitempty"`
}

// GPUP2P is the peer-to-peer status of an ordered GPU pair, in the words
// of `nvidia-smi topo -p2p`: "OK", "CNS" (chipset not supported), "GNS"
// (GPU not supported), "TNS" (topology not supported), "NS" (not
// supported), "DR" (disabled by registry key), "U" (unknown).
type GPUP2P struct {
	From    int    `json:"from"`
	To      int    `json:"to"`
	Read    string `json:"read"`
	Write   string `json:"write"`
	NVLink  string `json:"nvlink"`
	Atomics string `json:"atomics"`
	PCI     string `json:"pci"`
}

// CUDAInventory is what the CUDA copy probe found and did (the cuda
// probe's inventory in the manifest).
type CUDAInventory struct {
	DriverVersion int          `json:"driver_version,omitempty"` // 13000 is CUDA 13.0
	Devices       []CUDADevice `json:"devices,omitempty"`
	Peers         []CUDAPeer   `json:"peers,omitempty"`
	// Capacity is the largest buffer allocated per kind ("device",
	// "pinned", "pageable", "peer"), in bytes.
	Capacity map[string]int64 `json:"capacity,omitempty"`
	// Notes lists skipped sizes and variants and anything that went wrong
	// without stopping the probe.
	Notes []string `json:"notes,omitempty"`
}

// CUDADevice is a GPU as the CUDA driver sees it.
type CUDADevice struct {
	Ordinal  int    `json:"ordinal"`
	Name     string `json:"name"`
	PCIBusID string `json:"pci_bus_id"`
	MemBytes int64  `json:"mem_bytes"`
}

// CUDAPeer says whether one GPU can and did get access to another's memory.
type CUDAPeer struct {
	From      int    `json:"from"`
	To        int    `json:"to"`
	CanAccess bool   `json:"can_access"`
	Enabled   bool   `json:"enabled"`
	Err       string `json:"error,omitempty"`
}

// TopoInventory is what the sysfs topology probe found (the topo probe's
// inventory in the manifest).
type TopoInventory struct {
	GPUs  []topo.PCIDevice  `json:"gpus,omitempty"`
	NICs  []topo.PCIDevice  `json:"nics,omitempty"`
	Pairs []topo.Pair       `json:"gpu_nic,omitempty"`
	RDMA  []topo.RDMADevice `json:"rdma,omitempty"`
	Net   []topo.NetDev     `json:"net,omitempty"`
	// Warnings are attributes that could not be read.
	Warnings []string `json:"warnings,omitempty"`
	// System is the full reading (every PCI function), for the report's
	// diagram; it is not serialised into the manifest.
	System *topo.System `json:"-"`
}

// Inventories are the inventories a run's manifest holds, decoded; any may
// be nil (the probe did not run, or found nothing).
type Inventories struct {
	NVML *GPUInventory  // from the nvml probe
	CUDA *CUDAInventory // from the cuda probe (nil when it saw no device)
	Topo *TopoInventory // from the topo probe (sysfs); System is nil
}

// Inventories decodes the inventories of the run's nvml, cuda and topo
// probes. An inventory that does not decode is an error naming the probe.
func (d *RunData) Inventories() (Inventories, error) {
	var inv Inventories
	for _, p := range d.Manifest.Probes {
		if len(p.Inventory) == 0 {
			continue
		}
		var err error
		switch p.Name {
		case "nvml":
			var v GPUInventory
			if err = json.Unmarshal(p.Inventory, &v); err == nil {
				inv.NVML = &v
			}
		case "cuda":
			var v CUDAInventory
			if err = json.Unmarshal(p.Inventory, &v); err == nil && len(v.Devices) > 0 {
				inv.CUDA = &v
			}
		case "topo":
			var v TopoInventory
			if err = json.Unmarshal(p.Inventory, &v); err == nil {
				inv.Topo = &v
			}
		}
		if err != nil {
			return inv, fmt.Errorf("manifest: inventory of probe %s: %w", p.Name, err)
		}
	}
	return inv, nil
}
