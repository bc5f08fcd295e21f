package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// This file judges a cluster sweep (a run whose manifest has a sweep
// section): per quantity, what every host measured toward every other,
// the pairs far from the rest and from the model, and the hosts all of
// whose pairs are slow. The report's section "Cluster sweep" draws it;
// SweepFile writes the same as JSON beside the run.

// The thresholds of an outlier: a direction whose bandwidth is below
// SweepBandwidthFactor of the median of every measured direction, or whose
// latency is above SweepLatencyFactor of the median. The model's value for
// the link (the host-to-host TCP path of the report's scenario) stands
// beside each, as the ratio of the median and of each outlier to it: it
// says what the link should do, but does not decide what is an outlier
// (a scenario that is not this cluster's would make every pair one, or
// none).
const (
	SweepBandwidthFactor = 0.7
	SweepLatencyFactor   = 3.0
)

// SweepFileName is the JSON of a sweep's analysis, beside its run.
const SweepFileName = "sweep.json"

// Sweep is a cluster sweep judged.
type Sweep struct {
	// Source is the run directory; Hosts the hosts in name order, each once.
	Source string   `json:"source"`
	Hosts  []string `json:"hosts"`
	// World, Pairs, Rounds and PerPairS repeat the manifest's sweep section;
	// Status is the run's.
	World    int     `json:"world_size"`
	Pairs    string  `json:"pairs"`
	Rounds   int     `json:"rounds"`
	PerPairS float64 `json:"per_pair_s"`
	Status   string  `json:"status"`
	// Quantities are the pair bandwidth and the pair latency, where the
	// run measured them.
	Quantities []SweepQuantity `json:"quantities"`
	// SlowHosts are hosts every measured pair of which is an outlier in
	// some quantity (the host's NIC, link or placement); SlowPairs the
	// outlier pairs of two hosts that are not slow (the path between them).
	SlowHosts []SlowHost   `json:"slow_hosts"`
	SlowPairs []SweepPair  `json:"slow_pairs"`
	Missing   []SweepMiss  `json:"missing"`
	Ranks     []SweepRankV `json:"ranks"`
	// Model names the scenario the expected values come from.
	Model string `json:"model"`
}

// SweepQuantity is one quantity of a sweep: every direction measured.
type SweepQuantity struct {
	Name  string `json:"quantity"` // "bandwidth" or "latency"
	Unit  string `json:"unit"`     // "B/s" or "s"
	Bytes int64  `json:"bytes"`
	// Probe and Variant say which records: tcp stream, tcp pingpong.
	Probe   string  `json:"probe"`
	Variant string  `json:"variant"`
	Median  float64 `json:"median"`
	// Model is the model's value for the link (host-tcp of the scenario
	// named by Sweep.Model); Expected is what an outlier is judged
	// against: the median.
	Model    float64 `json:"model,omitempty"`
	Expected float64 `json:"expected"`
	// Threshold is the value past which a direction is an outlier.
	Threshold float64     `json:"threshold"`
	Pairs     []SweepPair `json:"pairs"`
	// Values[i][j] is what Hosts[i] measured toward Hosts[j] (NaN: not
	// measured); kept for the figures, not written.
	values [][]float64
}

// SweepPair is one direction of a pair: Host measured toward Peer.
type SweepPair struct {
	Host     string  `json:"host"`
	Peer     string  `json:"peer"`
	Quantity string  `json:"quantity,omitempty"`
	Value    float64 `json:"value"`
	// Ratio is Value over the median of its quantity; ModelRatio over the
	// model's value for the link.
	Ratio      float64 `json:"ratio_to_median"`
	ModelRatio float64 `json:"ratio_to_model,omitempty"`
	Outlier    bool    `json:"outlier"`
}

// SlowHost is a host every measured pair of which is an outlier.
type SlowHost struct {
	Host     string      `json:"host"`
	Quantity string      `json:"quantity"`
	Pairs    []SweepPair `json:"pairs"`
}

