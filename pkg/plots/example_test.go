package plots_test

import (
	"log"
	"os"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
)

// writeSVG saves a figure at its own size into testdata.
func writeSVG(f *plots.Figure, name string) {
	out, err := os.Create("testdata/" + name + ".svg")
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	if err := plots.WriteSVG(out, f, 0, 0); err != nil {
		log.Fatal(err)
	}
}

// sockperf is a measured series as the report would map it from a run.
var sockperf = plots.Measured{
	Label: "sockperf ping-pong", Path: "host-tcp", Source: "node17, 2026-11-29 10:02 UTC",
	Points: []plots.Point{
		{Bytes: 64, Seconds: 13.1e-6, CPU: 9.5e-6},
		{Bytes: 1024, Seconds: 14.0e-6, CPU: 10.2e-6},
		{Bytes: 16384, Seconds: 19.5e-6, Rate: 2.1e9, CPU: 14e-6},
		{Bytes: 262144, Seconds: 71e-6, Rate: 5.2e9, CPU: 70e-6},
		{Bytes: 4 << 20, Seconds: 1.1e-3, Rate: 6.1e9, CPU: 1.0e-3},
	},
}

func ExampleLatency() {
	f, err := plots.Latency(plots.Input{
		Scenario:  model.Default(),
		Measured:  []plots.Measured{sockperf},
		Pipelined: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "latency")
}

func ExampleBandwidth() {
	f, err := plots.Bandwidth(plots.Input{Scenario: model.Default(), Measured: []plots.Measured{sockperf}})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "bandwidth")
}

func ExampleCPUCost() {
	f, err := plots.CPUCost(plots.Input{Scenario: model.Default(), Measured: []plots.Measured{sockperf}})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "cpu")
}
