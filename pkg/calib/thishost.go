package calib

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// records returns the records of a probe and variant.
func records(rs []record.Result, probe, variant string) []record.Result {
	var out []record.Result
	for _, r := range rs {
		if r.Probe == probe && r.Variant == variant {
			out = append(out, r)
		}
	}
	return out
}

// timed keeps the records whose median time is a real transfer's, within
// [fit.MinSeconds, fit.MaxSeconds] (1 ps to 10⁶ s, the fits' own physical
// range); when it leaves some out it adds a note for key to *notes. Every
// time that becomes a scenario value without a fit goes through it.
func timed(rs []record.Result, key string, notes *[]string) []record.Result {
	var out []record.Result
	for _, r := range rs {
		if r.MedianS >= fit.MinSeconds && r.MedianS <= fit.MaxSeconds {
			out = append(out, r)
		}
	}
	if n := len(rs) - len(out); n > 0 {
		*notes = append(*notes, fmt.Sprintf("%s: %d of %d %s/%s record(s) left out: a median time outside [%g s, %g s], %s",
			key, n, len(rs), rs[0].Probe, rs[0].Variant, fit.MinSeconds, fit.MaxSeconds, outOfRange))
	}
	return out
}

// outOfRange ends the notes of timed: Calibrate repeats those as warnings.
const outOfRange = "the range of a real measurement"

// physical says whether a derived time is within the fits' physical range.
func physical(t float64) bool { return t >= fit.MinSeconds && t <= fit.MaxSeconds }

// atSmallest returns the records at the smallest size among rs, and that size.
func atSmallest(rs []record.Result) ([]record.Result, int64) {
	if len(rs) == 0 {
		return nil, 0
	}
	small := rs[0].Bytes
	for _, r := range rs {
		small = min(small, r.Bytes)
	}
	var out []record.Result
	for _, r := range rs {
		if r.Bytes == small {
			out = append(out, r)
		}
	}
	return out, small
}

func medians(rs []record.Result) []float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.MedianS
	}
	return v
}

// ScenarioDoc is the overrides as a scenario fragment for model.WriteYAML:
// nested keys in the model's layout, each value preceded by a comment with
// its source, under title. The fragment merges over a preset
// (`--scenario`) or is read key by key.
func ScenarioDoc(title string, ovs []model.Override) (model.YAMLDoc, error) {
	d := model.YAMLDoc{Width: 98}
	if title != "" {
		d.Head = []string{title}
	}
	for _, o := range ovs {
		sec, key, ok := strings.Cut(o.Key, ".")
		if !ok || sec == "" || key == "" || strings.Contains(key, ".") {
			return model.YAMLDoc{}, fmt.Errorf("override key %q is not section.key", o.Key)
		}
		text, err := o.Text()
		if err != nil {
			return model.YAMLDoc{}, err
		}
		d.Entries = append(d.Entries, model.YAMLEntry{Key: o.Key, Value: text, Comment: o.Source})
	}
	// A section's keys are written together, in the order they first came.
	order := map[string]int{}
	for _, e := range d.Entries {
		sec, _, _ := strings.Cut(e.Key, ".")
		if _, ok := order[sec]; !ok {
			order[sec] = len(order)
		}
	}
	sort.SliceStable(d.Entries, func(a, b int) bool {
		sa, _, _ := strings.Cut(d.Entries[a].Key, ".")
		sb, _, _ := strings.Cut(d.Entries[b].Key, ".")
		return order[sa] < order[sb]
	})
	return d, nil
}

// WriteScenarioYAML writes the overrides as a scenario fragment
// (ScenarioDoc through writeYAML).
func WriteScenarioYAML(w io.Writer, title string, ovs []model.Override) error {
	d, err := ScenarioDoc(title, ovs)
	if err != nil {
		return err
	}
	return writeYAML(w, d)
}

// HostScenarioYAML is the scenario file of a run's host (host-scenario.yaml,
// next to the run): a title comment, name and description, then the keys
// measured on the host (ThisHost) with their sources, and the notes on what
// was not derived. Keys it does not set come from the default preset.
func HostScenarioYAML(rd *record.RunData, ovs []model.Override, notes []string) ([]byte, error) {
	title := fmt.Sprintf("This host (%s), measured by gpupath %s at %s. Keys not listed come from the default preset.",
		rd.Manifest.Host.Hostname, rd.Manifest.Version, rd.Manifest.Start.Format(time.RFC3339))
	if len(notes) > 0 {
		title += " Not derived: " + strings.Join(notes, "; ")
	}
	d, err := ScenarioDoc(title, ovs)
	if err != nil {
		return nil, err
	}
	// The host's name escaped and cut as a manifest keeps it (at most 512
	// bytes), so that the texts stay under a scenario's 1 KiB a text.
	host := record.CleanName(rd.Manifest.Host.Hostname)
	d.Fields = []model.YAMLField{{Key: "name", Value: "this-host " + host, Quote: true},
		{Key: "description", Value: fmt.Sprintf("%s as measured at %s (run %s)", host, rd.Manifest.Start.Format(time.RFC3339), record.CleanName(filepath.Base(rd.Dir))), Quote: true}}
	var b bytes.Buffer
	if err := writeYAML(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteHostScenario writes the run's host scenario (HostScenarioYAML) next
// to it as host-scenario.yaml, a file `gpupath model --scenario` reads,
// after checking that the model accepts it; it never replaces a file
// there. It returns the file's path ("" when the run gave no value) and
// the same values as --set flags for a command line.
func WriteHostScenario(rd *record.RunData, ovs []model.Override, notes []string) (path, sets string, err error) {
	if len(ovs) == 0 {
		return "", "", nil
	}
	text, err := HostScenarioYAML(rd, ovs, notes)
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(rd.Dir, "host-scenario.yaml")
	if _, err := model.Parse(text, path); err != nil {
		return "", "", fmt.Errorf("the derived host scenario does not load: %w", err)
	}
	flags := make([]string, 0, len(ovs))
	for _, o := range ovs {
		v, err := o.Text()
		if err != nil {
			return "", "", err
		}
		flags = append(flags, "--set "+o.Key+"="+termtext.ShellWord(v))
	}
	if err := safeio.WriteFile(path, text, false); err != nil {
		return "", "", err
	}
	return path, strings.Join(flags, " "), nil
}
