package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// clusterFacts are the facts each nccl-tests fixture's source states about
// its cluster beyond the output itself (pkg/importers/testdata/fixtures
// SOURCES.md, quoted), as a user would give them with --set: the second
// column of bench/results/nccl-tests-vs-model-*.txt.
var clusterFacts = map[string][]string{
	// "Mellanox IB (exact VM SKU not stated; 2 nodes x 8 GPUs)".
	"aks-excerpt-all_reduce_perf-2node-16gpu-sriov-ib.txt": {"nic.kind=ib"},
	// "IPoIB (slow, ~3 GB/s busbw)": NCCL's socket transport over IPoIB.
	"aks-excerpt-all_reduce_perf-2node-16gpu-ipoib-slow.txt": {"nic.kind=ib", "nic.rdma=false"},
	// "between 2 DGX A100 ..., 8x 200G HDR HCAs each".
	"deepops-all_reduce_perf-2node-dgxa100-8xHDR-error-column-excerpt.txt": {"gpu.model=A100-SXM4-40GB", "nic.kind=ib", "nic.rate=200Gbit/s"},
	// "4x DGX A100 via Slurm/pyxis" (DGX A100: 8 HDR HCAs, as above).
	"deepops-all_reduce_perf-4node-dgxa100-slurm-error-column-excerpt.txt": {"gpu.model=A100-SXM4-40GB", "nic.kind=ib", "nic.rate=200Gbit/s"},
	// "SR-IOV RoCE 100G".
	"deepops-all_reduce_perf-k8s-sriov-roce-error-column-excerpt.txt": {"nic.kind=roce", "nic.rate=100Gbit/s"},
	// MOC: iperf3 in the same cluster moved 227 Gbit/s over one port
	// (iperf3/moc-text-tcp-client-timestamps-interval0-P32-zerocopy.txt):
	// 400 Gbit/s ports.
	"moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt":      {"nic.rate=400Gbit/s"},
	"moc-sendrecv_perf-2node-1gpu-h100-roce-with-NCCL_DEBUG-INFO.txt":                   {"nic.rate=400Gbit/s"},
	"moc-sendrecv_perf-2node-4gpu-each-h100-roce-with-NCCL_DEBUG-INFO.txt":              {"nic.rate=400Gbit/s"},
	"pkb-all_reduce_perf-2node-k80-validation0-NA.txt":                                  {"nic.kind=ethernet", "nic.rdma=false"}, // "2 GCE VMs": no RDMA
	"dranet-all_reduce_perf-2node-2xH200-mpirun-launcher-log-with-openmpi-warnings.txt": {"nic.rate=400Gbit/s"},                  // GKE A3 Ultra: 8 × 400 Gbit/s ConnectX-7 RoCE per node
	"dranet-all_gather_perf-2node-16xB200-nccl2.26.6.txt":                               {"nic.rate=400Gbit/s"},                  // "GKE A4": 8 × 400 Gbit/s ConnectX-7 RoCE per node
	"dranet-all_gather_perf-2node-2xB200-b8-with-zero-size-rows.txt":                    {"nic.rate=400Gbit/s"},
}

// collectiveVerdicts imports one nccl-tests fixture and judges it on the
// default scenario with the keys sets: every bandwidth series' verdict
// against NCCL's cost model, and the file's failures.
func collectiveVerdicts(t *testing.T, name string, sets []string) ([]calib.ImportedVerdict, ImportedFile) {
	t.Helper()
	s := model.Default()
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := s.Set(k, v); err != nil {
			t.Fatalf("%s: %v", kv, err)
		}
	}
	d, err := FromRuns([]*record.RunData{importedRun(t, "nccl-tests/"+name)}, s)
	if err != nil {
		t.Fatal(err)
	}
	f := d.Imported[0].Files[0]
	var out []calib.ImportedVerdict
	if f.Model != nil {
		for _, g := range f.Model.Groups {
			for _, v := range g.Verdicts {
				if v.Series.Quantity == record.Bandwidth {
					out = append(out, v)
				}
			}
		}
	}
	return out, f
}

