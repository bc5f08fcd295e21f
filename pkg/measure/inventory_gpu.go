package measure

// InventoryReporter is implemented by probes that also find out what
// hardware is there (devices, links, topology). After Run, Inventory
// returns a JSON-able value for the manifest, next to the probe's status.
// The runner may ignore it; nothing in the results depends on it.
type InventoryReporter interface {
	Inventory() any
}

// Verboser is implemented by probes that can report diagnostics while they
// run (what was loaded, allocated, skipped). The command line sets it for
// its verbose mode; libraries never print by themselves.
type Verboser interface {
	SetLog(func(format string, args ...any))
}

// SetLog sets the diagnostics sink (nil discards).
func (p *CUDACopy) SetLog(f func(format string, args ...any)) { p.Log = f }

// GPUInventory is what NVML reports about the GPUs of this host, in a form
// the manifest can hold.
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

// Weights of the GPU-side probes in a run's budget (Weighted): the copy
// sweep and the staged transfer take most of it, inventories almost none.
func (p *CUDACopy) Weight() float64      { return 4 }
func (p *Staged) Weight() float64        { return 3 }
func (p *NVMLProbe) Weight() float64     { return 0.2 }
func (p *TopoProbe) Weight() float64     { return 0.05 }
func (p *RDMAProbe) Weight() float64     { return 0.05 }
func (p *PerftestProbe) Weight() float64 { return 2 }
