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

func ExampleBreakdown() {
	f, err := plots.Breakdown(plots.Input{Scenario: model.Default()})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "breakdown")
}

func ExampleCosts() {
	f, err := plots.Costs(plots.Input{Scenario: model.Default()})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "costs")
}

// perftest is a second measured series, of an RDMA path.
var perftest = plots.Measured{
	Label: "ib_write_lat / ib_write_bw", Path: "host-rdma", Source: "node17 → node18, 2026-11-29 10:20 UTC",
	Points: []plots.Point{
		{Bytes: 8, Seconds: 2.9e-6, Rate: 40e6},
		{Bytes: 4096, Seconds: 3.6e-6, Rate: 9.5e9},
		{Bytes: 65536, Seconds: 8.1e-6, Rate: 22.1e9},
		{Bytes: 1 << 20, Seconds: 52e-6, Rate: 23.9e9},
	},
}

func ExampleResiduals() {
	f, err := plots.Residuals(plots.Input{Scenario: model.Default(), Measured: []plots.Measured{sockperf, perftest}})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "residuals")
}

func ExampleDiagram() {
	f, err := plots.Diagram(model.Default(), plots.DiagramOptions{})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "diagram")
}

func ExampleDiagram_highlight() {
	f, err := plots.Diagram(model.Default(), plots.DiagramOptions{Highlight: "tcp"})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "diagram_tcp")
}

// A figure of measured data alone: no model curves, the provenance says
// only where and when it was measured.
func ExampleLatency_measured() {
	f, err := plots.Latency(plots.Input{Measured: []plots.Measured{sockperf, perftest}})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "latency_measured")
}

// In a scenario without RDMA, rdma, gdr and host-rdma are listed as
// infeasible, not drawn.
func ExampleLatency_noRDMA() {
	s, err := model.Preset("gcp-a3-tcpx")
	if err != nil {
		log.Fatal(err)
	}
	f, err := plots.Latency(plots.Input{Scenario: s})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "latency_gcp")
}

func ExampleCPUTime() {
	f, err := plots.CPUTime(plots.Input{Scenario: model.Default(), Paths: []string{"tcp", "rdma", "gdr", "devmem"}})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "cputime")
}

func ExampleCores() {
	f, err := plots.Cores(plots.Input{Scenario: model.Default(), Paths: []string{"tcp", "rdma", "gdr", "devmem"}})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "cores")
}

// The GPU and the NIC on different sockets: GPUDirect RDMA crosses the
// inter-socket link.
func ExampleDiagram_crossSocket() {
	s, err := model.Preset("cross-socket-sys")
	if err != nil {
		log.Fatal(err)
	}
	f, err := plots.Diagram(s, plots.DiagramOptions{Highlight: "gdr"})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "diagram_sys_gdr")
}

// The report's collective (an all_reduce on 16 nodes × 8 GPUs) on every
// inter-node path of the default scenario.
func ExampleCollectiveBusBW() {
	s := model.Default()
	f, err := plots.CollectiveBusBW(plots.CollectiveInput{Scenario: s, Spec: model.DefaultCollectiveSpec(s)})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "collective_busbw")
}

// The same all_reduce of 64 MiB from 1 to 16,384 nodes of a DGX H100-class
// scenario, where devmem cannot run.
func ExampleCollectiveScale() {
	s, err := model.Preset("dgx-h100-ndr")
	if err != nil {
		log.Fatal(err)
	}
	f, err := plots.CollectiveScale(plots.CollectiveInput{Scenario: s, Spec: model.DefaultCollectiveSpec(s)})
	if err != nil {
		log.Fatal(err)
	}
	writeSVG(f, "collective_scale")
}
