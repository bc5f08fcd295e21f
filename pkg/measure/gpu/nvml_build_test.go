package gpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/measure"
)

// TestNVMLNotBuiltIn: without the nvml build tag the probe is registered,
// unavailable, and says how to build it in.
func TestNVMLNotBuiltIn(t *testing.T) {
	if nvmlBuiltIn {
		t.Skip("built with -tags nvml")
	}
	p, err := measure.New("nvml", measure.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Available(); !errors.Is(err, measure.ErrUnavailable) || (cgoEnabled && !strings.Contains(err.Error(), "-tags nvml")) {
		t.Errorf("Available: %v", err)
	}
}

// The NVML probe, its PCIe monitor and their tests (go-nvml's mock, and
// go-nvml's real cgo path on the stub library) are built only with
// -tags nvml: scripts/test.sh vets the whole module with the tag and runs
// their tests (step "the nvml build tag"). It was a test here that ran
// `go vet` and `go test` in a subprocess, 4.2 s of every `go test ./...`.
