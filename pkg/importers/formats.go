package importers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/bandwidthtest"
	"github.com/gpupath/gpupath/pkg/importers/inventory"
	"github.com/gpupath/gpupath/pkg/importers/iperf3"
	"github.com/gpupath/gpupath/pkg/importers/nccllog"
	"github.com/gpupath/gpupath/pkg/importers/nccltests"
	"github.com/gpupath/gpupath/pkg/importers/netperf"
	"github.com/gpupath/gpupath/pkg/importers/nvbandwidth"
	"github.com/gpupath/gpupath/pkg/importers/nvlink"
	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/importers/osu"
	"github.com/gpupath/gpupath/pkg/importers/p2plat"
	"github.com/gpupath/gpupath/pkg/importers/perftest"
	"github.com/gpupath/gpupath/pkg/importers/qperf"
	"github.com/gpupath/gpupath/pkg/importers/sockperf"
	"github.com/gpupath/gpupath/pkg/importers/ucxperf"
)

// Format is one tool's output format: its name (what --tool takes), what
// it reads, how to recognize it and how to parse it. Parse receives the
// file's name for the formats that use it as a hint (nccl-tests excerpts
// that do not name their test).
type Format struct {
	Name   string
	Doc    string
	Detect func(b []byte) bool
	Parse  func(name string, b []byte) (*obs.Output, error)
	// Stream, for the formats whose outputs run to millions of rows, is
	// Parse that hands the records to sink instead of keeping them, and
	// returns what to apply to each as it is read again (see File).
	Stream func(name string, b []byte, sink func(obs.Record)) (*obs.Output, func(*obs.Record), error)
}

func named(f func([]byte) (*obs.Output, error)) func(string, []byte) (*obs.Output, error) {
	return func(_ string, b []byte) (*obs.Output, error) { return f(b) }
}

// streams is the Stream of a parser that needs nothing of the whole output
// to finish a record.
func streams(f func([]byte, func(obs.Record)) (*obs.Output, error)) func(string, []byte, func(obs.Record)) (*obs.Output, func(*obs.Record), error) {
	return func(_ string, b []byte, sink func(obs.Record)) (*obs.Output, func(*obs.Record), error) {
		o, err := f(b, sink)
		return o, nil, err
	}
}

// formats in the order detection tries them: the more specific first. The
// NCCL log comes last: its lines also appear inside other outputs, which
// are read with it (see ParseFile).
var formats = []Format{
	{nccltests.Tool, "nccl-tests: all_reduce_perf, all_gather_perf, sendrecv_perf ... (text, or the -J JSON file)", nccltests.Detect, nccltests.Parse, nccltests.ParseStream},
	{nvbandwidth.Tool, "nvbandwidth (text, or -j JSON)", nvbandwidth.Detect, named(nvbandwidth.Parse), nil},
	{perftest.Tool, "perftest: ib_write_bw, ib_read_lat, ib_send_bw ...", perftest.Detect, named(perftest.ParseObservations), nil},
	{osu.Tool, "OSU micro-benchmarks: osu_latency, osu_bw, osu_bibw", osu.Detect, named(osu.Parse), streams(osu.ParseStream)},
	{iperf3.Tool, "iperf3 (-J JSON, or text)", iperf3.Detect, named(iperf3.Parse), nil},
	{sockperf.Tool, "sockperf ping-pong, under-load, throughput", sockperf.Detect, named(sockperf.Parse), nil},
	{qperf.Tool, "qperf: tcp_bw, tcp_lat, rc_bw, rc_lat ...", qperf.Detect, named(qperf.Parse), streams(qperf.ParseStream)},
	{netperf.Tool, "netperf: TCP_STREAM, TCP_RR, UDP_RR ...", netperf.Detect, named(netperf.Parse), nil},
	{bandwidthtest.Tool, "CUDA samples bandwidthTest (tables or --csv)", bandwidthtest.Detect, named(bandwidthtest.Parse), streams(bandwidthtest.ParseStream)},
	{p2plat.Tool, "CUDA samples p2pBandwidthLatencyTest: GPU-to-GPU bandwidth (P2P on and off, one and both ways) and latency matrices", p2plat.Detect, named(p2plat.Parse), nil},
	{ucxperf.Tool, "ucx_perftest: UCP/UCT latency, bandwidth and message rate, host or CUDA memory", ucxperf.Detect, named(ucxperf.Parse), nil},
	{inventory.IBStat, "ibstat (hardware: ports, rates, link layers)", inventory.DetectIBStat, named(inventory.ParseIBStat), nil},
	{inventory.IBVDevinfo, "ibv_devinfo (hardware)", inventory.DetectIBVDevinfo, named(inventory.ParseIBVDevinfo), nil},
	{inventory.SMITopo, "nvidia-smi topo -m (hardware: the GPU–NIC distance)", inventory.DetectSMITopo, named(inventory.ParseSMITopo), nil},
	{nvlink.Tool, "nvidia-smi nvlink --status, -gt d, -c (hardware: NVLink line rates, traffic counters, capabilities)", nvlink.Detect, named(nvlink.Parse), nil},
	{nccllog.Tool, "NCCL_DEBUG=INFO log lines: the path NCCL took", nccllog.Detect, named(nccllog.Parse), nil},
}

// Formats lists the formats, in the order detection tries them.
func Formats() []Format { return append([]Format(nil), formats...) }

// Names lists the format names, sorted.
func Names() []string {
	var out []string
	for _, f := range formats {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

// Lookup finds a format by name; an unknown name is an error that lists the
// valid ones.
func Lookup(name string) (Format, error) {
	for _, f := range formats {
		if strings.EqualFold(f.Name, name) {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("unknown tool %q (tools: %s)", name, strings.Join(Names(), ", "))
}

// Detect returns the format of b, or false when no format recognizes it.
func Detect(b []byte) (Format, bool) {
	for _, f := range formats {
		if f.Detect(b) {
			return f, true
		}
	}
	return Format{}, false
}
