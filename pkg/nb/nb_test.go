package nb

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

// cells returns the text of each table cell, row by row.
func cells(h string) [][]string {
	var out [][]string
	for _, tr := range strings.Split(h, "<tr>")[1:] {
		var row []string
		for _, td := range regexp.MustCompile(`<t[dh][^>]*>(.*?)</t[dh]>`).FindAllStringSubmatch(tr, -1) {
			row = append(row, td[1])
		}
		out = append(out, row)
	}
	return out
}

func TestStageTable(t *testing.T) {
	s := model.Default()
	h, err := StageTable(s, "tcp", Small)
	if err != nil {
		t.Fatal(err)
	}
	rows := cells(h)
	// Header, the stages in the order of their letters A–G (F, the
	// receive, on two cores: the softirq and the reader), the total.
	var letters string
	for _, r := range rows[1 : len(rows)-1] {
		letters += r[0]
	}
	if letters != "ABCDEFFG" {
		t.Fatalf("stage letters %q, want ABCDEFFG:\n%s", letters, h)
	}
	p, _ := model.LookupPath("tcp")
	res := p.Route(s).Evaluate(Small)
	total := rows[len(rows)-1]
	if total[1] != "total" || total[3] != res.Latency.Human() || total[9] != "4" {
		t.Errorf("total row %q: want latency %s and 4 copies", total, res.Latency.Human())
	}
	// The shares add up to about 100%.
	sum := 0.0
	for _, r := range rows[1 : len(rows)-1] {
		var v float64
		if _, err := fmt.Sscan(strings.TrimSuffix(r[4], "%"), &v); err == nil {
			sum += v
		}
	}
	if math.Abs(sum-100) > 4 {
		t.Errorf("shares add up to %g%%", sum)
	}

	h, err = StageTable(s, "p2p-plain-nic", Small)
	if err != nil || !strings.Contains(h, "an ordinary NIC transmits only finished packets") {
		t.Errorf("plain NIC: %v %s", err, h)
	}
	if _, err := StageTable(s, "nope", Small); err == nil {
		t.Error("unknown path: no error")
	}
}

func TestTablesEscape(t *testing.T) {
	s := model.Default()
	s.Name = "<script>alert(1)</script>"
	h, err := StageTable(s, "gdr", Small)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, "<script>") || !strings.Contains(h, "&lt;script&gt;") {
		t.Errorf("scenario name not escaped: %s", h)
	}
}

func TestPathTable(t *testing.T) {
	s := model.Default()
	h, err := PathTable(s, GPUPaths(), Small, Large)
	if err != nil {
		t.Fatal(err)
	}
	rows := cells(h)
	if len(rows) != 1+len(GPUPaths()) {
		t.Fatalf("%d rows", len(rows))
	}
	plain := rows[len(rows)-1]
	if plain[0] != "p2p-plain-nic" || plain[1] != "infeasible" || !strings.HasPrefix(plain[8], "infeasible:") {
		t.Errorf("plain NIC row %q", plain)
	}
	p, _ := model.LookupPath("gdr")
	res := p.Route(s).Evaluate(Large)
	if gdr := rows[3]; gdr[0] != "gdr" || gdr[3] != res.Bandwidth.Human() || gdr[5] != "0" || gdr[6] != "0" {
		t.Errorf("gdr row %q, want bandwidth %s, no copy, no DDR", gdr, res.Bandwidth.Human())
	}
}

func TestCompare(t *testing.T) {
	s := model.Default()
	md, err := Compare(s, GPUPaths(), Small, Large)
	if err != nil {
		t.Fatal(err)
	}
	// gdr has the fewest stages and no copies: fastest at 8 B on the default.
	r := func(name string, n units.Bytes) model.Result {
		p, _ := model.LookupPath(name)
		return p.Route(s).Evaluate(n)
	}
	want := []string{
		"**8 B message**: `gdr` is fastest (" + r("gdr", Small).Latency.Human() + ")",
		"`tcp` " + r("tcp", Small).Latency.Human(),
		"`tcp` copies the payload 4 times and moves 8 DDR bytes per payload byte",
		"`gdr` makes no copy of the payload and moves 0 DDR bytes",
		"bound by " + r("tcp", Large).Bottleneck,
	}
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("missing %q in\n%s", w, md)
		}
	}
	if strings.Contains(md, "p2p-plain-nic") {
		t.Errorf("an infeasible path in the comparison:\n%s", md)
	}
	if _, err := Compare(s, []string{"p2p-plain-nic"}, Small, Large); err == nil {
		t.Error("no feasible path: no error")
	}
}

