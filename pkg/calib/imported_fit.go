package calib

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// This file calibrates the model from other tools' outputs (gpupath
// import): the keys that make the model of the path each series took
// match it. A series is compared with the model exactly as its verdict is
// (judge, judgeCollective); each key is fitted on the sizes where it
// decides the model's value (a NIC's latency on small messages, its rate
// on large ones), on every other size of each series: the sizes left out
// check the calibrated model against the preset's.

// ImportedFile is one imported file as FitImported takes it: its name and
// tool, the scenario its verdicts are judged on (the preset with the
// hardware the file names), its series, NCCL's path where a log gave one,
// and whether it measured GPU memory.
type ImportedFile struct {
	File, Tool string
	Scenario   *model.Scenario
	Series     []ImportedSeries
	NCCL       *NCCLPath
	MemoryGPU  bool
}

// KeyFit is one fitted key: its value and interval (a bootstrap over the
// fitting points), the value it had, and the series it was fitted on.
type KeyFit struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Lo     string `json:"lo"`
	Hi     string `json:"hi"`
	Before string `json:"before"`
	// Points counts the points fitted; Sources names each series with its
	// file and lines ("moc-ib_write_bw.txt lines 20–42: ib_write_bw").
	Points  int      `json:"points"`
	Sources []string `json:"sources"`
	// Error is the median |measured/modeled − 1| over the fitting points
	// before and after.
	ErrorBefore float64 `json:"error_before"`
	ErrorAfter  float64 `json:"error_after"`
	// NoInterval, when not empty, says why there is no interval (Lo and
	// Hi are then empty).
	NoInterval string `json:"no_interval,omitempty"`
	// AtBound: the best value is at an end of the search (a factor of 30
	// from the value it had, or a fraction's 1): the model's other terms,
	// not this key, stand between it and the measurements.
	AtBound bool `json:"at_bound,omitempty"`
}

// ToolCheck is the model against one tool's sizes that no key was fitted
// on: the median |measured/modeled − 1| of the preset (with the file's
// hardware) and of the calibrated scenario.
type ToolCheck struct {
	Tool       string  `json:"tool"`
	Points     int     `json:"points"`
	Preset     float64 `json:"preset_median_error"`
	Calibrated float64 `json:"calibrated_median_error"`
}

// ImportedCalibration is what FitImported found: the keys, the check on
// the sizes left out per tool, the overrides to apply (each with its
// source) and the series it could not use, with why.
type ImportedCalibration struct {
	Fits   []KeyFit    `json:"fits"`
	Checks []ToolCheck `json:"checks"`
	// Series is the same check per series (Tool holds its file and label).
	Series []ToolCheck `json:"series"`
	// LeftOut are the points of that check, one per size left out:
	// measured/modeled − 1 on the preset and on the calibrated model (the
	// median of the size's repetitions).
	LeftOut   []CheckPoint     `json:"left_out,omitempty"`
	Overrides []model.Override `json:"-"`
	Unused    []string         `json:"unused,omitempty"`
}

// Empty is the error of a calibration that fitted no key (nil when it
// fitted one): calibrating from nothing is no success.
func (c *ImportedCalibration) Empty() error {
	if len(c.Fits) > 0 {
		return nil
	}
	why := "no series in them"
	if len(c.Unused) > 0 {
		why = strings.Join(c.Unused, "; ")
	}
	return fmt.Errorf("nothing to calibrate from: no key of the model could be fitted to these outputs (%s)", why)
}

// CheckPoint is one size left out of the fit, as the check saw it.
type CheckPoint struct {
	Series     string  `json:"series"` // file: label, as ImportedCalibration.Series names it
	Tool       string  `json:"tool"`
	Path       string  `json:"path"`
	Bytes      int64   `json:"bytes"`
	Preset     float64 `json:"preset_error"`
	Calibrated float64 `json:"calibrated_error"`
}

// A regime is the sizes where a key decides a series' model value.
type regime struct {
	key        string
	lo, hi     units.Bytes // sizes in [lo, hi]
	kind       string      // "seconds", "rate", "fraction"
	order      int         // rates first (a large message hardly depends on a latency), then latencies and costs, then NCCL's share of the network and its overhead
	what       string      // in the source
	onlyWithNV bool        // gpu.nvlink_efficiency: only where the scenario has NVLink
}

