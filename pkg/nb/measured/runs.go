package measured

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
)

// ExampleRun is the committed measurement run, relative to the repository
// root: `gpupath measure` on one NVIDIA H200 (all probes, TCP ping-pong up
// to 256 MiB over loopback). The notebooks load it so that they run the
// same everywhere, with or without a GPU.
const ExampleRun = "reports/examples/h200-1gpu/run"

// LocalRuns is where runs made on this machine land (the quick probes of
// `gpupath report` and of notebook 02), relative to the repository root.
// It is not committed: the notebooks use what is there, and need nothing.
const LocalRuns = "reports/runs"

// Runs are the measured runs a notebook shows: the committed example
// first, then any under LocalRuns.
type Runs struct {
	Root string
	All  []*record.RunData
	// Notes say which runs under LocalRuns could not be read.
	Notes []string
}

// Example is the committed run.
func (r *Runs) Example() *record.RunData { return r.All[0] }

// LoadRuns reads the committed example run under root (an error when it is
// missing or damaged) and every run under root's LocalRuns; one of those
// that cannot be read, or that holds no record (a run still in progress),
// is left out with a note.
func LoadRuns(root string) (*Runs, error) {
	ex, err := record.ReadRun(filepath.Join(root, filepath.FromSlash(ExampleRun)))
	if err != nil {
		return nil, err
	}
	rs := &Runs{Root: root, All: []*record.RunData{ex}}
	dirs, err := nb.FindRuns(filepath.Join(root, filepath.FromSlash(LocalRuns)))
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		rd, err := record.ReadRun(d)
		switch {
		case err != nil:
			rs.Notes = append(rs.Notes, fmt.Sprintf("`%s` left out: %v", rs.rel(d), err))
		case len(rd.Results) == 0:
			rs.Notes = append(rs.Notes, fmt.Sprintf("`%s` left out: no record (status %s)", rs.rel(d), rd.Manifest.Status))
		default:
			rs.All = append(rs.All, rd)
		}
	}
	return rs, nil
}

func (r *Runs) rel(p string) string {
	if s, err := filepath.Rel(r.Root, p); err == nil {
		return filepath.ToSlash(s)
	}
	return p
}

// Note says in Markdown which runs were loaded: where each was measured,
// when, and how many records it holds.
func (r *Runs) Note() string {
	var b strings.Builder
	for i, rd := range r.All {
		what := "the committed example"
		if i > 0 {
			what = "a run made here"
		}
		fmt.Fprintf(&b, "- `%s` (%s): measured on `%s` (%s) at %s, %d records, status %s.\n", r.rel(rd.Dir), what,
			rd.Manifest.Host.Name(), machine(rd), stamp(rd.Manifest.Start), len(rd.Results), rd.Manifest.Status)
	}
	if len(r.All) == 1 {
		fmt.Fprintf(&b, "- No run under `%s/`: the optional live cell below makes one on this machine.\n", LocalRuns)
	}
	for _, n := range r.Notes {
		b.WriteString("- " + n + "\n")
	}
	return b.String()
}

// machine tells a run's machine apart from others of the same host name:
// its GPUs (or none) and kernel.
func machine(rd *record.RunData) string {
	h := rd.Manifest.Host
	var gpus []string
	for _, g := range h.GPUs {
		gpus = append(gpus, g.Model)
	}
	g := "no GPU"
	if len(gpus) > 0 {
		g = strings.Join(gpus, ", ")
	}
	return strings.Join(nonEmpty(g, "Linux "+h.Kernel), ", ")
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// source names a run for a figure's provenance: host and start time.
func source(rd *record.RunData) string {
	return rd.Manifest.Host.Name() + ", " + stamp(rd.Manifest.Start)
}

// copySeries is a run's CUDA copies of a variant on the wall clock (the
// synchronous cuMemcpy the copy figure draws) on the first GPU the run
// copied on: the first such curve of the report's input of the run
// (report.FromRun).
func copySeries(rd *record.RunData, variant string) (record.Series, bool) {
	m, _ := report.FromRun(rd)
	for _, s := range m.Series {
		if s.Probe == "cuda" && s.Variant == variant && s.Timer == "wall" {
			return s, true
		}
	}
	return record.Series{}, false
}