func TestEndings(t *testing.T) {
	s := model.Default()
	md, err := DevmemEnding(s, Small, Large)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := model.LookupPath("devmem")
	dev := p.Route(s).Evaluate(Small)
	for _, w := range []string{"so devmem works: " + dev.Latency.Human() + " at 8 B", "with 1 payload copy (tcp: 4)",
		"this NIC lacks header split"} {
		if !strings.Contains(md, w) {
			t.Errorf("missing %q in\n%s", w, md)
		}
	}
	ib := s.Clone()
	if err := ib.Set("nic.kind", "ib"); err != nil {
		t.Fatal(err)
	}
	md, err = DevmemEnding(ib, Small, Large)
	if err != nil || !strings.Contains(md, "IPoIB") || strings.Contains(md, "so devmem works") {
		t.Errorf("devmem on InfiniBand: %v\n%s", err, md)
	}
	md, err = PlainNICEnding(s)
	if err != nil || !strings.Contains(md, model.PlainNICReason) {
		t.Errorf("plain NIC: %v\n%s", err, md)
	}
}

func TestCrossoverAndCoresTables(t *testing.T) {
	s := model.Default()
	paths := []string{"tcp", "rdma", "gdr", "devmem"}
	for _, v := range WhatIfs() {
		h, err := CrossoverTable(s, v, paths)
		if err != nil {
			t.Fatal(err)
		}
		if rows := cells(h); len(rows) != 1+len(v.Values) {
			t.Errorf("%s: %d rows", v.Name, len(rows))
		}
		h, err = CoresTable(s, v, paths, 64<<10, Large)
		if err != nil {
			t.Fatal(err)
		}
		if rows := cells(h); len(rows) != 1+2*len(v.Values) {
			t.Errorf("%s: %d rows", v.Name, len(rows))
		}
	}
	// At MTU 9000 on the default, devmem (no cudaMemcpy) leads rdma on
	// small messages and rdma (no receive stack) takes over on large ones.
	h, _ := CrossoverTable(s, Variation{Name: "MTU", Keys: []string{"nic.mtu"}, Values: []string{"9000"}}, []string{"rdma", "devmem"})
	if !strings.Contains(h, "devmem, then rdma from ") {
		t.Errorf("no rdma–devmem crossover:\n%s", h)
	}
	// At PCIe Gen3 the copies cost rdma more than devmem's receive stack.
	h, _ = CrossoverTable(s, Variation{Name: "PCIe", Keys: []string{"gpu.pcie", "nic.pcie"}, Values: []string{"gen3x16"}}, []string{"rdma", "devmem"})
	if !strings.Contains(h, "devmem throughout") {
		t.Errorf("no rdma–devmem crossover:\n%s", h)
	}
	// TCP's cores at line rate grow with the NIC rate (receiver-bound copies).
	h, _ = CoresTable(s, WhatIfs()[0], []string{"tcp"}, Large)
	rows := cells(h)
	if rows[1][2] == rows[4][2] {
		t.Errorf("tcp cores do not change with the NIC rate: %q", rows)
	}
	_, err := CoresTable(s, Variation{Name: "MTU", Keys: []string{"nic.mtu"}, Values: []string{"10"}}, paths, Large)
	if err == nil || !strings.Contains(err.Error(), "nic.mtu") {
		t.Errorf("bad value: %v", err)
	}
	if _, err := CoresTable(s, WhatIfs()[0], paths); err == nil {
		t.Error("no size: no error")
	}
}

func sens(t *testing.T, rows []Sensitivity, path, param string) Sensitivity {
	t.Helper()
	for _, r := range rows {
		if r.Path == path && r.Param.Name == param {
			return r
		}
	}
	t.Fatalf("no row %s/%s", path, param)
	return Sensitivity{}
}

