package calib

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// Large is the median absolute percentage error above which a comparison
// counts as a disagreement that the report explains.
const Large = 15.0

// curve is a measured series merged over runs (collect), with the chunk
// size its records name (the staged transfer's pipelined variant), or 0.
type curve struct {
	record.Series
	chunk int64
}

// observations are a series' points as fit observations: the size and the
// pooled repetitions of every run.
func observations(se record.Series) []fit.Observation {
	out := make([]fit.Observation, len(se.Points))
	for i, p := range se.Points {
		out[i] = fit.Observation{Bytes: float64(p.Bytes), Seconds: p.Samples}
	}
	return out
}

// sizes and medianTimes are a series' sizes and median times, as plain numbers
// for pkg/fit.
func sizes(se record.Series) []float64 {
	out := make([]float64, len(se.Points))
	for i, p := range se.Points {
		out[i] = float64(p.Bytes)
	}
	return out
}

func medianTimes(se record.Series) []float64 {
	out := make([]float64, len(se.Points))
	for i, p := range se.Points {
		out[i] = float64(p.Median)
	}
	return out
}

// Fitted is a fit of one measured stage, with the scenario keys it sets.
type Fitted struct {
	Stage string // "A", "G", "loopback TCP", "gpu-peer"
	Name  string // "cudaMemcpy D2H (pinned, synchronous)"
	// Series is the measured curve fitted, merged over the runs: at each
	// size the median of the runs' medians, and every run's repetitions.
	Series record.Series
	Fit    fit.Result
	// Preset is the base scenario's α and β for the same stage, for the
	// table "fitted next to preset".
	PresetAlpha, PresetBeta float64
	// Regimes is set when two regimes (a knee) describe the series much
	// better than one line; Fit is then the lower regime.
	Regimes *fit.Regimes
}

// handoffMax is the largest size whose staged transfers fit stack.handoff:
// where the fixed costs dominate.
const handoffMax = 4096

// fitHandoff fits stack.handoff, the one parameter taken from the staged
// transfer itself: half the median excess of the measured store-and-forward
// transfer over the component model at sizes up to handoffMax (the tcp path
// switches between a GPU copy and socket calls twice). The rest of the
// transfer's curve, and the pipelined variant, remain predictions.
func (c *Calibration) fitHandoff(series map[string]*curve) {
	var sf *curve
	for _, k := range sortedKeys(series) {
		if se := series[k]; se.Probe == "staged" && se.Variant == "store-and-forward" {
			sf = se
			break
		}
	}
	if sf == nil {
		return
	}
	c.Components = c.Loopback.Clone()
	bytes, meds := sizes(sf.Series), medianTimes(sf.Series)
	pred, _ := predict(c.Components, "tcp", "", false, bytes)
	var diffs []float64
	for i, n := range bytes {
		if n <= handoffMax {
			diffs = append(diffs, meds[i]-pred[i])
		}
	}
	if len(diffs) < 2 {
		return
	}
	h := stats.Median(diffs) / 2
	if h <= 0 {
		return
	}
	c.set(c.Scenario, model.Override{Key: "stack.handoff", Value: units.Seconds(sig4(h)), Source: fmt.Sprintf("fit: half the median excess of the staged store-and-forward transfer over the component model at %d sizes up to %s (two switches between a GPU copy and socket calls per transfer)", len(diffs), units.Bytes(handoffMax).Human())})
	c.Loopback = loopbackOf(c.Scenario)
}

// kneeImprovement is how much of one line's error two regimes must remove
// for the calibration to use a knee.
const kneeImprovement = 0.6

