package gpu

import (
	"errors"
	"os"
	"os/exec"
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
	p, err := measure.New("nvml")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Available(); !errors.Is(err, measure.ErrUnavailable) || (cgoEnabled && !strings.Contains(err.Error(), "-tags nvml")) {
		t.Errorf("Available: %v", err)
	}
}

// TestNVMLTagged vets and runs this package's tests with -tags nvml: the
// NVML probe, its PCIe monitor and their tests (go-nvml's mock, and
// go-nvml's real cgo path on the stub library) are built only with the tag,
// and the default test run must still cover them. go-nvml's C compiler
// warnings stay in the subprocess's output.
func TestNVMLTagged(t *testing.T) {
	if nvmlBuiltIn {
		t.Skip("this run has the tag already")
	}
	if testing.Short() {
		t.Skip("-short: the tagged build compiles go-nvml")
	}
	if !cgoEnabled {
		t.Skip("no cgo: go-nvml cannot be built")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	for _, args := range [][]string{{"vet", "-tags", "nvml", "."}, {"test", "-count=1", "-tags", "nvml", "-run", "NVML|Nvml|Monitor", "."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Env = os.Environ()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
