package topo

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ReadFS over os.Root must see what Reader sees, on every fixture tree:
// same devices, ports and interfaces, and the same warnings once the root
// directory is taken out of Reader's paths. Both run the same reading code
// (fsReader); this checks the two file systems under it, host paths with
// links followed and os.Root's, agree wherever no link leaves the root.
func TestReadFSMatchesReader(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "sysfs", "*.txt"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, a := range names {
		name := strings.TrimSuffix(filepath.Base(a), ".txt")
		t.Run(name, func(t *testing.T) {
			dir := unpackFixture(t, name)
			want, err := Reader{Root: dir}.Read()
			if err != nil {
				t.Fatal(err)
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			got, err := ReadFS(root.FS())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.PCI, want.PCI) || !reflect.DeepEqual(got.RDMA, want.RDMA) || !reflect.DeepEqual(got.Net, want.Net) {
				t.Errorf("ReadFS differs from Reader:\n got %+v\nwant %+v", got, want)
			}
			var ww []string
			for _, w := range want.Warnings {
				ww = append(ww, strings.ReplaceAll(strings.ReplaceAll(w, dir+"/", ""), "openat ", "open "))
			}
			// os.Root names the call openat where os.Open says open.
			gw := strings.ReplaceAll(strings.Join(got.Warnings, "\n"), "openat ", "open ")
			if gw != strings.Join(ww, "\n") {
				t.Errorf("warnings:\n got %q\nwant %q", got.Warnings, ww)
			}
		})
	}
}

// A link out of the root is an error there, not the file it points to.
func TestReadFSStaysInRoot(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	sys := filepath.Join(dir, "sys")
	for _, d := range []string{filepath.Join(outside, "pci0000:00", "0000:00:01.0"), filepath.Join(sys, "bus", "pci", "devices")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "pci0000:00", "0000:00:01.0", "class"), []byte("0x030200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// bus/pci/devices/X -> ../../../../outside/pci0000:00/0000:00:01.0 (out of sys)
	if err := os.Symlink("../../../../outside/pci0000:00/0000:00:01.0", filepath.Join(sys, "bus", "pci", "devices", "0000:00:01.0")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(sys)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s, err := ReadFS(root.FS())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.PCI) != 1 || s.PCI[0].Class != 0 {
		t.Fatalf("read through a link out of the root: %+v", s.PCI)
	}
	if len(s.Warnings) == 0 || !strings.Contains(strings.Join(s.Warnings, " "), "escapes") {
		t.Errorf("warnings %q: want one saying the path escapes the root", s.Warnings)
	}
}

// An attribute that is a FIFO (nobody writes it) is a warning, not a read
// that waits forever, for Reader and for ReadFS.
func TestFIFOAttributeIsRefused(t *testing.T) {
	sys := t.TempDir()
	dev := filepath.Join(sys, "devices", "pci0000:00", "0000:00:01.0")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(sys, "bus", "pci", "devices"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../devices/pci0000:00/0000:00:01.0", filepath.Join(sys, "bus", "pci", "devices", "0000:00:01.0")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dev, "class"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	root, err := os.OpenRoot(sys)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, read := range map[string]func() (*System, error){
		"Reader": Reader{Root: sys}.Read,
		"ReadFS": func() (*System, error) { return ReadFS(root.FS()) },
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			s, err := read()
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			if len(s.PCI) != 1 || !strings.Contains(strings.Join(s.Warnings, "\n"), "class: not a regular file (a FIFO)") {
				t.Errorf("%s: %d devices, warnings %q", name, len(s.PCI), s.Warnings)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s blocked on the FIFO", name)
		}
	}
}

// Reader (measure --sysfs, gpucheck --sysfs) does not follow a link out of
// its root: an attribute linked to a secret outside the tree (absolutely or
// by ../) reads as a warning that does not hold the secret's text.
func TestReaderStaysInRoot(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "shadow")
	if err := os.WriteFile(secret, []byte("root:SECRETHASH:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sys := filepath.Join(dir, "sys")
	dev := filepath.Join(sys, "devices", "pci0000:00", "0000:00:01.0")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(sys, "bus", "pci", "devices"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../devices/pci0000:00/0000:00:01.0", filepath.Join(sys, "bus", "pci", "devices", "0000:00:01.0")); err != nil {
		t.Fatal(err)
	}
	for attr, target := range map[string]string{"class": secret, "vendor": "../../../shadow", "device": "/etc/passwd"} {
		if err := os.Symlink(target, filepath.Join(dev, attr)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Reader{Root: sys}.Read()
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprintf("%+v", s)
	if strings.Contains(all, "SECRETHASH") || strings.Contains(all, "root:") {
		t.Fatalf("Reader read through a link out of its root: %s", all)
	}
	if len(s.PCI) != 1 || s.PCI[0].Class != 0 || len(s.Warnings) < 3 {
		t.Errorf("want the device with no class and a warning per attribute: %+v", s)
	}
}
