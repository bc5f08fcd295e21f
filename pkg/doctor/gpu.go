package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// GPUSource gives what the GPU driver knows about the GPUs: NVML on a GPU
// host (package nvmlsrc), a JSON file in tests (FileGPUSource). Doctor
// calls GPUFacts once.
type GPUSource interface {
	// GPUFacts reads the GPUs. An error says why nothing could be read
	// ("NVML: Init: ERROR_LIBRARY_NOT_FOUND"): an ordinary outcome on a host
	// without the driver.
	GPUFacts() (*GPUFacts, error)
}

// GPUFacts is what the GPU driver reports.
type GPUFacts struct {
	// Via names the source ("NVML 12.580.159.04").
	Via           string `json:"via"`
	DriverVersion string `json:"driver_version,omitempty"`
	GPUs          []GPU  `json:"gpus"`
	// Pairs holds, for each ordered pair of GPUs, the class nvidia-smi
	// prints (NV18, PIX, PHB, SYS ...) and the P2P status NVML reports.
	Pairs []GPUPair `json:"pairs,omitempty"`
	// Warnings are queries that failed, one line each.
	Warnings []string `json:"warnings,omitempty"`
}

// GPU is one GPU as the driver reports it.
type GPU struct {
	Index int    `json:"index"`
	Name  string `json:"name,omitempty"`
	UUID  string `json:"uuid,omitempty"`
	// BusID is the canonical PCI address ("0000:17:00.0").
	BusID string `json:"bus_id"`
	// PCIe link generation and width, now and at most (0: unknown). GPUs
	// lower the generation when idle: the current value means little unless
	// read under load.
	PCIeGenCurrent   int `json:"pcie_gen_current,omitempty"`
	PCIeWidthCurrent int `json:"pcie_width_current,omitempty"`
	PCIeGenMax       int `json:"pcie_gen_max,omitempty"`
	PCIeWidthMax     int `json:"pcie_width_max,omitempty"`
	// NVLinks lists the GPU's NVLink links; nil when it has none (or the
	// driver does not support NVLink queries on it).
	NVLinks []NVLink `json:"nvlinks,omitempty"`
}

// NVLink is one NVLink link of a GPU.
type NVLink struct {
	Link   int  `json:"link"`
	Active bool `json:"active"`
	// Version is the NVLink version (4 on Hopper); 0 when unknown.
	Version uint32 `json:"version,omitempty"`
	// RemoteBusID and RemoteType say what is at the far end ("gpu",
	// "switch"), when the driver says.
	RemoteBusID string `json:"remote_bus_id,omitempty"`
	RemoteType  string `json:"remote_type,omitempty"`
}

// ActiveLinks counts the active links.
func (g GPU) ActiveLinks() int {
	n := 0
	for _, l := range g.NVLinks {
		if l.Active {
			n++
		}
	}
	return n
}

// GPUPair is the connection between two GPUs.
type GPUPair struct {
	From  int    `json:"from"`
	To    int    `json:"to"`
	Class string `json:"class"`
	// P2P status as NVML gives it: "OK", "NS" (not supported), "CNS"
	// (chipset), "TNS" (topology), "DR" (disabled by registry key), "U".
	P2PRead   string `json:"p2p_read,omitempty"`
	P2PWrite  string `json:"p2p_write,omitempty"`
	P2PNVLink string `json:"p2p_nvlink,omitempty"`
}

// FileGPUSource reads GPU facts from a JSON file (the form GPUFacts
// marshals to): a fake of NVML for tests, or facts saved on another host.
type FileGPUSource struct {
	FS   fs.FS
	Name string
}

// GPUFacts reads and parses the file.
func (f FileGPUSource) GPUFacts() (*GPUFacts, error) {
	b, err := readBounded(f.FS, f.Name)
	if err != nil {
		return nil, err
	}
	return ParseGPUFacts(b)
}

// ParseGPUFacts parses GPU facts as JSON. Unknown fields are errors, so a
// misspelt fixture does not pass silently.
func ParseGPUFacts(b []byte) (*GPUFacts, error) {
	var g GPUFacts
	if err := strictJSON(b, &g); err != nil {
		return nil, fmt.Errorf("doctor: GPU facts: %w", err)
	}
	for i, gpu := range g.GPUs {
		if gpu.BusID == "" {
			return nil, fmt.Errorf("doctor: GPU facts: gpu %d has no bus_id", i)
		}
	}
	return &g, nil
}

// NoGPUSource is a source that has nothing: Why says why ("not built with
// cgo", "--nvml off").
type NoGPUSource struct{ Why string }

// GPUFacts returns the reason as an error.
func (n NoGPUSource) GPUFacts() (*GPUFacts, error) { return nil, errors.New(n.Why) }

func strictJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// WriteGPUFacts writes GPU facts as indented JSON, the form
// FileGPUSource reads.
func WriteGPUFacts(w io.Writer, g *GPUFacts) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(g)
}
