package plots_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

var collectiveFigures = map[string]func(plots.CollectiveInput) (*plots.Figure, error){
	"CollectiveBusBW": plots.CollectiveBusBW, "CollectiveScale": plots.CollectiveScale,
	"CollectiveGain": plots.CollectiveGain, "CollectiveCores": plots.CollectiveCores,
}

// TestCollectiveBadInput: bad input to the collective figures is an error
// wrapping ErrInput, never a panic.
func TestCollectiveBadInput(t *testing.T) {
	def := model.Default()
	spec := model.DefaultCollectiveSpec(def)
	with := func(f func(*plots.CollectiveInput)) plots.CollectiveInput {
		in := plots.CollectiveInput{Scenario: def, Spec: spec}
		f(&in)
		return in
	}
	gcp, err := model.Preset("gcp-a3-tcpx")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   plots.CollectiveInput
		only []string
	}{
		{"no scenario", plots.CollectiveInput{Spec: spec}, nil},
		{"empty path list", with(func(in *plots.CollectiveInput) { in.Paths = []string{} }), nil},
		{"unknown path", with(func(in *plots.CollectiveInput) { in.Paths = []string{"tcp", "host-rdma"} }), nil},
		{"path twice", with(func(in *plots.CollectiveInput) { in.Paths = []string{"gdr", "gdr"} }), nil},
		{"zero size", with(func(in *plots.CollectiveInput) { in.Sizes = []units.Bytes{0, 8} }), []string{"CollectiveBusBW"}},
		{"empty size list", with(func(in *plots.CollectiveInput) { in.Sizes = []units.Bytes{} }), []string{"CollectiveBusBW"}},
		{"negative scale size", with(func(in *plots.CollectiveInput) { in.Size = -1 }), []string{"CollectiveScale", "CollectiveGain", "CollectiveCores"}},
		{"zero nodes", with(func(in *plots.CollectiveInput) { in.Nodes = []int{0, 2} }), []string{"CollectiveScale", "CollectiveGain", "CollectiveCores"}},
		{"too many nodes", with(func(in *plots.CollectiveInput) { in.Nodes = []int{2, model.MaxCollectiveNodes + 1} }), []string{"CollectiveScale", "CollectiveGain", "CollectiveCores"}},
		{"empty node list", with(func(in *plots.CollectiveInput) { in.Nodes = []int{} }), []string{"CollectiveScale", "CollectiveGain", "CollectiveCores"}},
		{"one node only", with(func(in *plots.CollectiveInput) { in.Nodes = []int{1} }), []string{"CollectiveGain", "CollectiveCores"}},
		{"one node", with(func(in *plots.CollectiveInput) { in.Spec.Nodes = 1 }), []string{"CollectiveBusBW"}},
		{"unknown operation", with(func(in *plots.CollectiveInput) { in.Spec.Op = "all_shuffle" }), nil},
		{"no GPUs", with(func(in *plots.CollectiveInput) { in.Spec.GPUsPerNode = 0 }), nil},
		{"unknown algorithm", with(func(in *plots.CollectiveInput) { in.Spec.Algo = "butterfly" }), nil},
		{"no feasible path", with(func(in *plots.CollectiveInput) { in.Scenario, in.Paths = gcp, []string{"rdma", "gdr"} }), nil},
		{"gain without rdma", with(func(in *plots.CollectiveInput) { in.Scenario = gcp }), []string{"CollectiveGain"}},
		{"gain not asked for rdma", with(func(in *plots.CollectiveInput) { in.Paths = []string{"gdr", "tcp"} }), []string{"CollectiveGain"}},
		{"cores without tcp", with(func(in *plots.CollectiveInput) { in.Paths = []string{"gdr"} }), []string{"CollectiveCores"}},
	}
	for _, tc := range cases {
		for name, fn := range collectiveFigures {
			if tc.only != nil && !slices.Contains(tc.only, name) {
				continue
			}
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				f, err := fn(tc.in)
				if err == nil {
					t.Fatalf("no error (figure %q)", f.Title)
				}
				if !errors.Is(err, plots.ErrInput) || !strings.HasPrefix(err.Error(), "plots: ") {
					t.Errorf("error %v: want a plots: error wrapping ErrInput", err)
				}
			})
		}
	}
}

