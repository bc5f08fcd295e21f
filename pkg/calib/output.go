package calib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// YAML writes the calibrated scenario as a file `gpupath model --scenario`
// reads: it starts from the base preset and sets only the keys the runs
// measured, each with a comment saying where its value comes from.
func (c *Calibration) YAML(now time.Time) []byte {
	var runs []string
	for _, r := range c.Runs {
		runs = append(runs, fmt.Sprintf("%s (host %s, %s)", r.Dir, r.Host, r.Start.UTC().Format(time.RFC3339)))
	}
	d := model.YAMLDoc{Head: []string{fmt.Sprintf("Calibrated by gpupath fit at %s from %s. Keys not set here come from the base preset. "+
		"To model the staged transfer between two GPUs of this host, add --set nic.kind=loopback --set nic.rdma=false.",
		now.UTC().Format(time.RFC3339), strings.Join(runs, "; "))}}
	base := c.Base.Name
	if _, err := model.Preset(base); err != nil {
		base = "default"
		d.Head = append(d.Head, "the base scenario is not a preset: keys it changed from the default are written out below")
	}
	d.Fields = []model.YAMLField{{Key: "base", Value: base}, {Key: "name", Value: c.Scenario.Name, Quote: true},
		{Key: "description", Value: c.Scenario.Description, Quote: true}}
	// Every key whose value differs from the base preset, by section.
	ref, _ := model.Preset(base)
	why := map[string]string{}
	for _, k := range c.Keys {
		why[k.Key] = k.Source
	}
	for _, k := range model.Keys() {
		if k.Name == "name" || k.Name == "description" {
			continue
		}
		v := k.Text(c.Scenario)
		if ref != nil && k.Text(ref) == v && why[k.Name] == "" {
			continue
		}
		src := why[k.Name]
		if src == "" {
			src = "from the base scenario " + c.Base.Name
		}
		d.Entries = append(d.Entries, model.YAMLEntry{Key: k.Name, Value: v, Comment: src})
	}
	var b bytes.Buffer
	writeYAML(&b, d) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteText writes the calibration for a terminal: the fits with their
// intervals next to the preset, the keys set, the comparisons with their
// errors and verdicts, the per-stage table and the warnings.
func (c *Calibration) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "fits (α + n/β, %s intervals, bootstrap over repetitions):\n", pct(c.level()))
	for _, f := range c.Fits {
		fmt.Fprintf(&b, "  %-5s %-62s α %-28s β %-34s preset α %s β %s  (median error %.1f%%, %d sizes)\n",
			f.Stage, f.Name, seconds(f.Fit.Alpha.Value, f.Fit.Alpha.Lo, f.Fit.Alpha.Hi), rate(f.Fit.Beta.Value, f.Fit.Beta.Lo, f.Fit.Beta.Hi),
			units.Seconds(f.PresetAlpha).Human(), units.Rate(f.PresetBeta).Human(), f.Fit.MedianAPE, f.Fit.Sizes)
		if g := f.Regimes; g != nil {
			fmt.Fprintf(&b, "        two regimes: up to %s as above; beyond, β %s (the split removes %.0f%% of one line's error)\n",
				units.Bytes(g.Break).Human(), rate(g.Above.Beta.Value, g.Above.Beta.Lo, g.Above.Beta.Hi), 100*g.Improvement)
		}
		for _, wn := range f.Fit.Warnings {
			fmt.Fprintf(&b, "        warning: %s\n", wn.Message)
		}
	}
	fmt.Fprintf(&b, "\nscenario keys set:\n")
	for _, k := range c.Keys {
		fmt.Fprintf(&b, "  %-22s %-12s → %-12s %s\n", k.Key, Display(k.Before), Display(k.After), k.Source)
	}
	fmt.Fprintf(&b, "\nmodel against measurement (absolute percentage error over sizes; preset = %s, calibrated = fitted):\n", c.Base.Name)
	for _, cmp := range c.Comparison {
		fmt.Fprintf(&b, "  %-62s preset median %6.1f%% worst %6.1f%% | calibrated median %5.1f%% worst %5.1f%%\n",
			cmp.Label, cmp.PresetErr.MedianAPE, cmp.PresetErr.WorstAPE, cmp.CalibratedErr.MedianAPE, cmp.CalibratedErr.WorstAPE)
		if cmp.ComponentsOnlyErr != nil {
			fmt.Fprintf(&b, "      from the component probes alone (no hand-off fitted): median %.1f%% worst %.1f%%\n", cmp.ComponentsOnlyErr.MedianAPE, cmp.ComponentsOnlyErr.WorstAPE)
		}
		if cmp.MultiChunk != nil {
			fmt.Fprintf(&b, "      sizes of two chunks or more: calibrated median %.1f%% worst %.1f%%\n", cmp.MultiChunk.MedianAPE, cmp.MultiChunk.WorstAPE)
		}
		if cmp.CalibratedVerdict != "" {
			fmt.Fprintf(&b, "      calibrated: %s\n", cmp.CalibratedVerdict)
		}
		if cmp.PresetVerdict != "" {
			fmt.Fprintf(&b, "      preset: %s\n", cmp.PresetVerdict)
		}
	}
	if len(c.Stages) > 0 {
		fmt.Fprintf(&b, "\nthe staged transfer on this host, stage by stage (calibrated model; measured where measured):\n")
		fmt.Fprintf(&b, "  %-50s %-10s", "stage", "source")
		for _, n := range StageSizes {
			fmt.Fprintf(&b, " %22s", units.Bytes(n).Human()+" model | meas.")
		}
		b.WriteString("\n")
		for _, r := range c.Stages {
			name := r.Name
			if r.Letter != "" {
				name = r.Letter + " " + name
			}
			src := "preset"
			if r.Measured {
				src = "measured"
			}
			fmt.Fprintf(&b, "  %-50s %-10s", name, src)
			for i := range StageSizes {
				m := "—"
				if !math.IsNaN(r.MeasuredAt[i]) {
					m = units.Seconds(r.MeasuredAt[i]).Human()
				}
				fmt.Fprintf(&b, " %22s", units.Seconds(r.Modeled[i]).Human()+" | "+m)
			}
			b.WriteString("\n")
		}
	}
	for _, wn := range c.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *Calibration) level() float64 {
	for _, f := range c.Fits {
		if f.Fit.Level > 0 {
			return f.Fit.Level
		}
	}
	return 0.95
}

