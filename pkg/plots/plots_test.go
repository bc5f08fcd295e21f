package plots_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var regen = flag.Bool("regen", false, "rewrite the golden files in testdata")

// checkGolden runs an Example that writes testdata/name.svg and compares
// the file with testdata/name_golden.svg (rewritten with -regen).
func checkGolden(t *testing.T, example func(), name string) {
	t.Helper()
	example()
	got, err := os.ReadFile(filepath.Join("testdata", name+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", name+"_golden.svg")
	if *regen {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -regen to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("testdata/%s.svg differs from %s: look at both, then run go test ./pkg/plots -regen if the change is intended\n%s",
			name, golden, firstDiff(string(got), string(want)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n got: " + clip(al[i]) + "\nwant: " + clip(bl[i])
		}
	}
	return "lengths differ: " + itoa(len(al)) + " vs " + itoa(len(bl)) + " lines"
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

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
