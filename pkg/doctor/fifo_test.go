package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A tree whose /proc/cmdline is a FIFO that nobody writes: doctor reports
// the fact as unreadable and finishes, instead of waiting on the FIFO.
func TestFIFOInTree(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sys/bus/pci/devices", "proc", "boot"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "proc", "cmdline"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	trees := Open(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), filepath.Join(dir, "boot"))
	defer trees.Close()
	done := make(chan *Report, 1)
	go func() { done <- Run(Options{Sys: trees.Sys, Proc: trees.Proc, Boot: trees.Boot, Roots: trees.Roots}) }()
	var r *Report
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("doctor blocked on the FIFO")
	}
	for _, f := range r.Findings {
		if f.ID != "iommu.cmdline" {
			continue
		}
		if len(f.Facts) == 0 || !strings.Contains(f.Facts[0].Error, "a FIFO") {
			t.Errorf("iommu.cmdline facts %+v", f.Facts)
		}
		return
	}
	t.Error("no iommu.cmdline finding")
}
