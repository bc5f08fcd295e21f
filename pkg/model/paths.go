package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gpupath/gpupath/pkg/units"
)

// Role is what a path is in the account of how data travels between GPU
// nodes, and so where it appears: the figures of the report and the
// notebooks choose their paths by role, never by name.
type Role string

// The roles.
const (
	// RoleCompared: the three paths the account compares (tcp, rdma, gdr):
	// GPU to GPU between nodes, in every inter-node figure.
	RoleCompared Role = "compared"
	// RoleEnding: where the account ends (devmem TCP, and the plain-NIC
	// idea that cannot work): GPU to GPU between nodes, in every inter-node
	// figure, an infeasible one with its reason.
	RoleEnding Role = "ending"
	// RoleReference: host to host between nodes (no GPU), drawn beside the
	// GPU paths, thinner, as the familiar reference figures.
	RoleReference Role = "reference"
	// RoleIntraNode: inside one node (gpu-peer), in the single-node figures
	// only.
	RoleIntraNode Role = "intra-node"
)

// Dash names a line pattern.
type Dash string

// The line patterns.
const (
	DashSolid   Dash = "solid"
	DashDashed  Dash = "dashed"
	DashDotted  Dash = "dotted"
	DashDashDot Dash = "dash-dot"
)

// Glyph names the marker of a path's measured points.
type Glyph string

// The markers.
const (
	GlyphCircle   Glyph = "circle"
	GlyphSquare   Glyph = "square"
	GlyphTriangle Glyph = "triangle"
	GlyphDiamond  Glyph = "diamond"
	GlyphPlus     Glyph = "plus"
	GlyphCross    Glyph = "cross"
	GlyphRing     Glyph = "ring"
)

// Style is how one path looks in every figure: a colour ("#rrggbb"), the
// dash pattern of its model line and the glyph of its measured points
// (filled or open). pkg/plots draws it; the model only names it.
type Style struct {
	Color  string
	Dash   Dash
	Glyph  Glyph
	Filled bool
}

// Path is a named data path: how a message gets from a buffer on one node
// to a buffer on the other. Paths are data: Build makes the ordered stage
// table for a scenario, or says why the path is infeasible there. Each path
// is one file of this package that registers it (RegisterPath) with its
// metadata: its role, its style, whether it stages the payload in host
// memory.
type Path struct {
	Name  string
	Title string
	// Story says in a sentence or two what happens, as the account tells it.
	Story string
	// Order places the path in presentation order (ascending).
	Order int
	Role  Role
	Style Style
	// HostStaged is true when the payload passes through host memory (DDR)
	// on both sides: a bounce buffer (tcp, rdma) or host buffers (host-tcp,
	// host-rdma).
	HostStaged bool
	// GPU is true when the path starts and ends in GPU memory; Internode is
	// false for paths that stay inside one node. RegisterPath sets both
	// from Role.
	GPU       bool
	Internode bool
	// Build returns the path's stages on s, or the reason it is infeasible
	// there ("infeasible: …") and no stages.
	Build func(s *Scenario) ([]Stage, string)
	// Registration is the one-time registration of an n-byte buffer on one
	// node (nil: none).
	Registration func(s *Scenario, n units.Bytes) units.Seconds
	// Note says what the path's figures assume on s that a reader may not
	// (gdr: NCCL would not use GPUDirect RDMA this far from the NIC); nil
	// or "": nothing.
	Note func(s *Scenario) string
}

// Route is a path resolved for one scenario: its stages and the resources
// they share, ready to be evaluated at any message size.
type Route struct {
	Path     Path
	Feasible bool
	Reason   string // why not, when infeasible
	// Note says what the figures assume that a reader may not (see
	// Result.Note).
	Note      string
	Stages    []Stage
	Resources []Resource
	Chunk     units.Bytes

	loads    []resourceUses // Resources with the uses that load them, built once
	bidir    float64        // pcie.bidir_factor, for Bidirectional
	register func(n units.Bytes) units.Seconds
	// chunkPeriod is the pipeline's period for a full chunk, built once.
	chunkPeriod units.Seconds
	periodKnown bool
}

var (
	pathsMu sync.RWMutex
	paths   []Path // in presentation order
)

