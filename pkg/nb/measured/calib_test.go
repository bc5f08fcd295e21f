package measured

import (
	"html"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/units"
)

// calibrated is the calibration of the committed example run, as the
// notebook makes it.
func calibrated(t *testing.T) (*calib.Calibration, string) {
	t.Helper()
	root := repo(t)
	c, err := Calibrate(root, model.Default())
	if err != nil {
		t.Fatal(err)
	}
	return c, root
}

func TestCalibrationTables(t *testing.T) {
	c, _ := calibrated(t)
	if n := CalibrationNote(c); !strings.Contains(n, "Calibrated from `h200-1gpu/run` (measured on `vm`") || !strings.Contains(n, "`default` preset") {
		t.Errorf("note: %s", n)
	}

	rows := cells(FitTable(c))
	if len(rows) != 1+len(c.Fits) {
		t.Fatalf("fit table: %d rows for %d fits", len(rows), len(c.Fits))
	}
	for i, f := range c.Fits {
		r := rows[1+i]
		if r[0] != f.Stage || r[2] != interval(f.Fit.Alpha, seconds) || r[3] != units.Seconds(f.PresetAlpha).Human() ||
			r[4] != interval(f.Fit.Beta, rateOf) || r[5] != rateOf(f.PresetBeta) {
			t.Errorf("fit row %q for %s", r, f.Stage)
		}
		if f.Regimes != nil && !strings.Contains(r[8], "two regimes: the line holds up to "+units.Bytes(f.Regimes.Break).Human()) {
			t.Errorf("fit %s: two regimes not noted: %q", f.Stage, r[8])
		}
	}
	// The example's stage A: pinned D2H copies, α about 6.6 µs and β about 55 GB/s (fit.txt).
	if a := rows[1]; a[0] != "A" || !strings.HasPrefix(a[2], "6.6") || !strings.HasPrefix(a[4], "55.") {
		t.Errorf("stage A row %q", a)
	}

	if rows := cells(KeysTable(c)); len(rows) != 1+len(c.Keys) || rows[1][0] != c.Keys[0].Key || rows[1][2] != c.Keys[0].After {
		t.Errorf("keys table rows %d", len(rows))
	}

	rows = cells(ComparisonTable(c))
	if len(rows) != 1+len(c.Comparison) {
		t.Fatalf("comparison table: %d rows", len(rows))
	}
	for i, cmp := range c.Comparison {
		if r := rows[1+i]; html.UnescapeString(r[0]) != cmp.Label || r[2] != trim(cmp.PresetErr.MedianAPE)+"%" || r[4] != trim(cmp.CalibratedErr.MedianAPE)+"%" {
			t.Errorf("comparison row %q", r)
		}
	}

	rows = cells(StageRows(c))
	if len(rows) != 1+len(c.Stages) || len(rows[0]) != 4+len(calib.StageSizes) {
		t.Fatalf("stage table: %d rows, header %q", len(rows), rows[0])
	}
	for i, st := range c.Stages {
		r := rows[1+i]
		src := "preset"
		if st.Measured {
			src = "measured"
		}
		if !strings.HasPrefix(r[1], src) || !strings.HasPrefix(r[4], units.Seconds(st.Modeled[0]).Human()+" | ") {
			t.Errorf("stage row %q", r)
		}
	}
}

func TestStagedTransfer(t *testing.T) {
	c, root := calibrated(t)
	st := staged(c)
	if len(st) != 2 || st[0].Variant != "store-and-forward" || st[1].Variant != "pipelined" {
		t.Fatalf("staged comparisons %d", len(st))
	}
	ch, err := StagedChart(c)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := nb.SVG(ch, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"measured, store-and-forward", "measured, pipelined", "calibrated model, pipelined", "default model, store-and-forward", "model error"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the staged chart has no %q", w)
		}
	}

	v := Verdicts(c, false)
	for _, cmp := range st {
		if !strings.Contains(v, "**"+cmp.Label+"**") {
			t.Errorf("verdicts lack %q:\n%s", cmp.Label, v)
		}
		if cmp.PresetVerdict != "" && !strings.Contains(v, cmp.PresetVerdict) {
			t.Errorf("verdicts lack the preset's verdict %q", cmp.PresetVerdict)
		}
	}
	if all := Verdicts(c, true); strings.Count(all, "\n- **") != len(c.Comparison)-1 {
		t.Errorf("all verdicts:\n%s", all)
	}

	// The speed-up at the largest size, from the measured medians.
	sf, pl := st[0], st[1]
	n := len(sf.Bytes) - 1
	if sf.Bytes[n] != pl.Bytes[len(pl.Bytes)-1] {
		t.Fatalf("the variants end at %g and %g", sf.Bytes[n], pl.Bytes[len(pl.Bytes)-1])
	}
	sp, err := Speedup(c)
	if err != nil {
		t.Fatal(err)
	}
	want := "At " + units.Bytes(sf.Bytes[n]).Human() + ", pipelining in 512 KiB chunks makes the staged transfer **" +
		ratio(sf.Measured[n]/pl.Measured[len(pl.Measured)-1]) + "× as fast**"
	if !strings.HasPrefix(sp, want) {
		t.Errorf("speed-up %q, want it to start %q", sp, want)
	}

	for _, preset := range []bool{false, true} {
		in, err := ResidualsInput(c, root, preset)
		if err != nil {
			t.Fatal(err)
		}
		if len(in.Measured) != 3 || in.Measured[0].Path != "tcp" || in.Measured[1].Path != "host-tcp" {
			t.Errorf("residual series %+v", in.Measured)
		}
		if preset != (in.Scenario.Name != c.Loopback.Name) || in.Scenario.NIC.Kind != model.KindLoopback {
			t.Errorf("preset %v: scenario %q (%s)", preset, in.Scenario.Name, in.Scenario.NIC.Kind)
		}
		if _, err := Residuals(c, root, preset); err != nil {
			t.Error(err)
		}
	}
}
