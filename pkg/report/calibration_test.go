package report

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// h200Run is the run measured on one H200 that is committed in
// reports/examples/h200-1gpu/run, copied to testdata/h200-run so that the
// tests do not change when the example is measured again.
var h200Run = sync.OnceValues(func() (*record.RunData, error) {
	return record.ReadRun(filepath.Join("testdata", "h200-run"))
})

// calibratedInput is a report of the default scenario with the H200 run
// and its calibration (as gpupath report --data makes it), with fixed
// time, host, version and run id.
func calibratedInput(t testing.TB) Input {
	t.Helper()
	rd, err := h200Run()
	if err != nil {
		t.Fatal(err)
	}
	return calibrate(t, rd, "calibrated-golden")
}

func calibrate(t testing.TB, rd *record.RunData, id string) Input {
	t.Helper()
	in := goldenInput()
	in.RunID, in.ProbeNote = id, ""
	c, err := calib.Calibrate([]*record.RunData{rd}, in.Scenario, fit.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in.Calibration = c
	in.Measured = []Measured{measuredRun(rd)}
	return in
}

// measuredRun maps the run's staged transfers and loopback ping-pong to
// report series (gpupath report maps every record; these are enough for
// the measurements section next to the calibration).
func measuredRun(rd *record.RunData) Measured {
	m := Measured{Source: rd.Dir, Host: rd.Manifest.Host.Hostname, Start: rd.Manifest.Start, Tool: rd.Manifest.Version, Status: string(rd.Manifest.Status)}
	idx := map[string]int{}
	for _, r := range rd.Results {
		if !(r.Probe == "staged" || r.Probe == "tcp" && r.Variant == "pingpong") || r.MedianS <= 0 || r.Bytes < 1 {
			continue
		}
		k := r.Probe + " " + r.Variant + " (" + r.Target + ")"
		i, ok := idx[k]
		if !ok {
			i = len(m.Series)
			idx[k] = i
			m.Series = append(m.Series, record.Series{SeriesKey: record.SeriesKey{Probe: r.Probe, Variant: r.Variant, Path: r.Path, Target: r.Target}, Label: k, Quantity: record.Latency})
		}
		m.Series[i].Points = append(m.Series[i].Points, record.Point{Bytes: units.Bytes(r.Bytes), Median: units.Seconds(r.MedianS), Min: units.Seconds(r.MinS),
			P99: units.Seconds(r.P99S), CPU: units.Seconds(r.CPUUserS + r.CPUSysS), Iterations: r.Iterations, Stable: r.Stable})
	}
	for _, s := range m.Series {
		sort.Slice(s.Points, func(a, b int) bool { return s.Points[a].Bytes < s.Points[b].Bytes })
	}
	return m
}

// buildDoc lays the report out as Render does, without drawing it.
func buildDoc(t *testing.T, in Input) *doc {
	t.Helper()
	if err := in.validate(); err != nil {
		t.Fatal(err)
	}
	vs, err := Variants(in.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	in.Variants = vs
	return build(&in)
}

func sectionOf(t *testing.T, d *doc, id string) *section {
	t.Helper()
	for _, s := range d.Sections {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no section %s", id)
	return nil
}

// tableWith is the first table of s with a column headed head.
func tableWith(t *testing.T, s *section, head string) *docTable {
	t.Helper()
	for _, b := range s.Blocks {
		if b.Table != nil && slices.Contains(b.Table.Head, head) {
			return b.Table
		}
	}
	t.Fatalf("section %s has no table with a column %q", s.ID, head)
	return nil
}

// texts are the paragraphs and notes of a section.
func texts(s *section) string {
	var b strings.Builder
	for _, bl := range s.Blocks {
		b.WriteString(bl.P + "\n" + bl.Note + "\n" + strings.Join(bl.List, "\n") + "\n")
	}
	return b.String()
}

// The section "Model against measurement" prints the numbers calib
// computed: the errors per path, the verdicts, the badges of the stages,
// each figure's data, the speed-up, and the summary's sentence.
func TestCalibrationSectionNumbers(t *testing.T) {
	in := calibratedInput(t)
	c := in.Calibration
	d := buildDoc(t, in)
	sec := sectionOf(t, d, "calibration")
	if sec.Title != "Model against measurement" {
		t.Errorf("section title %q", sec.Title)
	}
	all := texts(sec)

	// Errors per path, row by row.
	et := tableWith(t, sec, "comparison")
	if len(et.Rows) != len(c.Comparison) || len(c.Comparison) < 7 {
		t.Fatalf("%d rows for %d comparisons", len(et.Rows), len(c.Comparison))
	}
	for i, cmp := range c.Comparison {
		row := et.Rows[i]
		if row[0].Text != cmp.Label {
			t.Errorf("row %d is %q, comparison %q", i, row[0].Text, cmp.Label)
		}
		for j, want := range []float64{cmp.PresetErr.MedianAPE, cmp.CalibratedErr.MedianAPE} {
			if w := keepUnits(fmt.Sprintf("%.1f%%", want)); row[2+j].Text != w {
				t.Errorf("%s: column %s says %q, calib %s", cmp.Label, et.Head[2+j], row[2+j].Text, w)
			}
		}
		if w := fmt.Sprintf("worst %+.1f%%", cmp.CalibratedErr.WorstPercent); !strings.HasPrefix(strings.Replace(row[3].Sub, "−", "-", 1), w) {
			t.Errorf("%s: worst error %q, calib %s", cmp.Label, row[3].Sub, w)
		}
		if e := cmp.MultiChunk; e != nil && !strings.Contains(row[len(row)-1].Text, fmt.Sprintf("%.1f%%", e.MedianAPE)) {
			t.Errorf("%s: multi-chunk error %q, calib %.1f%%", cmp.Label, row[len(row)-1].Text, e.MedianAPE)
		}
		for _, v := range []string{cmp.PresetVerdict, cmp.CalibratedVerdict} {
			if v != "" && !strings.Contains(all, keepUnits(strings.TrimSuffix(v, "."))) {
				t.Errorf("%s: verdict missing: %s", cmp.Label, v)
			}
		}
	}
	verdicts := 0
	for _, cmp := range c.Comparison {
		if cmp.PresetVerdict != "" || cmp.CalibratedVerdict != "" {
			verdicts++
		}
	}
	if verdicts == 0 {
		t.Error("the H200 run has no large disagreement: the verdicts are not tested")
	}

	// Each comparison's figure holds calib's numbers.
	var figs []*figure
	for _, f := range d.Figures {
		if strings.HasPrefix(f.ID, "calib-") {
			figs = append(figs, f)
		}
	}
	if len(figs) != len(c.Comparison) {
		t.Fatalf("%d comparison figures for %d comparisons", len(figs), len(c.Comparison))
	}
	for i, f := range figs {
		cmp := c.Comparison[i]
		if f.Kind != "modeled and measured" || !strings.Contains(f.Origin, "measured on vm at 2026-11-29T15:07:16Z") || !strings.Contains(f.Origin, "scenario default") {
			t.Errorf("figure %d: kind %q origin %q", f.Num, f.Kind, f.Origin)
		}
		if n := f.Data.Len(); n != len(cmp.Bytes) {
			t.Fatalf("figure %d: %d rows for %d sizes", f.Num, n, len(cmp.Bytes))
		}
		for j := range cmp.Bytes {
			for name, want := range map[string]float64{"bytes": cmp.Bytes[j], "measured_s": cmp.Measured[j], "calibrated_s": cmp.Calibrated[j],
				"preset_error_pct": cmp.PresetErr.Points[j].Percent, "calibrated_error_pct": cmp.CalibratedErr.Points[j].Percent} {
				col := f.Data.Column(name)
				if col == nil || col.Kind != plots.Number && (name != "bytes" || col.Kind != plots.Integer) {
					t.Fatalf("figure %d: no number column %s", f.Num, name)
				}
				if got := col.Num[j]; got != want {
					t.Errorf("figure %d row %d: %s %v, calib %v", f.Num, j, name, got, want)
				}
			}
		}
	}

	// The stage table: one badge per stage, as calib says.
	st := tableWith(t, sec, "in the transfer")
	k := 0
	for i, r := range st.Rows {
		if r[1].Badge == "" {
			continue
		}
		want := map[bool]string{true: "measured", false: "preset"}[c.Stages[k].Measured]
		if r[1].Badge != want || st.RowClass[i] != want {
			t.Errorf("stage %s: badge %q, row %q, calib measured=%v", c.Stages[k].Name, r[1].Badge, st.RowClass[i], c.Stages[k].Measured)
		}
		for j := range calib.StageSizes {
			rr := st.Rows[i+j]
			if w := keepUnits(units.Seconds(c.Stages[k].Modeled[j]).Human()); rr[5].Text != w {
				t.Errorf("stage %s size %d: model %q, calib %q", c.Stages[k].Name, j, rr[5].Text, w)
			}
			if w := keepUnits(units.Seconds(c.Stages[k].InSitu[j]).Human()); rr[7].Text != w {
				t.Errorf("stage %s size %d: in the transfer %q, calib %q", c.Stages[k].Name, j, rr[7].Text, w)
			}
		}
		k++
	}
	if k != len(c.Stages) || k == 0 {
		t.Errorf("%d badges for %d stages", k, len(c.Stages))
	}

	// The speed-up at the largest size.
	var sf, pl *calib.Comparison
	for i := range c.Comparison {
		switch c.Comparison[i].Variant {
		case "store-and-forward":
			sf = &c.Comparison[i]
		case "pipelined":
			pl = &c.Comparison[i]
		}
	}
	n := len(sf.Measured) - 1
	if sf.Bytes[n] != pl.Bytes[len(pl.Bytes)-1] {
		t.Fatal("the variants end at different sizes")
	}
	if r := sf.Measured[n] / pl.Measured[len(pl.Measured)-1]; !strings.Contains(all, fmt.Sprintf("store-and-forward: %.2f× faster", r)) || r < 1.2 {
		t.Errorf("the speed-up %.2f× at 256 MiB is not reported (or the pipelined transfer is not faster)", r)
	}

	// The summary's sentence.
	sum := texts(sectionOf(t, d, "summary"))
	for _, cmp := range []*calib.Comparison{sf, pl} {
		if w := fmt.Sprintf("%.1f%% %s", cmp.CalibratedErr.MedianAPE, cmp.Variant); !strings.Contains(sum, w) {
			t.Errorf("the summary lacks %q", w)
		}
	}

	// The diagram of the measured topology, next to the scenario's.
	var topo *figure
	for _, f := range d.Figures {
		if f.ID == "paths-measured-topology" {
			topo = f
		}
	}
	if topo == nil {
		t.Fatal("no diagram of the measured topology")
	}
	if c.Scenario.Topology.GPUNIC != "PHB" || !strings.Contains(topo.Caption, "Measured topology of vm: ") || !strings.Contains(topo.Caption, "topology.gpu_nic PHB") {
		t.Errorf("topology %s, caption %q", c.Scenario.Topology.GPUNIC, topo.Caption)
	}
	if prev := d.Figures[topo.Num-2]; prev.ID != "paths" {
		t.Errorf("the measured topology is figure %d, after %s: want it next to the diagram of the scenario", topo.Num, prev.ID)
	}
}

// In-situ stage times come from the staged records, at the table's sizes.
func TestCalibrationInSitu(t *testing.T) {
	c := calibratedInput(t).Calibration
	byLetter := map[string]string{"A": "insitu_d2h_s", "B+F": "insitu_tcp_s", "G": "insitu_h2d_s"}
	rd, _ := h200Run()
	for _, row := range c.Stages {
		key := byLetter[row.Letter]
		if key == "" || row.InSitu == nil {
			t.Fatalf("stage %s %s: in situ %v", row.Letter, row.Name, row.InSitu)
		}
		// 64 KiB and 16 MiB were measured: the value is the record's.
		for j, n := range calib.StageSizes {
			for _, r := range rd.Results {
				if r.Probe == "staged" && r.Variant == "store-and-forward" && float64(r.Bytes) == n {
					if got := row.InSitu[j]; math.Abs(got-r.Extra[key]) > 1e-15 {
						t.Errorf("%s at %v B: in situ %v, record %v", row.Letter, n, got, r.Extra[key])
					}
				}
			}
		}
	}
}

// A run without GPU copies leaves the copies to the preset: their rows
// carry the preset badge and tint, in HTML and PDF alike.
func TestCalibrationPresetStages(t *testing.T) {
	rd, err := h200Run()
	if err != nil {
		t.Fatal(err)
	}
	cut := *rd
	cut.Results = nil
	for _, r := range rd.Results {
		if r.Probe != "cuda" {
			cut.Results = append(cut.Results, r)
		}
	}
	in := calibrate(t, &cut, "no-copies")
	var measured, preset int
	for _, s := range in.Calibration.Stages {
		if s.Measured {
			measured++
		} else {
			preset++
		}
	}
	if preset != 2 || measured != 1 {
		t.Fatalf("%d preset and %d measured stages, want 2 (A, G) and 1 (TCP)", preset, measured)
	}
	page := string(render(t, in).File(HTMLFile))
	for want, n := range map[string]int{
		`<span class="badge preset">preset</span>`:     preset,
		`<span class="badge measured">measured</span>`: measured,
		`<tr class="preset">`:                          preset * len(calib.StageSizes),
		`<tr class="measured">`:                        measured * len(calib.StageSizes),
	} {
		if got := strings.Count(page, want); got != n {
			t.Errorf("%s: %d times, want %d", want, got, n)
		}
	}
}

// Without a calibration the section is there and says why it is empty.
func TestNoCalibration(t *testing.T) {
	in := measuredInput()
	in.CalibrationNote = "no run holds what the calibration fits"
	sec := sectionOf(t, buildDoc(t, in), "calibration")
	if len(sec.Blocks) != 1 || !strings.HasPrefix(sec.Blocks[0].Note, "No calibration: no run holds what the calibration fits.") {
		t.Errorf("blocks: %+v", sec.Blocks)
	}
	d := buildDoc(t, goldenInput())
	if s := texts(sectionOf(t, d, "summary")); strings.Contains(s, "calibrated") {
		t.Error("a report without calibration mentions one in its summary")
	}
	for _, f := range d.Figures {
		if f.ID == "paths-measured-topology" {
			t.Error("a model-only report draws a measured topology")
		}
	}
}

// A calibration whose comparison does not hold together is refused.
func TestCalibrationInputIsChecked(t *testing.T) {
	in := calibratedInput(t)
	c := *in.Calibration
	c.Comparison = append([]calib.Comparison(nil), c.Comparison...)
	c.Comparison[0].Measured = c.Comparison[0].Measured[1:]
	in.Calibration = &c
	if _, err := Render(in); err == nil || !strings.Contains(err.Error(), "calibration") {
		t.Errorf("a short comparison: %v", err)
	}
}

// With three comparisons or fewer the summary gives each one's error, not
// a count ("within 15% in 0 of its 1 comparisons"); with more, the count.
func TestCalibrationSummaryFewComparisons(t *testing.T) {
	base := model.Default()
	one := &calib.Calibration{Base: base, Runs: []calib.RunInfo{{Host: "vm"}}, Comparison: []calib.Comparison{
		{Label: "host-tcp: ping-pong one way (loopback)", Path: "host-tcp", CalibratedErr: fit.Comparison{MedianAPE: 23.4}, PresetErr: fit.Comparison{MedianAPE: 40.1}},
	}}
	got := calibrationSummary(one)
	if want := "is off by a median of 23.4% on host-tcp: ping-pong one way (loopback) over the measured sizes (preset default: 40.1%)."; !strings.Contains(got, want) {
		t.Errorf("one comparison:\n got %q\nwant …%q", got, want)
	}
	many := &calib.Calibration{Base: base, Runs: one.Runs}
	for i := range 4 {
		many.Comparison = append(many.Comparison, calib.Comparison{Label: fmt.Sprint("c", i), Path: "host-tcp",
			CalibratedErr: fit.Comparison{MedianAPE: float64(10 * i)}, PresetErr: fit.Comparison{MedianAPE: 50}})
	}
	if got := calibrationSummary(many); !strings.Contains(got, "in 2 of its 4 comparisons with measurement (preset default: 0)") {
		t.Errorf("four comparisons: %q", got)
	}
}

// TestCalibrateInterrupted: a done context ends the report's calibration
// and the reading of its runs with the context's error, not a note (the
// calibration of a large run used to run to its end after SIGINT).
func TestCalibrateInterrupted(t *testing.T) {
	rd, err := h200Run()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, note, err := CalibrateContext(ctx, []*record.RunData{rd}, model.Default()); !errors.Is(err, context.Canceled) || c != nil || note != "" {
		t.Errorf("calibration %v, note %q, error %v", c != nil, note, err)
	}
	if _, err := FromRunsContext(ctx, []*record.RunData{rd, rd}, model.Default()); !errors.Is(err, context.Canceled) {
		t.Errorf("FromRunsContext: %v", err)
	}
	if c, note, err := CalibrateContext(context.Background(), []*record.RunData{rd}, model.Default()); err != nil || c == nil {
		t.Errorf("live calibration: %v, note %q, error %v", c != nil, note, err)
	}
}
