package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

// doc is a report laid out as sections of blocks, independent of the
// output format: the HTML template and the PDF writer walk the same doc, so
// both have the same sections, figures and tables.
type doc struct {
	Title    string
	Subtitle string
	Meta     []kv
	Sections []*section
	Figures  []*figure
	// Scenario YAML, in full.
	YAML string
}

type kv struct{ K, V string }

type section struct {
	ID, Title string
	Blocks    []block
}

// block is one piece of a section; exactly one field is set.
type block struct {
	H3    string
	P     string
	Note  string   // a remark set apart (infeasible reason, missing data)
	List  []string // bullet list
	Fig   *figure
	Table *docTable
	Pre   string
}

// docTable is a table with a header; a cell can carry a second, smaller line.
type docTable struct {
	Caption string
	Head    []string
	Rows    [][]cell
	// Widths are the relative column widths in the PDF; Right marks
	// right-aligned (numeric) columns.
	Widths []float64
	Right  []bool
	// RowClass marks rows by where their values come from ("measured",
	// "preset"), one per row or none: the HTML and the PDF tint them
	// differently.
	RowClass []string
}

// rowClass is the class of row i, or "".
func (t *docTable) rowClass(i int) string {
	if i < len(t.RowClass) {
		return t.RowClass[i]
	}
	return ""
}

type cell struct {
	Text string
	Sub  string
	// Badge draws Text as a coloured label of this kind ("measured",
	// "preset"), to be told apart at a glance.
	Badge string
	// NoWrap keeps Sub on one line in the HTML (an interval "7.45 – 7.55 µs").
	NoWrap bool
}

func c(s string) cell { return cell{Text: s} }

func (s *section) p(format string, args ...any) {
	s.Blocks = append(s.Blocks, block{P: fmt.Sprintf(format, args...)})
}
func (s *section) text(t string)       { s.Blocks = append(s.Blocks, block{P: t}) }
func (s *section) h3(t string)         { s.Blocks = append(s.Blocks, block{H3: t}) }
func (s *section) note(t string)       { s.Blocks = append(s.Blocks, block{Note: t}) }
func (s *section) list(items []string) { s.Blocks = append(s.Blocks, block{List: items}) }

// maxTableRows bounds the rows one table shows in the HTML and the PDF: a
// run of a million records must stay readable and within the PDF's page
// limit. A test lowers it.
var maxTableRows = 200

// table adds t, showing at most maxTableRows of its rows; past that, a note
// under it says how many more there are and where all of them are.
func (s *section) table(t *docTable) {
	more := len(t.Rows) - maxTableRows
	if more > 0 {
		t.Rows = t.Rows[:maxTableRows:maxTableRows]
		if len(t.RowClass) > maxTableRows {
			t.RowClass = t.RowClass[:maxTableRows:maxTableRows]
		}
	}
	s.Blocks = append(s.Blocks, block{Table: t})
	if more > 0 {
		s.note(fmt.Sprintf("The table above shows its first %d rows; %d more are not shown (a table lists at most %d). "+
			"Every size of every measured series is in the report's data files (CSV and JSON, listed under Figures), every record in the run's results.jsonl.", maxTableRows, more, maxTableRows))
	}
}
func (s *section) pre(t string) { s.Blocks = append(s.Blocks, block{Pre: t}) }

// builder numbers figures as they are added.
type builder struct {
	d  *doc
	in *Input
}

// plot adds a pkg/plots figure to s; when the figure cannot be drawn (no
// feasible path, nothing measured), s says so instead.
func (b *builder) plot(s *section, id, kind, origin string) func(*plots.Figure, error) {
	return func(pf *plots.Figure, err error) {
		if err != nil {
			s.note(fmt.Sprintf("No %s figure: %v.", id, strings.TrimPrefix(err.Error(), "plots: ")))
			return
		}
		b.fig(s, fromPlots(pf, id, kind, origin))
	}
}

