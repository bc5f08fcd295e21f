package validate

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is the results with their figures: what WriteJSON writes.
type Report struct {
	Results []Result
	Summary Summary
}

// NewReport models rows and summarizes them.
func NewReport(rows []Row) Report {
	rs := Run(rows)
	return Report{Results: rs, Summary: Summarize(rs)}
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// WriteTable writes one line per row (published, modeled, ratio, error),
// the excluded rows with their reasons, the figures per source and per
// path, and the defaults each row's scenario took where the row says n/s.
func (rep Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tpath\tquantity\tsize\tpublished\tmodeled\tunit\tratio\terror\t")
	for _, r := range rep.Results {
		if !r.Included() {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t\n", r.Row.ID, r.Row.Path, r.Row.Quantity, r.Bytes.Human(),
			formatValue(r.Published, r.Row.Unit), formatValue(r.Modeled, r.Row.Unit), r.Row.Unit, r.Ratio, pct(r.Error()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := rep.Summary
	fmt.Fprintf(w, "\nall: %d rows, median error %s, worst %s (%s, ratio %.2f); %d rows excluded\n", s.All.Rows, pct(s.All.Median), pct(s.All.Worst), s.All.WorstID, s.All.WorstRatio, s.All.Excluded)
	group := func(title string, keys []string, m map[string]Figures) error {
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\trows\tmedian\tworst\trow\tratio\texcluded")
		for _, k := range keys {
			f := m[k]
			if f.Rows == 0 {
				fmt.Fprintf(tw, "%s\t0\t—\t—\t—\t—\t%d\n", k, f.Excluded)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.2f\t%d\n", k, f.Rows, pct(f.Median), pct(f.Worst), f.WorstID, f.WorstRatio, f.Excluded)
		}
		return tw.Flush()
	}
	if err := group("per source", s.Sources, s.BySource); err != nil {
		return err
	}
	if err := group("per path", s.PathNames, s.ByPath); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nnotes: rows excluded, and why")
	for _, r := range rep.Results {
		if r.Excluded != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.Row.ID, r.Excluded)
		}
	}
	fmt.Fprintln(w, "\nnotes: how each row was modeled (base preset, then the defaults taken where the row says n/s or nothing)")
	for _, r := range rep.Results {
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
	return nil
}

// JSONRow is one row in WriteJSON's output.
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

// WriteJSON writes {"rows": [...], "all": {...}, "by_source": {...},
// "by_path": {...}}; values are in each row's unit, errors are fractions.
func (rep Report) WriteJSON(w io.Writer) error {
	type fig struct {
		Rows       int     `json:"rows"`
		Median     float64 `json:"median_error"`
		Worst      float64 `json:"worst_error"`
		WorstID    string  `json:"worst_id,omitempty"`
		WorstRatio float64 `json:"worst_ratio,omitempty"`
		Excluded   int     `json:"excluded"`
	}
	conv := func(f Figures) fig { return fig(f) }
	out := struct {
		Rows     []JSONRow      `json:"rows"`
		All      fig            `json:"all"`
		BySource map[string]fig `json:"by_source"`
		ByPath   map[string]fig `json:"by_path"`
	}{All: conv(rep.Summary.All), BySource: map[string]fig{}, ByPath: map[string]fig{}}
	for _, r := range rep.Results {
		out.Rows = append(out.Rows, r.json())
	}
	for k, f := range rep.Summary.BySource {
		out.BySource[k] = conv(f)
	}
	for k, f := range rep.Summary.ByPath {
		out.ByPath[k] = conv(f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// CSVHeader is the header of WriteCSV.
var CSVHeader = []string{"id", "source", "path", "quantity", "unit", "bytes", "published", "modeled", "ratio", "error", "model", "base", "assumed", "excluded"}

// WriteCSV writes one line per row, excluded rows with their reason.
func (rep Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, r := range rep.Results {
		j := r.json()
		row := []string{j.ID, j.Source, j.Path, j.Quantity, j.Unit, strconv.FormatInt(j.Bytes, 10), g(j.Published), "", "", "", "", "", "", j.Excluded}
		if r.Included() {
			row[7], row[8], row[9], row[10], row[11], row[12] = g(j.Modeled), g(j.Ratio), g(j.Error), j.Model, j.Base, strings.Join(j.Assumed, "; ")
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