func pct(l float64) string { return strconv.FormatFloat(100*l, 'g', 4, 64) + "%" }

func seconds(v, lo, hi float64) string {
	if lo <= 0 && v <= 0 {
		return "< " + units.Seconds(hi).Human()
	}
	return fmt.Sprintf("%s [%s, %s]", units.Seconds(v).Human(), units.Seconds(lo).Human(), units.Seconds(hi).Human())
}

func rate(v, lo, hi float64) string {
	if math.IsInf(v, 1) {
		return "> " + units.Rate(lo).Human()
	}
	h := units.Rate(hi).Human()
	if math.IsInf(hi, 1) {
		h = "∞"
	}
	return fmt.Sprintf("%s [%s, %s]", units.Rate(v).Human(), units.Rate(lo).Human(), h)
}

// WriteJSON writes the calibration as one JSON object.
func (c *Calibration) WriteJSON(w io.Writer) error {
	type fitJSON struct {
		Stage       string  `json:"stage"`
		Name        string  `json:"name"`
		Probe       string  `json:"probe"`
		Variant     string  `json:"variant"`
		Target      string  `json:"target"`
		PresetAlpha float64 `json:"preset_alpha_s"`
		PresetBeta  float64 `json:"preset_beta_Bps"`
		Fit         any     `json:"fit"`
	}
	out := struct {
		Base       string       `json:"base"`
		Scenario   any          `json:"scenario"`
		Keys       []Key        `json:"keys"`
		Fits       []fitJSON    `json:"fits"`
		Comparison []Comparison `json:"comparisons"`
		Stages     []StageRow   `json:"stages"`
		Warnings   []string     `json:"warnings,omitempty"`
		Runs       []RunInfo    `json:"runs"`
	}{Base: c.Base.Name, Scenario: c.Scenario.Map(), Keys: c.Keys, Comparison: c.Comparison, Stages: c.Stages, Warnings: c.Warnings, Runs: c.Runs}
	for _, f := range c.Fits {
		out.Fits = append(out.Fits, fitJSON{Stage: f.Stage, Name: f.Name, Probe: f.Series.Probe, Variant: f.Series.Variant, Target: f.Series.Target,
			PresetAlpha: f.PresetAlpha, PresetBeta: finiteOr(f.PresetBeta), Fit: f.Fit})
	}
	enc := termtext.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func finiteOr(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return v
}

// MarshalJSON writes NaN (not measured at that size) as null.
func (r StageRow) MarshalJSON() ([]byte, error) {
	nul := func(v []float64) []*float64 {
		out := make([]*float64, len(v))
		for i, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				x := x
				out[i] = &x
			}
		}
		return out
	}
	return json.Marshal(struct {
		Letter     string     `json:"letter"`
		Name       string     `json:"name"`
		Source     string     `json:"source"`
		Measured   bool       `json:"measured"`
		Alpha      any        `json:"alpha_s"`
		Beta       any        `json:"beta_Bps"`
		Sizes      []float64  `json:"bytes"`
		Modeled    []*float64 `json:"modeled_s"`
		MeasuredAt []*float64 `json:"measured_s"`
	}{r.Letter, r.Name, r.Source, r.Measured, r.Alpha, r.Beta, StageSizes, nul(r.Modeled), nul(r.MeasuredAt)})
}

// Display spells a key's value for people: rates and times rounded by the
// unit formatters (the scenario holds them exactly), anything else as it is.
func Display(v string) string {
	if r, err := units.ParseRate(v); err == nil && strings.HasSuffix(v, "/s") {
		return units.Rate(float64(r)).Compact()
	}
	if d, err := units.ParseDuration(v); err == nil && !strings.HasSuffix(v, "/s") {
		return units.Seconds(float64(d)).Compact()
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	return v
}