// diagram adds the two-node diagram of the paths; a scenario that pkg/plots
// cannot draw (the loopback device: no NIC) gets the stage map instead.
func (b *builder) diagram(s *section, a *analysis, origin string) {
	pf, err := plots.Diagram(a.s, plots.DiagramOptions{Paths: a.plotPaths(), ReasonsAt: pathsSection, ReasonsSaid: a.said()})
	if err == nil {
		b.fig(s, fromPlots(pf, "paths", "modeled", origin))
		return
	}
	var names []string
	for _, p := range a.stageMapRows() {
		names = append(names, p.Name)
	}
	sm, _ := plots.StageMap(a.s, names) // the names come from the model: no error
	b.fig(s, drawingFigure(sm, &figure{ID: "paths", Title: "The stages of each path, by node", Kind: "modeled", Origin: origin,
		Caption: "Each row is a path; each box a stage, in the column of its letter (A–G), coloured by the node it runs on (blue: sender, grey: network, green: receiver). Arrows follow the payload."}))
}

func (b *builder) fig(s *section, f *figure) *figure {
	f.Num = len(b.d.Figures) + 1
	if f.W == 0 {
		f.W = figW
	}
	if f.H == 0 {
		f.H = figH
	}
	b.d.Figures = append(b.d.Figures, f)
	s.Blocks = append(s.Blocks, block{Fig: f})
	return f
}

// The section titles, in order; the PDF test looks for each.
var sectionTitles = []struct{ id, title string }{
	{"summary", "Summary"},
	{"resolution", "How this scenario was resolved"},
	{"paths", "The data paths"},
	{"latency", "Latency"},
	{"bandwidth", "Bandwidth"},
	{"cost", "CPU and memory cost"},
	{"collectives", "Collectives"},
	{"whatif", "What if"},
	{"measurements", "Measurements"},
	{"calibration", "Model against measurement"},
	{"validation", "Model against published measurements"},
	{"provenance", "Provenance"},
}

// SectionTitles lists the headings every report has, in the order of a
// report of the model alone; a report of measured or imported data puts
// the sections that judge the model against the data right after the
// summary (the calibration, the measurements), and adds the imported
// runs, a comparison of two runs and a diagnosis when it has them.
func SectionTitles() []string {
	out := make([]string, len(sectionTitles))
	for i, s := range sectionTitles {
		out[i] = s.title
	}
	return out
}

// build lays the report of in out as a doc: its header, then every
// section in order (sectionOrder), figures numbered as they come.
func build(in *Input) *doc {
	s := in.Scenario
	a := analyse(s)
	d := &doc{
		Title:    "GPU-to-GPU data paths: " + s.Name,
		Subtitle: s.Description,
		YAML:     resolvedYAML(s),
		Meta:     meta(in),
	}
	b := &builder{d: d, in: in}
	modeled := "modeled from scenario " + s.Name
	fill := map[string]func(*section){
		"summary":      func(sec *section) { b.summary(sec, a) },
		"resolution":   b.resolution, // resolution.go
		"paths":        func(sec *section) { b.paths(sec, a, modeled) },
		"latency":      func(sec *section) { b.latency(sec, a, modeled) },
		"bandwidth":    func(sec *section) { b.bandwidth(sec, a, modeled) },
		"cost":         func(sec *section) { b.cost(sec, a, modeled) },
		"collectives":  func(sec *section) { b.collectives(sec, a, modeled) }, // collectives.go
		"whatif":       func(sec *section) { b.whatIf(sec, a) },
		"measurements": func(sec *section) { b.measurements(sec, a) },
		"imported":     b.imported,                                        // imported.go
		"compare":      func(sec *section) { b.compare(sec, in.Compare) }, // compare.go
		"calibration":  b.calibration,
		"validation":   b.validation,   // validation.go
		"diagnosis":    b.diagnosis,    // diagnosis.go
		"sweep":        b.sweepSection, // sweep.go
		"provenance":   b.provenance,
	}
	for _, st := range sectionOrder(in) {
		sec := &section{ID: st.id, Title: st.title}
		d.Sections = append(d.Sections, sec)
		fill[st.id](sec)
	}
	d.oneLine()
	d.glueUnits()
	return d
}

