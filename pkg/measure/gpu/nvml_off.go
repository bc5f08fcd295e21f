//go:build !cgo || !nvml

package gpu

import (
	"context"

	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

func init() {
	measure.Register("nvml", func(env measure.Env) measure.Probe { return &NVMLProbe{Env: env} })
}

// NVMLProbe is the NVML probe. This build has no NVML: go-nvml is compiled
// in only with the build tag nvml (and cgo), so that a program that models
// and renders (`go run ./cmd/gpupath report`) builds without go-nvml's C
// compiler output. The probe always reports ErrUnavailable with how to
// build it in, and the cuda probe has no PCIe monitor.
type NVMLProbe struct {
	// Env says where diagnostics go (this build has none to give).
	Env measure.Env
}

func errNoCgo() error {
	if !cgoEnabled {
		return measure.Unavailable("NVML needs cgo (go-nvml); this binary was built with CGO_ENABLED=0")
	}
	return measure.Unavailable("NVML is not built in: rebuild with go build -tags nvml ./cmd/gpupath")
}

// Name returns "nvml".
func (p *NVMLProbe) Name() string { return "nvml" }

// Weight is the probe's share of a run's budget (measure.Weighted): an
// inventory takes almost none.
func (p *NVMLProbe) Weight() float64 { return 0.2 }

// Options are the settings the nvml probe reads from Plan.Options.
func (p *NVMLProbe) Options() []measure.Option {
	return []measure.Option{
		{Name: "nvml_idle", Kind: measure.OptDuration, Default: "200ms", Doc: "how long to sample the PCIe counters at rest (0: not at all)"},
	}
}

// Available reports that NVML is not built in.
func (p *NVMLProbe) Available() error { return errNoCgo() }

// Run reports that NVML is not built in.
func (p *NVMLProbe) Run(context.Context, measure.Plan, func(record.Result) error) error {
	return errNoCgo()
}

// Inventory returns nil: nothing was read.
func (p *NVMLProbe) Inventory() any { return nil }