// SweepMiss is a direction not measured, and why.
type SweepMiss struct {
	Host   string `json:"host"`
	Peer   string `json:"peer"`
	Reason string `json:"reason"`
}

// SweepRankV is one rank and how it fared.
type SweepRankV struct {
	Rank   int    `json:"rank"`
	Host   string `json:"host"`
	Status string `json:"status"`
}

// AnalyzeSweep judges the sweep in rd on scenario s (the model's value of
// the host-to-host TCP path for the expected values); nil when rd is not a
// sweep.
func AnalyzeSweep(rd *record.RunData, s *model.Scenario) *Sweep {
	sw := rd.Manifest.Sweep
	if sw == nil {
		return nil
	}
	out := &Sweep{Source: rd.Dir, World: sw.World, Pairs: sw.Pairs, Rounds: sw.Rounds, PerPairS: sw.PerPairS,
		Status: string(rd.Manifest.Status), Model: s.Name, SlowHosts: []SlowHost{}, SlowPairs: []SweepPair{}, Missing: []SweepMiss{}}
	names := map[string]bool{}
	for _, r := range sw.Ranks {
		out.Ranks = append(out.Ranks, SweepRankV{Rank: r.Rank, Host: r.Host, Status: r.Status})
		if r.Host != "" {
			names[r.Host] = true
		}
	}
	for _, r := range rd.Results {
		if r.Host != "" && r.Peer != "" {
			names[r.Host], names[r.Peer] = true, true
		}
	}
	out.Hosts = slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !yield(n) {
				return
			}
		}
	})
	for _, m := range sw.Missing {
		h, p := m.FromHost, m.ToHost
		if h == "" {
			h = fmt.Sprintf("rank %d", m.From)
		}
		if p == "" {
			p = fmt.Sprintf("rank %d", m.To)
		}
		out.Missing = append(out.Missing, SweepMiss{Host: h, Peer: p, Reason: m.Reason})
	}
	idx := make(map[string]int, len(out.Hosts))
	for i, h := range out.Hosts {
		idx[h] = i
	}
	route := model.Path{}
	for _, p := range model.Paths() {
		if p.Name == "host-tcp" {
			route = p
		}
	}
	r := route.Route(s)
	for _, q := range []struct {
		name, unit, variant string
		largest             bool
	}{{plots.PairBandwidth, "B/s", "stream", true}, {plots.PairLatency, "s", "pingpong", false}} {
		sq := sweepQuantity(rd.Results, idx, q.name, q.variant, q.largest)
		if sq == nil {
			continue
		}
		sq.Unit = q.unit
		res := r.Evaluate(units.Bytes(sq.Bytes))
		sq.Expected = sq.Median
		if q.largest {
			sq.Model = float64(res.Bandwidth)
			sq.Threshold = SweepBandwidthFactor * sq.Median
		} else {
			sq.Model = float64(res.Pipelined)
			sq.Threshold = SweepLatencyFactor * sq.Median
		}
		for i := range sq.Pairs {
			p := &sq.Pairs[i]
			p.Ratio = p.Value / sq.Median
			if sq.Model > 0 {
				p.ModelRatio = p.Value / sq.Model
			}
			if q.largest {
				p.Outlier = p.Value < sq.Threshold
			} else {
				p.Outlier = p.Value > sq.Threshold
			}
		}
		out.Quantities = append(out.Quantities, *sq)
	}
	out.judge()
	return out
}

