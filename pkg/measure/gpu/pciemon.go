package gpu

import (
	"sort"
	"time"

	"github.com/gpupath/gpupath/internal/stats"
)

// PCIeSample is one reading of a GPU's PCIe throughput counter: the bytes
// per second the device sent (TX) or received (RX) over the window that
// ended at End. NVML's counters (nvmlDeviceGetPcieThroughput) cover a 20 ms
// window each.
type PCIeSample struct {
	End time.Time `json:"end"`
	// Dir is "tx" (device to host, as in a D2H copy) or "rx" (host to device).
	Dir string  `json:"dir"`
	Bps float64 `json:"Bps"`
}

// PCIeMonitor samples a GPU's PCIe throughput in the background while a
// copy runs, so that a record can show the counters next to the copy's own
// rate. Start begins sampling; Stop ends it and returns the samples. Link
// reads the current link generation and width (useful under load: GPUs
// train their link down when idle). Close releases the monitor.
type PCIeMonitor interface {
	Start()
	Stop() []PCIeSample
	Link() (gen, width int, err error)
	Close() error
}

// PCIeMonitorOpener opens a monitor for the GPU at a PCI address as the
// CUDA driver prints it ("0000:8F:00.0").
type PCIeMonitorOpener func(pciBusID string) (PCIeMonitor, error)

// defaultPCIeMonitor is set by the NVML file when the package is built
// with the build tag nvml and cgo (go-nvml needs it); nil otherwise.
var defaultPCIeMonitor PCIeMonitorOpener

// PCIeMean averages the samples of each direction whose window lies inside
// [from, to], weighting every sample equally. It returns the mean TX and RX
// rates in bytes per second and the number of samples of each.
func PCIeMean(samples []PCIeSample, window time.Duration, from, to time.Time) (tx, rx float64, ntx, nrx int) {
	for _, s := range samples {
		if s.End.Add(-window).Before(from) || s.End.After(to) {
			continue
		}
		switch s.Dir {
		case "tx":
			tx += s.Bps
			ntx++
		case "rx":
			rx += s.Bps
			nrx++
		}
	}
	if ntx > 0 {
		tx /= float64(ntx)
	}
	if nrx > 0 {
		rx /= float64(nrx)
	}
	return tx, rx, ntx, nrx
}

// PCIeMedian is like PCIeMean with the median instead of the mean (robust
// against a window that straddles the start or the end of the copy).
func PCIeMedian(samples []PCIeSample, window time.Duration, from, to time.Time) (tx, rx float64) {
	var t, r []float64
	for _, s := range samples {
		if s.End.Add(-window).Before(from) || s.End.After(to) {
			continue
		}
		if s.Dir == "tx" {
			t = append(t, s.Bps)
		} else if s.Dir == "rx" {
			r = append(r, s.Bps)
		}
	}
	med := func(v []float64) float64 {
		if len(v) == 0 {
			return 0
		}
		sort.Float64s(v)
		return stats.Quantile(v, 0.5)
	}
	return med(t), med(r)
}
