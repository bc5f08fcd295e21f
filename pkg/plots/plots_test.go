package plots_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
)

// checkGolden runs an Example that writes testdata/name.svg and compares
// the file with testdata/name_golden.svg (go test -update rewrites it).
func checkGolden(t *testing.T, example func(), name string) {
	t.Helper()
	example()
	got, err := os.ReadFile(filepath.Join("testdata", name+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", name+"_golden.svg"), got)
}

func TestLatencyGolden(t *testing.T)    { checkGolden(t, ExampleLatency, "latency") }
func TestBandwidthGolden(t *testing.T)  { checkGolden(t, ExampleBandwidth, "bandwidth") }
func TestCPUCostGolden(t *testing.T)    { checkGolden(t, ExampleCPUCost, "cpu") }
func TestBreakdownGolden(t *testing.T)  { checkGolden(t, ExampleBreakdown, "breakdown") }
func TestCostsGolden(t *testing.T)      { checkGolden(t, ExampleCosts, "costs") }
func TestResidualsGolden(t *testing.T)  { checkGolden(t, ExampleResiduals, "residuals") }
func TestDiagramGolden(t *testing.T)    { checkGolden(t, ExampleDiagram, "diagram") }
func TestDiagramTCPGolden(t *testing.T) { checkGolden(t, ExampleDiagram_highlight, "diagram_tcp") }
func TestLatencyMeasuredGolden(t *testing.T) {
	checkGolden(t, ExampleLatency_measured, "latency_measured")
}
func TestLatencyGCPGolden(t *testing.T) { checkGolden(t, ExampleLatency_noRDMA, "latency_gcp") }
func TestCPUTimeGolden(t *testing.T)    { checkGolden(t, ExampleCPUTime, "cputime") }
func TestCoresGolden(t *testing.T)      { checkGolden(t, ExampleCores, "cores") }
func TestDiagramSYSGolden(t *testing.T) {
	checkGolden(t, ExampleDiagram_crossSocket, "diagram_sys_gdr")
}
func TestCollectiveBusBWGolden(t *testing.T) {
	checkGolden(t, ExampleCollectiveBusBW, "collective_busbw")
}
func TestCollectiveScaleGolden(t *testing.T) {
	checkGolden(t, ExampleCollectiveScale, "collective_scale")
}
