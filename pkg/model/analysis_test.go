package model_test

import (
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// analysisScenarios are every preset, each also with the GPU and the NIC
// on different sockets and with a chunk of 4 MiB (the pipelined latency
// steps at every chunk, so leads change back and forth).
func analysisScenarios(t *testing.T) []*model.Scenario {
	t.Helper()
	var out []*model.Scenario
	for _, name := range model.PresetNames() {
		s, err := model.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
		for _, kv := range [][2]string{{"topology.gpu_nic", "SYS"}, {"pipeline.chunk", "4MiB"}} {
			v := s.Clone()
			if err := v.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
			v.Name += " with " + kv[0] + "=" + kv[1]
			out = append(out, v)
		}
	}
	return out
}

func pipelined(t *testing.T, s *model.Scenario, path string, n units.Bytes) float64 {
	t.Helper()
	p, err := model.LookupPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return float64(p.Route(s).Evaluate(n).Pipelined)
}

// winner is the fastest of paths at n, computed here the plain way: the
// lowest pipelined latency, ties to the first listed.
func winner(t *testing.T, s *model.Scenario, paths []string, n units.Bytes) string {
	t.Helper()
	best, bt := "", 0.0
	for _, name := range paths {
		p, _ := model.LookupPath(name)
		if !p.Route(s).Feasible {
			continue
		}
		if x := pipelined(t, s, name, n); best == "" || x < bt && !model.Near(x, bt) {
			best, bt = name, x
		}
	}
	return best
}

// Each boundary of Fastest is exact: the new path wins at From, the
// previous one a byte before; the segments cover lo to hi.
func TestFastest(t *testing.T) {
	gpu := []string{"tcp", "rdma", "gdr", "devmem", "p2p-plain-nic"}
	for _, s := range analysisScenarios(t) {
		for _, set := range [][]string{gpu, {"rdma", "devmem"}, {"gdr", "rdma"}} {
			segs, err := model.Fastest(s, set, 1, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			if winner(t, s, set, 1) == "" {
				if segs != nil {
					t.Errorf("%s %v: segments %v with no feasible path", s.Name, set, segs)
				}
				continue
			}
			if len(segs) == 0 || segs[0].From != 1 || segs[len(segs)-1].To != 1<<30 {
				t.Fatalf("%s %v: segments %v do not cover 1 B to 1 GiB", s.Name, set, segs)
			}
			for i, seg := range segs {
				if got := winner(t, s, set, seg.From); got != seg.Path {
					t.Errorf("%s %v: %s wins at %d, want %s", s.Name, set, got, seg.From, seg.Path)
				}
				if got := winner(t, s, set, seg.To); got != seg.Path {
					t.Errorf("%s %v: %s wins at %d, want %s", s.Name, set, got, seg.To, seg.Path)
				}
				if i > 0 {
					if segs[i-1].To+1 != seg.From || segs[i-1].Path == seg.Path {
						t.Errorf("%s %v: segments %+v and %+v", s.Name, set, segs[i-1], seg)
					}
					if got := winner(t, s, set, seg.From-1); got != segs[i-1].Path {
						t.Errorf("%s %v: %s wins at %d, want %s", s.Name, set, got, seg.From-1, segs[i-1].Path)
					}
				}
			}
		}
	}
	for _, c := range []struct {
		paths  []string
		lo, hi units.Bytes
	}{{[]string{"tcp"}, 0, 10}, {[]string{"tcp"}, 10, 9}, {[]string{"nope"}, 1, 10}} {
		if _, err := model.Fastest(model.Default(), c.paths, c.lo, c.hi); err == nil {
			t.Errorf("Fastest(%v, %d, %d): no error", c.paths, c.lo, c.hi)
		}
	}
	if _, err := model.Fastest(nil, []string{"tcp"}, 1, 2); err == nil {
		t.Error("no scenario: no error")
	}
}

// At each crossover the two paths change places, and crossovers come
// sorted by size.
func TestCrossovers(t *testing.T) {
	gpu := []string{"tcp", "rdma", "gdr", "devmem", "p2p-plain-nic"}
	found := 0
	for _, s := range analysisScenarios(t) {
		cs, err := model.Crossovers(s, gpu, 1, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		found += len(cs)
		for i, c := range cs {
			// At the crossover the faster is faster, or tied within Near
			// (two paths bound by one resource run parallel; a tie goes to
			// the first listed).
			if x, y := pipelined(t, s, c.Faster, c.At), pipelined(t, s, c.Slower, c.At); !(x < y) && !model.Near(x, y) {
				t.Errorf("%s: %s is not faster than %s at %d B", s.Name, c.Faster, c.Slower, c.At)
			}
			if x, y := pipelined(t, s, c.Faster, c.At-1), pipelined(t, s, c.Slower, c.At-1); x < y && !model.Near(x, y) {
				t.Errorf("%s: %s is already faster than %s at %d B, before the crossover", s.Name, c.Faster, c.Slower, c.At-1)
			}
			if i > 0 && cs[i-1].At > c.At {
				t.Errorf("%s: crossovers out of order: %+v, %+v", s.Name, cs[i-1], c)
			}
		}
	}
	if found == 0 {
		t.Error("no crossover in any scenario: nothing tested")
	}
}

// Ranked orders by pipelined latency and keeps the order of the list on ties.
func TestRanked(t *testing.T) {
	s := model.Default()
	got, err := model.Ranked(s, []string{"tcp", "p2p-plain-nic", "gdr", "rdma"}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != "gdr" || got[2] != "tcp" {
		t.Errorf("ranked at 8 B: %v, want gdr first and tcp last, no p2p-plain-nic", got)
	}
	for i := 1; i < len(got); i++ {
		if pipelined(t, s, got[i-1], 8) > pipelined(t, s, got[i], 8) {
			t.Errorf("%v: %s after %s", got, got[i], got[i-1])
		}
	}
	if same, _ := model.Ranked(s, []string{"gdr", "gdr"}, 8); len(same) != 2 {
		t.Errorf("a path listed twice: %v", same)
	}
}
