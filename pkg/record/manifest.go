package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/units"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// File names inside a run directory.
const (
	ManifestFile = "manifest.json"
	ResultsFile  = "results.jsonl"
)

// ManifestFormat is the version of the manifest layout written by this package.
const ManifestFormat = 1

// Status is the state of a run or of one probe in it.
type Status string

// The states of a run (running, complete, interrupted) and of a probe
// (pending, running, ok, unavailable, failed, interrupted).
const (
	StatusPending     Status = "pending"
	StatusRunning     Status = "running"
	StatusOK          Status = "ok"
	StatusUnavailable Status = "unavailable"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
	StatusComplete    Status = "complete"
	// StatusPartial is a two-host run cut short by its peer (killed, link
	// down), a run in which some probes failed and others measured
	// (measure.RunStatus), or a probe whose budget ran out before its plan: what was
	// measured is kept, the Reason says why and what was not measured.
	StatusPartial Status = "partial"
)

// ProbeStatus is the outcome of one probe in a run.
type ProbeStatus struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Reason says why a probe was unavailable, how it failed, or where it
	// was interrupted.
	Reason string `json:"reason,omitempty"`
	// Results counts the records the probe wrote to results.jsonl.
	Results int `json:"results"`
	// BudgetS is the time the probe was given, in seconds.
	BudgetS float64   `json:"budget_s,omitempty"`
	Start   time.Time `json:"start,omitzero"`
	End     time.Time `json:"end,omitzero"`
	// Inventory is what a probe that reports one found (devices, links,
	// topology), as JSON.
	Inventory json.RawMessage `json:"inventory,omitempty"`
}

// Manifest describes a measurement run: the host, the plan, and per probe
// what came of it. The runner writes it as manifest.json when the run starts
// (status running), rewrites it as each probe starts and ends, and
// finalises it (complete or interrupted) at the end.
type Manifest struct {
	Format  int           `json:"format"`
	Tool    string        `json:"tool"`
	Version string        `json:"version"`
	Status  Status        `json:"status"`
	Start   time.Time     `json:"start"`
	End     time.Time     `json:"end,omitzero"`
	BudgetS float64       `json:"budget_s"`
	Host    Host          `json:"host"`
	Plan    Plan          `json:"plan"`
	Probes  []ProbeStatus `json:"probes"`
	// Results names the JSON Lines file of the records, relative to the run directory.
	Results string `json:"results"`
	// Reason says why a run is partial or interrupted; empty otherwise.
	Reason string `json:"reason,omitempty"`
	// Peer is the other host of a two-host run (rank 0, which served), as
	// it described itself; nil for a run of one host, so manifests written
	// before two-host runs read the same.
	Peer *Host `json:"peer,omitempty"`
	// Pairing says how the two hosts found each other; nil for one host.
	Pairing *Pairing `json:"pairing,omitempty"`
	// Sources are the hosts a run gathers from outside, each with the
	// hardware its own files name, where there are more than one (an
	// imported run of files from several hosts; at most MaxSources): the
	// records name theirs (Result.Host). Host then sums them up.
	Sources []Host `json:"sources,omitempty"`
	// Sweep describes a cluster sweep (every rank's place, the schedule,
	// the pairs not measured and why); nil for other runs. Sources then
	// holds every rank's host that came, in rank order.
	Sweep *Sweep `json:"sweep,omitempty"`
}

// Sweep is the manifest's section of a cluster sweep: N ranks launched
// together, every pair of a schedule measured in both directions in
// rounds of disjoint pairs, by rank 0, which wrote the run.
type Sweep struct {
	// Launcher is the convention the ranks came from; World the ranks
	// launched.
	Launcher string `json:"launcher"`
	World    int    `json:"world_size"`
	// Pairs is the schedule asked for (all, ring, random:K:DRAW, a file);
	// Rounds its rounds and Planned its pairs (among the ranks that came).
	Pairs   string `json:"pairs"`
	Rounds  int    `json:"rounds"`
	Planned int    `json:"planned_pairs"`
	// PerPairS is the time of one pair, both directions, in seconds.
	PerPairS float64 `json:"per_pair_s"`
	// Ranks is every rank launched, in rank order.
	Ranks []SweepRank `json:"ranks"`
	// Missing lists each direction of a pair not measured, with why.
	Missing []MissingPair `json:"missing,omitempty"`
}

// SweepRank is one rank of a sweep.
type SweepRank struct {
	Rank int    `json:"rank"`
	Host string `json:"host,omitempty"`
	// Status is "ok", "never came", "refused: …" or "lost: …".
	Status string `json:"status"`
}

// MissingPair is one direction of a pair that a sweep did not measure:
// From toward To (ranks and their hosts), and why.
type MissingPair struct {
	From     int    `json:"from"`
	To       int    `json:"to"`
	FromHost string `json:"from_host,omitempty"`
	ToHost   string `json:"to_host,omitempty"`
	Reason   string `json:"reason"`
}

