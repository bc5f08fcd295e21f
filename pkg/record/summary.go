package record

import (
	"fmt"
	"github.com/gpupath/gpupath/internal/termtext"
	"strings"
	"time"
)

// Summary is what `gpupath measure` and `gpupath import` say of the run
// they wrote: the one JSON object of both with --format json, and one line
// on stdout otherwise (Line), the way nccl-tests ends on "# Avg bus
// bandwidth".
type Summary struct {
	// Command is "measure" or "import".
	Command string `json:"command"`
	// Run is the run directory: gpupath report --data and fit --data read it.
	Run string `json:"run"`
	// Status is the run's (complete, partial, interrupted, failed).
	Status Status `json:"status"`
	// Results counts the records the run holds, all probes together.
	Results int `json:"results"`
	// Seconds is the run's wall time (0 for an import).
	Seconds float64 `json:"seconds"`
	// Probes are the run's probes (measure) or imported tools (import),
	// in the manifest's order.
	Probes []ProbeSummary `json:"probes"`
	// Files are the files written beside the run's own (host-scenario.yaml,
	// summary.txt), paths as given.
	Files []string `json:"files,omitempty"`
}

// ProbeSummary is one probe of a Summary.
type ProbeSummary struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Results int    `json:"results"`
	Reason  string `json:"reason,omitempty"`
}

// Summarize makes the summary of the run in dir, whose manifest is m.
func Summarize(command, dir string, m *Manifest) Summary {
	s := Summary{Command: command, Run: dir, Status: m.Status, Probes: []ProbeSummary{}}
	if !m.Start.IsZero() && !m.End.IsZero() && m.End.After(m.Start) {
		s.Seconds = m.End.Sub(m.Start).Round(time.Millisecond).Seconds()
	}
	for _, p := range m.Probes {
		s.Results += p.Results
		s.Probes = append(s.Probes, ProbeSummary{Name: p.Name, Status: p.Status, Results: p.Results, Reason: p.Reason})
	}
	return s
}

// Measured reports whether the run holds any record.
func (s Summary) Measured() bool { return s.Results > 0 }

// Line is the summary in one line: "gpupath measure: complete, 412
// results (tcp 200, memcpy 12, syscall 2 partial; cuda unavailable) in
// 21.3 s: reports/runs/h-20261202T101500Z".
func (s Summary) Line() string {
	// Probes of one name (an import's files of one tool) are counted together.
	type group struct {
		name, status string
		results, n   int
		notOK        int
	}
	var groups []*group
	byName := map[string]*group{}
	for _, p := range s.Probes {
		g := byName[p.Name]
		if g == nil {
			g = &group{name: p.Name, status: string(p.Status)}
			byName[p.Name] = g
			groups = append(groups, g)
		}
		g.n++
		g.results += p.Results
		if p.Status != StatusOK && p.Status != StatusComplete {
			g.notOK++
		}
	}
	var parts []string
	for _, g := range groups {
		switch {
		case g.n > 1:
			part := fmt.Sprintf("%s %d from %d outputs", g.name, g.results, g.n)
			if g.notOK > 0 {
				part += fmt.Sprintf(", %d not ok", g.notOK)
			}
			parts = append(parts, part)
		case g.results > 0 && g.notOK == 0:
			parts = append(parts, fmt.Sprintf("%s %d", g.name, g.results))
		case g.results > 0:
			parts = append(parts, fmt.Sprintf("%s %d %s", g.name, g.results, g.status))
		default:
			parts = append(parts, fmt.Sprintf("%s %s", g.name, g.status))
		}
	}
	line := fmt.Sprintf("gpupath %s: %s, %d results", s.Command, s.Status, s.Results)
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	if s.Seconds > 0 {
		line += fmt.Sprintf(" in %.1f s", s.Seconds)
	}
	// The run's path is the user's, and may hold anything: the line stays one.
	return line + ": " + termtext.Name(s.Run)
}

// Nothing says why a run that holds no record measured nothing: each
// probe's status and reason.
func (s Summary) Nothing() string {
	var why []string
	for _, p := range s.Probes {
		w := p.Name + " " + string(p.Status)
		if p.Reason != "" {
			w += " (" + p.Reason + ")"
		}
		why = append(why, w)
	}
	if len(why) == 0 {
		return "measured nothing: no probe ran"
	}
	return "measured nothing: " + strings.Join(why, "; ")
}
