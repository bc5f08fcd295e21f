package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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

// TestCommandIsThin: the command parses flags, calls the library and maps
// errors to exit codes; the mapping of runs, imports and verdicts lives in
// the packages (pkg/report, pkg/calib), where the notebooks call it too. Its
// non-test code stays under 2,200 lines.
func TestCommandIsThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines == 0 || lines >= 2200 {
		t.Errorf("cmd/gpupath holds %d lines of non-test code, want under 2,200: move what is not flags, calls and exit codes into the library", lines)
	}
}

// TestLayers: the module's dependencies point one way (DESIGN, "Layout").
// pkg/units imports no package of the module; pkg/model none but pkg/units
// (it is pure: no reader, no record, no internal helper); internal/
// packages none under pkg/ but pkg/units; the command reads other tools'
// outputs through pkg/importers only, never through one format's package.
func TestLayers(t *testing.T) {
	const mod = "github.com/gpupath/gpupath/"
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-tags", "nvml", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, mod) {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(imp, mod))
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
	}
	for _, need := range []string{"pkg/units", "pkg/model", "cmd/gpupath", "pkg/measure"} {
		if _, ok := imports[need]; !ok {
			t.Fatalf("go list did not list %s: %v", need, imports)
		}
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			switch {
			case pkg == "pkg/units":
				t.Errorf("pkg/units imports %s: it must import no package of the module", imp)
			case pkg == "pkg/model" && imp != "pkg/units":
				t.Errorf("pkg/model imports %s: it may import pkg/units only", imp)
			case strings.HasPrefix(pkg, "internal/") && strings.HasPrefix(imp, "pkg/") && imp != "pkg/units":
				t.Errorf("%s imports %s: internal packages import no pkg/ package but pkg/units", pkg, imp)
			case pkg == "cmd/gpupath" && strings.HasPrefix(imp, "pkg/importers/"):
				t.Errorf("cmd/gpupath imports %s: the command reads other tools' outputs through pkg/importers", imp)
			case strings.HasPrefix(pkg, "pkg/measure") && imp == "pkg/model":
				t.Errorf("%s imports pkg/model: probes record measurements, they do not model", pkg)
			case strings.HasPrefix(pkg, "pkg/") && strings.HasPrefix(imp, "cmd/"):
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
