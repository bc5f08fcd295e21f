package main

import (
	"os/exec"
	"strings"
	"testing"
)

// goList returns `go list -deps` of the packages, with extra flags.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	out, err := exec.Command(goTool, append([]string{"list", "-deps"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %v: %v\n%s", args, err, out)
	}
	return strings.Fields(string(out))
}

// TestNoGPULibraryInModelAndReport: a program that models, reads runs,
// calibrates and renders reports links no GPU library: neither go-nvml
// (cgo) nor purego (the CUDA driver binding) is among the dependencies of
// those packages. The GPU probes (pkg/measure/gpu) are the only importers.
func TestNoGPULibraryInModelAndReport(t *testing.T) {
	const mod = "github.com/gpupath/gpupath/"
	deps := goList(t, mod+"pkg/report", mod+"pkg/model", mod+"pkg/plots", mod+"pkg/calib", mod+"pkg/record", mod+"pkg/nb/measured")
	for _, d := range deps {
		for _, gpuLib := range []string{"github.com/NVIDIA/go-nvml", "github.com/ebitengine/purego"} {
			if strings.HasPrefix(d, gpuLib) {
				t.Errorf("%s is a dependency of the model, record, calibration and report packages", d)
			}
		}
		if d == mod+"pkg/measure/gpu" {
			t.Errorf("%s is a dependency of the model, record, calibration and report packages", d)
		}
	}
	if len(deps) < 10 {
		t.Fatalf("go list gave %d packages: %v", len(deps), deps)
	}
}

// TestCommandBuildsWithoutNVML: the command as `go run ./cmd/gpupath
// report` builds it (no build tags) does not compile go-nvml, whose C
// wrappers print pages of deprecation warnings; with -tags nvml it does.
func TestCommandBuildsWithoutNVML(t *testing.T) {
	has := func(deps []string) bool {
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/NVIDIA/go-nvml") {
				return true
			}
		}
		return false
	}
	if has(goList(t, ".")) {
		t.Error("gpupath without build tags depends on go-nvml")
	}
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		return // without cgo, go-nvml is never built in
	}
	if !has(goList(t, "-tags", "nvml", ".")) {
		t.Error("gpupath -tags nvml does not depend on go-nvml: the nvml probe is not built in")
	}
}

// TestCommandIsThin: the command maps no run to report input and no
// imported output to records itself: it imports pkg/importers (to import)
// and pkg/report (report.FromRuns), no package of one format under
// pkg/importers, whose records only the library reads.
func TestCommandIsThin(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const importers = "github.com/gpupath/gpupath/pkg/importers"
	found := false
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, importers+"/") {
			t.Errorf("the command imports %s: the mapping of a format's output belongs in the library (pkg/report, pkg/importers)", p)
		}
		found = found || p == importers
	}
	if !found {
		t.Errorf("the command does not import %s: the test checks the wrong package", importers)
	}
}