// sweepQuantity gathers the tcp records of one variant: per direction, the
// record at the size most directions have (the largest such size for
// bandwidth, the smallest for latency).
func sweepQuantity(rs []record.Result, idx map[string]int, name, variant string, largest bool) *SweepQuantity {
	count := map[int64]map[[2]int]bool{}
	for _, r := range rs {
		if r.Probe != "tcp" || r.Variant != variant || r.Host == "" || r.Peer == "" || r.Host == r.Peer {
			continue
		}
		if count[r.Bytes] == nil {
			count[r.Bytes] = map[[2]int]bool{}
		}
		count[r.Bytes][[2]int{idx[r.Host], idx[r.Peer]}] = true
	}
	if len(count) == 0 {
		return nil
	}
	most := 0
	for _, c := range count {
		most = max(most, len(c))
	}
	var sizes []int64
	for b, c := range count {
		if 2*len(c) >= most {
			sizes = append(sizes, b)
		}
	}
	slices.Sort(sizes)
	size := sizes[0]
	if largest {
		size = sizes[len(sizes)-1]
	}
	n := len(idx)
	sq := &SweepQuantity{Name: name, Bytes: size, Probe: "tcp", Variant: variant, values: make([][]float64, n)}
	for i := range sq.values {
		sq.values[i] = make([]float64, n)
		for j := range sq.values[i] {
			sq.values[i][j] = math.NaN()
		}
	}
	// A direction measured twice (a repeated size) keeps its best value.
	for _, r := range rs {
		if r.Probe != "tcp" || r.Variant != variant || r.Bytes != size || r.Host == "" || r.Peer == "" || r.Host == r.Peer {
			continue
		}
		// Latency is the least half round trip: the path's own, free of
		// the hosts' scheduling noise (the median carries it); bandwidth
		// the median goodput.
		v := r.MinS
		if v == 0 {
			v = r.MedianS
		}
		if largest {
			v = r.ThroughputBps
		}
		if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		i, j := idx[r.Host], idx[r.Peer]
		if old := sq.values[i][j]; math.IsNaN(old) || (largest && v > old) || (!largest && v < old) {
			sq.values[i][j] = v
		}
	}
	var all []float64
	hosts := make([]string, n)
	for h, i := range idx {
		hosts[i] = h
	}
	for i, row := range sq.values {
		for j, v := range row {
			if !math.IsNaN(v) {
				all = append(all, v)
				sq.Pairs = append(sq.Pairs, SweepPair{Host: hosts[i], Peer: hosts[j], Quantity: name, Value: v})
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.Sort(all)
	sq.Median = all[len(all)/2]
	if len(all)%2 == 0 {
		sq.Median = (all[len(all)/2-1] + all[len(all)/2]) / 2
	}
	return sq
}

// judge names the slow hosts (two or more pairs measured, every one an
// outlier in one direction or the other, in one quantity) and the slow
// pairs between hosts that are not slow.
func (s *Sweep) judge() {
	slow := map[string]bool{}
	for _, q := range s.Quantities {
		// per host: its pairs (unordered) and how many are outliers.
		type tally struct{ pairs, bad map[string]bool }
		t := map[string]*tally{}
		get := func(h string) *tally {
			if t[h] == nil {
				t[h] = &tally{pairs: map[string]bool{}, bad: map[string]bool{}}
			}
			return t[h]
		}
		for _, p := range q.Pairs {
			get(p.Host).pairs[p.Peer], get(p.Peer).pairs[p.Host] = true, true
			if p.Outlier {
				get(p.Host).bad[p.Peer], get(p.Peer).bad[p.Host] = true, true
			}
		}
		for _, h := range s.Hosts {
			tl := t[h]
			if tl == nil || len(tl.pairs) < 2 || len(tl.bad) != len(tl.pairs) {
				continue
			}
			sh := SlowHost{Host: h, Quantity: q.Name}
			for _, p := range q.Pairs {
				if p.Outlier && (p.Host == h || p.Peer == h) {
					sh.Pairs = append(sh.Pairs, p)
				}
			}
			s.SlowHosts = append(s.SlowHosts, sh)
			slow[h] = true
		}
	}
	for _, q := range s.Quantities {
		for _, p := range q.Pairs {
			if p.Outlier && !slow[p.Host] && !slow[p.Peer] {
				s.SlowPairs = append(s.SlowPairs, p)
			}
		}
	}
	sort.SliceStable(s.SlowPairs, func(i, j int) bool { return s.SlowPairs[i].Ratio < s.SlowPairs[j].Ratio })
}

// OutlierPairs are the unordered pairs ("a–b", names in order) of every
// outlier direction, slow hosts' and slow pairs' alike.
func (s *Sweep) OutlierPairs() []string {
	set := map[string]bool{}
	for _, q := range s.Quantities {
		for _, p := range q.Pairs {
			if p.Outlier {
				a, b := min(p.Host, p.Peer), max(p.Host, p.Peer)
				set[a+"–"+b] = true
			}
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for k := range set {
			if !yield(k) {
				return
			}
		}
	})
}

// Lines are the sweep's verdict in a few lines, for the terminal.
func (s *Sweep) Lines() []string {
	var out []string
	for _, q := range s.Quantities {
		out = append(out, fmt.Sprintf("%s at %s: median %s over %d directions (the model of the link: %s); outlier past %s",
			q.Name, units.Bytes(q.Bytes).Human(), sweepHuman(q.Name, q.Median), len(q.Pairs), sweepHuman(q.Name, q.Model), sweepHuman(q.Name, q.Threshold)))
	}
	for _, h := range s.SlowHosts {
		var ps []string
		for _, p := range h.Pairs {
			ps = append(ps, fmt.Sprintf("%s→%s %s", p.Host, p.Peer, sweepHuman(p.Quantity, p.Value)))
		}
		out = append(out, fmt.Sprintf("slow host %s (%s, every pair): %s", h.Host, h.Quantity, strings.Join(ps, ", ")))
	}
	for _, p := range s.SlowPairs {
		out = append(out, fmt.Sprintf("slow pair %s→%s: %s %s (%.2f× the median, %.2f× the model)", p.Host, p.Peer, p.Quantity, sweepHuman(p.Quantity, p.Value), p.Ratio, p.ModelRatio))
	}
	if len(s.SlowHosts) == 0 && len(s.SlowPairs) == 0 && len(s.Quantities) > 0 {
		out = append(out, "no outlier")
	}
	if len(s.Missing) > 0 {
		out = append(out, fmt.Sprintf("%d direction(s) not measured (%s lists them)", len(s.Missing), SweepFileName))
	}
	return out
}

func sweepHuman(quantity string, v float64) string {
	if quantity == plots.PairLatency {
		return units.Seconds(v).Human()
	}
	return units.Rate(v).Human()
}

// SweepFile writes the analysis of the sweep in rd to sweep.json in its
// directory (replacing one written before: it is the run's own) and
// returns its path.
func SweepFile(rd *record.RunData, s *model.Scenario) (string, *Sweep, error) {
	a := AnalyzeSweep(rd, s)
	if a == nil {
		return "", nil, nil
	}
	b, err := termtext.MarshalJSON(a)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(rd.Dir, SweepFileName)
	return path, a, safeio.WriteFile(path, append(b, '\n'), true)
}

// sweepSection fills the section "Cluster sweep": what ran, the heatmap
// and the distribution of each quantity, the slow hosts and pairs, and
// the directions not measured.
func (b *builder) sweepSection(sec *section) {
	for _, s := range b.in.Sweeps {
		measured := fmt.Sprintf("measured by a sweep of %d ranks (%s, %s), run %s", s.World, s.Pairs, s.Status, s.Source)
		sec.p("A sweep of %d ranks on %d hosts measured the pairs of schedule %s in %d rounds, %s a pair for both directions; status %s. "+
			"A direction is an outlier below %.0f%% of the median bandwidth or above %.0f× the median latency (latency: the least half round trip of the direction); the model's value for the link (scenario %s, host-tcp) stands beside each.",
			s.World, len(s.Hosts), s.Pairs, s.Rounds, units.Seconds(s.PerPairS).Human(), s.Status, 100*SweepBandwidthFactor, SweepLatencyFactor, s.Model)
		for _, q := range s.Quantities {
			sec.p("%s at %s: median %s over %d directions, the model's %s for the link (%.2f× of it); outlier past %s.", upper(q.Name), units.Bytes(q.Bytes).Human(),
				sweepHuman(q.Name, q.Median), len(q.Pairs), sweepHuman(q.Name, q.Model), q.Median/q.Model, sweepHuman(q.Name, q.Threshold))
		}
		if len(s.SlowHosts)+len(s.SlowPairs) > 0 {
			t := &docTable{Caption: "Outliers: slow hosts (every pair of the host) and slow pairs (the path between two hosts)",
				Head: []string{"verdict", "host", "peer", "quantity", "measured", "median", "ratio", "model", "ratio"}, Right: []bool{false, false, false, false, true, true, true, true, true}}
			for _, h := range s.SlowHosts {
				for _, p := range h.Pairs {
					t.Rows = append(t.Rows, sweepRow("slow host "+h.Host, p, s))
				}
			}
			for _, p := range s.SlowPairs {
				t.Rows = append(t.Rows, sweepRow("slow pair", p, s))
			}
			sec.table(t)
		} else if len(s.Quantities) > 0 {
			sec.p("No outlier: every measured direction is within the thresholds.")
		}
		for _, q := range s.Quantities {
			pm, _ := s.PairMap(q.Name) // a quantity of s: no error
			b.plot(sec, "pair-"+q.Name, "measured", measured)(plots.PairHeatmap(pm))
			b.plot(sec, "pair-"+q.Name+"-distribution", "measured", measured)(plots.PairDistribution(pm))
		}
		if len(s.Missing) > 0 {
			t := &docTable{Caption: "Directions not measured", Head: []string{"host", "peer", "why"}}
			for i, m := range s.Missing {
				if i == maxMissingRows {
					sec.note(fmt.Sprintf("%d more directions not measured: %s in the run lists them all.", len(s.Missing)-maxMissingRows, SweepFileName))
					break
				}
				t.Rows = append(t.Rows, []cell{c(m.Host), c(m.Peer), c(m.Reason)})
			}
			sec.table(t)
		}
	}
}

// PairMap is one quantity of the sweep as the pair figures draw it: every
// host by name, every measured direction, the outliers marked; an error
// for a quantity the sweep did not measure.
func (s *Sweep) PairMap(quantity string) (plots.PairMap, error) {
	for _, q := range s.Quantities {
		if q.Name != quantity {
			continue
		}
		pm := plots.PairMap{Quantity: q.Name, Hosts: s.Hosts, Values: q.values, Bytes: q.Bytes,
			Provenance: fmt.Sprintf("measured by a sweep of %d ranks (%s, %s), run %s", s.World, s.Pairs, s.Status, s.Source)}
		pm.Outlier = make([][]bool, len(s.Hosts))
		idx := map[string]int{}
		for i, h := range s.Hosts {
			idx[h] = i
			pm.Outlier[i] = make([]bool, len(s.Hosts))
		}
		for _, p := range q.Pairs {
			pm.Outlier[idx[p.Host]][idx[p.Peer]] = p.Outlier
		}
		return pm, nil
	}
	return plots.PairMap{}, fmt.Errorf("the sweep in %s measured no %s", s.Source, quantity)
}

// maxMissingRows bounds the table of directions not measured.
const maxMissingRows = 200

func sweepRow(verdict string, p SweepPair, s *Sweep) []cell {
	var med, mod float64
	for _, q := range s.Quantities {
		if q.Name == p.Quantity {
			med, mod = q.Median, q.Model
		}
	}
	return []cell{c(verdict), c(p.Host), c(p.Peer), c(p.Quantity), c(sweepHuman(p.Quantity, p.Value)), c(sweepHuman(p.Quantity, med)),
		c(fmt.Sprintf("%.2f×", p.Ratio)), c(sweepHuman(p.Quantity, mod)), c(fmt.Sprintf("%.2f×", p.ModelRatio))}
}
