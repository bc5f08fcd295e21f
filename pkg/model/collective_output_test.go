package model

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

func TestParseCollectivePaths(t *testing.T) {
	all, err := ParseCollectivePaths("all")
	if err != nil || strings.Join(all, ",") != "nccl,"+strings.Join(CollectivePaths, ",") {
		t.Fatalf("all: %v %v", all, err)
	}
	if got, err := ParseCollectivePaths(" GDR ,tcp"); err != nil || strings.Join(got, ",") != "gdr,tcp" {
		t.Errorf("GDR,tcp: %v %v", got, err)
	}
	for _, bad := range []string{"gdr,gdr", "host-tcp", "gdr,", "nvlink", "", " ", ",", "gdr,,tcp"} {
		if _, err := ParseCollectivePaths(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Point-to-point paths and collectives read --paths one way: "all", or
// names each once; a list of none or with an empty name is an error.
func TestParsePathsLikeCollectives(t *testing.T) {
	if all, err := ParsePaths(" ALL "); err != nil || len(all) != len(Paths()) {
		t.Fatalf("all: %d %v", len(all), err)
	}
	name := Paths()[0].Name
	if got, err := ParsePaths(" " + name + " "); err != nil || len(got) != 1 {
		t.Errorf("%s: %v %v", name, got, err)
	}
	for _, bad := range []string{"", " ", ",", name + "," + name, name + ",", name + ",,x", "nope"} {
		_, perr := ParsePaths(bad)
		_, cerr := ParseCollectivePaths(bad)
		if perr == nil || cerr == nil {
			t.Errorf("%q accepted: %v, %v", bad, perr, cerr)
		}
	}
}

// The sweep is Collectives.Model path by path: the same numbers, NCCL's
// own path named, one entry on one node, and the spec checked before
// anything is modeled.
func TestCollectiveSweepIsTheModel(t *testing.T) {
	s := Default()
	sizes := []units.Bytes{8, 1 << 20, 64 << 20}
	spec := CollectiveSpec{Op: "allreduce", Nodes: 16, GPUsPerNode: 8}
	c, paths, err := s.CollectiveSweep(context.Background(), spec, []string{PathNCCL, "tcp", "gdr"}, sizes)
	if err != nil {
		t.Fatal(err)
	}
	if c.Op != AllReduce || c.NICsPerNode != 8 || c.Algo != AlgoAuto {
		t.Errorf("spec not normalized: %+v", c)
	}
	if len(paths) != 3 {
		t.Fatalf("%d paths", len(paths))
	}
	ncclPath, _ := s.NCCLPath(8)
	if paths[0].Asked != PathNCCL || paths[0].Path != ncclPath {
		t.Errorf("nccl: evaluated %q, NCCL's path is %q", paths[0].Path, ncclPath)
	}
	for _, p := range paths {
		if p.Reason != "" {
			t.Fatalf("%s: %s", p.Asked, p.Reason)
		}
		one := spec
		if p.Asked != PathNCCL {
			one.Path = p.Asked
		}
		want, err := s.CollectiveModel(one, sizes)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sizes {
			if p.Results[i].Time != want[i].Time || p.Results[i].BusBW != want[i].BusBW || p.Results[i].Algo != want[i].Algo {
				t.Errorf("%s at %d: %v %v, model %v %v", p.Asked, sizes[i], p.Results[i].Time, p.Results[i].BusBW, want[i].Time, want[i].BusBW)
			}
		}
	}
	// One node: no network, one entry whatever the paths.
	_, one, err := s.CollectiveSweep(context.Background(), CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 4}, []string{"tcp", "gdr"}, sizes)
	if err != nil || len(one) != 1 || one[0].Path != "" {
		t.Errorf("one node: %+v %v", one, err)
	}
	for _, bad := range []CollectiveSpec{{Op: "bogus", Nodes: 2, GPUsPerNode: 1}, {Op: AllReduce, Nodes: 0, GPUsPerNode: 8},
		{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Algo: "nvlsx"}, {Op: AllReduce, Nodes: 1, GPUsPerNode: 1}} {
		if _, _, err := s.CollectiveSweep(context.Background(), bad, []string{PathNCCL}, sizes); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	many := make([]units.Bytes, MaxCollectiveResults/2+1)
	for i := range many {
		many[i] = units.Bytes(i + 1)
	}
	if _, _, err := s.CollectiveSweep(context.Background(), spec, []string{"tcp", "gdr"}, many); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("paths × sizes over the bound: %v", err)
	}
}

// A path the scenario cannot take gets its reason, in every format; the
// other paths are still modeled.
func TestCollectiveSweepReason(t *testing.T) {
	s := Default()
	if err := s.Set("nic.rdma", "false"); err != nil {
		t.Fatal(err)
	}
	_, paths, err := s.CollectiveSweep(context.Background(), CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8}, []string{"tcp", "gdr"}, []units.Bytes{1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if paths[0].Reason != "" || paths[1].Reason == "" {
		t.Fatalf("tcp %q, gdr %q: want gdr not modeled without RDMA", paths[0].Reason, paths[1].Reason)
	}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := WriteCollective(context.Background(), &b, f, s, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, NICsPerNode: 8}, paths); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), strings.ReplaceAll(paths[1].Reason, `"`, `""`)) && !strings.Contains(b.String(), paths[1].Reason[:20]) {
			t.Errorf("%s: the reason is not written:\n%s", f, b.String())
		}
	}
}