const (
	smallMax  units.Bytes = 4 << 10  // the latency regime of a point-to-point series
	largeMin  units.Bytes = 1 << 20  // its bandwidth regime
	collSmall units.Bytes = 64 << 10 // a collective's latency regime
)

// regimesOf are the keys a series' model value depends on, by path and
// quantity; none for a path the model does not price this way.
func regimesOf(path string, se *ImportedSeries) []regime {
	q := se.Quantity
	if se.Collective != nil {
		return []regime{
			{key: "nccl.net_overhead", lo: 1, hi: collSmall, kind: "seconds", order: 4, what: "NCCL's per-step network overhead"},
			{key: "nccl.net_efficiency", lo: LargeCollective, hi: math.MaxInt64, kind: "fraction", order: 3, what: "the share of the network's rate NCCL's traffic reaches"},
		}
	}
	switch {
	case path == "copy G" && q == record.Bandwidth:
		return []regime{{key: "gpu.h2d_efficiency", lo: largeMin, hi: math.MaxInt64, kind: "fraction", order: 0, what: "host-to-device copy rate"}}
	case path == "copy A" && q == record.Bandwidth:
		return []regime{{key: "gpu.d2h_efficiency", lo: largeMin, hi: math.MaxInt64, kind: "fraction", order: 0, what: "device-to-host copy rate"}}
	case strings.HasPrefix(path, "copy ") && q == record.Latency:
		return []regime{{key: "gpu.copy_latency", lo: 1, hi: smallMax, kind: "seconds", order: 2, what: "copy latency"}}
	case path == "gpu-peer" && q == record.Bandwidth:
		return []regime{{key: "gpu.nvlink_efficiency", lo: largeMin, hi: math.MaxInt64, kind: "fraction", order: 0, what: "peer copy rate", onlyWithNV: true}}
	case (path == "host-rdma" || path == "gdr" || path == "rdma") && q == record.Latency:
		return []regime{{key: "nic.latency", lo: 1, hi: smallMax, kind: "seconds", order: 2, what: "one-way latency of small messages"}}
	case (path == "host-rdma" || path == "gdr" || path == "rdma") && q == record.Bandwidth:
		return []regime{
			{key: "nic.post_cost", lo: 1, hi: smallMax, kind: "seconds", order: 1, what: "small-message rate (one core posting)"},
			{key: "nic.rate", lo: largeMin, hi: math.MaxInt64, kind: "rate", order: 0, what: "large-message rate"},
		}
	case (path == "host-tcp" || path == "tcp") && q == record.Bandwidth:
		return []regime{{key: "stack.rx_per_aggregate", lo: 1, hi: math.MaxInt64, kind: "seconds", order: 0, what: "TCP stream rate (the receiving core's cost per aggregate)"}}
	}
	return nil
}

// target is one series with how to compare it with the model.
type target struct {
	file, tool string
	base       *model.Scenario // the file's scenario
	se         ImportedSeries
	path       string
	factor     float64
	nccl       *NCCLPath
	train      []bool // per point: fitted (every other size), or left out
	// stop, when not nil, is asked every fit.StopEvery points of ratios;
	// its error makes them nil.
	stop func() error
}

// ratios are measured/modeled per point of t on s (NaN where the model has
// no value there); nil when t.stop says to stop.
func (t *target) ratios(s *model.Scenario) []float64 { return t.ratiosWith(s, nil) }

// collKey is a collective modeled on one scenario: the series of one
// nccl-tests table (out-of-place, in-place) share its model.
type collKey struct {
	s    *model.Scenario
	c    Collective
	nccl *NCCLPath
}