// kneeFit tries two regimes; it keeps them when they remove most of one
// line's error and the upper regime is a real bandwidth.
func kneeFit(se record.Series, single fit.Result, opt fit.Options) (fit.Regimes, bool) {
	g, err := fit.TwoRegimes(observations(se), opt)
	if err != nil || g.Improvement < kneeImprovement {
		return fit.Regimes{}, false
	}
	if b := g.Above.Beta.Value; b <= 0 || math.IsInf(b, 0) || g.Below.Beta.Value <= 0 || math.IsInf(g.Below.Beta.Value, 0) {
		return fit.Regimes{}, false
	}
	if g.Below.MedianAPE >= single.MedianAPE && g.Above.MedianAPE >= single.MedianAPE {
		return fit.Regimes{}, false
	}
	return g, true
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Key is one scenario key the calibration sets.
type Key struct {
	Key    string `json:"key"`
	Before string `json:"before"`
	After  string `json:"after"`
	Source string `json:"source"`
}

// Comparison is the model against one measured end-to-end curve.
type Comparison struct {
	Label   string    `json:"label"` // "tcp: staged transfer, store-and-forward (loopback)"
	Path    string    `json:"path"`
	Variant string    `json:"variant"`
	Bytes   []float64 `json:"bytes"`
	// Measured medians, and the model's predictions with the base scenario
	// (preset) and with the calibrated one, in seconds.
	Measured      []float64      `json:"measured_s"`
	Preset        []float64      `json:"preset_s"`
	Calibrated    []float64      `json:"calibrated_s"`
	PresetErr     fit.Comparison `json:"preset_error"`
	CalibratedErr fit.Comparison `json:"calibrated_error"`
	// Verdicts say which stage each model gets wrong, when its median error
	// is above Large (empty otherwise).
	PresetVerdict     string `json:"preset_verdict"`
	CalibratedVerdict string `json:"calibrated_verdict"`
	// MultiChunk is the calibrated model's error over the sizes of two
	// chunks or more (pipelined transfers only): where overlap matters.
	MultiChunk *fit.Comparison `json:"multi_chunk,omitempty"`
	// ComponentsOnly is the prediction from the component probes alone
	// (no parameter fitted on the transfer itself), for the staged
	// transfer; nil elsewhere.
	ComponentsOnly    []float64       `json:"components_only_s,omitempty"`
	ComponentsOnlyErr *fit.Comparison `json:"components_only_error,omitempty"`
	// CurveBytes are sizes from half the smallest to twice the largest
	// measured one, eight per factor of two, and PresetCurve,
	// CalibratedCurve and ComponentsCurve the models' times at them: the
	// curves a figure draws, where Preset and Calibrated are the values at
	// the measured sizes only.
	CurveBytes                                    []float64 `json:"-"`
	PresetCurve, CalibratedCurve, ComponentsCurve []float64 `json:"-"`
}

// StageRow is one stage of the staged transfer, measured against modeled.
type StageRow struct {
	Letter string `json:"letter"`
	Name   string `json:"name"`
	// Source says where the calibrated stage's parameters come from:
	// "measured: ..." or "preset: ...".
	Source   string       `json:"source"`
	Measured bool         `json:"measured"`
	Alpha    fit.Interval `json:"alpha_s"` // fitted (measured stages) or the preset's value
	Beta     fit.Interval `json:"beta_Bps"`
	// At sizes StageSizes: modeled latency (calibrated) and measured.
	Modeled    []float64 `json:"modeled_s"`
	MeasuredAt []float64 `json:"measured_s"`
	// InSitu is the stage's own time inside the measured staged
	// store-and-forward transfer at StageSizes (NaN outside the sizes
	// recorded); nil when the runs do not time the stage in the transfer.
	InSitu []float64 `json:"in_situ_s"`
}

// StageSizes are the sizes of the per-stage table.
var StageSizes = []float64{8, 64 << 10, 16 << 20}

// Calibration is what Calibrate found.
type Calibration struct {
	Base       *model.Scenario // the scenario before calibration
	Scenario   *model.Scenario // calibrated (this host, its own NIC)
	Loopback   *model.Scenario // calibrated, nic.kind loopback: the staged transfer on one host
	Keys       []Key
	Fits       []Fitted
	Comparison []Comparison
	Stages     []StageRow
	Runs       []RunInfo
	Warnings   []string
	Chunk      int64 // chunk size of the measured pipelined transfer (0: none)
	// Components is the calibrated loopback scenario before the hand-off
	// was fitted: every value from the component probes alone.
	Components *model.Scenario
}

// RunInfo is the provenance of one run used.
type RunInfo struct {
	Dir   string    `json:"dir"`
	Host  string    `json:"host"`
	Start time.Time `json:"start"`
}

// ErrNothing is returned when the runs hold nothing to calibrate.
var ErrNothing = errors.New("nothing to calibrate from (need cuda copies, tcp ping-pong on loopback, or GPU peer copies)")

func hostList(runs []RunInfo) string {
	seen := map[string]bool{}
	var hs []string
	for _, r := range runs {
		if !seen[r.Host] {
			seen[r.Host] = true
			hs = append(hs, r.Host)
		}
	}
	return capNames(hs, model.MaxTextBytes-len(calibratedPrefix))
}

// calibratedPrefix begins a calibrated scenario's name.
const calibratedPrefix = "calibrated "

// capNames joins names from outside with "+", each escaped first
// (termtext.Name: one line, no control character), into at most max bytes:
// the names that do not fit are counted ("+ 3 more"), and a single name
// longer than the rest is cut at a character with "…". The scenario the
// fit writes must load: its name's limit counts the escaped bytes.
func capNames(names []string, max int) string {
	var b strings.Builder
	for i, n := range names {
		n = termtext.Name(n)
		sep := ""
		if i > 0 {
			sep = "+"
		}
		more := ""
		if rest := len(names) - i - 1; rest > 0 {
			more = fmt.Sprintf(" + %d more", rest)
		}
		if b.Len()+len(sep)+len(n)+len(more) <= max {
			b.WriteString(sep + n)
			continue
		}
		tail := fmt.Sprintf(" + %d more", len(names)-i)
		if i == 0 {
			tail = more
			room := max - len(tail) - len("…")
			cut := 0
			for j := range n {
				if j > room {
					break
				}
				cut = j
			}
			b.WriteString(n[:cut] + "…")
		}
		b.WriteString(tail)
		break
	}
	return b.String()
}

func harmonic(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if math.IsInf(a, 1) {
		return b
	}
	if math.IsInf(b, 1) {
		return a
	}
	return 2 / (1/a + 1/b)
}

// set gives keys of s their values (typed, Scenario.Apply: the overrides
// of one call resolve together), recording before, after and why for each
// key given and each key its values imply (a GPU's name: its PCIe link,
// memory and NVLink). When the model refuses them together, each is tried
// alone and the refused ones are warnings.
func (c *Calibration) set(s *model.Scenario, ovs ...model.Override) {
	before := s.Clone()
	if err := s.Apply(ovs...); err != nil {
		if len(ovs) == 1 {
			c.Warnings = append(c.Warnings, err.Error())
			return
		}
		for _, o := range ovs {
			c.set(s, o)
		}
		return
	}
	record := func(key, source string) {
		b, _ := before.Get(key)
		a, _ := s.Get(key)
		for i := range c.Keys {
			if c.Keys[i].Key == key {
				c.Keys[i].After, c.Keys[i].Source = a, source
				return
			}
		}
		c.Keys = append(c.Keys, Key{Key: key, Before: b, After: a, Source: source})
	}
	given := map[string]bool{}
	for _, o := range ovs {
		given[o.Key] = true
		record(o.Key, o.Source)
	}
	res := map[string]model.Resolved{}
	for _, r := range s.Resolution() {
		res[r.Key] = r
	}
	for _, k := range model.Diff(before, s) {
		if !given[k] {
			record(k, string(res[k].Rule)+": "+res[k].Source)
		}
	}
}

// withRDMA is s with an RDMA NIC, so that paths with plain copies (rdma)
// can be evaluated on a host without one.
func withRDMA(s *model.Scenario) *model.Scenario {
	r := s.Clone()
	_ = r.Apply(model.Override{Key: "nic.kind", Value: model.KindRoCE}, model.Override{Key: "nic.rdma", Value: true})
	return r
}

// loopbackOf is s with the NIC replaced by the loopback device: the staged
// transfer between two GPUs of one host.
func loopbackOf(s *model.Scenario) *model.Scenario {
	l := s.Clone()
	_ = l.Apply(model.Override{Key: "nic.kind", Value: model.KindLoopback}, model.Override{Key: "nic.rdma", Value: false})
	return l
}

func peerRate(s *model.Scenario) units.Rate {
	r := s.MustRoute("gpu-peer").Evaluate(1 << 30)
	return r.Bandwidth
}

// streamPoints returns the tcp stream goodput per write size on a target,
// ascending (the median over runs).
func streamPoints(runs []*record.RunData, target string) ([]float64, []float64) {
	by := map[float64][]float64{}
	for _, run := range runs {
		for _, r := range run.Results {
			if r.Probe == "tcp" && r.Variant == "stream" && r.Target == target && r.ThroughputBps > 0 && r.Bytes > 0 {
				by[float64(r.Bytes)] = append(by[float64(r.Bytes)], r.ThroughputBps)
			}
		}
	}
	var sizes []float64
	for n := range by {
		sizes = append(sizes, n)
	}
	sort.Float64s(sizes)
	rates := make([]float64, len(sizes))
	for i, n := range sizes {
		rates[i] = stats.Median(by[n])
	}
	return sizes, rates
}

// collect groups the runs' timing records into series (record.Group by
// probe, variant, timer and target), merged over the runs: at each size the
// repetitions of every run are pooled for the fit, and the medians of the
// runs' records give the curve.
func collect(runs []*record.RunData, opt fit.Options) (map[string]*curve, error) {
	out := map[string]*curve{}
	type acc struct {
		samples map[units.Bytes][]float64
		medians map[units.Bytes][]float64
	}
	accs := map[string]*acc{}
	for _, run := range runs {
		var timing []record.Result
		for i, r := range run.Results {
			if i%stopEvery == 0 {
				if err := opt.Stopped(); err != nil {
					return nil, err
				}
			}
			if r.Iterations <= 0 || r.MedianS <= 0 || r.Bytes <= 0 {
				continue
			}
			if r.Probe == "tcp" && r.Variant == "stream" {
				continue // throughput records, not one-way times
			}
			timing = append(timing, r)
			if ch := r.Extra["chunk_bytes"]; ch > 0 && r.Variant == "pipelined" {
				k := seriesKey(r.Probe, r.Variant, r.Timer, r.Target)
				if out[k] == nil {
					out[k] = &curve{}
				}
				out[k].chunk = int64(ch)
			}
		}
		groups, err := record.GroupStop(timing, record.ByProbe|record.ByVariant|record.ByTimer|record.ByTarget, opt.Stop)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			k := seriesKey(g.Probe, g.Variant, g.Timer, g.Target)
			se := out[k]
			if se == nil {
				se = &curve{}
				out[k] = se
			}
			if accs[k] == nil {
				se.SeriesKey, se.Label, se.Quantity = g.SeriesKey, g.Label, g.Quantity
				accs[k] = &acc{samples: map[units.Bytes][]float64{}, medians: map[units.Bytes][]float64{}}
			}
			a := accs[k]
			if err := opt.Stopped(); err != nil {
				return nil, err
			}
			for _, p := range g.Points {
				if len(p.Samples) > 0 {
					a.samples[p.Bytes] = append(a.samples[p.Bytes], p.Samples...)
				} else {
					a.samples[p.Bytes] = append(a.samples[p.Bytes], float64(p.Median))
				}
				a.medians[p.Bytes] = append(a.medians[p.Bytes], float64(p.Median))
			}
		}
	}
	for k, se := range out {
		a := accs[k]
		var ns []units.Bytes
		for n := range a.samples {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		for _, n := range ns {
			se.Points = append(se.Points, record.Point{Bytes: n, Median: units.Seconds(stats.Median(a.medians[n])), Samples: a.samples[n]})
		}
		if err := opt.Stopped(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stopEvery is how many records pass between two checks of a loop over a
// run's records (collect): a million records are read in about a second.
const stopEvery = 1 << 14

func seriesKey(probe, variant, timer, target string) string {
	return probe + "|" + variant + "|" + timer + "|" + target
}

func pick(all map[string]*curve, probe, variant, timer, target string) (curve, bool) {
	se, ok := all[seriesKey(probe, variant, timer, target)]
	if !ok || len(se.Points) == 0 {
		return curve{}, false
	}
	return *se, true
}

// pickPeer finds the synchronous peer copies gpuX->gpuY (wall clock).
func pickPeer(all map[string]*curve) (curve, bool) {
	var keys []string
	for k, se := range all {
		if se.Probe == "cuda" && se.Variant == "peer" && se.Timer == "wall" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return curve{}, false
	}
	sort.Strings(keys)
	return *all[keys[0]], true
}

// compare puts the model before and after calibration against the
// end-to-end measurements: the staged transfer (both variants), the
// loopback TCP transfer, the copies and the GPU peer copy.
func (c *Calibration) compare(series map[string]*curve, opt fit.Options) {
	type target struct {
		label, path, variant string
		se                   curve
		ok                   bool
		pipelined            bool
		loopback             bool
		stage                string // for stage comparisons: the stage letter in the path's table
		plainCopy            bool   // a copy the CPU does not touch: read it off a path with plain copies
	}
	var ts []target
	for _, k := range sortedKeys(series) {
		se := series[k]
		if se.Probe == "staged" {
			ts = append(ts, target{label: fmt.Sprintf("tcp: staged transfer, %s (%s)", se.Variant, se.Target), path: "tcp",
				variant: se.Variant, se: *se, ok: true, pipelined: se.Variant == "pipelined", loopback: true})
		}
	}
	if se, ok := pick(series, "tcp", "pingpong", "wall", "loopback"); ok {
		ts = append(ts, target{label: "host-tcp: ping-pong one way (loopback)", path: "host-tcp", variant: "pingpong", se: se, ok: true, loopback: true})
	}
	if se, ok := pick(series, "cuda", "d2h-pinned", "wall", "gpu0"); ok {
		ts = append(ts, target{label: "stage A: cudaMemcpy D2H (gpu0)", path: "rdma", variant: "d2h-pinned", se: se, ok: true, stage: "A", plainCopy: true})
	}
	if se, ok := pick(series, "cuda", "h2d-pinned", "wall", "gpu0"); ok {
		ts = append(ts, target{label: "stage G: cudaMemcpy H2D (gpu0)", path: "rdma", variant: "h2d-pinned", se: se, ok: true, stage: "G", plainCopy: true})
	}
	if se, ok := pick(series, "cuda", "d2h-pinned-cpuread", "wall", "gpu0"); ok {
		ts = append(ts, target{label: "stage A (tcp path): D2H into a CPU-read buffer (gpu0)", path: "tcp", variant: "d2h-pinned-cpuread", se: se, ok: true, stage: "A", loopback: true})
	}
	if se, ok := pick(series, "cuda", "h2d-pinned-cpuwrite", "wall", "gpu0"); ok {
		ts = append(ts, target{label: "stage G (tcp path): H2D from a CPU-written buffer (gpu0)", path: "tcp", variant: "h2d-pinned-cpuwrite", se: se, ok: true, stage: "G", loopback: true})
	}
	if se, ok := pickPeer(series); ok {
		ts = append(ts, target{label: "gpu-peer: peer copy (" + se.Target + ")", path: "gpu-peer", variant: "peer", se: se, ok: true})
	}
	for _, t := range ts {
		if len(t.se.Points) == 0 {
			continue
		}
		bytes, meds := sizes(t.se.Series), medianTimes(t.se.Series)
		before, after := c.Base, c.Scenario
		if t.loopback {
			before, after = loopbackOf(c.Base), c.Loopback
		}
		if t.stage != "" && t.loopback && c.Components != nil {
			// A copy measured alone has no hand-off: compare it with the stage
			// as the component probes give it.
			after = c.Components
		}
		if t.plainCopy {
			// rdma's stages A and G are plain copies; it needs an RDMA NIC.
			before, after = withRDMA(before), withRDMA(after)
		}
		if t.pipelined {
			if ch := t.se.chunk; ch > 0 {
				c.Chunk = ch
				before, after = before.Clone(), after.Clone()
				chunk := model.Override{Key: "pipeline.chunk", Value: units.Bytes(ch), Source: "the measured transfer's chunk"}
				_ = before.Apply(chunk)
				_ = after.Apply(chunk)
			}
		}
		cmp := Comparison{Label: t.label, Path: t.path, Variant: t.variant, Bytes: bytes, Measured: meds}
		var stagesPre, stagesCal []fit.Stage
		cmp.Preset, stagesPre = predict(before, t.path, t.stage, t.pipelined, bytes)
		cmp.Calibrated, stagesCal = predict(after, t.path, t.stage, t.pipelined, bytes)
		cmp.CurveBytes = curveSizes(bytes)
		cmp.PresetCurve, _ = predict(before, t.path, t.stage, t.pipelined, cmp.CurveBytes)
		cmp.CalibratedCurve, _ = predict(after, t.path, t.stage, t.pipelined, cmp.CurveBytes)
		if t.se.Probe == "staged" && c.Components != nil {
			comp := c.Components
			if t.pipelined && t.se.chunk > 0 {
				comp = comp.Clone()
				_ = comp.Apply(model.Override{Key: "pipeline.chunk", Value: units.Bytes(t.se.chunk), Source: "the measured transfer's chunk"})
			}
			cmp.ComponentsOnly, _ = predict(comp, t.path, "", t.pipelined, bytes)
			cmp.ComponentsCurve, _ = predict(comp, t.path, "", t.pipelined, cmp.CurveBytes)
			if ce, err := fit.Compare(bytes, cmp.ComponentsOnly, meds); err == nil {
				cmp.ComponentsOnlyErr = &ce
			}
		}
		var err error
		if cmp.PresetErr, err = fit.Compare(bytes, cmp.Preset, meds); err != nil {
			c.Warnings = append(c.Warnings, t.label+": "+err.Error())
			continue
		}
		if cmp.CalibratedErr, err = fit.Compare(bytes, cmp.Calibrated, meds); err != nil {
			c.Warnings = append(c.Warnings, t.label+": "+err.Error())
			continue
		}
		if cmp.PresetErr.MedianAPE > Large && !t.pipelined {
			if v, err := fit.Blame(bytes, meds, stagesPre); err == nil {
				cmp.PresetVerdict = v.String()
			}
		}
		if cmp.CalibratedErr.MedianAPE > Large && !t.pipelined {
			if v, err := fit.Blame(bytes, meds, stagesCal); err == nil {
				cmp.CalibratedVerdict = v.String()
			}
		}
		if t.pipelined && c.Chunk > 0 {
			var bs, ps, ms []float64
			for i, n := range bytes {
				if n > float64(c.Chunk) {
					bs, ps, ms = append(bs, n), append(ps, cmp.Calibrated[i]), append(ms, meds[i])
				}
			}
			if len(bs) > 0 {
				if mc, err := fit.Compare(bs, ps, ms); err == nil {
					cmp.MultiChunk = &mc
					if mc.MedianAPE > Large && cmp.CalibratedVerdict == "" {
						cmp.CalibratedVerdict = fmt.Sprintf("over the %d sizes of two chunks or more the pipelined model is off by %.0f%% (median, worst %+.0f%% at %s): the overlap of copies and socket transfers is not what the model assumes (the slowest stage once per further %s chunk, each stage as fast as it runs alone)",
							len(bs), mc.MedianAPE, mc.WorstPercent, units.Bytes(mc.WorstBytes).Human(), units.Bytes(c.Chunk).Human())
					}
				}
			}
		}
		if t.pipelined && cmp.CalibratedErr.MedianAPE > Large && cmp.CalibratedVerdict == "" {
			cmp.CalibratedVerdict = fmt.Sprintf("the pipelined model is off by %.0f%% (median): the overlap of copies and socket transfers is not what the model assumes (chunks of %s, the slowest stage once per further chunk)",
				cmp.CalibratedErr.MedianAPE, units.Bytes(c.Chunk).Human())
		}
		c.Comparison = append(c.Comparison, cmp)
	}
}

func sortedKeys(m map[string]*curve) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// predict evaluates the model at sizes: the path's store-and-forward (or
// pipelined) latency, or one stage's latency when stage is set. It returns
// the per-stage terms too, for Blame.
// curveSizes are the sizes of a comparison's model curves: from half the
// smallest to twice the largest measured size, eight per factor of two
// (lineSizes).
func curveSizes(measured []float64) []float64 {
	if len(measured) == 0 {
		return nil
	}
	lo, hi := measured[0], measured[0]
	for _, n := range measured {
		lo, hi = math.Min(lo, n), math.Max(hi, n)
	}
	var out []float64
	for _, n := range lineSizes(units.Bytes(math.Max(1, math.Floor(lo/2))), units.Bytes(hi*2)) {
		out = append(out, float64(n))
	}
	return out
}

func predict(s *model.Scenario, path, stage string, pipelined bool, sizes []float64) ([]float64, []fit.Stage) {
	r := s.MustRoute(path)
	out := make([]float64, len(sizes))
	var stages []fit.Stage
	if r.Feasible {
		stages = make([]fit.Stage, len(r.Stages))
		for i, st := range r.Stages {
			name := st.Name
			if st.Letter != "" {
				name = st.Letter + " (" + st.Name + ")"
			}
			stages[i] = fit.Stage{Name: name, Fixed: make([]float64, len(sizes)), Transfer: make([]float64, len(sizes))}
		}
	}
	for j, n := range sizes {
		res := r.Evaluate(units.Bytes(n))
		if !res.Feasible {
			out[j] = math.NaN()
			continue
		}
		switch {
		case stage != "":
			for _, st := range res.Stages {
				if st.Letter == stage {
					out[j] = float64(st.Latency)
				}
			}
		case pipelined:
			out[j] = float64(res.Pipelined)
		default:
			out[j] = float64(res.Latency)
		}
		for i, st := range res.Stages {
			stages[i].Fixed[j] = float64(st.Alpha)
			stages[i].Transfer[j] = float64(st.Latency - st.Alpha)
		}
	}
	if stage != "" {
		for _, st := range stages {
			if strings.HasPrefix(st.Name, stage+" ") {
				return out, []fit.Stage{st}
			}
		}
	}
	return out, stages
}

// stageTable lists the staged transfer's stages on the calibrated loopback
// scenario: which were measured (and how), which came from the preset, and
// the modeled against the measured latency at StageSizes.
func (c *Calibration) stageTable(series map[string]*curve) {
	r := c.Loopback.MustRoute("tcp")
	if !r.Feasible {
		return
	}
	fitFor := func(stage string) (Fitted, bool) {
		for _, f := range c.Fits {
			if f.Stage == stage {
				return f, true
			}
		}
		return Fitted{}, false
	}
	// The measured loopback transfer is split in the model into a send and
	// a receive stage; it was measured as one, so it is one row here.
	type group struct {
		letter, name string
		idx          []int
	}
	var groups []group
	for i, st := range r.Stages {
		if strings.Contains(st.Name, "(measured)") && len(groups) > 0 && strings.Contains(r.Stages[groups[len(groups)-1].idx[0]].Name, "(measured)") {
			g := &groups[len(groups)-1]
			g.idx = append(g.idx, i)
			g.letter, g.name = g.letter+"+"+st.Letter, "TCP over loopback, send + receive (measured)"
			continue
		}
		groups = append(groups, group{letter: st.Letter, name: st.Name, idx: []int{i}})
	}
	for _, g := range groups {
		st := r.Stages[g.idx[0]]
		row := StageRow{Letter: g.letter, Name: g.name}
		var f Fitted
		var ok bool
		switch {
		case st.Letter == "A" || st.Letter == "G":
			if f, ok = fitFor(st.Letter + "*"); !ok {
				f, ok = fitFor(st.Letter)
			}
		case strings.Contains(st.Name, "(measured)"):
			f, ok = fitFor("B–F")
		}
		if ok {
			row.Measured = true
			row.Source = fmt.Sprintf("measured: %s %s, fit α + n/β over %d sizes", f.Series.Probe, f.Series.Variant, f.Fit.Sizes)
			row.Alpha, row.Beta = f.Fit.Alpha, f.Fit.Beta
		} else {
			row.Source = "preset: " + c.Base.Name
			row.Alpha = fit.Interval{Value: float64(st.Alpha), Lo: float64(st.Alpha), Hi: float64(st.Alpha)}
			b := float64(st.Rate())
			row.Beta = fit.Interval{Value: b, Lo: b, Hi: b}
		}
		for _, n := range StageSizes {
			res := r.Evaluate(units.Bytes(n))
			var m float64
			for _, i := range g.idx {
				m += float64(res.Stages[i].Latency)
			}
			row.Modeled = append(row.Modeled, m)
			meas := math.NaN()
			if ok {
				meas = interpolate(sizes(f.Series), medianTimes(f.Series), n)
			}
			row.MeasuredAt = append(row.MeasuredAt, meas)
		}
		c.Stages = append(c.Stages, row)
	}
}

// interpolate reads a measured curve at n (log–log between measured sizes;
// NaN outside them).
func interpolate(bytes, secs []float64, n float64) float64 {
	for i := range bytes {
		if bytes[i] == n {
			return secs[i]
		}
		if i > 0 && bytes[i-1] < n && n < bytes[i] {
			f := (math.Log(n) - math.Log(bytes[i-1])) / (math.Log(bytes[i]) - math.Log(bytes[i-1]))
			return math.Exp(math.Log(secs[i-1]) + f*(math.Log(secs[i])-math.Log(secs[i-1])))
		}
	}
	return math.NaN()
}

// RunNames lists the runs as directory names.
func (c *Calibration) RunNames() []string {
	var out []string
	for _, r := range c.Runs {
		out = append(out, filepath.Base(r.Dir))
	}
	return out
}