// sectionOrder is the order of the sections of in: the summary, then, in a
// report of measured or imported data, what judges the model against them
// (the imported runs' verdicts, two runs compared, the calibration, the
// measured curves over the model), then the model's own sections, the
// rest, and the provenance last (it lists every figure). A section with
// nothing to show for in's data stays in its place in sectionTitles (the
// measurements and the calibration say why they are empty); the imported
// runs, the comparison and the diagnosis are there only when in has them.
func sectionOrder(in *Input) []struct{ id, title string } {
	has := map[string]bool{
		"imported":     len(in.Imported) > 0,
		"compare":      in.Compare != nil,
		"calibration":  in.Calibration != nil,
		"measurements": hasSeries(in.Measured),
		"sweep":        len(in.Sweeps) > 0,
	}
	early := []string{"sweep", "imported", "compare", "calibration", "measurements"}
	all := append([]struct{ id, title string }(nil), sectionTitles...)
	// The optional sections: the imported runs and the comparison before
	// the calibration, the diagnosis before the provenance.
	var out []struct{ id, title string }
	for _, st := range all {
		switch st.id {
		case "calibration":
			if len(in.Sweeps) > 0 {
				out = append(out, struct{ id, title string }{"sweep", "Cluster sweep"})
			}
			if len(in.Imported) > 0 {
				out = append(out, struct{ id, title string }{"imported", "Imported measurements"})
			}
			if in.Compare != nil {
				out = append(out, struct{ id, title string }{"compare", "Two runs compared"})
			}
		case "provenance":
			if hasDiagnosis(in) {
				out = append(out, struct{ id, title string }{"diagnosis", diagnosisTitle})
			}
		}
		out = append(out, st)
	}
	// What judges the model against the data: right after the summary.
	var first, rest []struct{ id, title string }
	for _, st := range out {
		if st.id == "summary" {
			first = append(first, st)
		}
	}
	for _, id := range early {
		for _, st := range out {
			if st.id == id && has[id] {
				first = append(first, st)
			}
		}
	}
	for _, st := range out {
		if st.id != "summary" && !(has[st.id] && contains(early, st.id)) {
			rest = append(rest, st)
		}
	}
	return append(first, rest...)
}

