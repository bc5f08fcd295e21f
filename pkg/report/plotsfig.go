package report

import (
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
)

// fromPlots makes a report figure of a pkg/plots figure: its drawing, title,
// caption (which already says what is modeled and what measured) and data.
func fromPlots(pf *plots.Figure, id, kind, origin string) *figure {
	return &figure{ID: id, Title: pf.Title, Caption: pf.Caption, Kind: kind, Origin: origin,
		W: pf.Width, H: pf.Height, Draw: pf, Data: pf.Data, captionHasOrigin: true}
}

// plotPaths are the paths the figures draw or list: the GPU-to-GPU paths
// between nodes and the host-to-host references (not gpu-peer, which
// stays inside a node).
func (a *analysis) plotPaths() []string {
	var out []string
	for _, p := range a.gpu {
		out = append(out, p.Name)
	}
	for _, p := range a.refs {
		out = append(out, p.Name)
	}
	return out
}

// gpuPaths are the GPU-to-GPU paths between nodes.
func (a *analysis) gpuPaths() []string {
	var out []string
	for _, p := range a.gpu {
		out = append(out, p.Name)
	}
	return out
}

// plotsMeasured maps measured series onto pkg/plots' form, keeping the
// points that carry the quantity a figure draws.
func plotsMeasured(m Measured, ss []record.Series, keep func(record.Series, record.Point) plots.Point) []plots.Measured {
	// The host's name and the time: the run's header gives the rest of
	// the host line, and every series of a figure repeats it.
	src := shortHost(orNone(m.Host)) + ", " + stamp(m.Start)
	var out []plots.Measured
	for _, s := range ss {
		pm := plots.Measured{Label: s.Label, Path: s.Path, Source: src}
		if _, err := model.LookupPath(s.Path); err != nil {
			pm.Path = ""
		}
		// A size measured more than once is drawn once (summarize): a run
		// repeating its sweep a thousand times draws its curve, not a
		// thousand points per size.
		for pts := s.Points; len(pts) > 0; {
			n := 1
			for n < len(pts) && pts[n].Bytes == pts[0].Bytes {
				n++
			}
			p := summarize(pts[:n])
			pts = pts[n:]
			pt := keep(s, p)
			if pt.Seconds > 0 || pt.Rate > 0 || pt.CPU > 0 {
				pt.Bytes = float64(p.Bytes)
				pm.Points = append(pm.Points, pt)
			}
		}
		if len(pm.Points) > 0 {
			out = append(out, pm)
		}
	}
	return out
}

// measuredPaths are the model paths the series name, in presentation order.
func measuredPaths(ms []plots.Measured) []string {
	seen := map[string]bool{}
	for _, m := range ms {
		if m.Path != "" {
			seen[m.Path] = true
		}
	}
	var out []string
	for _, n := range model.PathNames() {
		if seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// shortHost is the host's name at the start of a host line ("vm, Intel(R)
// Xeon(R) … × 16, Linux 6.18" gives "vm").
func shortHost(h string) string {
	if strings.HasPrefix(h, "unknown host") || strings.HasPrefix(h, "(") {
		return h
	}
	if i := strings.IndexAny(h, " ,"); i > 0 {
		return h[:i]
	}
	return h
}

// pathsSection is where the report says why each infeasible path cannot
// run (the section "The data paths", one note per path): the figures name
// those paths and refer there (plots.Input.ReasonsAt), so that the reason
// is said once, not in every caption.
const pathsSection = "the section “The data paths”"

// said are the reasons the section "The data paths" gives, by path: why
// each path infeasible in the report's scenario cannot run. A figure of
// another scenario (a what-if, the measured topology) refers there for the
// paths that fail for the same reason, and gives the others' reasons.
func (a *analysis) said() map[string]string {
	out := map[string]string{}
	for name, r := range a.routes {
		if !r.Feasible {
			out[name] = r.Reason
		}
	}
	return out
}
