package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriterRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "run")
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := &Manifest{Format: ManifestFormat, Tool: "gpupath", Status: StatusRunning, Start: start, Results: ResultsFile,
		Probes: []ProbeStatus{{Name: "tcp", Status: StatusOK, Results: 2, Inventory: []byte(`{"x":1}`)}}}
	if err := w.WriteManifest(m); err != nil {
		t.Fatal(err)
	}
	for _, r := range sampleResults(2) {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	bad := Result{Probe: "x", MedianS: 1, Extra: map[string]float64{"ok": 1}}
	bad.P99S = bad.P99S / 0 * 0 // NaN
	if err := w.Append(bad); err == nil || !strings.Contains(err.Error(), "p99_s is NaN") {
		t.Errorf("a NaN field was written: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile+".tmp")); !os.IsNotExist(err) {
		t.Errorf("temporary manifest left behind: %v", err)
	}
	rd, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Results) != 2 || len(rd.Skipped) != 0 || rd.Manifest.Probe("tcp").Results != 2 || rd.Manifest.Probe("nvml") != nil {
		t.Errorf("read back %+v", rd)
	}
	if _, err := Create(dir); !errors.Is(err, ErrRunExists) {
		t.Errorf("second Create: %v, want ErrRunExists", err)
	}
}

func TestSanitizeDropsExtra(t *testing.T) {
	inf := 1.0
	for i := 0; i < 2000; i++ {
		inf *= 10
	}
	r := Result{Probe: "x", Extra: map[string]float64{"keep": 2, "drop": inf}}
	if err := r.Sanitize(); err != nil || len(r.Extra) != 1 || r.Extra["keep"] != 2 {
		t.Errorf("Sanitize: %v %v", err, r.Extra)
	}
}

func TestRunDirName(t *testing.T) {
	at := time.Date(2026, 11, 29, 13, 54, 0, 0, time.FixedZone("x", 3600))
	for host, want := range map[string]string{"node1": "node1-20261129T125400Z", "": "host-20261129T125400Z", "a/b c": "a_b_c-20261129T125400Z"} {
		if got := RunDirName(host, at); got != want {
			t.Errorf("RunDirName(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestInventories(t *testing.T) {
	rd := &RunData{Manifest: Manifest{Probes: []ProbeStatus{
		{Name: "nvml", Inventory: []byte(`{"driver_version":"580.159.04","devices":[{"index":0,"name":"H200","uuid":"u","pci_bus_id":"0000:03:00.0","nvlinks":[{"link":0,"active":true},{"link":1}]}]}`)},
		{Name: "cuda", Inventory: []byte(`{"devices":[]}`)},
		{Name: "topo", Inventory: []byte(`{"gpus":[{"address":"0000:03:00.0"}]}`)},
		{Name: "tcp"},
	}}}
	inv, err := rd.Inventories()
	if err != nil {
		t.Fatal(err)
	}
	if inv.NVML == nil || inv.NVML.DriverVersion != "580.159.04" || inv.NVML.Devices[0].ActiveNVLinks() != 1 {
		t.Errorf("nvml %+v", inv.NVML)
	}
	if inv.CUDA != nil {
		t.Errorf("a cuda inventory without devices: %+v", inv.CUDA)
	}
	if inv.Topo == nil || len(inv.Topo.GPUs) != 1 || inv.Topo.System != nil {
		t.Errorf("topo %+v", inv.Topo)
	}
	rd.Manifest.Probes[0].Inventory = []byte(`{"devices":7}`)
	if _, err := rd.Inventories(); err == nil || !strings.Contains(err.Error(), "probe nvml") {
		t.Errorf("bad inventory: %v", err)
	}
}
