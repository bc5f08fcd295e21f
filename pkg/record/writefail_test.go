package record

import (
	"os"
	"path/filepath"
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
