package report

import (
	"fmt"
	"strconv"

	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/validate"
)

// validation is the section "Model against published measurements": the
// model against the table of published figures that pkg/validate carries
// (its sources in the table's README), independent of this report's
// scenario: every row is modeled on the scenario its own hardware
// describes, in both of validate's modes (full: the preset of the row's
// generation; partial: the default preset with only what the row states).
func (b *builder) validation(sec *section) {
	rep := validate.NewReport(validate.Published())
	s, ps := rep.Summary, rep.PartialSummary
	sec.p("The model against %d published measurements of the data paths (perftest, OSU, nccl-tests, bandwidthTest, gdrcopy and others, on the hardware each source names; gpupath validate prints this table, gpupath validate --partial both modes, and gpupath validate --sources the sources and their conventions). Each row is modeled on a scenario derived from its own hardware columns, not on this report's scenario, in two modes: full — the preset of the row's generation, with what the row states and, where it names no hardware, the hardware of its era — and partial — the default preset with only what the row states (the catalog's entries for the hardware it names), which shows how far the model's own defaults and rules carry.",
		len(rep.Results))
	sec.p("Over the %d rows in the figures the full mode's median error is %s and its worst %s (%s, model/published %.2f); the partial mode's median is %s and its worst %s (%s, %.2f). %d rows are left out, each with its reason below: their source says they are not the data path's figure (a bug it reports, a mixed path it names, a software limit), their only hardware rate is their own figure, or they measure something the model does not describe (gdr_map's page-table cost).",
		s.All.Rows, pctText(s.All.Median), pctText(s.All.Worst), s.All.WorstID, s.All.WorstRatio, pctText(ps.All.Median), pctText(ps.All.Worst), ps.All.WorstID, ps.All.WorstRatio, s.All.Excluded)
	var pts []plots.ValidationPoint
	for _, r := range rep.Results {
		if !r.Included() {
			continue
		}
		pts = append(pts, plots.ValidationPoint{ID: r.Row.ID, Path: validate.ModelPath(r.Row.Path), Group: r.Row.Path,
			Time: r.Kind == validate.KindTime, Published: r.Published, Modeled: r.Modeled})
	}
	n := 0
	for _, k := range s.Sources {
		if s.BySource[k].Rows > 0 {
			n++
		}
	}
	origin := fmt.Sprintf("published: %d rows of %d sources (pkg/validate/data/published.csv); modeled on each row's own scenario (full mode)", s.All.Rows, n)
	b.plot(sec, "validation", "modeled and measured", origin)(plots.Validation(pts, origin))

	sec.h3("Per source and per path")
	fig := &docTable{Head: []string{"", "rows", "full: median", "worst", "partial: median", "worst", "excluded"}, Widths: []float64{1.6, 0.5, 0.9, 1, 0.9, 1, 0.7},
		Right: []bool{false, true, true, false, true, false, true}}
	worst := func(f validate.Figures) cell {
		if f.Rows == 0 {
			return c("—")
		}
		return cell{Text: pctText(f.Worst), Sub: fmt.Sprintf("%s ×%.2f", f.WorstID, f.WorstRatio)}
	}
	median := func(f validate.Figures) cell {
		if f.Rows == 0 {
			return c("—")
		}
		return c(pctText(f.Median))
	}
	add := func(k string, f, p validate.Figures) {
		fig.Rows = append(fig.Rows, []cell{c(k), c(strconv.Itoa(f.Rows)), median(f), worst(f), median(p), worst(p), c(strconv.Itoa(f.Excluded))})
	}
	add("all", s.All, ps.All)
	for _, k := range s.Sources {
		add(k, s.BySource[k], ps.BySource[k])
	}
	for _, k := range s.PathNames {
		add(k, s.ByPath[k], ps.ByPath[k])
	}
	sec.table(fig)

	sec.h3("Row by row")
	t := &docTable{Head: []string{"row", "path", "quantity", "size", "published", "full", "ratio", "partial", "ratio"}, Widths: []float64{0.7, 1.5, 1.4, 0.7, 0.9, 0.9, 0.5, 0.9, 0.5},
		Right: []bool{false, false, false, true, true, true, true, true, true}}
	for i, r := range rep.Results {
		if !r.Included() {
			continue
		}
		p := rep.Partial[i]
		pv, pr := c("—"), c("—")
		if p.Included() {
			pv, pr = c(validate.Format(p.Modeled, p.Row.Unit)+" "+p.Row.Unit), c(fmt.Sprintf("%.2f", p.Ratio))
		}
		t.Rows = append(t.Rows, []cell{c(r.Row.ID), {Text: r.Row.Path, Sub: r.Derived.Base}, c(r.Row.Quantity), c(r.Bytes.Human()),
			c(r.Row.Value + " " + r.Row.Unit), c(validate.Format(r.Modeled, r.Row.Unit) + " " + r.Row.Unit), c(fmt.Sprintf("%.2f", r.Ratio)), pv, pr})
	}
	sec.table(t)

	sec.h3("Rows left out, and why")
	ex := &docTable{Head: []string{"row", "path", "reason"}, Widths: []float64{0.8, 1.6, 5}}
	for _, r := range rep.Results {
		if r.Excluded != "" {
			ex.Rows = append(ex.Rows, []cell{c(r.Row.ID), c(r.Row.Path), c(r.Excluded)})
		}
	}
	sec.table(ex)
}

func pctText(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + " %" }
