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
	reAlgoSW  = regexp.MustCompile(`\b(Ring|Tree|NVLS|NVLSTree|CollNetDirect|CollNetChain|PAT)\b`)
)

// collectiveRow is the collective a row describes: the model's spec (its
// Proto left to NCCL) and the protocols the row's software allows
// (NCCL_PROTO; none: all).
type collectiveRow struct {
	model.CollectiveSpec
	Protocols []string
}

// ncclAlgoNames maps NCCL_ALGO's words to the model's algorithms.
var ncclAlgoNames = map[string]string{"Ring": model.AlgoRing, "Tree": model.AlgoTree, "NVLS": model.AlgoNVLS, "NVLSTree": model.AlgoNVLSTree,
	"CollNetDirect": model.AlgoCollNetDirect, "CollNetChain": model.AlgoCollNetChain, "PAT": model.AlgoPAT}

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

// collective is the collective a row describes: the operation from its
// software column, nodes × GPUs from its gpu and topology columns, the
// NICs per node from its nic column ("8 … NICs/node", "single", one NIC
// per GPU), the algorithm the software states (NCCL's choice where it
// states none) and the protocols it allows. It returns notes of what it
// assumed.
func collective(r Row, path string) (collectiveRow, []string, error) {
	c := collectiveRow{CollectiveSpec: model.CollectiveSpec{Path: path}}
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
	if m := reAlgoSW.FindStringSubmatch(r.Software); m != nil {
		c.Algo = ncclAlgoNames[m[1]]
	}
	return c, notes, nil
}

// modelCollective is NCCL's choice for the row at n: among the protocols
// the row allows (all when it names none), the one of least NCCL estimate,
// as NCCL chooses with NCCL_PROTO set.
func modelCollective(s *model.Scenario, c collectiveRow, n units.Bytes) (model.CollectiveResult, error) {
	protos := c.Protocols
	if len(protos) == 0 {
		protos = []string{model.AlgoAuto}
	}
	var best model.CollectiveResult
	var firstErr error
	found := false
	for _, p := range protos {
		spec := c.CollectiveSpec
		spec.Proto = p
		rs, err := s.CollectiveModel(spec, []units.Bytes{n})
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !found || rs[0].NCCLTime < best.NCCLTime {
			best, found = rs[0], true
		}
	}
	if !found {
		return best, firstErr
	}
	return best, nil
}

// collectiveFigure models a collective row: its bus or algorithm
// bandwidth, or its time.
func collectiveFigure(s *model.Scenario, r Row, path string, n units.Bytes) (float64, string, []string, error) {
	c, notes, err := collective(r, path)
	if err != nil {
		return 0, "", nil, err
	}
	res, err := modelCollective(s, c, n)
	if err != nil {
		return 0, "", nil, err
	}
	chosen := "chosen by NCCL's cost model"
	if c.Algo != "" {
		chosen = "the algorithm the row states, NCCL's protocol for it"
	}
	what := fmt.Sprintf("%s over %d nodes × %d GPUs, %d NIC(s) per node, %s hops; NCCL's %s/%s (%s, src/graph/tuning.cc); latency %s; links allow %s bus bandwidth (%s)",
		c.Op, c.Nodes, c.GPUsPerNode, c.NICsPerNode, path, res.Algo, res.Proto, chosen, res.Latency.Human(), res.LinkBusBW.Human(), res.Bottleneck)
	switch r.Quantity {
	case "busbw", "busbw_peak":
		return float64(res.BusBW), "bus bandwidth of an " + what, notes, nil
	case "algbw":
		return float64(res.AlgBW), "algorithm bandwidth of an " + what, notes, nil
	}
	return float64(res.Time), "time of an " + what, notes, nil
}