// ratiosWith is ratios with the collective models already made on s (cc,
// when not nil): busbw modeled by size.
func (t *target) ratiosWith(s *model.Scenario, cc map[collKey]map[units.Bytes]float64) []float64 {
	out := make([]float64, len(t.se.Points))
	for i := range out {
		out[i] = math.NaN()
	}
	if t.se.Collective != nil {
		k := collKey{s, *t.se.Collective, t.nccl}
		modeled := cc[k]
		for _, p := range t.se.Points {
			if _, ok := modeled[p.Bytes]; !ok && p.Bytes >= 1 && p.BusRate > 0 {
				modeled = nil // a size not modeled yet
				break
			}
		}
		if modeled == nil {
			modeled = map[units.Bytes]float64{}
			for _, p := range judgeCollective(s, t.se, t.nccl).Points {
				modeled[p.Bytes] = float64(p.Modeled)
			}
			if cc != nil {
				cc[k] = modeled
			}
		}
		for i, p := range t.se.Points {
			if m := modeled[p.Bytes]; m > 0 && p.BusRate > 0 {
				out[i] = float64(p.BusRate) / m
			}
		}
		return out
	}
	memo := map[int64]modeled{}
	if !strings.HasPrefix(t.path, "copy ") {
		// One route for every size (judgePoint takes the memo first).
		r, err := s.Route(t.path)
		for _, p := range t.se.Points {
			if n := int64(sizeOf(p, t.se.Quantity)); memo[n].Path == "" {
				memo[n] = evalRoute(r, err, t.path, n)
			}
		}
	}
	for i, p := range t.se.Points {
		if i%fit.StopEvery == 0 && t.stop != nil && t.stop() != nil {
			return nil
		}
		jp := judgePoint(s, &t.se, t.path, t.factor, p, memo)
		if jp.Ceiling > 0 && jp.Measured > 0 {
			out[i] = jp.Measured / jp.Ceiling // a latency's ceiling is its floor: the same ratio
		}
	}
	return out
}

// use is one target's points in one regime.
type use struct {
	t   *target
	idx []int
}

