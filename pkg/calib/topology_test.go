package calib

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

// withTopology adds a topo probe inventory to a run's manifest: a GPU and
// an Ethernet NIC without RDMA on one PCIe switch (the shape of a manifest
// written by gpupath measure, which keeps no full sysfs reading).
func withTopology(t *testing.T, rd *record.RunData) *record.RunData {
	t.Helper()
	sw := []string{"0000:16:00.0", "0000:17:00.0"}
	inv := record.TopoInventory{
		GPUs: []topo.PCIDevice{{Address: "0000:18:00.0", Class: 0x030200, Vendor: topo.VendorNVIDIA, Device: 0x2335, NUMANode: 0, HostBridge: "pci0000:15",
			Bridges: append(append([]string(nil), sw...), "0000:17:01.0"), Link: topo.Link{MaxGTs: 32, MaxWidth: 16}}},
		NICs: []topo.PCIDevice{{Address: "0000:19:00.0", Class: 0x020000, Vendor: 0x15b3, Device: 0x1021, NUMANode: 0, HostBridge: "pci0000:15",
			Bridges: append(append([]string(nil), sw...), "0000:17:02.0"), Link: topo.Link{MaxGTs: 16, MaxWidth: 16}}},
	}
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	out := *rd
	out.Manifest.Probes = append(append([]record.ProbeStatus(nil), rd.Manifest.Probes...), record.ProbeStatus{Name: "topo", Status: record.StatusOK, Inventory: b})
	return &out
}

// A run read back from disk carries its topology in the manifest's
// inventory; the calibrated scenario gets the GPU↔NIC class and the NIC
// from it, as a live run's "this host" scenario does.
func TestCalibrateTopologyFromManifest(t *testing.T) {
	c, err := Calibrate([]*record.RunData{withTopology(t, synthetic(t, 1))}, nil, fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"topology.gpu_nic": "PIX", "nic.pcie": "gen4x16", "nic.rdma": "false", "nic.kind": "ethernet"}
	for k, v := range want {
		got, _ := c.Scenario.Get(k)
		if got != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
		found := false
		for _, key := range c.Keys {
			if key.Key == k {
				found = true
				if !strings.Contains(key.Source, "inventory in the run's manifest") {
					t.Errorf("%s: source %q", k, key.Source)
				}
			}
		}
		if !found {
			t.Errorf("%s is not listed among the keys set", k)
		}
	}
	// Without the inventory nothing of the NIC is set.
	c, err = Calibrate([]*record.RunData{synthetic(t, 1)}, nil, fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range c.Keys {
		if _, ok := want[k.Key]; ok {
			t.Errorf("%s set without a topology: %+v", k.Key, k)
		}
	}
}

// The stage rows carry the stage times measured inside the staged transfer
// (records' insitu_*_s), read at the table's sizes; rows without them none.
func TestCalibrateInSitu(t *testing.T) {
	rd := synthetic(t, 1)
	c, err := Calibrate([]*record.RunData{rd}, nil, fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range c.Stages {
		if row.InSitu != nil {
			t.Errorf("%s: in situ %v without in-situ records", row.Name, row.InSitu)
		}
	}
	// Stage times inside the transfer: the copies 10% slower than alone, the
	// socket transfer as alone.
	with := *rd
	with.Results = nil
	for _, r := range rd.Results {
		if r.Probe == "staged" && r.Variant == "store-and-forward" {
			x := float64(r.Bytes)
			r.Extra = map[string]float64{"insitu_d2h_s": 1.1 * (8e-6 + x/50e9), "insitu_tcp_s": 20e-6 + x/3e9, "insitu_h2d_s": 1.1 * (8e-6 + x/50e9)}
		}
		with.Results = append(with.Results, r)
	}
	c, err = Calibrate([]*record.RunData{&with}, nil, fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range c.Stages {
		if len(row.InSitu) != len(StageSizes) {
			t.Fatalf("%s %s: in situ %v", row.Letter, row.Name, row.InSitu)
		}
		for j, n := range StageSizes {
			want := 20e-6 + n/3e9
			if row.Letter == "A" || row.Letter == "G" {
				want = 1.1 * (8e-6 + n/50e9)
			}
			// 8 B and 16 MiB lie between or on measured sizes (4 B ×4):
			// log–log interpolation of a curve that is nearly flat or
			// nearly linear there, within 2%.
			if got := row.InSitu[j]; math.Abs(got-want)/want > 0.02 {
				t.Errorf("%s at %v B: in situ %v, want %v", row.Letter, n, got, want)
			}
		}
	}
}
