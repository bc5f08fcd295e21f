package inventory

import (
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// formats are the hardware listings' fixtures, one shared directory each,
// with their golden files in testdata/golden/<directory>.
var formats = map[string]importtest.Format{
	"ibstat":          {Tool: "ibstat", Golden: "testdata/golden/ibstat", Detect: DetectIBStat, Parse: ParseIBStat},
	"ibv_devinfo":     {Tool: "ibv_devinfo", Golden: "testdata/golden/ibv_devinfo", Detect: DetectIBVDevinfo, Parse: ParseIBVDevinfo},
	"nvidia-smi-topo": {Tool: "nvidia-smi-topo", Golden: "testdata/golden/nvidia-smi-topo", Detect: DetectSMITopo, Parse: ParseSMITopo},
}

func TestGolden(t *testing.T) {
	for dir, f := range formats {
		t.Run(dir, f.CheckGolden)
	}
}

func TestHandRead(t *testing.T) {
	o := formats["ibstat"].Output(t, "nersc-8hca-mlx5-mixed-ib-eth.txt")
	if len(o.Hardware.NICs) != 9 || o.Hardware.NICs[1].RateBps != 100e9 || o.Hardware.NICs[1].LinkLayer != "InfiniBand" ||
		o.Hardware.NICs[0].LinkLayer != "Ethernet" || o.Hardware.NICs[1].Model != "ConnectX-5 (MT4119)" || o.Hardware.NICs[1].State != "Active" {
		t.Errorf("%+v", o.Hardware.NICs)
	}
	// Tabs expanded and a GUID line from another command: read, noted, no problem.
	o = formats["ibstat"].Output(t, "cx3-mlx4-initializing-spaces-plus-portguids.txt")
	if len(o.Hardware.NICs) != 1 || o.Hardware.NICs[0].State != "Initializing" || len(o.Problems) != 0 || len(o.Notes) != 1 {
		t.Errorf("%+v %v %v", o.Hardware.NICs, o.Problems, o.Notes)
	}
	// -v: 4X at 50 Gbps per lane = 200 Gbit/s (HDR).
	o = formats["ibv_devinfo"].Output(t, "v-chrysalis-3hca-cx6-ib-cx5-roce.txt")
	if n := o.Hardware.NICs[0]; n.Name != "mlx5_0" || n.RateBps != 200e9 || n.MTU != 4096 || n.Model != "ConnectX-6 (4123)" || n.State != "PORT_ACTIVE (4)" {
		t.Errorf("%+v", n)
	}
	o = formats["nvidia-smi-topo"].Output(t, "dranet-gke-a4-b200x8-8nic-pix-pairs-spaces.txt")
	if o.Hardware.GPUNIC != "PIX" || o.Hardware.GPUsPerNode != 8 || len(o.Hardware.NICs) != 8 {
		t.Errorf("%+v", o.Hardware)
	}
	o = formats["nvidia-smi-topo"].Output(t, "stelline-puget-wrx90-2xrtx6000ada-2nic-phb-spaces.txt")
	if o.Hardware.GPUNIC != "NODE" {
		t.Errorf("%+v", o.Hardware)
	}
}

func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, f := range formats {
			o, err := f.Parse(b)
			if err != nil {
				continue
			}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