// FitImported fits, over the files' series, each key a series' model
// depends on (regimesOf), rates first, then latencies and costs: a one-dimensional search of
// the value whose model makes the median |log(measured/modeled)| over the
// fitting points smallest, with a percentile interval from resampling the
// points. The sizes left out give each tool's median error before and
// after. Every file is modeled on its own scenario with the keys fitted.
func FitImported(files []ImportedFile, opt fit.Options) (*ImportedCalibration, error) {
	c := &ImportedCalibration{}
	var targets []*target
	for _, f := range files {
		for _, se := range f.Series {
			se.Points = usablePoints(se.Points)
			if len(se.Points) == 0 {
				continue
			}
			slices.SortStableFunc(se.Points, func(a, b record.Point) int { return cmp.Compare(a.Bytes, b.Bytes) })
			v, err := judge(f.Scenario, se, f.NCCL, f.MemoryGPU, opt.Stop)
			if err != nil {
				return nil, err
			}
			if v.None != "" && se.Collective == nil {
				c.Unused = append(c.Unused, fmt.Sprintf("%s: %s: %s", f.File, se.Label, v.None))
				continue
			}
			t := &target{file: f.File, tool: f.Tool, base: f.Scenario, se: se, path: v.Path, factor: v.Factor, nccl: f.NCCL, stop: opt.Stop}
			if se.Streams > 1 && (v.Path == "host-tcp" || v.Path == "tcp") {
				if fs, ok := withFlows(f.Scenario, se.Streams); ok {
					t.base = fs // as the verdict: with the run's parallel streams
				}
			}
			if len(regimesOf(t.path, &t.se)) == 0 {
				c.Unused = append(c.Unused, fmt.Sprintf("%s: %s: no key of the model is fitted from a %s on path %s", f.File, se.Label, se.Quantity, t.path))
				continue
			}
			// Every other distinct size is fitted, the rest left out.
			t.train = make([]bool, len(se.Points))
			k := -1
			var last units.Bytes = -1
			for i, p := range se.Points {
				if p.Bytes != last {
					k++
					last = p.Bytes
				}
				t.train[i] = k%2 == 0
			}
			targets = append(targets, t)
		}
	}
	// The keys, each with the points it decides.
	type keyUse struct {
		r    regime
		uses []use
	}
	keys := map[string]*keyUse{}
	used := map[*target]bool{}
	for _, t := range targets {
		for _, r := range regimesOf(t.path, &t.se) {
			if r.onlyWithNV && t.base.GPU.NVLinkRate <= 0 {
				continue
			}
			var idx []int
			for i, p := range t.se.Points {
				if n := sizeOf(p, t.se.Quantity); t.train[i] && n >= r.lo && n <= r.hi {
					idx = append(idx, i)
				}
			}
			if len(idx) == 0 {
				continue
			}
			ku := keys[r.key]
			if ku == nil {
				ku = &keyUse{r: r}
				keys[r.key] = ku
			}
			ku.uses = append(ku.uses, use{t, idx})
			used[t] = true
		}
		if !used[t] {
			var what []string
			for _, r := range regimesOf(t.path, &t.se) {
				what = append(what, fmt.Sprintf("%s from %s to %s", r.key, r.lo.Human(), sizeText(r.hi)))
			}
			c.Unused = append(c.Unused, fmt.Sprintf("%s: %s: no fitted size in the ranges its keys are fitted on (%s)", t.file, t.se.Label, strings.Join(what, "; ")))
		}
	}
	order := make([]*keyUse, 0, len(keys))
	for _, ku := range keys {
		order = append(order, ku)
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].r.order != order[j].r.order {
			return order[i].r.order < order[j].r.order
		}
		return order[i].r.key < order[j].r.key
	})
	var applied []model.Override
	on := func(t *target, extra ...model.Override) (*model.Scenario, error) {
		s := t.base.Clone()
		if err := s.Apply(append(slices.Clone(applied), extra...)...); err != nil {
			return nil, err
		}
		return s, nil
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x1f2e3d))
	for _, ku := range order {
		if err := opt.Stopped(); err != nil {
			return nil, err
		}
		kf, ov, ok, err := fitKey(ku.r, ku.uses, on, rng, opt)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if !(kf.ErrorAfter < 0.99*kf.ErrorBefore) {
			// The model's value on these points does not depend on the key
			// (another stage bounds them): nothing to fit.
			c.Unused = append(c.Unused, fmt.Sprintf("%s: not set: the model's value on its %d point(s) does not depend on it (median error %s either way; %s)",
				ku.r.key, kf.Points, units.Percent(kf.ErrorBefore), strings.Join(kf.Sources, "; ")))
			continue
		}
		applied = append(applied, ov)
		c.Fits = append(c.Fits, kf)
		c.Overrides = append(c.Overrides, ov)
	}
	if keys["nic.latency"] != nil || keys["nic.post_cost"] != nil {
		// Said, not fitted: the outputs cannot tell the poll cost apart.
		c.Unused = append(c.Unused, "nic.poll_cost: not fitted: in a latency test it adds to nic.latency, and in a bandwidth test the larger of it and nic.post_cost bounds the small-message rate, so latency and bandwidth outputs cannot tell it apart from those keys (the CPU time per completion reaped does); it keeps the scenario's value")
	}
	// The sizes left out, per tool: the preset (the file's scenario) and
	// the calibrated one.
	byTool := map[string]*[2][]float64{}
	var tools []string
	for _, t := range targets {
		if err := opt.Stopped(); err != nil {
			return nil, err
		}
		cal, err := on(t)
		if err != nil {
			continue
		}
		before, after := t.ratios(t.base), t.ratios(cal)
		if err := opt.Stopped(); err != nil {
			return nil, err
		}
		var sb, sa []float64
		// One check point per size: the median errors of its repetitions
		// (the points are sorted by size).
		var pb, pa []float64
		flush := func(n units.Bytes) {
			if len(pb) > 0 {
				c.LeftOut = append(c.LeftOut, CheckPoint{Series: t.file + ": " + t.se.Label, Tool: t.tool, Path: t.path,
					Bytes: int64(n), Preset: stats.MedianInPlace(pb), Calibrated: stats.MedianInPlace(pa)})
			}
			pb, pa = pb[:0], pa[:0]
		}
		for i := range t.se.Points {
			if i > 0 && t.se.Points[i].Bytes != t.se.Points[i-1].Bytes {
				flush(t.se.Points[i-1].Bytes)
			}
			if i%fit.StopEvery == 0 {
				if err := opt.Stopped(); err != nil {
					return nil, err
				}
			}
			if t.train[i] || math.IsNaN(before[i]) || math.IsNaN(after[i]) {
				continue
			}
			sb, sa = append(sb, math.Abs(before[i]-1)), append(sa, math.Abs(after[i]-1))
			pb, pa = append(pb, before[i]-1), append(pa, after[i]-1)
			e := byTool[t.tool]
			if e == nil {
				e = &[2][]float64{}
				byTool[t.tool] = e
				tools = append(tools, t.tool)
			}
			e[0] = append(e[0], math.Abs(before[i]-1))
			e[1] = append(e[1], math.Abs(after[i]-1))
		}
		if n := len(t.se.Points); n > 0 {
			flush(t.se.Points[n-1].Bytes)
		}
		if len(sb) > 0 {
			c.Series = append(c.Series, ToolCheck{Tool: t.file + ": " + t.se.Label, Points: len(sb), Preset: stats.Median(sb), Calibrated: stats.Median(sa)})
		}
	}
	for _, tool := range tools {
		e := byTool[tool]
		c.Checks = append(c.Checks, ToolCheck{Tool: tool, Points: len(e[0]), Preset: stats.Median(e[0]), Calibrated: stats.Median(e[1])})
	}
	return c, nil
}