// The three writers say the same numbers: the CSV's cells read back to the
// results exactly, the JSON decodes to them, the table names every path
// and the collective once.
func TestWriteCollective(t *testing.T) {
	s := Default()
	sizes := []units.Bytes{8, 4096, 1 << 30}
	c, paths, err := s.CollectiveSweep(context.Background(), CollectiveSpec{Op: AllGather, Nodes: 64, GPUsPerNode: 8}, []string{PathNCCL, "rdma"}, sizes)
	if err != nil {
		t.Fatal(err)
	}
	var tb, cb, jb bytes.Buffer
	for f, b := range map[string]*bytes.Buffer{"table": &tb, "csv": &cb, "json": &jb} {
		if err := WriteCollective(context.Background(), b, f, s, c, paths); err != nil {
			t.Fatal(f, err)
		}
	}
	rows, err := csv.NewReader(&cb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2*len(sizes) || strings.Join(rows[0], ",") != strings.Join(CollectiveCSVHeader, ",") {
		t.Fatalf("csv: %d rows, header %v", len(rows), rows[0])
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, row := range rows[1:] {
		r := paths[i/len(sizes)].Results[i%len(sizes)]
		got, err := strconv.ParseFloat(row[col["busbw_Bps"]], 64)
		if err != nil || got != float64(r.BusBW) {
			t.Errorf("row %d: busbw %q, result %v", i, row[col["busbw_Bps"]], float64(r.BusBW))
		}
		if row[col["bytes"]] != strconv.FormatInt(int64(r.Bytes), 10) || row[col["algo"]] != r.Algo || row[col["asked_path"]] != paths[i/len(sizes)].Asked {
			t.Errorf("row %d: %v", i, row)
		}
	}
	var j struct {
		Collective CollectiveSpec `json:"collective"`
		BusFactor  string         `json:"bus_factor"`
		Paths      []struct {
			Asked   string `json:"asked"`
			Path    string `json:"path"`
			Results []struct {
				Bytes units.Bytes       `json:"bytes"`
				Time  float64           `json:"time_s"`
				Steps []json.RawMessage `json:"steps"`
			} `json:"results"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(jb.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if j.Collective.Nodes != 64 || j.BusFactor != "(n−1)/n = 511/512" || len(j.Paths) != 2 || j.Paths[1].Path != "rdma" {
		t.Fatalf("json: %+v", j)
	}
	for k, p := range j.Paths {
		for i, r := range p.Results {
			if r.Time != float64(paths[k].Results[i].Time) || len(r.Steps) == 0 {
				t.Errorf("json %s at %d: %v, result %v, %d steps", p.Asked, r.Bytes, r.Time, paths[k].Results[i].Time, len(r.Steps))
			}
		}
	}
	text := tb.String()
	for _, want := range []string{"collective: all_gather on 64 nodes × 8 GPUs (512 ranks)", "nccl: " + paths[0].Path, "\nrdma ", "(n−1)/n = 511/512", "NCCL's own path: "} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "collective: ") != 1 {
		t.Errorf("table names the collective more than once")
	}
	// A stop writes nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range Formats {
		var b bytes.Buffer
		if err := WriteCollective(ctx, &b, f, s, c, paths); err == nil || b.Len() != 0 {
			t.Errorf("%s after a stop: %v, %d bytes", f, err, b.Len())
		}
	}
}