func TestSensitivities(t *testing.T) {
	s := model.Default()
	paths := []string{"tcp", "rdma", "gdr", "devmem", "p2p-plain-nic"}
	rows, err := Sensitivities(s, Params(), paths, Small, Large)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4*len(Params()) { // the plain NIC is infeasible: no rows
		t.Fatalf("%d rows", len(rows))
	}
	// gdr is bound by the wire (24.5 GB/s < PCIe Gen5 x16): twice the NIC
	// rate is twice the bandwidth, half is half.
	g := sens(t, rows, "gdr", "NIC rate")
	if math.Abs(g.Change[LargeRate][1]-1) > 1e-9 || math.Abs(g.Change[LargeRate][0]+0.5) > 1e-9 {
		t.Errorf("gdr bandwidth vs NIC rate: %v, want −50%% / +100%%", g.Change[LargeRate])
	}
	// gdr copies nothing on a CPU: the copy rate does not move it at all.
	g = sens(t, rows, "gdr", "CPU copy rate")
	for m := range g.Change {
		if g.Change[m] != [2]float64{0, 0} {
			t.Errorf("gdr vs CPU copy rate, metric %d: %v", m, g.Change[m])
		}
	}
	// The chunk size moves only the pipelined transfer.
	for _, p := range paths[:4] {
		c := sens(t, rows, p, "chunk size")
		if c.Change[SmallLatency] != [2]float64{0, 0} || c.Change[LargeRate] != [2]float64{0, 0} {
			t.Errorf("%s: chunk size moves %v", p, c.Change)
		}
	}
	// tcp at 8 B: doubling the fixed cost of a cudaMemcpy adds two copy
	// latencies (A and G) to the total.
	p, _ := model.LookupPath("tcp")
	lat := float64(p.Route(s).Evaluate(Small).Latency)
	c := sens(t, rows, "tcp", "cudaMemcpy fixed cost")
	if want := 2 * float64(s.GPU.CopyLatency) / lat; math.Abs(c.Change[SmallLatency][1]-want) > 1e-12 {
		t.Errorf("tcp 8 B vs copy latency ×2: %g, want %g", c.Change[SmallLatency][1], want)
	}
	// PIX is the nearest class: no step down.
	c = sens(t, rows, "gdr", "GPU–NIC topology")
	if !math.IsNaN(c.Change[SmallLatency][0]) || !(c.Change[SmallLatency][1] > 0) {
		t.Errorf("gdr vs topology: %v", c.Change[SmallLatency])
	}
	if v, d := c.Largest(SmallLatency); d != 1 || v != c.Change[SmallLatency][1] {
		t.Errorf("Largest = %g, %d", v, d)
	}
	// Gen6 is the newest: no step up.
	s6 := model.Default()
	s6.GPU.PCIe.Gen, s6.NIC.PCIe.Gen = 6, 6
	rows6, _ := Sensitivities(s6, Params()[1:2], []string{"gdr"}, Small, Large)
	if !math.IsNaN(rows6[0].Change[LargeRate][1]) {
		t.Errorf("gen6 +1: %v", rows6[0].Change)
	}

	md := MostSensitive(rows, Small, Large)
	for _, w := range []string{
		"- `tcp`: latency at 8 B moves most with the cudaMemcpy fixed cost (×2: +",
		"- `rdma`:", "bandwidth at 64 MiB moves most with the NIC rate (×2: +100%)",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("missing %q in\n%s", w, md)
		}
	}
	h := SensitivityTable(rows, Small, Large)
	if got := len(cells(h)); got != 1+len(rows) {
		t.Errorf("table: %d rows", got)
	}
	if _, err := Sensitivities(s, Params(), paths, 0, Large); err == nil {
		t.Error("size 0: no error")
	}
}

func TestSensitivityChartGolden(t *testing.T) {
	rows, err := Sensitivities(model.Default(), Params(), []string{"tcp", "rdma", "gdr", "devmem"}, Small, Large)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(SensitivityChart(rows, Small, Large))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "sensitivity_golden.svg"), []byte(svg))
	if _, err := SensitivityChart(nil, Small, Large); err == nil {
		t.Error("no rows: no error")
	}
}

