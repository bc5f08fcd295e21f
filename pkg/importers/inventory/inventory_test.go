package inventory

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/golden"
	"github.com/gpupath/gpupath/pkg/importers/obs"
)

var parsers = map[string]struct {
	detect func([]byte) bool
	parse  func([]byte) (*obs.Output, error)
}{
	"ibstat":          {DetectIBStat, ParseIBStat},
	"ibv_devinfo":     {DetectIBVDevinfo, ParseIBVDevinfo},
	"nvidia-smi-topo": {DetectSMITopo, ParseSMITopo},
}

func parseFile(t testing.TB, dir, name string) *obs.Output {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	p := parsers[dir]
	if !p.detect(b) {
		t.Fatalf("%s not detected", name)
	}
	o, err := p.parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestGolden(t *testing.T) {
	for dir := range parsers {
		for _, name := range golden.Files(t, filepath.Join("testdata", dir)) {
			t.Run(dir+"/"+name, func(t *testing.T) {
				golden.JSON(t, filepath.Join("testdata", "golden", dir, name+".json"), parseFile(t, dir, name))
			})
		}
	}
}

func TestHandRead(t *testing.T) {
	o := parseFile(t, "ibstat", "nersc-8hca-mlx5-mixed-ib-eth.txt")
	if len(o.Hardware.NICs) != 9 || o.Hardware.NICs[1].RateBps != 100e9 || o.Hardware.NICs[1].LinkLayer != "InfiniBand" ||
		o.Hardware.NICs[0].LinkLayer != "Ethernet" || o.Hardware.NICs[1].Model != "ConnectX-5 (MT4119)" || o.Hardware.NICs[1].State != "Active" {
		t.Errorf("%+v", o.Hardware.NICs)
	}
	// Tabs expanded and a GUID line from another command: read, noted, no problem.
	o = parseFile(t, "ibstat", "cx3-mlx4-initializing-spaces-plus-portguids.txt")
	if len(o.Hardware.NICs) != 1 || o.Hardware.NICs[0].State != "Initializing" || len(o.Problems) != 0 || len(o.Notes) != 1 {
		t.Errorf("%+v %v %v", o.Hardware.NICs, o.Problems, o.Notes)
	}
	// -v: 4X at 50 Gbps per lane = 200 Gbit/s (HDR).
	o = parseFile(t, "ibv_devinfo", "v-chrysalis-3hca-cx6-ib-cx5-roce.txt")
	if n := o.Hardware.NICs[0]; n.Name != "mlx5_0" || n.RateBps != 200e9 || n.MTU != 4096 || n.Model != "ConnectX-6 (4123)" || n.State != "PORT_ACTIVE (4)" {
		t.Errorf("%+v", n)
	}
	o = parseFile(t, "nvidia-smi-topo", "dranet-gke-a4-b200x8-8nic-pix-pairs-spaces.txt")
	if o.Hardware.GPUNIC != "PIX" || o.Hardware.GPUsPerNode != 8 || len(o.Hardware.NICs) != 8 {
		t.Errorf("%+v", o.Hardware)
	}
	o = parseFile(t, "nvidia-smi-topo", "stelline-puget-wrx90-2xrtx6000ada-2nic-phb-spaces.txt")
	if o.Hardware.GPUNIC != "NODE" {
		t.Errorf("%+v", o.Hardware)
	}
}

func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range parsers {
			o, err := p.parse(b)
			if err != nil {
				continue
			}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