// Every nccl-tests output among the fixtures is compared with NCCL's cost
// model of its cluster, or the report says why not. go test -v -run
// TestNCCLTestsAgainstCollectiveModel prints the median error at 16 MiB or
// more per output, on what the output says alone and with what its source
// states about the cluster.
func TestNCCLTestsAgainstCollectiveModel(t *testing.T) {
	dir := filepath.Join("..", "importers", "testdata", "fixtures", "nccl-tests")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, e := range ents {
		name := e.Name()
		alone, f := collectiveVerdicts(t, name, nil)
		if len(alone) == 0 {
			if len(f.Failures) == 0 {
				t.Errorf("%s: no busbw series and no failure to say why", name)
			} else {
				t.Logf("%-88s not compared: %s", name, f.Failures[0])
			}
			continue
		}
		facts, _ := collectiveVerdicts(t, name, clusterFacts[name])
		for i, v := range alone {
			c := v.Collective
			if c == nil {
				t.Errorf("%s %s: a busbw series without NCCL's model", name, v.Series.Label)
				continue
			}
			if !strings.Contains(v.Verdict, "NCCL's cost model") {
				t.Errorf("%s: the verdict does not say the comparison: %s", name, v.Verdict)
			}
			if c.None != "" {
				if len(c.Points) > 0 {
					t.Errorf("%s: points and a reason", name)
				}
				t.Logf("%-88s %-13s not compared: %s", name, v.Series.Variant, c.None)
				continue
			}
			compared++
			for _, p := range c.Points {
				if p.Modeled <= 0 || math.IsNaN(p.Residual) {
					t.Errorf("%s: no model at %s: %+v", name, p.Bytes.Human(), p)
				}
			}
			fc := facts[i].Collective
			t.Logf("%-88s %-13s %-30s median |error| ≥16 MiB: %6s alone, %6s with %s; largest %s: %s measured, %s modeled (%s/%s)",
				name, v.Series.Variant, c.Spec.Op+fmt.Sprintf(" %d×%d %s", c.Spec.Nodes, c.Spec.GPUsPerNode, c.Points[0].Path), units.Percent(c.MedianLarge),
				units.Percent(fc.MedianLarge), strings.Join(append([]string{"—"}, clusterFacts[name]...)[min(1, len(clusterFacts[name])):], " "),
				c.Points[len(c.Points)-1].Bytes.Human(), c.Points[len(c.Points)-1].Measured.Human(), fc.Points[len(fc.Points)-1].Modeled.Human(),
				fc.Points[len(fc.Points)-1].Algo, fc.Points[len(fc.Points)-1].Proto)
		}
	}
	if compared < 20 {
		t.Errorf("only %d series compared with NCCL's model", compared)
	}
}

// A series of more than maxDrawnPoints points is drawn as the median of
// each size; a smaller one point by point, without the unmeasured.
func TestDrawnPoints(t *testing.T) {
	var ps []calib.JudgedPoint
	for i := 0; i < 3*maxDrawnPoints; i++ {
		// Three sizes, each with values i%7 + 1 (median 4 over many).
		ps = append(ps, calib.JudgedPoint{At: units.Bytes(1 << (i % 3)), Measured: float64(i%7 + 1)})
	}
	got, many := drawnPoints(ps)
	if !many || len(got) != 3 || got[0].at != 1 || got[2].at != 4 {
		t.Fatalf("thinned: %v %+v", many, got)
	}
	for _, p := range got {
		if p.measured != 4 {
			t.Errorf("median at %v: %v, want 4", p.at, p.measured)
		}
	}
	got, many = drawnPoints([]calib.JudgedPoint{{At: 8, Measured: 2}, {At: 16}, {At: 16, Measured: 1}})
	if many || len(got) != 2 || got[1] != (drawnPoint{16, 1}) {
		t.Errorf("small: %v %+v", many, got)
	}
}