// MaxSweepMissing bounds Sweep.Missing: every direction of every pair of
// MaxSources ranks' ring and random partners, and far more than a sweep
// of all pairs of a few hundred ranks loses.
const MaxSweepMissing = 1 << 17

// MaxSources bounds Manifest.Sources: an import takes at most 512 files,
// each naming its hosts (an nccl-tests output of a 64-node job names 64).
const MaxSources = 1024

// Pairing is how the two ranks of a two-host run were paired.
type Pairing struct {
	// Launcher is the convention the ranks came from (flags, torchrun,
	// openmpi, pmix, mpich, slurm).
	Launcher string `json:"launcher"`
	// Rank and WorldSize of the host that wrote the run (rank 1).
	Rank      int `json:"rank"`
	WorldSize int `json:"world_size"`
	LocalRank int `json:"local_rank"`
	// PeerAddr is the peer's control address; PeerVersion its gpupath version.
	PeerAddr    string `json:"peer_addr"`
	PeerVersion string `json:"peer_version"`
	// Found says how the peer address was found: flag, torchrun, rendezvous.
	Found string `json:"found,omitempty"`
}

// Hosts lists the hosts of the run: the host that wrote it, then its peer.
func (m *Manifest) Hosts() []Host {
	hs := []Host{m.Host}
	if m.Peer != nil {
		hs = append(hs, *m.Peer)
	}
	return hs
}

// Probe returns the status of the named probe, or nil.
func (m *Manifest) Probe(name string) *ProbeStatus {
	for i := range m.Probes {
		if m.Probes[i].Name == name {
			return &m.Probes[i]
		}
	}
	return nil
}

// MaxNameBytes bounds the names a manifest gives its hosts (hostname,
// kernel, OS, CPU and GPU models): reports show them in titles and
// captions; a host name is at most 253 bytes (DNS), the rest shorter.
const MaxNameBytes = 512

// ParseManifest decodes manifest.json. It fails on invalid JSON (with line
// and column), on trailing data, on a format newer than this reader, and on
// a manifest without a start time or status.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, describeJSONError(b, err)
	}
	if dec.More() {
		return nil, errors.New("malformed manifest: data after the JSON object")
	}
	switch {
	case m.Format < 1:
		return nil, errors.New("malformed manifest: no format version")
	case m.Format > ManifestFormat:
		return nil, fmt.Errorf("manifest format %d is newer than this reader (%d)", m.Format, ManifestFormat)
	case m.Status == "":
		return nil, errors.New("malformed manifest: no status")
	case m.Start.IsZero():
		return nil, errors.New("malformed manifest: no start time")
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("malformed manifest: %w", err)
	}
	// What a manifest names comes from outside: every text the report and
	// fit show is one line without control characters (Host.Clean), as the
	// writers make them.
	m.Host.Clean()
	if m.Peer != nil {
		m.Peer.Clean()
	}
	for i := range m.Sources {
		m.Sources[i].Clean()
	}
	if sw := m.Sweep; sw != nil {
		sw.Launcher, sw.Pairs = termtext.Name(sw.Launcher), termtext.Name(sw.Pairs)
		for i := range sw.Ranks {
			sw.Ranks[i].Host, sw.Ranks[i].Status = CleanName(sw.Ranks[i].Host), termtext.Name(sw.Ranks[i].Status)
		}
		for i := range sw.Missing {
			mp := &sw.Missing[i]
			mp.FromHost, mp.ToHost, mp.Reason = CleanName(mp.FromHost), CleanName(mp.ToHost), termtext.Name(mp.Reason)
		}
	}
	for i := range m.Probes {
		m.Probes[i].Name, m.Probes[i].Reason = termtext.Name(m.Probes[i].Name), termtext.Name(m.Probes[i].Reason)
	}
	m.Reason = termtext.Name(m.Reason)
	return &m, nil
}

// Statuses are the states a manifest may hold, for the run and its probes.
var Statuses = []Status{StatusPending, StatusRunning, StatusOK, StatusUnavailable, StatusFailed, StatusInterrupted, StatusComplete, StatusPartial}

// KnownStatus tells whether s is one of Statuses.
func KnownStatus(s Status) bool {
	for _, k := range Statuses {
		if s == k {
			return true
		}
	}
	return false
}

