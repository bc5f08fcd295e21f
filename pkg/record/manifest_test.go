package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A manifest of one host (every one written before two-host runs) reads
// the same and writes back without the two-host fields.
func TestManifestOneHostUnchanged(t *testing.T) {
	m := &Manifest{Format: 1, Tool: "gpupath", Version: "0.1.0", Status: StatusComplete,
		Start: time.Date(2026, 11, 29, 13, 54, 0, 0, time.UTC), Host: Host{Hostname: "a"}, Results: ResultsFile}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"peer"`, `"pairing"`, `"reason"`} {
		if bytes.Contains(b, []byte(k)) {
			t.Errorf("one-host manifest has %s: %s", k, b)
		}
	}
	got, err := ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Peer != nil || got.Pairing != nil || len(got.Hosts()) != 1 {
		t.Errorf("one-host manifest read as peer %v, pairing %v, %d hosts", got.Peer, got.Pairing, len(got.Hosts()))
	}
	// The committed fixtures still read.
	paths, _ := filepath.Glob(filepath.Join("testdata", "runs", "*", ManifestFile))
	if len(paths) == 0 {
		t.Fatal("no fixture manifest")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseManifest(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if m.Peer != nil || len(m.Hosts()) != 1 {
			t.Errorf("%s: a peer out of nowhere", p)
		}
	}
}

// A two-host manifest keeps both hosts and the pairing.
func TestManifestTwoHostsRoundTrip(t *testing.T) {
	m := &Manifest{Format: 1, Tool: "gpupath", Version: "0.1.0", Status: StatusPartial, Reason: "peer lost",
		Start: time.Date(2026, 11, 29, 13, 54, 0, 0, time.UTC), Host: Host{Hostname: "b"}, Peer: &Host{Hostname: "a"},
		Pairing: &Pairing{Launcher: "slurm", Rank: 1, WorldSize: 2, PeerAddr: "10.0.0.1:7471", PeerVersion: "0.1.0"}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	hs := got.Hosts()
	if len(hs) != 2 || hs[0].Hostname != "b" || hs[1].Hostname != "a" || got.Pairing.Launcher != "slurm" || got.Reason != "peer lost" {
		t.Errorf("round trip: hosts %v, pairing %+v, reason %q", hs, got.Pairing, got.Reason)
	}
}

// A Host whose every text is long and full of control characters is
// cleaned (Host.Clean) into a manifest that reads back: the limit counts
// the escaped bytes.
func TestCleanHostReadsBack(t *testing.T) {
	bad := strings.Repeat("\x01", MaxNameBytes) + "\n"
	h := Host{Hostname: bad, Kernel: bad, KernelVersion: bad, OS: bad, Arch: bad, CPUModel: bad, Driver: bad,
		GPUs: []GPU{{Model: bad, BusID: bad}}, NICs: []NIC{{Name: bad, Driver: bad, MAC: bad, State: bad}}}
	h.Clean()
	m := &Manifest{Format: ManifestFormat, Tool: "gpupath", Status: StatusComplete, Start: time.Now(), Host: h, Results: ResultsFile}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseManifest(b); err != nil {
		t.Fatalf("a cleaned host does not read back: %v", err)
	}
	if n := len(h.Hostname); n > MaxNameBytes || !strings.HasSuffix(h.Hostname, "…") || !strings.HasPrefix(h.Hostname, `\x01`) {
		t.Errorf("hostname of %d bytes: %q…", n, h.Hostname[:12])
	}
	if CleanName("vm-1") != "vm-1" {
		t.Error("a plain name changed")
	}
}
