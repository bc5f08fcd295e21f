package model

import (
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// TestDefaultCollectiveSpec: the report's collective is an all_reduce on 16
// nodes × 8 GPUs, a NIC per GPU, everything else NCCL's to choose, on every
// preset (none has a key that counts a node's GPUs or NICs); it is a spec
// the model takes as it is (normalize changes nothing), and it models on
// every preset.
func TestDefaultCollectiveSpec(t *testing.T) {
	want := CollectiveSpec{Op: AllReduce, Nodes: 16, GPUsPerNode: 8, NICsPerNode: 8, Algo: AlgoAuto, Proto: AlgoAuto}
	if got := DefaultCollectiveSpec(nil); got != want {
		t.Errorf("DefaultCollectiveSpec(nil) = %+v, want %+v", got, want)
	}
	for _, name := range PresetNames() {
		s, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		c := DefaultCollectiveSpec(s)
		if c != want {
			t.Errorf("%s: %+v, want %+v", name, c, want)
		}
		if n, err := c.normalize(); err != nil || n != c {
			t.Errorf("%s: the spec normalizes to %+v (%v): want it as it is", name, n, err)
		}
		r, err := s.CollectiveModel(c, []units.Bytes{64 << 20})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r[0].Ranks != 128 || r[0].Chosen != "nccl" || r[0].Path == "" || r[0].Path != r[0].NCCLPath.Path {
			t.Errorf("%s: ranks %d, chosen %q, path %q (NCCL's %q): want 128 ranks on NCCL's own choice and path", name, r[0].Ranks, r[0].Chosen, r[0].Path, r[0].NCCLPath.Path)
		}
	}
}