// hasSeries reports whether a run of ms has a measured series to draw.
func hasSeries(ms []Measured) bool {
	for _, m := range ms {
		if len(m.Series) > 0 {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// meta is the report's header: scenario, rendering, tool and data.
func meta(in *Input) []kv {
	m := []kv{
		{"Scenario", scenarioLine(in)},
		{"Rendered", in.Time.UTC().Format(time.RFC3339) + " on " + orNone(in.Host)},
		{"Tool", "gpupath " + orNone(in.Version)},
	}
	if len(in.Measured) == 0 {
		return append(m, kv{"Data", "modeled only: every figure comes from the model, nothing in this report was measured"})
	}
	var hosts []string
	for _, r := range in.Measured {
		hosts = append(hosts, r.Host)
	}
	return append(m, kv{"Data", fmt.Sprintf("modeled, and measured in %d run(s) on %s", len(in.Measured), strings.Join(uniq(hosts), "; "))})
}

// summary fills the summary: the answer, the calibration's sentence, the
// detail and the key figures of every path.
func (b *builder) summary(sum *section, a *analysis) {
	s := a.s
	answer, detail := a.summaryParts()
	sum.text(strings.Join(answer, " "))
	if s := calibrationSummary(b.in.Calibration); s != "" {
		sum.text(s)
	}
	sum.text(strings.Join(detail, " "))
	sum.table(a.keyTable())
	sum.p("Latency is one-way, from the sender's GPU memory to the receiver's GPU memory (host memory for host-tcp and host-rdma), pipelined in %s chunks where the message is larger. Cores count both nodes and assume %d flow(s).",
		s.Pipeline.Chunk.Human(), s.Stack.Flows)
}

// paths fills the data paths: the diagrams and each path's stage table.
func (b *builder) paths(ps *section, a *analysis, modeled string) {
	ps.text("Each path is a list of stages, lettered A–G in the order the data meets them: A the copy from GPU to host memory, B the send on the CPU, C the NIC reading memory, D the wire, E the NIC writing memory, F the receive on the CPU, G the copy from host memory to GPU. α is a stage's fixed time, β its bandwidth; CPU is the CPU time the stage costs for a " + refSize.Human() + " message; DDR is the DDR traffic per payload byte.")
	b.diagram(ps, a, modeled)
	b.hostDiagram(ps, a)
	for _, p := range a.stageMapRows() {
		ps.h3(p.Title + " (" + p.Name + ")")
		ps.text(p.Story)
		r := a.routes[p.Name]
		if !r.Feasible {
			ps.note(r.Reason)
			continue
		}
		ps.table(stageTable(r))
	}
}

// latency fills the latency section: curves, breakdown and table.
func (b *builder) latency(ls *section, a *analysis, modeled string) {
	s := a.s
	ls.p("One-way latency of a message from buffer to buffer. Store-and-forward adds every stage in turn (each stage finishes before the next starts: the step-by-step story); pipelined moves messages larger than %s in chunks that overlap across the stages, as NCCL and RDMA transfers do.", s.Pipeline.Chunk.Human())
	b.plot(ls, "latency", "modeled", modeled)(plots.Latency(plots.Input{Scenario: s, Paths: a.plotPaths(), Sizes: curveSizes(), Pipelined: true, ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
	b.plot(ls, "breakdown", "modeled", modeled)(plots.Breakdown(plots.Input{Scenario: s, Paths: a.gpuPaths(), Sizes: breakdownSizes, ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
	ls.table(a.latencyTable())
}

// bandwidth fills the bandwidth section: curves and table.
func (b *builder) bandwidth(bs *section, a *analysis, modeled string) {
	s := a.s
	bs.p("Streaming bandwidth: back-to-back messages of one size, limited by the tightest shared resource — the wire with its header overhead, each PCIe link and direction, DDR, the GPU↔NIC peer path, or the CPU cores (%d flow(s)). The NIC's nominal rate is %s (%s).", s.Stack.Flows, s.NIC.Rate.Gbits(), s.NIC.Rate.Human())
	b.plot(bs, "bandwidth", "modeled", modeled)(plots.Bandwidth(plots.Input{Scenario: s, Paths: a.plotPaths(), Sizes: curveSizes(), ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
	bs.table(a.bandwidthTable())
}

// cost fills the CPU and memory cost section: CPU time, cores, copies and
// traffic, and the table.
func (b *builder) cost(cs *section, a *analysis, modeled string) {
	s := a.s
	cs.p("What each path costs the hosts: CPU time per message (both nodes), the CPU cores needed to keep up with the line rate — the rate the wire and the links allow — and the memory traffic and copies of the payload. Host-staged paths pay for every copy in DDR bandwidth and PCIe crossings; GPUDirect RDMA and devmem TCP keep the payload out of host memory.")
	b.plot(cs, "cpu", "modeled", modeled)(plots.CPUTime(plots.Input{Scenario: s, Paths: a.plotPaths(), Sizes: curveSizes(), ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
	b.plot(cs, "cores", "modeled", modeled)(plots.Cores(plots.Input{Scenario: s, Paths: a.plotPaths(), Sizes: curveSizes(), ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
	b.plot(cs, "costs", "modeled", modeled)(plots.Costs(plots.Input{Scenario: s, Paths: a.plotPaths(), ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
	cs.table(a.costTable())
}

// whatIf fills the what-if section: for each variant, its answer, how it
// differs from the scenario, and its latency and bandwidth.
func (b *builder) whatIf(ws *section, a *analysis) {
	s := a.s
	ws.text("The same key figures for neighbouring scenarios, chosen by the report from this one: the GPU–NIC placement moved to the other end of the PCIe tree, and the NIC rate doubled (halved when it is ≥ 800 Gbit/s). The lists compare each with " + s.Name + ".")
	for i := range b.in.Variants {
		v := &b.in.Variants[i]
		va := analyse(v.Scenario)
		ws.h3(fmt.Sprintf("What if: %s", v.Name))
		ws.p("%s. Scenario: %s with %s.", upper(v.Why), s.Name, v.setsText())
		ws.list(append(va.summaryShort(), changes(a, va)...))
		origin := fmt.Sprintf("modeled from scenario %s with %s", s.Name, v.setsText())
		slug := fmt.Sprintf("whatif-%d", i+1)
		b.plot(ws, slug+"-latency", "modeled", origin)(plots.Latency(plots.Input{Scenario: v.Scenario, Paths: va.plotPaths(), Sizes: curveSizes(), Pipelined: true, ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
		b.plot(ws, slug+"-bandwidth", "modeled", origin)(plots.Bandwidth(plots.Input{Scenario: v.Scenario, Paths: va.plotPaths(), Sizes: curveSizes(), ReasonsAt: pathsSection, ReasonsSaid: a.said()}))
	}
}

// provenance fills the provenance section: what the report was made from,
// every figure's origin and data files, and the scenario in full. It
// comes last: it lists the figures of every section before it.
func (b *builder) provenance(pv *section) {
	in, d := b.in, b.d
	pv.text("What this report was made from. Every figure says whether it is modeled (computed from a scenario, nothing measured) or measured (where and when); the data of every figure is in the CSV and JSON files named below, next to this report.")
	prov := &docTable{Head: []string{"", ""}, Widths: []float64{1, 3.5}}
	for _, m := range [][2]string{
		{"tool version", "gpupath " + orNone(in.Version)},
		{"report", orNone(in.RunID)},
		{"rendered", in.Time.UTC().Format(time.RFC3339)},
		{"rendered on host", orNone(in.Host)},
		{"scenario", scenarioLine(in)},
		{"what-if scenarios", variantsLine(in.Variants)},
		{"measurement runs", measuredLine(in.Measured)},
	} {
		prov.Rows = append(prov.Rows, []cell{c(m[0]), c(m[1])})
	}
	pv.table(prov)
	pv.h3("Figures")
	ft := &docTable{Head: []string{"figure", "title", "modeled or measured", "data"}, Widths: []float64{0.6, 2, 2.6, 1.8}}
	for _, f := range d.Figures {
		ft.Rows = append(ft.Rows, []cell{c(strconv.Itoa(f.Num)), c(f.Title), {Text: f.Kind, Sub: f.Origin}, c(f.Base() + ".csv, .json")})
	}
	pv.table(ft)
	pv.h3("Scenario " + in.Scenario.Name + ", in full: every key with the rule that gave it and its source")
	pv.pre(d.YAML)
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(not given)"
	}
	return s
}

func uniq(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func scenarioLine(in *Input) string {
	s := in.Scenario.Name
	if in.Source != "" {
		s += " (" + in.Source + ")"
	}
	if len(in.Overrides) > 0 {
		s += " with --set " + strings.Join(in.Overrides, " --set ")
	}
	return s
}

func variantsLine(vs []Variant) string {
	if len(vs) == 0 {
		return "none"
	}
	var parts []string
	for _, v := range vs {
		parts = append(parts, v.Name+": "+v.setsText())
	}
	return strings.Join(parts, "; ")
}

func measuredLine(ms []Measured) string {
	if len(ms) == 0 {
		return "none: nothing in this report was measured"
	}
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s: %s, %s, %s", m.Source, m.Host, stamp(m.Start), orNone(m.Tool)))
	}
	return strings.Join(parts, "; ")
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "time not recorded"
	}
	return t.UTC().Format(time.RFC3339)
}

// summaryShort is the start of a scenario's answer: who wins where, and
// the crossovers.
func (a *analysis) summaryShort() []string {
	answer, _ := a.summaryParts()
	var out []string
	for _, s := range answer {
		if strings.HasPrefix(s, "To carry") {
			break
		}
		out = append(out, s)
	}
	return out
}

func rate(r units.Rate) string {
	if r <= 0 || r > 1e15 {
		return "—"
	}
	return r.Human()
}

func stageTable(r *model.Route) *docTable {
	t := &docTable{
		Head:   []string{"", "stage: what happens", "side", "α", "β", "CPU", "DDR B/B", "copy", "PCIe"},
		Widths: []float64{0.35, 4.2, 0.85, 0.8, 0.95, 0.8, 0.6, 0.5, 0.5},
		Right:  []bool{false, false, false, true, true, true, true, false, true},
	}
	for _, st := range r.Stages {
		cpu := "—"
		if v := st.CPU(refSize); v > 0 {
			cpu = v.Human()
		}
		cp := ""
		if st.Copy {
			cp = "yes"
		}
		t.Rows = append(t.Rows, []cell{c(st.Letter), {Text: st.Name, Sub: st.What}, c(string(st.Side)), c(st.Alpha.Human()),
			c(rate(st.Rate())), c(cpu), c(num(st.DDR)), c(cp), c(strconv.Itoa(st.Crossings))})
	}
	return t
}

func num(v float64) string { return trim(strconv.FormatFloat(v, 'f', 2, 64)) }

// keyTable is the summary's table: one row per drawn path.
func (a *analysis) keyTable() *docTable {
	t := &docTable{
		Head:   []string{"path", smallRef.Human() + " latency", refSize.Human() + " latency", "bandwidth (" + refSize.Human() + ")", "cores at line rate", "copies", "DDR B/B", "PCIe"},
		Widths: []float64{1.1, 1, 1, 1.15, 1, 0.7, 0.75, 0.6},
		Right:  []bool{false, true, true, true, true, true, true, true},
	}
	for _, p := range a.drawn() {
		s, m := a.eval(p, smallRef), a.eval(p, refSize)
		t.Rows = append(t.Rows, []cell{c(p), c(s.Pipelined.Human()), c(m.Pipelined.Human()), c(m.Bandwidth.Human()), c(cores(m.Cores)),
			c(strconv.Itoa(m.Copies)), c(num(m.DDRBytes / float64(m.Bytes))), c(strconv.Itoa(m.Crossings))})
	}
	for _, p := range a.notDrawn() {
		t.Rows = append(t.Rows, []cell{c(p), c("infeasible"), c("—"), c("—"), c("—"), c("—"), c("—"), c("—")})
	}
	return t
}

func (a *analysis) latencyTable() *docTable {
	head := []string{"path"}
	for _, n := range tableSizes {
		head = append(head, n.Human())
	}
	t := &docTable{Caption: "Latency: store-and-forward, and pipelined below it where it differs.", Head: head, Widths: []float64{1.2, 1, 1, 1, 1, 1, 1}}
	for range tableSizes {
		t.Right = append(t.Right, true)
	}
	t.Right = append([]bool{false}, t.Right...)
	for _, p := range a.drawn() {
		row := []cell{c(p)}
		for _, n := range tableSizes {
			r := a.eval(p, n)
			cl := c(r.Latency.Human())
			if !model.Near(float64(r.Latency), float64(r.Pipelined)) {
				cl.Sub = r.Pipelined.Human() + " pipelined"
			}
			row = append(row, cl)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func (a *analysis) bandwidthTable() *docTable {
	sizes := []units.Bytes{4 << 10, 1 << 20, 1 << 30}
	t := &docTable{Caption: "Streaming bandwidth and what limits it.", Head: []string{"path"}, Widths: []float64{1, 2, 2, 2}, Right: []bool{false, false, false, false}}
	for _, n := range sizes {
		t.Head = append(t.Head, n.Human()+" messages")
	}
	for _, p := range a.drawn() {
		row := []cell{c(p)}
		for _, n := range sizes {
			r := a.eval(p, n)
			row = append(row, cell{Text: r.Bandwidth.Human(), Sub: r.Bottleneck})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func (a *analysis) costTable() *docTable {
	t := &docTable{Caption: "Costs with " + refSize.Human() + " messages.",
		Head:   []string{"path", "CPU per message", "sender cores", "receiver cores", "line rate", "DDR traffic per message", "copies", "PCIe"},
		Widths: []float64{1, 1.1, 0.9, 0.9, 1, 1.2, 0.6, 0.6},
		Right:  []bool{false, true, true, true, true, true, true, true}}
	for _, p := range a.drawn() {
		r := a.eval(p, refSize)
		t.Rows = append(t.Rows, []cell{c(p), c(r.CPU.Human()), c(cores(r.CoresSender)), c(cores(r.CoresReceiver)), c(r.LineRate.Human()),
			c(units.Bytes(r.DDRBytes).Human()), c(strconv.Itoa(r.Copies)), c(strconv.Itoa(r.Crossings))})
	}
	return t
}

// unitSpace is the space between a number and its unit.
var unitSpace = regexp.MustCompile(`(\d) ((?:ns|µs|ms|s|B|KiB|MiB|GiB|TiB|[kMGT]?B/s|[kMGT]bit/s|Gbit/s|cores?)\b)`)

// keepUnits joins numbers to their units with a no-break space, so that no
// line ends between "3.96" and "µs".
func keepUnits(s string) string { return unitSpace.ReplaceAllString(s, "$1\u00a0$2") }

// glueUnits applies keepUnits to every text of the doc.
func (d *doc) glueUnits() { d.eachText(keepUnits) }

// oneLine makes every text of the doc but its preformatted blocks and the
// scenario's YAML one line with no control character (termtext.Line): a
// name from outside — a run directory, an imported file, a hostname — with
// a line break or an escape sequence shows as its visible escape in the
// HTML, the PDF, the figures' captions and their JSON, wherever the
// section that quotes it is. It is the one place they are cleaned.
func (d *doc) oneLine() {
	d.Title, d.Subtitle = termtext.Line(d.Title), termtext.Line(d.Subtitle)
	for i := range d.Meta {
		d.Meta[i].K, d.Meta[i].V = termtext.Line(d.Meta[i].K), termtext.Line(d.Meta[i].V)
	}
	for _, s := range d.Sections {
		s.Title = termtext.Line(s.Title)
		for i := range s.Blocks {
			if t := s.Blocks[i].Table; t != nil {
				t.Caption = termtext.Line(t.Caption)
				for j := range t.Head {
					t.Head[j] = termtext.Line(t.Head[j])
				}
			}
		}
	}
	for _, f := range d.Figures {
		f.Title, f.Kind, f.Origin = termtext.Line(f.Title), termtext.Line(f.Kind), termtext.Line(f.Origin)
	}
	d.eachText(termtext.Line)
}

// eachText applies fn to every paragraph, note, heading, list item, table
// cell and figure caption of the doc.
func (d *doc) eachText(fn func(string) string) {
	for _, s := range d.Sections {
		for i := range s.Blocks {
			b := &s.Blocks[i]
			b.P, b.Note, b.H3 = fn(b.P), fn(b.Note), fn(b.H3)
			for j := range b.List {
				b.List[j] = fn(b.List[j])
			}
			if t := b.Table; t != nil {
				for _, r := range t.Rows {
					for k := range r {
						r[k].Text, r[k].Sub = fn(r[k].Text), fn(r[k].Sub)
					}
				}
			}
		}
	}
	for _, f := range d.Figures {
		f.Caption = fn(f.Caption)
	}
}
