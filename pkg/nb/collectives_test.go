package nb

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// dgx is the collectives notebook's cluster: H100 SXM boards on NVSwitch,
// one ConnectX-7 NDR per GPU, three switches between nodes.
const dgx = `
gpu:
  model: H100-SXM5-80GB
nic:
  model: ConnectX-7 NDR
topology:
  nvswitch: true
network:
  hops: 3
`

// The notebook's tables and answer are the model's numbers: each cell
// agrees with model.Collectives for the same collective.
func TestCollectiveCells(t *testing.T) {
	s, err := ScenarioText(dgx, "dgx")
	if err != nil {
		t.Fatal(err)
	}
	c := model.CollectiveSpec{Op: model.AllReduce, Nodes: 256, GPUsPerNode: 8}
	tab, err := CollectiveTable(s, c, []string{model.PathNCCL, "tcp"}, 8, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.CollectiveModel(c, []units.Bytes{64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ncclPath, _ := s.NCCLPath(8)
	for _, w := range []string{"NCCL&#39;s own: " + ncclPath, want[0].BusBW.Human(), want[0].Time.Human(), want[0].Algo + "/" + want[0].Proto, "256 nodes × 8 GPUs"} {
		if !strings.Contains(tab, w) {
			t.Errorf("table lacks %q:\n%s", w, tab)
		}
	}
	if _, err := CollectiveTable(s, model.CollectiveSpec{Op: "bogus", Nodes: 2, GPUsPerNode: 8}, []string{"tcp"}, 8); err == nil {
		t.Error("a bad collective gave a table")
	}
	ch, err := CollectiveChoices(s, c, 8, 16<<30)
	if err != nil || strings.Count(ch, "<tr>") < 3 {
		t.Errorf("choices: %v\n%s", err, ch)
	}
	if _, err := CollectiveCrossovers(s, c, []string{"tcp", "rdma", "gdr"}, 8, 16<<30); err != nil {
		t.Error(err)
	}
	gain, err := s.Collectives().GDRGain(c, 64<<20, []int{256})
	if err != nil {
		t.Fatal(err)
	}
	scale, err := CollectiveScaleTable(s, c, 64<<20, 2, 256)
	if err != nil || !strings.Contains(scale, units.FormatSig(gain[0].Ratio, 3)+"×") {
		t.Errorf("scale: %v\n%s", err, scale)
	}
	ans, err := CollectiveAnswer(s, c, 64<<20, 256)
	if err != nil || !strings.Contains(ans, gain[0].GDR.Human()) || !strings.Contains(ans, "256 nodes × 8 GPUs") {
		t.Errorf("answer: %v\n%s", err, ans)
	}
	t.Log(ans)
}

// A path the scenario cannot take (devmem over InfiniBand) is named with
// its reason in the crossovers, the other paths still compared.
func TestCollectiveCrossoversInfeasible(t *testing.T) {
	s, err := ScenarioText(dgx, "dgx")
	if err != nil {
		t.Fatal(err)
	}
	c := model.CollectiveSpec{Op: model.AllReduce, Nodes: 16, GPUsPerNode: 8}
	out, err := CollectiveCrossovers(s, c, model.CollectivePaths, 8, 16<<30)
	if err != nil || !strings.Contains(out, "not compared: ") || !strings.Contains(out, "devmem") {
		t.Errorf("%v\n%s", err, out)
	}
}