// validate checks the fields a reader shows as they are: every status is
// one gpupath writes, and no count, size or time is negative. The error
// names the field.
func (m *Manifest) validate() error {
	if err := checkStatus("status", m.Status); err != nil {
		return err
	}
	hosts := []struct {
		field string
		h     *Host
	}{{"host", &m.Host}, {"peer", m.Peer}}
	if sw := m.Sweep; sw != nil {
		switch {
		case sw.World < 0 || sw.Rounds < 0 || sw.Planned < 0 || sw.PerPairS < 0 || math.IsNaN(sw.PerPairS):
			return errors.New("field sweep: a negative count or time")
		case len(sw.Ranks) > MaxSources:
			return fmt.Errorf("field sweep.ranks: %d ranks, at most %d", len(sw.Ranks), MaxSources)
		case len(sw.Missing) > MaxSweepMissing:
			return fmt.Errorf("field sweep.missing: %d pairs, at most %d", len(sw.Missing), MaxSweepMissing)
		}
	}
	if len(m.Sources) > MaxSources {
		return fmt.Errorf("field sources: %d hosts, at most %d", len(m.Sources), MaxSources)
	}
	for i := range m.Sources {
		hosts = append(hosts, struct {
			field string
			h     *Host
		}{fmt.Sprintf("sources[%d]", i), &m.Sources[i]})
	}
	for _, h := range hosts {
		if h.h == nil {
			continue
		}
		texts := map[string]string{"hostname": h.h.Hostname, "kernel": h.h.Kernel, "kernel_version": h.h.KernelVersion,
			"os": h.h.OS, "arch": h.h.Arch, "cpu_model": h.h.CPUModel}
		for i, g := range h.h.GPUs {
			texts[fmt.Sprintf("gpus[%d].model", i)] = g.Model
		}
		for _, k := range slices.Sorted(maps.Keys(texts)) {
			v := texts[k]
			if len(v) > MaxNameBytes {
				return fmt.Errorf("%s.%s holds %d bytes: a name is at most %d", h.field, k, len(v), MaxNameBytes)
			}
			if r, ok := units.LineBreak(v); ok {
				return fmt.Errorf("%s.%s holds a line break (%U): a name is one line", h.field, k, r)
			}
		}
	}
	checks := []struct {
		field string
		v     float64
	}{{"budget_s", m.BudgetS}, {"plan.budget_ns", float64(m.Plan.Budget)}, {"plan.per_size_ns", float64(m.Plan.PerSize)},
		{"plan.tolerance", m.Plan.Tolerance}}
	for i, sz := range m.Plan.Sizes {
		checks = append(checks, struct {
			field string
			v     float64
		}{fmt.Sprintf("plan.sizes[%d]", i), float64(sz)})
	}
	for _, c := range checks {
		if c.v < 0 {
			return fmt.Errorf("field %s: %v is negative", c.field, c.v)
		}
	}
	if err := m.Host.validate("host"); err != nil {
		return err
	}
	if m.Peer != nil {
		if err := m.Peer.validate("peer"); err != nil {
			return err
		}
	}
	for i := range m.Sources {
		if err := m.Sources[i].validate(fmt.Sprintf("sources[%d]", i)); err != nil {
			return err
		}
	}
	if p := m.Pairing; p != nil && (p.Rank < 0 || p.WorldSize < 0 || p.LocalRank < 0) {
		return fmt.Errorf("field pairing: rank %d, world_size %d, local_rank %d: none may be negative", p.Rank, p.WorldSize, p.LocalRank)
	}
	for i, p := range m.Probes {
		at := fmt.Sprintf("probes[%d] (%s)", i, p.Name)
		if err := checkStatus(at+".status", p.Status); err != nil {
			return err
		}
		if p.Results < 0 {
			return fmt.Errorf("field %s.results: %d is negative", at, p.Results)
		}
		if p.BudgetS < 0 {
			return fmt.Errorf("field %s.budget_s: %v is negative", at, p.BudgetS)
		}
	}
	return nil
}

func checkStatus(field string, s Status) error {
	if KnownStatus(s) {
		return nil
	}
	names := make([]string, len(Statuses))
	for i, k := range Statuses {
		names[i] = string(k)
	}
	return fmt.Errorf("field %s: unknown status %q (gpupath writes %s)", field, string(s), strings.Join(names, ", "))
}

func (h *Host) validate(at string) error {
	for _, c := range []struct {
		field string
		v     int64
	}{{"cpus", int64(h.CPUs)}, {"memory_bytes", h.MemoryBytes}, {"llc_bytes", h.LLCBytes}} {
		if c.v < 0 {
			return fmt.Errorf("field %s.%s: %d is negative", at, c.field, c.v)
		}
	}
	for i, n := range h.NICs {
		if n.MTU < 0 || n.SpeedMbps < 0 {
			return fmt.Errorf("field %s.nics[%d] (%s): mtu %d, speed_mbps %d: neither may be negative", at, i, n.Name, n.MTU, n.SpeedMbps)
		}
	}
	return nil
}

func describeJSONError(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(b, se.Offset)
		return fmt.Errorf("malformed manifest: line %d, column %d: %v", line, col, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := lineCol(b, te.Offset)
		return fmt.Errorf("malformed manifest: line %d, column %d: field %q: %v", line, col, te.Field, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("malformed manifest: empty or cut off")
	}
	return fmt.Errorf("malformed manifest: %v", err)
}

func lineCol(b []byte, off int64) (line, col int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col = 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// RunDirName is the default name of a run directory: <host>-<UTC time>,
// e.g. "node1-20261129T135400Z".
func RunDirName(host string, t time.Time) string {
	host = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r < 32 {
			return '_'
		}
		return r
	}, host)
	if host == "" {
		host = "host"
	}
	return host + "-" + t.UTC().Format("20060102T150405Z")
}
