package record

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A first manifest that cannot be written (a full disk, injected) leaves
// nothing behind once the writer is discarded, so the name is free again.
func TestWriterDiscardAfterWriteFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	old := writeFile
	writeFile = func(string, []byte) error { return syscall.ENOSPC }
	defer func() { writeFile = old }()
	if err := w.WriteManifest(&Manifest{Status: StatusRunning}); err == nil {
		t.Fatal("the injected failure did not fail the write")
	}
	w.Discard()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

// On a disk with no room for a second copy, the last manifest (the run
// failed: no space left) is written over the old one in place, not left a
// stale "running" that readers take for a writer that died.
func TestManifestInPlaceOnFullDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteManifest(&Manifest{Format: ManifestFormat, Tool: "gpupath", Status: StatusRunning}); err != nil {
		t.Fatal(err)
	}
	old := writeFile
	writeFile = func(string, []byte) error { return syscall.ENOSPC }
	defer func() { writeFile = old }()
	if err := w.WriteManifest(&Manifest{Format: ManifestFormat, Tool: "gpupath", Status: StatusFailed, Reason: "no space left"}); err != nil {
		t.Fatalf("in place: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil || !strings.Contains(string(b), `"status": "failed"`) {
		t.Errorf("manifest on disk: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile+".tmp")); err == nil {
		t.Error("temporary manifest left behind")
	}
}