// fitKey searches the value of one key: the median |log ratio| over the
// uses' points as the objective, on a grid around the present value and
// then by golden section between its best neighbours; the interval is the
// 2.5 and 97.5 percentiles of the same search over resampled points.
func fitKey(r regime, uses []use, on func(*target, ...model.Override) (*model.Scenario, error), rng *rand.Rand, opt fit.Options) (KeyFit, model.Override, bool, error) {
	first := uses[0].t
	s0, err := on(first)
	if err != nil {
		return KeyFit{}, model.Override{}, false, nil
	}
	cur, ok := numeric(s0, r.key)
	if !ok {
		return KeyFit{}, model.Override{}, false, nil
	}
	value := func(v float64) any {
		switch r.kind {
		case "seconds":
			return units.Seconds(v)
		case "rate":
			return units.Rate(v)
		}
		return v
	}
	// All points: (use, index) pairs, in order, and the log ratio of each
	// on a value: one flat slice per value, over the fitting points only.
	type pt struct{ u, i int }
	var pts []pt
	for ui, u := range uses {
		for _, i := range u.idx {
			pts = append(pts, pt{ui, i})
		}
	}
	cache := map[float64][]float64{}
	compute := func(v float64) []float64 {
		out := make([]float64, 0, len(pts))
		scen := map[*model.Scenario]*model.Scenario{} // the uses of one file share its scenario
		cc := map[collKey]map[units.Bytes]float64{}
		for _, u := range uses {
			s, ok := scen[u.t.base]
			if !ok {
				var err error
				if s, err = on(u.t, model.Override{Key: r.key, Value: value(v)}); err != nil {
					s = nil
				}
				scen[u.t.base] = s
			}
			var rs []float64
			if s != nil {
				rs = u.t.ratiosWith(s, cc)
			}
			for _, i := range u.idx {
				l := math.NaN()
				if rs != nil && rs[i] > 0 && !math.IsInf(rs[i], 0) {
					l = math.Log(rs[i])
				}
				out = append(out, l)
			}
		}
		return out
	}
	logs := func(v float64) []float64 {
		if l, ok := cache[v]; ok {
			return l
		}
		if opt.Stopped() != nil {
			return nil // interrupted: the search ends at once, and says so below
		}
		l := compute(v)
		if opt.Stopped() != nil {
			return nil // cut short: not kept
		}
		cache[v] = l
		return l
	}
	// prefetch computes the model at many values at once, one goroutine per
	// CPU (the model is pure: each value its own scenarios); it asks
	// opt.Stop before each value.
	prefetch := func(vs []float64) error {
		out := make([][]float64, len(vs))
		var next atomic.Int64
		var wg sync.WaitGroup
		var stopped atomic.Bool
		for range min(runtime.GOMAXPROCS(0), len(vs)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(vs) || stopped.Load() {
						return
					}
					if opt.Stopped() != nil {
						stopped.Store(true)
						return
					}
					if _, ok := cache[vs[i]]; !ok {
						out[i] = compute(vs[i])
					}
				}
			}()
		}
		wg.Wait()
		if err := opt.Stopped(); err != nil {
			return err // the values computed may be cut short: none is kept
		}
		for i, l := range out {
			if l != nil {
				cache[vs[i]] = l
			}
		}
		return nil
	}
	// objective is the median |log ratio| over all the points (+Inf where
	// the model has no value at one of them).
	objective := func(v float64) float64 {
		l := logs(v)
		if l == nil {
			return math.Inf(1)
		}
		xs := make([]float64, len(l))
		for i, x := range l {
			if math.IsNaN(x) {
				return math.Inf(1)
			}
			xs[i] = math.Abs(x)
		}
		return stats.MedianInPlace(xs)
	}
	// The grid: a factor of 30 either side of the present value on a log
	// scale (for a cost of 0, from 1 ns to 100 µs), clipped to a fraction's
	// (0, 1].
	lo, hi := cur/30, cur*30
	if cur <= 0 {
		lo, hi = 1e-9, 1e-4
	}
	if r.kind == "fraction" {
		lo, hi = math.Max(lo, 0.01), 1
	}
	const n = 25
	grid := make([]float64, n)
	for i := range grid {
		grid[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	if err := prefetch(grid); err != nil {
		return KeyFit{}, model.Override{}, false, err
	}
	search := func() float64 {
		best, bi := math.Inf(1), -1
		for i, v := range grid {
			if o := objective(v); o < best {
				best, bi = o, i
			}
		}
		if bi < 0 {
			return math.NaN()
		}
		a, b := grid[max(0, bi-1)], grid[min(n-1, bi+1)]
		// Golden section on log v.
		la, lb := math.Log(a), math.Log(b)
		const g = 0.6180339887498949
		x1, x2 := lb-g*(lb-la), la+g*(lb-la)
		f1, f2 := objective(math.Exp(x1)), objective(math.Exp(x2))
		for range 10 {
			if f1 <= f2 {
				lb, x2, f2 = x2, x1, f1
				x1 = lb - g*(lb-la)
				f1 = objective(math.Exp(x1))
			} else {
				la, x1, f1 = x1, x2, f2
				x2 = la + g*(lb-la)
				f2 = objective(math.Exp(x2))
			}
		}
		v := math.Exp((la + lb) / 2)
		if objective(v) > best {
			v = grid[bi]
		}
		return v
	}
	v := search()
	if math.IsNaN(v) {
		return KeyFit{}, model.Override{}, false, opt.Stopped()
	}
	v = round4(v)
	if err := opt.Stopped(); err != nil {
		return KeyFit{}, model.Override{}, false, err
	}
	// The estimate and its interval are the one choice among a set of
	// candidate values — the grid, a fine grid around the value the search
	// found, and that value — whose model values are computed once: the
	// estimate on all the points, each resample's on its points
	// (candidates.best). The estimate and the resamples are the same
	// statistic, so that the interval is one of the estimate.
	cands := slices.Clone(grid)
	fi := sort.SearchFloat64s(grid, v)
	flo, fhi := grid[max(0, fi-2)], grid[min(n-1, fi+1)]
	for i := range 17 {
		cands = append(cands, flo*math.Pow(fhi/flo, float64(i)/16))
	}
	cands = append(cands, v)
	slices.Sort(cands)
	cands = slices.Compact(cands)
	if err := prefetch(cands); err != nil {
		return KeyFit{}, model.Override{}, false, err
	}
	cs, err := newCandidates(cands, logs, opt)
	if err != nil {
		return KeyFit{}, model.Override{}, false, err
	}
	if c, _, _ := cs.best(cs.mult, len(pts)); c >= 0 {
		v = cands[c]
	}
	res := opt.Resamples
	if res <= 0 || res > 200 {
		res = 200
	}
	// Each resample gives the values that fit its points best: one, or a
	// range where the median error is flat; the interval runs from the
	// 2.5th percentile of their lower ends to the 97.5th of their upper.
	var lows, highs []float64
	counts := make([]int32, len(cs.mult))
	for range res {
		// A resample of many points takes milliseconds: Stop is asked at
		// every one.
		if err := opt.Stopped(); err != nil {
			return KeyFit{}, model.Override{}, false, err
		}
		clear(counts)
		for range len(pts) {
			counts[cs.group[rng.IntN(len(pts))]]++
		}
		if c, l, h := cs.best(counts, len(pts)); c >= 0 {
			lows, highs = append(lows, cands[l]), append(highs, cands[h])
		}
	}
	blo, bhi, noInterval := v, v, ""
	if len(lows) > 1 {
		slices.Sort(lows)
		slices.Sort(highs)
		blo, bhi = stats.Quantile(lows, 0.025), stats.Quantile(highs, 0.975)
	}
	switch {
	case len(lows) < 2:
		noInterval = "no resample of the points could be fitted"
	case v < blo || v > bhi:
		noInterval = "the resampled fits (%s – %s) leave the estimate out: the median error is flat or steps over these points"
	}
	text := func(x float64) string {
		switch r.kind {
		case "seconds":
			return units.Seconds(x).Human()
		case "rate":
			if r.key == "nic.rate" {
				return units.Rate(x).Gbits() // as NICs are sold
			}
			return units.Rate(x).Compact()
		}
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	beforeText := text(cur)
	if r.key == "nccl.net_efficiency" && s0.NCCL.NetEfficiency == 0 {
		beforeText = "1 (not set)"
	}
	var sources []string
	for _, u := range uses {
		a, b := math.MaxInt, 0
		for _, i := range u.idx {
			a, b = min(a, u.t.se.Points[i].Line), max(b, u.t.se.Points[i].Line)
		}
		sources = append(sources, fmt.Sprintf("%s lines %d–%d: %s", u.t.file, a, b, u.t.se.Label))
	}
	errAt := func(x float64) float64 {
		l := objective(x)
		return math.Exp(l) - 1
	}
	kf := KeyFit{Key: r.key, Value: text(v), Lo: text(blo), Hi: text(bhi), Before: beforeText, Points: len(pts), Sources: sources,
		ErrorBefore: errAt(cur), ErrorAfter: errAt(v), AtBound: v <= grid[0]*1.0001 || v >= grid[n-1]*0.9999}
	if noInterval != "" {
		if strings.Contains(noInterval, "%s") {
			noInterval = fmt.Sprintf(noInterval, kf.Lo, kf.Hi)
		}
		kf.Lo, kf.Hi, kf.NoInterval = "", "", noInterval
	}
	ov := model.Override{Key: r.key, Value: value(v), Source: fmt.Sprintf("fit: %s from %d point(s) of %s (interval %s)",
		r.what, len(pts), strings.Join(sources, "; "), kf.Interval())}
	return kf, ov, true, nil
}

// Interval is the fitted key's interval as text: "lo – hi", or "not
// available" with the reason.
func (f KeyFit) Interval() string {
	if f.NoInterval != "" {
		return "not available: " + f.NoInterval
	}
	return f.Lo + " – " + f.Hi
}

// sizeOf is the size a point is modeled at (judgePoint): its own, or for
// an output that gives none, a small message for a latency and a large one
// for a rate.
func sizeOf(p record.Point, q record.Quantity) units.Bytes {
	switch {
	case p.Bytes >= 1:
		return p.Bytes
	case q == record.Bandwidth:
		return bigRef
	}
	return smallRef
}

func sizeText(b units.Bytes) string {
	if b == math.MaxInt64 {
		return "any size"
	}
	return b.Human()
}

// round4 rounds a fitted value to four significant digits: what the
// intervals resolve, and what a scenario file shows.
func round4(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// numeric is the present value of a fitted key as a number (seconds,
// bytes per second or a fraction).
func numeric(s *model.Scenario, key string) (float64, bool) {
	switch key {
	case "nic.latency":
		return float64(s.NIC.Latency), true
	case "nic.post_cost":
		return float64(s.NIC.PostCost), true
	case "nic.rate":
		return float64(s.NIC.Rate), true
	case "gpu.copy_latency":
		return float64(s.GPU.CopyLatency), true
	case "gpu.h2d_efficiency":
		return s.GPU.H2DEfficiency, true
	case "gpu.d2h_efficiency":
		return s.GPU.D2HEfficiency, true
	case "gpu.nvlink_efficiency":
		return s.GPU.NVLinkEfficiency, true
	case "nccl.net_efficiency":
		if e := s.NCCL.NetEfficiency; e > 0 {
			return e, true
		}
		return 1, true
	case "nccl.net_overhead":
		return float64(s.NCCL.NetOverhead), true
	case "stack.rx_per_aggregate":
		return float64(s.Stack.RxPerAggregate), true
	}
	return 0, false
}

// Scenario is base with the fitted keys.
func (c *ImportedCalibration) Scenario(base *model.Scenario, runs []string) (*model.Scenario, error) {
	s := base.Clone()
	if err := s.Apply(c.Overrides...); err != nil {
		return nil, err
	}
	s.Name = calibratedPrefix + capNames(runs, model.MaxTextBytes-len(calibratedPrefix))
	s.Description = fmt.Sprintf("%s with keys fitted to imported outputs of %d run(s)", base.Name, len(runs))
	return s, s.Validate()
}

// YAML is the calibrated scenario as a file `gpupath model --scenario`
// reads: the base preset, the name, and each fitted key with its source
// (the files, lines and interval it was fitted on).
func (c *ImportedCalibration) YAML(base *model.Scenario, runs []string, now time.Time) ([]byte, error) {
	s, err := c.Scenario(base, runs)
	if err != nil {
		return nil, err
	}
	name := base.Name
	head := []string{fmt.Sprintf("Calibrated by gpupath fit at %s from the imported outputs of %s. Keys not set here come from the base preset.",
		now.UTC().Format(time.RFC3339), strings.Join(runs, "; "))}
	if _, err := model.Preset(name); err != nil {
		name = "default"
		head = append(head, "the base scenario is not a preset: the keys below are set on the default preset")
	}
	d, err := ScenarioDoc("", c.Overrides)
	if err != nil {
		return nil, err
	}
	d.Head = head
	d.Fields = []model.YAMLField{{Key: "base", Value: name}, {Key: "name", Value: s.Name, Quote: true}, {Key: "description", Value: s.Description, Quote: true}}
	var b bytes.Buffer
	if err := writeYAML(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteText writes the calibration for a terminal: each key fitted with
// its interval and the error before and after on its points, then per tool
// and per series the median error on the sizes left out, preset against
// calibrated, then the series not used.
func (c *ImportedCalibration) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "Fitted from imported outputs (every other size of each series; the others check the fit):")
	for _, f := range c.Fits {
		fmt.Fprintf(bw, "  %-22s %s (%s), was %s; median error on its %d point(s) %s → %s\n", f.Key, f.Value, f.Interval(), f.Before,
			f.Points, units.Percent(f.ErrorBefore), units.Percent(f.ErrorAfter))
		if f.AtBound {
			fmt.Fprintf(bw, "      at the end of the search: the model's other terms, not %s, stand between it and these measurements\n", f.Key)
		}
		for _, s := range f.Sources {
			fmt.Fprintf(bw, "      %s\n", s)
		}
	}
	if len(c.Fits) == 0 {
		fmt.Fprintln(bw, "  no key: no series is on a path and in a size range a key decides")
	}
	fmt.Fprintln(bw, "\nMedian error on the sizes left out (|measured/modeled − 1|), preset → calibrated:")
	for _, t := range c.Checks {
		fmt.Fprintf(bw, "  %-12s %3d point(s)  %s → %s\n", t.Tool, t.Points, units.Percent(t.Preset), units.Percent(t.Calibrated))
	}
	for _, t := range c.Series {
		fmt.Fprintf(bw, "    %s: %d point(s)  %s → %s\n", t.Tool, t.Points, units.Percent(t.Preset), units.Percent(t.Calibrated))
	}
	if len(c.Unused) > 0 {
		fmt.Fprintln(bw, "\nNot used:")
		for _, u := range c.Unused {
			fmt.Fprintf(bw, "  %s\n", u)
		}
	}
	return bw.Flush()
}

// WriteJSON writes the calibration as one JSON document.
func (c *ImportedCalibration) WriteJSON(w io.Writer) error {
	return termtext.NewJSONEncoder(w).Encode(c)
}