// TestCollectiveBusBWFigure: one line per path in its registry style, the
// path NCCL takes named in the legend and the caption, a ring for each
// change of NCCL's choice (the choice rows but the first of each path),
// the band of choices stacked under the curves with the data areas
// aligned, and no legend entry over the data.
func TestCollectiveBusBWFigure(t *testing.T) {
	s := model.Default()
	spec := model.DefaultCollectiveSpec(s)
	f, err := plots.CollectiveBusBW(plots.CollectiveInput{Scenario: s, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	lay := f.Layout()
	var labels []string
	for _, lb := range lay.Legend {
		labels = append(labels, lb.Label)
		if lb.Drawn == 0 {
			t.Errorf("legend entry %q stands for nothing drawn", lb.Label)
		}
		for _, d := range lay.Data {
			if lb.Rect.Min.X < d.Max.X && d.Min.X < lb.Rect.Max.X && lb.Rect.Min.Y < d.Max.Y && d.Min.Y < lb.Rect.Max.Y {
				t.Errorf("legend entry %q is over a data area", lb.Label)
			}
		}
	}
	if want := []string{"tcp", "rdma", "gdr: NCCL's path", "devmem", "NCCL's algorithm or protocol changes"}; !slices.Equal(labels, want) {
		t.Errorf("legend %v, want %v", labels, want)
	}
	if len(lay.Data) != 2 {
		t.Fatalf("%d data areas, want the curves and the band under them", len(lay.Data))
	}
	top, band := lay.Data[0], lay.Data[1]
	if top.Min.X != band.Min.X || top.Max.X != band.Max.X || band.Max.Y >= top.Min.Y {
		t.Errorf("the band %v is not under the curves %v with the same x span", band, top)
	}
	cs := s.Collectives()
	kind, path := f.Data.Column("kind"), f.Data.Column("path")
	for _, p := range model.CollectivePaths {
		sp := spec
		sp.Path = p
		segs, err := cs.Choices(sp, 8, 16<<30)
		if err != nil {
			t.Fatal(err)
		}
		curves, choices := 0, 0
		for i := range kind.Text {
			if path.Text[i] == p {
				switch kind.Text[i] {
				case "curve":
					curves++
				case "choice":
					choices++
				}
			}
		}
		if curves != len(plots.CollectiveSizes()) || choices != len(segs) {
			t.Errorf("%s: %d curve rows (want %d), %d choice rows (want %d)", p, curves, len(plots.CollectiveSizes()), choices, len(segs))
		}
	}
	if nccl, _ := s.NCCLPath(spec.GPUsPerNode); !strings.Contains(f.Caption, "NCCL itself takes "+nccl+":") {
		t.Errorf("the caption does not say which path NCCL takes: %s", f.Caption)
	}
	if len(plots.CollectiveSizes()) != 32 || plots.CollectiveSizes()[0] != 8 || plots.CollectiveSizes()[31] != 16<<30 {
		t.Errorf("CollectiveSizes %v: want the 32 powers of two from 8 B to 16 GiB", plots.CollectiveSizes())
	}
}

// TestCollectiveNodeFigures: the node-count figures draw from one node (a
// grey point: no network) or two (the gain, the cores) to 16,384, their
// data are the model's, and a path that cannot run is named, not drawn.
func TestCollectiveNodeFigures(t *testing.T) {
	s, err := model.Preset("dgx-h100-ndr")
	if err != nil {
		t.Fatal(err)
	}
	spec := model.DefaultCollectiveSpec(s)
	in := plots.CollectiveInput{Scenario: s, Spec: spec}
	cs := s.Collectives()
	sc, err := plots.CollectiveScale(in)
	if err != nil {
		t.Fatal(err)
	}
	nodes, path := sc.Data.Column("nodes"), sc.Data.Column("path")
	if nodes.Num[0] != 1 || path.Text[0] != "none" || nodes.Num[len(nodes.Num)-1] != 16384 {
		t.Errorf("scale: nodes from %v (%s) to %v", nodes.Num[0], path.Text[0], nodes.Num[len(nodes.Num)-1])
	}
	if slices.Contains(path.Text, "devmem") || !strings.Contains(strings.Join(sc.Notes, " "), "Not drawn, infeasible in this scenario: devmem") {
		t.Errorf("scale: devmem (infeasible on InfiniBand) is drawn or not named: %v", sc.Notes)
	}
	g, err := plots.CollectiveGain(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cs.GDRGain(spec, plots.CollectiveScaleSize, []int{2, 1024})
	if err != nil {
		t.Fatal(err)
	}
	gn, gain := g.Data.Column("nodes"), g.Data.Column("gain")
	if gn.Num[0] != 2 || gain.Num[0] != want[0].Ratio || gain.Num[slices.Index(gn.Num, 1024)] != want[1].Ratio {
		t.Errorf("gain: %v on %v nodes; the model %+v", gain.Num, gn.Num, want)
	}
	if want[1].Ratio <= 1 {
		t.Errorf("on NDR with NVLink, GPUDirect RDMA buys nothing on 1,024 nodes (%v): the host-staged transport crosses host memory twice", want[1].Ratio)
	}
	c, err := plots.CollectiveCores(in)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := cs.TCPCores(spec, plots.CollectiveScaleSize, []int{16})
	if err != nil {
		t.Fatal(err)
	}
	cp, cn, cc := c.Data.Column("path"), c.Data.Column("nodes"), c.Data.Column("cores_per_node")
	for i := range cp.Text {
		if cn.Num[i] == 16 && (cp.Text[i] == "tcp" && cc.Num[i] != tc[0].Cores || cp.Text[i] == "gdr" && cc.Num[i] != tc[0].GDRCores) {
			t.Errorf("cores: %s on 16 nodes %v; TCPCores %+v", cp.Text[i], cc.Num[i], tc[0])
		}
	}
}
