package validate

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/units"
)

// Report is the rows modeled in both modes, with their figures: what the
// writers write. Results and Summary are the full mode's, Partial and
// PartialSummary the partial mode's (the same rows, in the same order).
type Report struct {
	Results        []Result
	Summary        Summary
	Partial        []Result
	PartialSummary Summary
	// Both makes the writers show the partial mode beside the full one
	// (gpupath validate --partial); without it they write the full mode.
	Both bool
}

// NewReport models rows in both modes and summarizes them.
func NewReport(rows []Row) Report {
	rep, _ := NewReportContext(context.Background(), rows)
	return rep
}

// NewReportContext is NewReport that ends at an interrupt (ctx's error).
func NewReportContext(ctx context.Context, rows []Row) (Report, error) {
	full, err := RunModeContext(ctx, rows, Full)
	if err != nil {
		return Report{}, err
	}
	part, err := RunModeContext(ctx, rows, Partial)
	if err != nil {
		return Report{}, err
	}
	return Report{Results: full, Summary: Summarize(full), Partial: part, PartialSummary: Summarize(part)}, nil
}

// Mode says which modes the writers show: "full" or "full and partial".
func (rep Report) Mode() string {
	if rep.Both {
		return "full and partial"
	}
	return string(Full)
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// modeLine is one mode's figures in a sentence.
func modeLine(m Mode, s Summary) string {
	if s.All.Rows == 0 {
		return fmt.Sprintf("%s: no row modeled; %d rows excluded (the notes say why)", m, s.All.Excluded)
	}
	return fmt.Sprintf("%s: %d rows, median error %s, worst %s (%s, ratio %.2f); %d rows excluded", m, s.All.Rows, pct(s.All.Median), pct(s.All.Worst), s.All.WorstID, s.All.WorstRatio, s.All.Excluded)
}

// modeDoc says what a mode models each row from.
var modeDoc = map[Mode]string{
	Full:    "each row on the preset of its generation, with what the row states and, where it names no hardware, the hardware of its era",
	Partial: "each row on the default preset with only what the row states (catalog names where it names hardware)",
}

// WriteTable writes which mode, one line per row (published, modeled,
// ratio, error; with Both, the partial mode's beside), the figures overall,
// per source and per path, the excluded rows with their reasons, and how
// each row was modeled: its base and the keys the row leaves open.
func (rep Report) WriteTable(w io.Writer) error {
	modes := []Mode{Full}
	if rep.Both {
		modes = Modes
	}
	for _, m := range modes {
		fmt.Fprintf(w, "mode %s: %s\n", m, modeDoc[m])
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "id\tpath\tquantity\tsize\tpublished\tmodeled\tratio\terror\t"
	if rep.Both {
		head = "id\tpath\tquantity\tsize\tpublished\tfull\tratio\terror\tpartial\tratio\terror\t"
	}
	fmt.Fprintln(tw, head)
	for i, r := range rep.Results {
		if !rep.Both {
			if !r.Included() {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t\n", r.Row.ID, r.Row.Path, r.Row.Quantity, r.Bytes.Human(),
				tableValue(r.Published, r.Row.Unit), tableValue(r.Modeled, r.Row.Unit), r.Ratio, pct(r.Error()))
			continue
		}
		p := rep.Partial[i]
		if !r.Included() && !p.Included() {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Row.ID, r.Row.Path, r.Row.Quantity, r.Bytes.Human(),
			tableValue(r.Published, r.Row.Unit), cells(r), cells(p))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, modeLine(Full, rep.Summary))
	if rep.Both {
		fmt.Fprintln(w, modeLine(Partial, rep.PartialSummary))
	}
	group := func(title string, keys []string, full, part map[string]Figures) error {
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if rep.Both {
			fmt.Fprintln(tw, "\trows\tfull median\tworst\trow\tratio\tpartial median\tworst\trow\tratio\texcluded")
		} else {
			fmt.Fprintln(tw, "\trows\tmedian\tworst\trow\tratio\texcluded")
		}
		for _, k := range keys {
			f := full[k]
			line := k + "\t" + strconv.Itoa(f.Rows) + "\t" + figureCells(f)
			if rep.Both {
				line += "\t" + figureCells(part[k])
			}
			fmt.Fprintf(tw, "%s\t%d\n", line, f.Excluded)
		}
		return tw.Flush()
	}
	s, ps := rep.Summary, rep.PartialSummary
	if err := group("per source", s.Sources, s.BySource, ps.BySource); err != nil {
		return err
	}
	if err := group("per path", s.PathNames, s.ByPath, ps.ByPath); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nnotes: rows excluded, and why")
	for i, r := range rep.Results {
		if r.Excluded != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.Row.ID, r.Excluded)
		} else if rep.Both && rep.Partial[i].Excluded != "" {
			fmt.Fprintf(w, "  %s (partial mode only): %s\n", r.Row.ID, rep.Partial[i].Excluded)
		}
	}
	for _, m := range modes {
		rs := rep.Results
		if m == Partial {
			rs = rep.Partial
		}
		fmt.Fprintf(w, "\nnotes: how each row was modeled in the %s mode (base preset, then the keys of its path the row leaves open, with the value taken and the rule that gave it)\n", m)
		for _, r := range rs {
			if !r.Included() {
				continue
			}
			line := fmt.Sprintf("  %s: %s on %s", r.Row.ID, r.Model, r.Derived.Base)
			if len(r.Derived.Assumed) > 0 {
				line += "; assumed " + strings.Join(r.Derived.Assumed, ", ")
			}
			if len(r.Notes) > 0 {
				line += "; " + strings.Join(r.Notes, "; ")
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// cells are one mode's modeled value, ratio and error of a row, or why it
// is left out.
func cells(r Result) string {
	if !r.Included() {
		return "excluded\t—\t—"
	}
	return fmt.Sprintf("%s\t%.2f\t%s", tableValue(r.Modeled, r.Row.Unit), r.Ratio, pct(r.Error()))
}

func figureCells(f Figures) string {
	if f.Rows == 0 {
		return "—\t—\t—\t—"
	}
	return fmt.Sprintf("%s\t%s\t%s\t%.2f", pct(f.Median), pct(f.Worst), f.WorstID, f.WorstRatio)
}

// JSONRow is one row in WriteJSON's output: the full mode's figures, and
// with Both the partial mode's under "partial".
type JSONRow struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Path      string   `json:"path"`
	Quantity  string   `json:"quantity"`
	Unit      string   `json:"unit"`
	Bytes     int64    `json:"bytes"`
	Published float64  `json:"published"`
	Modeled   float64  `json:"modeled,omitempty"`
	Ratio     float64  `json:"ratio,omitempty"`
	Error     float64  `json:"error,omitempty"`
	Model     string   `json:"model,omitempty"`
	Base      string   `json:"base,omitempty"`
	Set       []string `json:"set,omitempty"`
	Assumed   []string `json:"assumed,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Excluded  string   `json:"excluded,omitempty"`
	Partial   *JSONRow `json:"partial,omitempty"`
}

func (r Result) json() JSONRow {
	j := JSONRow{ID: r.Row.ID, Source: r.Row.SourceID(), Path: r.Row.Path, Quantity: r.Row.Quantity, Unit: r.Row.Unit,
		Bytes: int64(r.Bytes), Excluded: r.Excluded, Notes: r.Notes}
	j.Published, _ = strconv.ParseFloat(formatValue(r.Published, r.Row.Unit), 64)
	if r.Included() {
		j.Modeled, _ = strconv.ParseFloat(formatValue(r.Modeled, r.Row.Unit), 64)
		j.Ratio, j.Error, j.Model = r.Ratio, r.Error(), r.Model
		j.Base, j.Set, j.Assumed = r.Derived.Base, r.Derived.Set, r.Derived.Assumed
	}
	return j
}

// jsonFigures are one group's figures in JSON.
type jsonFigures struct {
	Rows int `json:"rows"`
	// Median and Worst are null for a group of no row modeled: no error
	// is not an error of 0.
	Median     *float64 `json:"median_error"`
	Worst      *float64 `json:"worst_error"`
	WorstID    string   `json:"worst_id,omitempty"`
	WorstRatio float64  `json:"worst_ratio,omitempty"`
	Excluded   int      `json:"excluded"`
}

func figuresJSON(f Figures) jsonFigures {
	j := jsonFigures{Rows: f.Rows, WorstID: f.WorstID, WorstRatio: f.WorstRatio, Excluded: f.Excluded}
	if f.Rows > 0 {
		j.Median, j.Worst = &f.Median, &f.Worst
	}
	return j
}

// Empty is the error of a report of which no row was modeled (nil when
// one was).
func (rep Report) Empty() error {
	if rep.Summary.All.Rows > 0 {
		return nil
	}
	return fmt.Errorf("no row of the table was modeled (%d excluded: the notes say why)", rep.Summary.All.Excluded)
}

// jsonSummary is one mode's figures in JSON.
type jsonSummary struct {
	All      jsonFigures            `json:"all"`
	BySource map[string]jsonFigures `json:"by_source"`
	ByPath   map[string]jsonFigures `json:"by_path"`
}

func summaryJSON(s Summary) jsonSummary {
	out := jsonSummary{All: figuresJSON(s.All), BySource: map[string]jsonFigures{}, ByPath: map[string]jsonFigures{}}
	for k, f := range s.BySource {
		out.BySource[k] = figuresJSON(f)
	}
	for k, f := range s.ByPath {
		out.ByPath[k] = figuresJSON(f)
	}
	return out
}

// WriteJSON writes {"mode": ..., "rows": [...], "all": {...}, "by_source":
// {...}, "by_path": {...}} for the full mode, and with Both "partial":
// {"all", "by_source", "by_path"} and each row's partial figures under its
// "partial"; values are in each row's unit, errors are fractions.
func (rep Report) WriteJSON(w io.Writer) error {
	full := summaryJSON(rep.Summary)
	out := struct {
		Mode string    `json:"mode"`
		Rows []JSONRow `json:"rows"`
		jsonSummary
		Partial *jsonSummary `json:"partial,omitempty"`
	}{Mode: rep.Mode(), jsonSummary: full}
	if rep.Both {
		p := summaryJSON(rep.PartialSummary)
		out.Partial = &p
	}
	for i, r := range rep.Results {
		j := r.json()
		if rep.Both {
			p := rep.Partial[i].json()
			j.Partial = &p
		}
		out.Rows = append(out.Rows, j)
	}
	enc := termtext.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// CSVHeader is the header of WriteCSV; CSVPartialHeader the columns Both
// adds.
var (
	CSVHeader        = []string{"id", "source", "path", "quantity", "unit", "bytes", "published", "modeled", "ratio", "error", "model", "base", "assumed", "excluded"}
	CSVPartialHeader = []string{"partial_modeled", "partial_ratio", "partial_error", "partial_base", "partial_assumed", "partial_excluded"}
)

// WriteCSV writes one line per row, excluded rows with their reason; with
// Both, the partial mode's columns after the full mode's.
func (rep Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := CSVHeader
	if rep.Both {
		head = append(append([]string(nil), CSVHeader...), CSVPartialHeader...)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	g := units.Cell
	for i, r := range rep.Results {
		j := r.json()
		row := []string{j.ID, j.Source, j.Path, j.Quantity, j.Unit, strconv.FormatInt(j.Bytes, 10), g(j.Published), "", "", "", "", "", "", j.Excluded}
		if r.Included() {
			row[7], row[8], row[9], row[10], row[11], row[12] = g(j.Modeled), g(j.Ratio), g(j.Error), j.Model, j.Base, strings.Join(j.Assumed, "; ")
		}
		if rep.Both {
			p := rep.Partial[i]
			pj := p.json()
			more := []string{"", "", "", "", "", pj.Excluded}
			if p.Included() {
				more[0], more[1], more[2], more[3], more[4] = g(pj.Modeled), g(pj.Ratio), g(pj.Error), pj.Base, strings.Join(pj.Assumed, "; ")
			}
			row = append(row, more...)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
