package doctor

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
)

// Doctor reads nothing outside the roots it is given: a link that leaves
// the sysfs or procfs root — relative or absolute — is reported as not
// followed, and the file it points to is never read. (What is followed:
// relative links that stay inside their root, as all of sysfs's do.)
func TestStaysInRoots(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	mk := func(p, data string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(outside, "version"), outsideSecret+"\n")
	mk(filepath.Join(outside, "cmdline"), "iommu=pt "+outsideSecret+"\n")
	mk(filepath.Join(outside, "osrelease"), "6.8.0-"+outsideSecret+"\n")
	sys, proc := filepath.Join(dir, "sys"), filepath.Join(dir, "proc")
	ln("../../outside", filepath.Join(sys, "module", "nvidia_peermem"))                  // relative, escapes
	ln(outside, filepath.Join(sys, "module", "gdrdrv"))                                  // absolute
	ln("../../../outside", filepath.Join(sys, "kernel", "mm", "memory_peers", "nv_mem")) // escapes
	ln(filepath.Join(outside, "cmdline"), filepath.Join(proc, "cmdline"))
	ln("../../../outside/osrelease", filepath.Join(proc, "sys", "kernel", "osrelease"))
	ln("../outside", filepath.Join(sys, "bus"))

	trees := Open(sys, proc, "")
	defer trees.Close()
	r := Run(Options{Sys: trees.Sys, Proc: trees.Proc, Roots: trees.Roots, Pricer: NewPricer(model.Default(), "preset default")})
	var txt, js bytes.Buffer
	WriteText(&txt, r)
	WriteJSON(&js, r)
	if strings.Contains(txt.String()+js.String(), outsideSecret) {
		t.Fatalf("read outside the roots:\n%s", txt.String())
	}
	notFollowed := strings.Count(txt.String(), "points outside the root (not followed)") + strings.Count(txt.String(), "absolute symbolic link (not followed)")
	if notFollowed < 4 {
		t.Errorf("%d facts say a link was not followed, want ≥ 4:\n%s", notFollowed, txt.String())
	}
}

// The package that models and renders links no GPU library: pkg/doctor
// depends on neither go-nvml nor cgo (nvmlsrc does, on its own).
func TestNoGPULibraries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "go-nvml") || dep == "runtime/cgo" || strings.Contains(dep, "purego") || strings.HasSuffix(dep, "pkg/measure") {
			t.Errorf("pkg/doctor depends on %s", dep)
		}
	}
}

// BenchmarkRunTree runs doctor with prices on the largest fixture tree.
func BenchmarkRunTree(b *testing.B) {
	dir := unpackTree(b, "bridge-bad")
	pr := NewPricer(model.Default(), "preset default")
	for b.Loop() {
		trees := Open(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), filepath.Join(dir, "boot"))
		r := Run(Options{Sys: trees.Sys, Proc: trees.Proc, Boot: trees.Boot, Roots: trees.Roots,
			GPU: FileGPUSource{FS: os.DirFS(dir), Name: "nvml.json"}, Pricer: pr})
		trees.Close()
		if len(r.Findings) == 0 {
			b.Fatal("no findings")
		}
	}
}

// BenchmarkRunLive runs doctor on this machine's /sys and /proc (no NVML:
// the GPU source is the command's business).
func BenchmarkRunLive(b *testing.B) {
	if _, err := os.Stat("/sys/bus/pci"); err != nil {
		b.Skip("no /sys/bus/pci here")
	}
	pr := NewPricer(model.Default(), "preset default")
	for b.Loop() {
		trees := Open("/sys", "/proc", "/boot")
		r := Run(Options{Sys: trees.Sys, Proc: trees.Proc, Boot: trees.Boot, Roots: trees.Roots, Pricer: pr})
		trees.Close()
		if len(r.Findings) == 0 {
			b.Fatal("no findings")
		}
	}
}