func TestSVG(t *testing.T) {
	svg, err := SVG(plots.Latency(plots.Input{Scenario: model.Default(), Paths: ComparedPaths()}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, `<svg style="max-width:100%;height:auto"`) || strings.Contains(svg, "<?xml") {
		t.Errorf("SVG starts %q", svg[:min(len(svg), 80)])
	}
	boom := errors.New("boom")
	if _, err := SVG(nil, boom); err != boom {
		t.Errorf("error not passed through: %v", err)
	}
	if _, err := SVG(nil, nil); err == nil {
		t.Error("nil figure: no error")
	}
	if _, err := SVG(plots.Latency(plots.Input{})); !errors.Is(err, plots.ErrInput) {
		t.Errorf("bad input: %v", err)
	}
}

func TestMust(t *testing.T) {
	if Must(3, nil) != 3 {
		t.Error("Must(3, nil)")
	}
	defer func() {
		if recover() == nil {
			t.Error("Must with an error did not panic")
		}
	}()
	Must(0, errors.New("boom"))
}

func TestRootAndRuns(t *testing.T) {
	root, err := Root("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "pkg", "nb", "nb_test.go")); err != nil {
		t.Errorf("Root() = %s: %v", root, err)
	}

	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("repo/go.mod", "// comment\nmodule github.com/gpupath/gpupath\n\ngo 1.26\n")
	write("repo/notebooks/sub/go.mod", "module example.com/other\n")
	write("repo/reports/examples/h200/manifest.json", "{}")
	write("repo/reports/examples/cpu/run1/manifest.json", "{}")
	write("repo/reports/examples/cpu/run1/results.jsonl", "")
	got, err := Root(filepath.Join(dir, "repo", "notebooks", "sub"))
	if err != nil || got != filepath.Join(dir, "repo") {
		t.Errorf("Root = %q, %v", got, err)
	}
	if _, err := Root(filepath.Join(dir)); err == nil {
		t.Error("no repository: no error")
	}
	ex := filepath.Join(dir, "repo", "reports", "examples")
	runs, err := FindRuns(ex)
	if err != nil || len(runs) != 2 || runs[0] != filepath.Join(ex, "cpu", "run1") {
		t.Errorf("FindRuns = %q, %v", runs, err)
	}
	note := RunsNote(filepath.Join(dir, "repo"), ex, runs)
	if !strings.Contains(note, "- `reports/examples/cpu/run1`") {
		t.Errorf("note:\n%s", note)
	}
	runs, err = FindRuns(filepath.Join(dir, "missing"))
	if err != nil || runs != nil {
		t.Errorf("missing dir: %q, %v", runs, err)
	}
	note = RunsNote(filepath.Join(dir, "repo"), ex, nil)
	if note != "No measured run found under `reports/examples/`: showing the model only." {
		t.Errorf("note %q", note)
	}
}

func TestProgress(t *testing.T) {
	h := Progress("<tcp> 8 B", 3, 4)
	for _, w := range []string{`value="3" max="4"`, "75%", "&lt;tcp&gt; 8 B"} {
		if !strings.Contains(h, w) {
			t.Errorf("missing %q in %s", w, h)
		}
	}
	if h := Progress("x", 9, 0); !strings.Contains(h, "100%") {
		t.Errorf("total 0: %s", h)
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{0, "0%"}, {1, "+100%"}, {-0.5, "−50%"}, {0.0763, "+7.6%"}, {0.00123, "+0.12%"}, {math.NaN(), "—"}} {
		if got := percent(c.x); got != c.want {
			t.Errorf("percent(%g) = %q, want %q", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{0.001, "< 0.01"}, {0.93, "0.93"}, {1.94, "1.9"}, {12.4, "12"}} {
		if got := cores(c.x); got != c.want {
			t.Errorf("cores(%g) = %q, want %q", c.x, got, c.want)
		}
	}
	if got := ratio(1.0145); got != "1.01" {
		t.Errorf("ratio = %q", got)
	}
}

func TestWith(t *testing.T) {
	s, err := With(model.Default(), "nic.kind=loopback", "nic.rdma=false", "nic.mtu = 1500")
	if err != nil {
		t.Fatal(err)
	}
	if s.NIC.Kind != model.KindLoopback || s.NIC.MTU != 1500 {
		t.Errorf("With: kind %s mtu %d", s.NIC.Kind, s.NIC.MTU)
	}
	if model.Default().NIC.MTU == 1500 {
		t.Error("With changed the base")
	}
	for _, bad := range []string{"nic.mtu", "nic.mtu=10", "nic.nope=1"} {
		if _, err := With(model.Default(), bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestTexts(t *testing.T) {
	h, err := PathHeader("gdr")
	if err != nil || !strings.HasPrefix(h, "### `gdr` — GPUDirect RDMA\n\nThe NIC reads") {
		t.Errorf("PathHeader: %v %q", err, h)
	}
	if _, err := PathHeader("nope"); err == nil {
		t.Error("unknown path: no error")
	}
	if !strings.Contains(Scenario(model.Default()), "**Scenario `default`**: Two PCIe GPU servers") {
		t.Errorf("Scenario: %q", Scenario(model.Default()))
	}
	if h := Host(); !strings.HasPrefix(h, "**This host**: `") {
		t.Errorf("Host: %q", h)
	}
	s, _ := With(model.Default(), "nic.kind=loopback", "nic.rdma=false")
	md, err := PipelineGain(s, "tcp", 4, 256<<20)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := model.LookupPath("tcp")
	big := p.Route(s).Evaluate(256 << 20)
	want := fmt.Sprintf("- 256 MiB: %s against %s pipelined in %d chunks, ", big.Latency.Human(), big.Pipelined.Human(), big.Chunks)
	if big.Chunks <= 1 {
		want = fmt.Sprintf("- 256 MiB: %s either way (the hardware's overlap is as good as chunks)", big.Latency.Human())
	}
	if !strings.Contains(md, "- 4 B: ") || !strings.Contains(md, "(one chunk)") || !strings.Contains(md, want) {
		t.Errorf("PipelineGain:\n%s\nwant %q", md, want)
	}
	if _, err := PipelineGain(s, "gdr", 4); err == nil {
		t.Error("gdr on loopback: no error")
	}
}

func TestTableHTML(t *testing.T) {
	tb := &Table{Caption: "a <caption>", Head: []string{"name", "value"}, Right: []bool{false, true}}
	tb.Add("x & y", "1 µs")
	h := tb.HTML()
	if !strings.Contains(h, "a &lt;caption&gt;") || !strings.Contains(h, "x &amp; y") {
		t.Errorf("not escaped: %s", h)
	}
	rows := cells(h)
	if len(rows) != 2 || rows[1][1] != "1 µs" {
		t.Errorf("rows %q", rows)
	}
	if !strings.Contains(h, `text-align:right;white-space:nowrap;padding:0.2em 0.6em;border-bottom:1px solid #ddd;vertical-align:top">1 µs`) {
		t.Errorf("the number column is not right-aligned: %s", h)
	}
}

// sizeChart is a chart of every kind of series SizeChart draws: a model
// line, measured points, a reference line, and a signed error panel.
func sizeChart() (*Chart, error) {
	xs := []float64{4, 64, 1024, 16 << 10, 256 << 10, 4 << 20, 64 << 20}
	pred, meas, errs := make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
	for i, n := range xs {
		pred[i] = 5e-6 + n/10e9
		meas[i] = pred[i] * (1 + 0.1*float64(i%3-1))
		errs[i] = 100 * (pred[i] - meas[i]) / meas[i]
	}
	mark := plots.Mark{Shape: plots.Circle, Filled: true}
	return SizeChart("A size chart", "measured: nowhere · modeled: α + n/β", plots.DefaultHeight*1.6,
		SizePanel{Title: "time", YLabel: "seconds", LogY: true, YFormat: func(v float64) string { return units.Seconds(v).Human() },
			Curves: []Curve{{Label: "model", Color: plots.Black, X: xs, Y: pred},
				{Label: "measured", Color: plots.Blue, Mark: &mark, X: xs, Y: meas}},
			Refs: []RefLine{{Label: "ten milliseconds", Y: 10e-3, Color: plots.Grey, Dashes: plots.Dotted}}},
		SizePanel{Title: "error", YLabel: "%", Signed: true, Zero: true, NoLegend: true,
			Curves: []Curve{{Label: "error", Color: plots.Vermillion, Dashes: plots.Dashed, X: xs, Y: errs}}})
}

func TestSizeChartGolden(t *testing.T) {
	svg, err := SVG(sizeChart())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "sizechart_golden.svg"), []byte(svg))
	for _, w := range []string{"A size chart", "measured: nowhere", "ten milliseconds", "1 KiB", "32 MiB"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the chart has no %q", w)
		}
	}
}

// TestDiagnosis renders the committed doctor record of the H200 machine:
// its one warning (no RDMA device) comes first, with its price.
func TestDiagnosis(t *testing.T) {
	root, err := Root("")
	if err != nil {
		t.Fatal(err)
	}
	h, err := Diagnosis(root, ExampleDiagnosis)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Index(h, "rdma.devices")
	if first < 0 || strings.Index(h, "pcie.link") < first || !strings.Contains(h, "instead of") || !strings.Contains(h, "1 warn") {
		t.Errorf("diagnosis table:\n%s", h)
	}
	if _, err := Diagnosis(root, "no/such.json"); err == nil {
		t.Error("a missing record gave no error")
	}
}

// A partial description resolves in a cell, and its resolution and a
// catalog entry come out as tables with their sources.
func TestResolutionCells(t *testing.T) {
	s, err := ScenarioText("nic:\n  model: ConnectX-6 HDR\nnetwork:\n  hops: 0\n", "my-cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := Resolution(s)
	if err != nil || !strings.Contains(h, "catalog") || !strings.Contains(h, "nic.rate") || !strings.Contains(h, "my-cluster") {
		t.Errorf("resolution table: %v\n%s", err, h)
	}
	e, err := CatalogEntry("ConnectX-6 HDR")
	if err != nil || !strings.Contains(e, "nic.pcie") {
		t.Errorf("catalog table: %v", err)
	}
	if _, err := CatalogEntry("no such card"); err == nil {
		t.Error("an unknown name gave a table")
	}
}