// RegisterPath adds a path to the registry, in its Order among the others,
// and returns a function that removes it again (for tests). The built-in
// paths register themselves, one file each; a path registered later
// appears in every figure and table its role puts it in. It is an error to
// register a name twice, or a path without a name, a Build or a known role.
func RegisterPath(p Path) (unregister func(), err error) {
	switch {
	case p.Name == "" || strings.ContainsAny(p.Name, ", "):
		return nil, fmt.Errorf("model: path name %q: a name is one word without commas", p.Name)
	case p.Build == nil:
		return nil, fmt.Errorf("model: path %s has no Build", p.Name)
	}
	switch p.Role {
	case RoleCompared, RoleEnding:
		p.GPU, p.Internode = true, true
	case RoleReference:
		p.GPU, p.Internode = false, true
	case RoleIntraNode:
		p.GPU, p.Internode = true, false
	default:
		return nil, fmt.Errorf("model: path %s: unknown role %q", p.Name, p.Role)
	}
	pathsMu.Lock()
	defer pathsMu.Unlock()
	for _, q := range paths {
		if q.Name == p.Name {
			return nil, fmt.Errorf("model: path %s is registered twice", p.Name)
		}
	}
	i := len(paths) // after every path of the same or a smaller Order
	for i > 0 && paths[i-1].Order > p.Order {
		i--
	}
	paths = slices.Insert(paths, i, p)
	return func() {
		pathsMu.Lock()
		defer pathsMu.Unlock()
		paths = slices.DeleteFunc(paths, func(q Path) bool { return q.Name == p.Name })
	}, nil
}

// mustRegister registers a built-in path.
func mustRegister(p Path) {
	if _, err := RegisterPath(p); err != nil {
		panic(err)
	}
}

// Paths lists every path in presentation order.
func Paths() []Path {
	pathsMu.RLock()
	defer pathsMu.RUnlock()
	return slices.Clone(paths)
}

// PathNames lists the path names in presentation order.
func PathNames() []string {
	ps := Paths()
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// PathsWith lists, in presentation order, the paths for which keep is true.
func PathsWith(keep func(Path) bool) []Path {
	var out []Path
	for _, p := range Paths() {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// LookupPath finds a path by name.
func LookupPath(name string) (Path, error) {
	pathsMu.RLock()
	for _, p := range paths {
		if p.Name == name {
			pathsMu.RUnlock()
			return p, nil
		}
	}
	pathsMu.RUnlock()
	return Path{}, fmt.Errorf("unknown path %q (paths: %s)", name, strings.Join(PathNames(), ", "))
}

// Route resolves the named path on s: LookupPath and Path.Route in one.
func (s *Scenario) Route(name string) (*Route, error) {
	if s == nil {
		return nil, fmt.Errorf("model: no scenario")
	}
	p, err := LookupPath(name)
	if err != nil {
		return nil, err
	}
	return p.Route(s), nil
}

// ParsePaths parses a comma-separated list of path names; "all" means
// every path. A list that names none ("", ","), an empty name in it and a
// name given twice are errors.
func ParsePaths(list string) ([]Path, error) {
	names, err := splitNames(list)
	if err != nil {
		return nil, &InputError{Key: "--paths", Err: err}
	}
	if names == nil {
		return Paths(), nil
	}
	out := make([]Path, 0, len(names))
	for _, name := range names {
		p, err := LookupPath(name)
		if err != nil {
			return nil, &InputError{Key: "--paths", Err: err}
		}
		out = append(out, p)
	}
	return out, nil
}

// splitNames is units.SplitNames of a --paths list: nil for "all".
func splitNames(list string) ([]string, error) {
	names, _, err := units.SplitNames(list, "path")
	return names, err
}

// Route resolves the path for scenario s.
func (p Path) Route(s *Scenario) *Route {
	stages, reason := p.Build(s)
	note := ""
	if reason == "" {
		stages, note, reason = s.wrap(p, stages)
	}
	if reason != "" {
		stages, note = nil, ""
	} else if p.Note != nil {
		note = joinNotes(p.Note(s), note)
	}
	r := &Route{Path: p, Feasible: reason == "", Reason: reason, Note: note, Stages: stages,
		Resources: s.resources(), Chunk: s.Pipeline.Chunk, bidir: s.PCIe.BidirFactor}
	if p.Registration != nil && r.Feasible {
		sc := s.Clone()
		r.register = func(n units.Bytes) units.Seconds { return p.Registration(sc, n) }
	}
	r.loads = indexUses(r.Stages, r.Resources)
	if r.Feasible && r.Chunk > 0 {
		r.chunkPeriod, r.periodKnown = period(r.Stages, r.loads, r.Chunk), true
	}
	return r
}

// MustRoute is Route for a path name the caller knows exists (a constant
// of its own code); it panics on an unknown name or a nil scenario.
func (s *Scenario) MustRoute(name string) *Route {
	r, err := s.Route(name)
	if err != nil {
		panic(err)
	}
	return r
}

// joinNotes joins the notes that are not empty with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
