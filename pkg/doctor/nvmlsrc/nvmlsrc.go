//go:build cgo && nvml

package nvmlsrc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/measure/gpu"
	"github.com/gpupath/gpupath/pkg/record"
)

// Source reads the GPU facts from NVML.
type Source struct {
	// Lib is the NVML library; nil means nvml.New() (libnvidia-ml.so.1,
	// loaded when Init is called).
	Lib nvml.Interface
}

// New returns NVML as a doctor GPU source.
func New() doctor.GPUSource { return Source{} }

// GPUFacts initialises NVML, reads the inventory and shuts NVML down. An
// Init failure (no library, no driver) is returned as the error, and
// nothing else is called.
func (s Source) GPUFacts() (*doctor.GPUFacts, error) {
	lib := s.Lib
	if lib == nil {
		lib = nvml.New()
	}
	inv, err := gpu.ReadGPUInventory(lib)
	if err != nil {
		if errors.Is(err, measure.ErrUnavailable) {
			// "not measured: NVML: Init: ..." reads oddly in a diagnosis.
			return nil, errors.New(strings.TrimPrefix(err.Error(), measure.ErrUnavailable.Error()+": "))
		}
		return nil, err
	}
	return Convert(inv), nil
}

// Convert turns pkg/measure's NVML inventory into doctor's GPU facts.
func Convert(inv *record.GPUInventory) *doctor.GPUFacts {
	g := &doctor.GPUFacts{Via: "NVML", DriverVersion: inv.DriverVersion, Warnings: inv.Warnings}
	if inv.NVMLVersion != "" {
		g.Via = "NVML " + inv.NVMLVersion
	}
	for _, d := range inv.Devices {
		gpu := doctor.GPU{Index: d.Index, Name: d.Name, UUID: d.UUID, BusID: d.PCIBusID,
			PCIeGenCurrent: d.PCIeGenCurrent, PCIeWidthCurrent: d.PCIeWidthCurrent,
			PCIeGenMax: d.PCIeGenMax, PCIeWidthMax: d.PCIeWidthMax}
		for _, l := range d.NVLinks {
			gpu.NVLinks = append(gpu.NVLinks, doctor.NVLink{Link: l.Link, Active: l.Active, Version: l.Version,
				RemoteBusID: l.RemoteBusID, RemoteType: l.RemoteType})
		}
		g.GPUs = append(g.GPUs, gpu)
	}
	for _, p := range inv.P2P {
		cls := ""
		if p.From < len(inv.Matrix) && p.To < len(inv.Matrix[p.From]) {
			cls = inv.Matrix[p.From][p.To]
		}
		g.Pairs = append(g.Pairs, doctor.GPUPair{From: p.From, To: p.To, Class: cls,
			P2PRead: p.Read, P2PWrite: p.Write, P2PNVLink: p.NVLink})
	}
	if len(inv.Devices) == 0 {
		g.Warnings = append(g.Warnings, fmt.Sprintf("NVML lists no GPU (driver %s)", inv.DriverVersion))
	}
	return g
}
