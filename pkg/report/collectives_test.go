package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

// collFigures are the section's figures, in order.
var collFigures = []string{"collective-busbw", "collective-scale", "collective-gdr-gain", "collective-cores"}

// figureIn is the figure of d with the id, or nil.
func figureIn(d *doc, id string) *figure {
	for _, f := range d.Figures {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// TestCollectivesSection: every report, of the model alone and of measured
// data, has the section "Collectives" after "CPU and memory cost" and
// before "What if", saying once which collective it shows, with its four
// figures in order, each modeled from the report's scenario, and its two
// tables (NCCL's choices, the paths' crossovers) and the table at scale.
func TestCollectivesSection(t *testing.T) {
	for name, in := range map[string]Input{"model-only": goldenInput(), "measured": measuredInput()} {
		d := buildDoc(t, in)
		var ids []string
		for _, s := range d.Sections {
			ids = append(ids, s.ID)
		}
		i := slices.Index(ids, "collectives")
		if i < 1 || ids[i-1] != "cost" || ids[i+1] != "whatif" {
			t.Errorf("%s report: sections %v: want collectives between cost and whatif", name, ids)
			continue
		}
		sec := d.Sections[i]
		if sec.Title != "Collectives" {
			t.Errorf("%s report: the section's title is %q", name, sec.Title)
		}
		const said = "all-reduce on 16 nodes × 8 GPUs (the report's default; gpupath model --collective … models any other)"
		if txt := strings.ReplaceAll(texts(sec), "\u00a0", " "); strings.Count(txt, said) != 1 {
			t.Errorf("%s report: the section says %q %d times, want once:\n%s", name, said, strings.Count(txt, said), txt)
		}
		var figs []string
		for _, b := range sec.Blocks {
			if b.Fig != nil {
				figs = append(figs, b.Fig.ID)
				if b.Fig.Kind != "modeled" || b.Fig.Origin != "modeled from scenario "+in.Scenario.Name {
					t.Errorf("%s report, figure %s: kind %q, origin %q", name, b.Fig.ID, b.Fig.Kind, b.Fig.Origin)
				}
				if strings.Count(b.Fig.Caption, "Data: modeled: scenario "+in.Scenario.Name) != 1 {
					t.Errorf("%s report, figure %s: the caption does not say once where its data come from: %s", name, b.Fig.ID, b.Fig.Caption)
				}
			}
		}
		if !slices.Equal(figs, collFigures) {
			t.Errorf("%s report: the section's figures are %v, want %v", name, figs, collFigures)
		}
		tableWith(t, sec, "NCCL's choice")
		tableWith(t, sec, "faster from here")
		tableWith(t, sec, "GDR gain")
		if c := figureIn(d, "collective-busbw").Caption; !strings.Contains(c, "NCCL itself takes gdr: GPU and NIC are PIX apart") {
			t.Errorf("%s report: the bus bandwidth figure's caption does not say which path NCCL takes and why: %s", name, c)
		}
	}
}

// column is the named column of a figure's data, or a failed test.
func column(t *testing.T, f *figure, name string) *plots.Column {
	t.Helper()
	c := f.Data.Column(name)
	if c == nil {
		t.Fatalf("figure %s has no column %q (it has %v)", f.ID, name, f.Data.Names())
	}
	return c
}

// TestCollectivesFigureData: the figures' data are the model's
// (Collectives().Model, Choices, GDRGain, TCPCores on the default
// collective) at a few points; busbw is algbw × 2·127/128 on 128 ranks
// (nccl-tests' factor, worked by hand); GPUDirect RDMA is no slower than
// NCCL's host-staged IB transport at 1 GiB (the same NIC and wire, no
// store into and load from host memory).
func TestCollectivesFigureData(t *testing.T) {
	in := goldenInput()
	d := buildDoc(t, in)
	s := in.Scenario
	cs := s.Collectives()
	spec := model.DefaultCollectiveSpec(s)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

	f := figureIn(d, "collective-busbw")
	kind, path, bytesCol := column(t, f, "kind"), column(t, f, "path"), column(t, f, "bytes")
	busbw, algbw, tm, algo, proto := column(t, f, "busbw_Bps"), column(t, f, "algbw_Bps"), column(t, f, "time_s"), column(t, f, "algo"), column(t, f, "proto")
	row := func(k, p string, n units.Bytes) int {
		for i := range kind.Text {
			if kind.Text[i] == k && path.Text[i] == p && bytesCol.Num[i] == float64(n) {
				return i
			}
		}
		t.Fatalf("busbw figure: no %s row of %s at %d B", k, p, n)
		return -1
	}
	for _, p := range model.CollectivePaths {
		sp := spec
		sp.Path = p
		sizes := []units.Bytes{8, 1 << 20, 1 << 30}
		want, err := cs.Model(sp, sizes)
		if err != nil {
			t.Fatal(err)
		}
		for k, n := range sizes {
			i := row("curve", p, n)
			w := want[k]
			if !near(busbw.Num[i], float64(w.BusBW)) || !near(tm.Num[i], float64(w.Time)) || algo.Text[i] != w.Algo || proto.Text[i] != w.Proto {
				t.Errorf("%s at %s: figure %v B/s, %v s, %s/%s; model %v B/s, %v s, %s/%s", p, n.Human(), busbw.Num[i], tm.Num[i], algo.Text[i], proto.Text[i],
					float64(w.BusBW), float64(w.Time), w.Algo, w.Proto)
			}
			if f := busbw.Num[i] / algbw.Num[i]; !near(f, 2*127.0/128) {
				t.Errorf("%s at %s: busbw/algbw = %v, want 2·127/128 = 1.984375", p, n.Human(), f)
			}
		}
		segs, err := cs.Choices(sp, 8, 16<<30)
		if err != nil {
			t.Fatal(err)
		}
		for _, sg := range segs {
			i := row("choice", p, sg.From)
			if algo.Text[i] != sg.Algo || proto.Text[i] != sg.Proto {
				t.Errorf("%s from %d B: the figure has %s/%s, Choices %s/%s", p, sg.From, algo.Text[i], proto.Text[i], sg.Algo, sg.Proto)
			}
		}
	}
	if g, h := busbw.Num[row("curve", "gdr", 1<<30)], busbw.Num[row("curve", "rdma", 1<<30)]; g < h {
		t.Errorf("at 1 GiB gdr's busbw %v is below rdma's %v: GPUDirect RDMA skips the host buffers on the same NIC", g, h)
	}

	f = figureIn(d, "collective-scale")
	path, nodes, busbw := column(t, f, "path"), column(t, f, "nodes"), column(t, f, "busbw_Bps")
	for _, p := range []string{"tcp", "gdr"} {
		sp := spec
		sp.Path, sp.Nodes = p, 1024
		want, err := cs.Model(sp, []units.Bytes{64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for i := range path.Text {
			if path.Text[i] == p && nodes.Num[i] == 1024 {
				found = true
				if !near(busbw.Num[i], float64(want[0].BusBW)) {
					t.Errorf("scale: %s on 1,024 nodes: %v B/s, the model %v", p, busbw.Num[i], float64(want[0].BusBW))
				}
			}
		}
		if !found {
			t.Errorf("scale: no row of %s on 1,024 nodes", p)
		}
	}

	f = figureIn(d, "collective-gdr-gain")
	gain, nodes := column(t, f, "gain"), column(t, f, "nodes")
	gs, err := cs.GDRGain(spec, 64<<20, []int{2, 16, 16384})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		i := slices.Index(nodes.Num, float64(g.Nodes))
		if i < 0 || !near(gain.Num[i], g.Ratio) {
			t.Errorf("gain on %d nodes: the figure's row %d, the model %v", g.Nodes, i, g.Ratio)
		}
	}

	f = figureIn(d, "collective-cores")
	path, nodes, coresCol := column(t, f, "path"), column(t, f, "nodes"), column(t, f, "cores_per_node")
	tc, err := cs.TCPCores(spec, 64<<20, []int{16})
	if err != nil {
		t.Fatal(err)
	}
	for i := range path.Text {
		if nodes.Num[i] != 16 {
			continue
		}
		switch path.Text[i] {
		case "tcp":
			if !near(coresCol.Num[i], tc[0].Cores) {
				t.Errorf("cores: tcp on 16 nodes %v, TCPCores %v", coresCol.Num[i], tc[0].Cores)
			}
		case "gdr":
			if !near(coresCol.Num[i], tc[0].GDRCores) {
				t.Errorf("cores: gdr on 16 nodes %v, TCPCores' GDRCores %v", coresCol.Num[i], tc[0].GDRCores)
			}
		}
	}
	if tc[0].Cores <= tc[0].GDRCores {
		t.Errorf("NCCL's socket transport keeps %v cores busy, gdr %v: the TCP stack and its copies cost more than posts and polls", tc[0].Cores, tc[0].GDRCores)
	}
}

// TestCollectivesFiles: every figure of the section has its CSV and JSON
// (the JSON naming each column's unit), at least 32 sizes from 8 B to
// 16 GiB on each path, and no cell of the CSV is empty, NaN or infinite;
// the PDF shows the section, its figures and its tables.
func TestCollectivesFiles(t *testing.T) {
	r := render(t, goldenInput())
	for _, fi := range r.Figures {
		if !slices.Contains(collFigures, fi.ID) {
			continue
		}
		rows, err := csv.NewReader(bytes.NewReader(r.File(fi.Files[0]))).ReadAll()
		if err != nil || len(rows) < 2 {
			t.Fatalf("%s: %v, %d rows", fi.Files[0], err, len(rows))
		}
		for i, row := range rows[1:] {
			for j, cell := range row {
				if cell == "" || strings.EqualFold(cell, "nan") || strings.Contains(strings.ToLower(cell), "inf") {
					t.Errorf("%s row %d, %s: %q", fi.Files[0], i+2, rows[0][j], cell)
				}
			}
		}
		var fj struct {
			Kind    string            `json:"kind"`
			Columns []string          `json:"columns"`
			Units   map[string]string `json:"units"`
			Rows    []json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal(r.File(fi.Files[1]), &fj); err != nil {
			t.Fatalf("%s: %v", fi.Files[1], err)
		}
		if fj.Kind != "modeled" || len(fj.Rows) != len(rows)-1 || !slices.Equal(fj.Columns, rows[0]) {
			t.Errorf("%s: kind %q, %d rows (CSV %d), columns %v", fi.Files[1], fj.Kind, len(fj.Rows), len(rows)-1, fj.Columns)
		}
		for _, col := range fj.Columns {
			numeric := strings.HasSuffix(col, "_s") || strings.HasSuffix(col, "_Bps") || col == "bytes" || col == "cores_per_node"
			if numeric && fj.Units[col] == "" {
				t.Errorf("%s: column %s has no unit (units %v)", fi.Files[1], col, fj.Units)
			}
		}
		if fi.ID == "collective-busbw" {
			sizes := map[string]map[string]bool{}
			for _, row := range rows[1:] {
				if row[0] == "curve" {
					if sizes[row[1]] == nil {
						sizes[row[1]] = map[string]bool{}
					}
					sizes[row[1]][row[3]] = true
				}
			}
			for _, p := range model.CollectivePaths {
				if n := len(sizes[p]); n < 32 || !sizes[p]["8"] || !sizes[p][strconv.Itoa(16<<30)] {
					t.Errorf("busbw figure: %s has %d sizes (8 B: %v, 16 GiB: %v), want at least 32 from 8 B to 16 GiB", p, n, sizes[p]["8"], sizes[p][strconv.Itoa(16<<30)])
				}
			}
		}
	}
	words := strings.ReplaceAll(pdfWords(t, r.File(PDFFile)), "\u00a0", " ")
	for _, want := range []string{"Collectives", "all_reduce on 16 nodes × 8 GPUs: bus bandwidth vs message size", "NCCL's choice", "tree/LL",
		"all_reduce of 64 MiB on 8 GPUs a node: what GPUDirect RDMA buys", "faster from here", "GDR gain"} {
		if !strings.Contains(words, want) {
			t.Errorf("the PDF does not show %q", want)
		}
	}
}

// TestCollectivesWithoutRDMA: on a scenario whose NIC has no RDMA
// (gcp-a3-tcpx) the section draws the paths that can run (tcp, devmem),
// names the others and refers to the section "The data paths" for why,
// without repeating the reason; the figure of GPUDirect RDMA's gain is a
// note; NCCL takes its socket transport.
func TestCollectivesWithoutRDMA(t *testing.T) {
	s, err := model.Preset("gcp-a3-tcpx")
	if err != nil {
		t.Fatal(err)
	}
	in := goldenInput()
	in.Scenario = s
	d := buildDoc(t, in)
	sec := sectionOf(t, d, "collectives")
	txt := texts(sec)
	var figs []string
	for _, b := range sec.Blocks {
		if b.Fig != nil {
			figs = append(figs, b.Fig.ID)
			if !strings.Contains(b.Fig.Caption, "rdma, gdr, infeasible in this scenario ("+pathsSection+" says why)") {
				t.Errorf("figure %s does not refer to the data paths for rdma and gdr: %s", b.Fig.ID, b.Fig.Caption)
			}
		}
	}
	if !slices.Equal(figs, []string{"collective-busbw", "collective-scale", "collective-cores"}) {
		t.Errorf("figures %v", figs)
	}
	reason := "the NIC has no RDMA (nic.rdma: false"
	for _, f := range d.Figures {
		if strings.Contains(f.Caption, reason) {
			t.Errorf("figure %s repeats why RDMA cannot run: %s", f.ID, f.Caption)
		}
	}
	if strings.Contains(txt, reason) || !strings.Contains(txt, "No figure of what GPUDirect RDMA buys: it compares gdr with rdma, and gdr and rdma cannot run on this scenario ("+pathsSection+" says why).") {
		t.Errorf("the section's notes:\n%s", txt)
	}
	if c := figureIn(d, "collective-busbw").Caption; !strings.Contains(c, "NCCL itself takes tcp: the NIC has no RDMA") {
		t.Errorf("the caption does not say NCCL takes its socket transport: %s", c)
	}
}

// BenchmarkCollectivesSection is the section's cost in a report: every
// model call of its figures and tables (the model sweeps 41,472 options in
// about 5 ms; the section makes a few hundred calls of one collective).
func BenchmarkCollectivesSection(b *testing.B) {
	in := goldenInput()
	a := analyse(in.Scenario)
	for b.Loop() {
		bd := &builder{d: &doc{}, in: &in}
		bd.collectives(&section{ID: "collectives"}, a, "modeled from scenario default")
	}
}
