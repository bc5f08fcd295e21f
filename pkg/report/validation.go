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
// describes.
func (b *builder) validation(sec *section) {
	rep := validate.NewReport(validate.Published())
	s := rep.Summary
	sec.p("The model against %d published measurements of the data paths (perftest, OSU, nccl-tests, bandwidthTest, gdrcopy and others, on the hardware each source names; gpupath validate prints this table, and gpupath validate --sources the sources and their conventions). Each row is modeled on a scenario derived from its own hardware columns — the preset of the same generation, with what the row states set and documented defaults where it says n/s — not on this report's scenario.",
		len(rep.Results))
	sec.p("Over the %d rows in the figures the median error is %s and the worst %s (%s, model/published %.2f); %d rows are left out, each with its reason below: their source says they are not the data path's figure (a bug it reports, a mixed path it names, a software limit), their only hardware rate is their own figure, or they measure something the model does not describe (gdr_map's page-table cost).",
		s.All.Rows, pctText(s.All.Median), pctText(s.All.Worst), s.All.WorstID, s.All.WorstRatio, s.All.Excluded)
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
	origin := fmt.Sprintf("published: %d rows of %d sources (pkg/validate/data/published.csv); modeled on each row's own scenario", s.All.Rows, n)
	b.plot(sec, "validation", "modeled and measured", origin)(plots.Validation(pts, origin))

	sec.h3("Per source and per path")
	fig := &docTable{Head: []string{"", "rows", "median error", "worst error", "worst row", "excluded"}, Widths: []float64{1.6, 0.6, 1, 1, 1, 0.8},
		Right: []bool{false, true, true, true, false, true}}
	add := func(k string, f validate.Figures) {
		if f.Rows == 0 {
			fig.Rows = append(fig.Rows, []cell{c(k), c("0"), c("—"), c("—"), c("—"), c(strconv.Itoa(f.Excluded))})
			return
		}
		fig.Rows = append(fig.Rows, []cell{c(k), c(strconv.Itoa(f.Rows)), c(pctText(f.Median)), c(pctText(f.Worst)),
			{Text: f.WorstID, Sub: fmt.Sprintf("×%.2f", f.WorstRatio)}, c(strconv.Itoa(f.Excluded))})
	}
	add("all", s.All)
	for _, k := range s.Sources {
		add(k, s.BySource[k])
	}
	for _, k := range s.PathNames {
		add(k, s.ByPath[k])
	}
	sec.table(fig)

	sec.h3("Row by row")
	t := &docTable{Head: []string{"row", "path", "quantity", "size", "published", "modeled", "ratio"}, Widths: []float64{0.8, 1.6, 1.5, 0.8, 1, 1, 0.6},
		Right: []bool{false, false, false, true, true, true, true}}
	for _, r := range rep.Results {
		if !r.Included() {
			continue
		}
		t.Rows = append(t.Rows, []cell{c(r.Row.ID), {Text: r.Row.Path, Sub: r.Derived.Base}, c(r.Row.Quantity), c(r.Bytes.Human()),
			c(r.Row.Value + " " + r.Row.Unit), c(validate.Format(r.Modeled, r.Row.Unit) + " " + r.Row.Unit), c(fmt.Sprintf("%.2f", r.Ratio))})
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
