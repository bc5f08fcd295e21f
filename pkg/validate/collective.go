package validate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

var (
	reRanks   = regexp.MustCompile(`(\d+) nodes? x (\d+) GPUs?`)
	reNICs    = regexp.MustCompile(`(\d+) [^,;]*NICs?/node`)
	reOp      = regexp.MustCompile(`(all_reduce|all_gather|reduce_scatter|broadcast)`)
	reProtoSW = regexp.MustCompile(`\b(LL128|LL|Simple)\b`)
)

// isCollective reports whether a row measures a collective over more than
// one transfer: a bus or algorithm bandwidth, or the time of a collective
// other than a two-rank broadcast (which is one transfer: modeled as the
// path's latency).
func isCollective(r Row) bool {
	switch r.Quantity {
	case "busbw", "algbw", "busbw_peak":
		return true
	case "collective_time":
		return !strings.Contains(r.Topology, "2 nodes x 1 GPU")
	}
	return false
}

// collective is the ring collective a row describes: the operation from
// its software column, nodes × GPUs from its gpu and topology columns,
// the NICs per node from its nic column ("8 … NICs/node", "single", one
// NIC per GPU) and the protocols the software allows. It returns notes of
// what it assumed.
func collective(r Row, path string) (model.Collective, []string, error) {
	c := model.Collective{Path: path}
	var notes []string
	m := reOp.FindStringSubmatch(r.Software)
	if m == nil {
		return c, nil, fmt.Errorf("the software column names no collective (all_reduce, all_gather, reduce_scatter, broadcast)")
	}
	c.Op = m[1]
	m = reRanks.FindStringSubmatch(r.GPU + " " + r.Topology)
	if m == nil {
		return c, nil, fmt.Errorf("no 'N nodes x G GPUs' in the gpu or topology column")
	}
	c.Nodes, _ = strconv.Atoi(m[1])
	c.GPUsPerNode, _ = strconv.Atoi(m[2])
	switch nm := reNICs.FindStringSubmatch(r.NIC); {
	case nm != nil:
		c.NICsPerNode, _ = strconv.Atoi(nm[1])
	case strings.Contains(r.Topology, "1 NIC per GPU"):
		c.NICsPerNode = c.GPUsPerNode
	case strings.Contains(r.NIC, "single") || strings.Contains(r.Topology, "one NIC"):
		c.NICsPerNode = 1
	default:
		c.NICsPerNode = 1
		notes = append(notes, "NICs per node not stated: one (the nic column names one NIC)")
	}
	switch {
	case strings.Contains(r.Software, "FasTrak"):
		// Google's TCPXO NCCL environment (demo-run-nccl-test-tcpxo-via-mpi.sh,
		// run by GoogleCloudPlatform/container-engine-accelerators
		// gpudirect-tcpxo/nccl-test-latest.yaml) sets NCCL_PROTO=Simple.
		c.Protocols = []string{model.ProtoSimple}
		notes = append(notes, "protocol Simple: NCCL_PROTO=Simple in Google's TCPXO NCCL environment")
	default:
		c.Protocols = append(c.Protocols, reProtoSW.FindAllString(r.Software, -1)...)
	}
	return c, notes, nil
}

// collectiveFigure models a collective row: its bus or algorithm
// bandwidth, or its time.
func collectiveFigure(s *model.Scenario, r Row, path string, n units.Bytes) (float64, string, []string, error) {
	c, notes, err := collective(r, path)
	if err != nil {
		return 0, "", nil, err
	}
	res, err := s.Collective(c, n)
	if err != nil {
		return 0, "", nil, err
	}
	what := fmt.Sprintf("%s ring over %d nodes × %d GPUs, %d NIC(s) per node, %s hops; protocol %s; latency %s (NCCL's ring model, %d steps, %d between nodes); links allow %s bus bandwidth (%s)",
		c.Op, c.Nodes, c.GPUsPerNode, c.NICsPerNode, path, res.Protocol, res.Latency.Human(), res.Steps, res.InterSteps, res.LinkBusBW.Human(), res.Bottleneck)
	switch r.Quantity {
	case "busbw", "busbw_peak":
		return float64(res.BusBW), "bus bandwidth of an " + what, notes, nil
	case "algbw":
		return float64(res.AlgBW), "algorithm bandwidth of an " + what, notes, nil
	}
	return float64(res.Time), "time of an " + what, notes, nil
}
