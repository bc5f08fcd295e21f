package calib

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// Calibrate fits the runs and builds the calibrated scenario on top of
// base (nil: the default preset) with the runs' "this host" values: each
// fitter (fitters) in turn sets the keys its records support, then the
// staged transfer's hand-off is fitted and the model, before and after, is
// compared with the measurements.
func Calibrate(runs []*record.RunData, base *model.Scenario, opt fit.Options) (*Calibration, error) {
	if len(runs) == 0 {
		return nil, ErrNothing
	}
	if base == nil {
		base = model.Default()
	}
	c := &Calibration{Base: base.Clone()}
	for _, r := range runs {
		if err := r.Corrupt(); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, err)
		}
		c.Runs = append(c.Runs, RunInfo{Dir: r.Dir, Host: r.Manifest.Host.Hostname, Start: r.Manifest.Start})
		if len(r.Skipped) > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %d damaged line(s) of results.jsonl skipped", r.Dir, len(r.Skipped)))
		}
		// A run cut short is calibrated from what it kept; say so.
		switch {
		case r.Derived != "":
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: interrupted (%s): the fit uses the %d record(s) it kept", r.Dir, r.Derived, len(r.Results)))
		case r.Manifest.Status == record.StatusInterrupted:
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: the run was interrupted: the fit uses the %d record(s) it kept", r.Dir, len(r.Results)))
		case r.Manifest.Status == record.StatusRunning || r.Manifest.Status == record.StatusPending:
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: still being written (%s): the fit uses the %d record(s) written so far", r.Dir, r.Manifest.Status, len(r.Results)))
		}
	}
	if err := opt.Stopped(); err != nil {
		return nil, err
	}
	series, err := collect(runs, opt)
	if err != nil {
		return nil, err
	}
	f := &fitting{c: c, base: base, s: base.Clone(), runs: runs, series: series, opt: opt}
	for _, ft := range fitters {
		// opt.Stop (SIGINT or SIGTERM in a command) ends the calibration
		// between fitters; a fit it cut short inside a fitter is only a
		// warning there, so the check after each one returns its error.
		ft.fit(f)
		if err := opt.Stopped(); err != nil {
			return nil, err
		}
	}
	if len(c.Fits) == 0 {
		return nil, nothingWhy(runs)
	}
	s := f.s
	s.Name = calibratedPrefix + hostList(c.Runs)
	s.Description = fmt.Sprintf("%s with fitted stage parameters from %d run(s)", base.Name, len(runs))
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("calibrated scenario: %w", err)
	}
	c.Scenario = s
	c.Loopback = loopbackOf(s)
	for _, step := range []func(){
		func() { c.fitHandoff(f.series) },
		func() { c.compare(f.series, opt) },
		func() { c.stageTable(f.series) },
		func() { c.inSitu(runs) },
	} {
		step()
		if err := opt.Stopped(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// nothingWhy is ErrNothing with what the runs hold instead: no records at
// all, records whose times are zero, negative or not finite, or records of
// probes the fit does not use.
func nothingWhy(runs []*record.RunData) error {
	total, bad := 0, 0
	probes := map[string]int{}
	var names []string
	for _, r := range runs {
		for _, x := range r.Results {
			total++
			if x.Iterations <= 0 || !physical(x.MedianS) || x.Bytes <= 0 {
				bad++
				continue
			}
			k := x.Probe
			if x.Variant != "" {
				k += " " + x.Variant
			}
			if probes[k] == 0 {
				names = append(names, k)
			}
			probes[k]++
		}
	}
	switch {
	case total == 0:
		return fmt.Errorf("%w: the runs hold no records", ErrNothing)
	case bad == total:
		return fmt.Errorf("%w: the runs hold %d record(s), none usable (every one has a time outside [%g s, %g s], a size of zero or no iterations)", ErrNothing, total, fit.MinSeconds, fit.MaxSeconds)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = fmt.Sprintf("%s ×%d", n, probes[n])
	}
	why := fmt.Sprintf("the runs hold %d record(s) of %s, none of which the fit uses", total, strings.Join(names, ", "))
	if bad > 0 {
		why += fmt.Sprintf(", and %d with a time outside [%g s, %g s], a size of zero or no iterations", bad, fit.MinSeconds, fit.MaxSeconds)
	}
	return fmt.Errorf("%w: %s", ErrNothing, why)
}

// A fitter sets the scenario keys that one kind of measurement supports:
// it fits its series (adding to Calibration.Fits) or reads the runs'
// values, and sets the keys with their sources (Calibration.set).
type fitter struct {
	name string
	fit  func(f *fitting)
}

// fitters run in this order: a later one may overwrite a key an earlier
// one set (a fitted copy latency replaces the this-host median).
var fitters = []fitter{
	{"this host's measured values", (*fitting).thisHost},
	{"stages A and G: synchronous pinned copies", (*fitting).copies},
	{"TCP over loopback (ping-pong)", (*fitting).loopbackTCP},
	{"TCP over loopback (stream)", (*fitting).loopbackStream},
	{"copies of CPU-touched buffers", (*fitting).cachedCopies},
	{"GPU peer copies", (*fitting).peerCopies},
}

// fitting is one Calibrate under way.
type fitting struct {
	c      *Calibration
	base   *model.Scenario // the scenario before calibration
	s      *model.Scenario // the calibrated scenario, being built
	runs   []*record.RunData
	series map[string]*curve
	opt    fit.Options
}

// seriesName names a series in a key's source.
func seriesName(se record.Series) string {
	return fmt.Sprintf("%s %s %s, %s", se.Probe, se.Variant, se.Timer, se.Target)
}

// alphaBeta fits α + n/β to a series; a fit that cannot be made is a
// warning that names the stage.
func (f *fitting) alphaBeta(stage string, se record.Series) (fit.Result, bool) {
	r, err := fit.AlphaBeta(observations(se), f.opt)
	if err != nil {
		f.c.Warnings = append(f.c.Warnings, stage+": "+err.Error())
		return fit.Result{}, false
	}
	return r, true
}

// withKnee replaces a fit by its lower regime when two regimes describe
// the series much better than one line (kneeFit).
func (f *fitting) withKnee(fd *Fitted) {
	if g, ok := kneeFit(fd.Series, fd.Fit, f.opt); ok {
		fd.Regimes = &g
		fd.Fit = g.Below
	}
}

func finiteRate(b float64) bool { return b > 0 && !math.IsInf(b, 0) }

// thisHost sets what the runs found of this host directly (the GPU and
// its links, topology, memcpy, stack costs: ThisHost).
func (f *fitting) thisHost() {
	for _, r := range f.runs {
		ovs, notes, err := ThisHost(r)
		if err != nil {
			f.c.Warnings = append(f.c.Warnings, err.Error())
		}
		for _, n := range notes {
			if strings.HasSuffix(n, outOfRange) { // a measured value left out
				f.c.Warnings = append(f.c.Warnings, n)
			}
		}
		if len(ovs) > 0 {
			f.c.set(f.s, ovs...)
		}
	}
}

// copies fits stages A and G, the synchronous pinned copies (what
// cudaMemcpy costs): gpu.copy_latency and gpu.copy_rate.
func (f *fitting) copies() {
	c, base := f.c, f.base
	d2h, okA := pick(f.series, "cuda", "d2h-pinned", "wall", "gpu0")
	h2d, okG := pick(f.series, "cuda", "h2d-pinned", "wall", "gpu0")
	var fa, fg fit.Result
	if okA {
		if fa, okA = f.alphaBeta("stage A", d2h.Series); okA {
			c.Fits = append(c.Fits, Fitted{Stage: "A", Name: "cudaMemcpy D2H (pinned, synchronous)", Series: d2h.Series, Fit: fa,
				PresetAlpha: float64(base.GPU.CopyLatency), PresetBeta: float64(base.CopyRate())})
		}
	}
	if okG {
		if fg, okG = f.alphaBeta("stage G", h2d.Series); okG {
			c.Fits = append(c.Fits, Fitted{Stage: "G", Name: "cudaMemcpy H2D (pinned, synchronous)", Series: h2d.Series, Fit: fg,
				PresetAlpha: float64(base.GPU.CopyLatency), PresetBeta: float64(base.CopyRate())})
		}
	}
	// One synchronous copy latency (the mean α keeps A + G exact) and a
	// rate per direction, as fractions of the GPU's PCIe payload rate
	// (gpu.h2d_efficiency, gpu.d2h_efficiency); gpu.copy_rate, which would
	// override both, is cleared.
	link := float64(base.GPULinkRate())
	setEff := func(key string, se curve, r fit.Result) {
		b := r.Beta.Value
		if !finiteRate(b) || !(link > 0) {
			return
		}
		eff := b / link
		if eff > 1 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: β %s above the PCIe payload rate %s; %s set to 1",
				seriesName(se.Series), units.Rate(b).Compact(), units.Rate(link).Compact(), key))
			eff = 1
		}
		c.set(f.s, model.Override{Key: key, Value: eff, Source: fmt.Sprintf("fit: β of %s (%s) over the PCIe payload rate %s", seriesName(se.Series), rateI(r.Beta), units.Rate(link).Compact())})
	}
	switch {
	case okA && okG:
		a := (fa.Alpha.Value + fg.Alpha.Value) / 2
		c.set(f.s, model.Override{Key: "gpu.copy_latency", Value: units.Seconds(a), Source: fmt.Sprintf("fit: mean α of %s (%s) and %s (%s)", seriesName(d2h.Series), secI(fa.Alpha), seriesName(h2d.Series), secI(fg.Alpha))})
	case okA || okG:
		r, se := fa, d2h
		if okG {
			r, se = fg, h2d
		}
		c.set(f.s, model.Override{Key: "gpu.copy_latency", Value: units.Seconds(r.Alpha.Value), Source: fmt.Sprintf("fit: α of %s (%s)", seriesName(se.Series), secI(r.Alpha))})
	}
	if okA || okG {
		c.set(f.s, model.Override{Key: "gpu.copy_rate", Value: units.Rate(0), Source: "fit: the rate per direction below (gpu.d2h_efficiency, gpu.h2d_efficiency)"})
		if okA {
			setEff("gpu.d2h_efficiency", d2h, fa)
		}
		if okG {
			setEff("gpu.h2d_efficiency", h2d, fg)
		}
	}
	f.asyncCopies()
}

// asyncCopies fits the copies issued on a stream and timed in a batch
// (cuda *-pinned-stream): their α is what one asynchronous copy costs,
// gpu.async_latency (the per-chunk cost of a pipelined transfer).
func (f *fitting) asyncCopies() {
	var alphas []float64
	var parts []string
	for _, v := range []string{"d2h-pinned-stream", "h2d-pinned-stream"} {
		se, ok := pick(f.series, "cuda", v, "wall", "gpu0")
		if !ok {
			continue
		}
		r, ok := f.alphaBeta("async "+v, se.Series)
		if !ok || !(r.Alpha.Value > 0) {
			continue
		}
		alphas = append(alphas, r.Alpha.Value)
		parts = append(parts, fmt.Sprintf("%s (%s)", seriesName(se.Series), secI(r.Alpha)))
	}
	if len(alphas) > 0 {
		f.c.set(f.s, model.Override{Key: "gpu.async_latency", Value: units.Seconds(mean(alphas)), Source: "fit: mean α of " + strings.Join(parts, " and ")})
	}
}

// loopbackTCP fits the ping-pong one-way time over loopback, α + n/β, with
// a knee where the buffers stop fitting in the caches when two regimes
// describe the data much better than one line: loopback.latency, .rate,
// .knee, .rate_beyond.
func (f *fitting) loopbackTCP() {
	tcp, ok := pick(f.series, "tcp", "pingpong", "wall", "loopback")
	if !ok {
		return
	}
	r, ok := f.alphaBeta("loopback TCP", tcp.Series)
	if !ok {
		return
	}
	c := f.c
	lb := loopbackOf(f.base)
	fd := Fitted{Stage: "B–F", Name: "TCP over loopback, one way (ping-pong)", Series: tcp.Series, Fit: r,
		PresetAlpha: float64(lb.MustRoute("host-tcp").Evaluate(1).Latency), PresetBeta: float64(lb.MustRoute("host-tcp").Evaluate(1 << 30).Bandwidth)}
	f.withKnee(&fd)
	c.Fits = append(c.Fits, fd)
	c.set(f.s, model.Override{Key: "loopback.latency", Value: units.Seconds(fd.Fit.Alpha.Value), Source: fmt.Sprintf("fit: α of tcp ping-pong on loopback (%s), one way", secI(fd.Fit.Alpha))})
	if b := fd.Fit.Beta.Value; finiteRate(b) {
		c.set(f.s, model.Override{Key: "loopback.rate", Value: units.Rate(b), Source: fmt.Sprintf("fit: β of tcp ping-pong on loopback (%s)", rateI(fd.Fit.Beta))})
	}
	if g := fd.Regimes; g != nil {
		c.set(f.s, model.Override{Key: "loopback.knee", Value: units.Bytes(int64(g.Break)), Source: fmt.Sprintf("fit: two regimes of tcp ping-pong on loopback, break after %s (the split removes %.0f%% of one line's error)", units.Bytes(g.Break).Human(), 100*g.Improvement)})
		c.set(f.s, model.Override{Key: "loopback.rate_beyond", Value: units.Rate(g.Above.Beta.Value), Source: fmt.Sprintf("fit: β above the break (%s)", rateI(g.Above.Beta))})
	}
}

// loopbackStream reads the loopback streaming goodput at writes of the
// chunk size: the period of the TCP stage when chunks follow each other
// (loopback.stream_rate).
func (f *fitting) loopbackStream() {
	sizes, rates := streamPoints(f.runs, "loopback")
	if len(sizes) == 0 {
		return
	}
	chunk := float64(f.s.Pipeline.Chunk)
	for _, se := range f.series {
		if se.Probe == "staged" && se.chunk > 0 {
			chunk = float64(se.chunk)
		}
	}
	if r := interpolate(sizes, rates, chunk); !math.IsNaN(r) && r > 0 {
		f.c.set(f.s, model.Override{Key: "loopback.stream_rate", Value: units.Rate(r), Source: fmt.Sprintf("measured: tcp stream on loopback, goodput for %s writes (read off %d write sizes)", units.Bytes(chunk).Human(), len(sizes))})
	} else {
		f.c.Warnings = append(f.c.Warnings, fmt.Sprintf("loopback stream: no write size brackets the chunk of %s", units.Bytes(chunk).Human()))
	}
}

// cachedCopies fits the copies of a bounce buffer the CPU has touched (the
// tcp path's A and G): gpu.cached_copy_latency, _rate and _knee.
func (f *fitting) cachedCopies() {
	c, base := f.c, f.base
	var cached []Fitted
	for _, x := range []struct{ variant, stage, name string }{
		{"d2h-pinned-cpuread", "A*", "cudaMemcpy D2H into a buffer the CPU read (in its caches)"},
		{"h2d-pinned-cpuwrite", "G*", "cudaMemcpy H2D from a buffer the CPU wrote (dirty in its caches)"},
	} {
		se, ok := pick(f.series, "cuda", x.variant, "wall", "gpu0")
		if !ok {
			continue
		}
		r, ok := f.alphaBeta(x.stage, se.Series)
		if !ok {
			continue
		}
		fd := Fitted{Stage: x.stage, Name: x.name, Series: se.Series, Fit: r, PresetAlpha: float64(base.GPU.CopyLatency), PresetBeta: float64(base.CopyRate())}
		f.withKnee(&fd)
		c.Fits = append(c.Fits, fd)
		cached = append(cached, fd)
	}
	if len(cached) == 0 {
		return
	}
	var as, bs, ks []float64
	for _, fd := range cached {
		as = append(as, fd.Fit.Alpha.Value)
		bs = append(bs, fd.Fit.Beta.Value)
		if fd.Regimes != nil {
			ks = append(ks, fd.Regimes.Break)
		}
	}
	c.set(f.s, model.Override{Key: "gpu.cached_copy_latency", Value: units.Seconds(mean(as)), Source: fmt.Sprintf("fit: mean α of the copies of CPU-touched buffers (%d series)", len(cached))})
	b := bs[0]
	if len(bs) == 2 {
		b = harmonic(bs[0], bs[1])
	}
	if finiteRate(b) {
		c.set(f.s, model.Override{Key: "gpu.cached_copy_rate", Value: units.Rate(b), Source: "fit: β of the copies of CPU-touched buffers (harmonic mean)"})
	}
	if len(ks) > 0 {
		c.set(f.s, model.Override{Key: "gpu.cached_copy_knee", Value: units.Bytes(int64(mean(ks))), Source: "fit: two regimes of the CPU-touched copies: past this size the buffer no longer sits in the caches"})
	}
}

// peerCopies fits the GPU peer copies (NVLink or PCIe P2P):
// gpu.peer_copy_latency and gpu.nvlink_efficiency (or gpu.nvlink_rate).
func (f *fitting) peerCopies() {
	peer, ok := pickPeer(f.series)
	if !ok {
		return
	}
	r, ok := f.alphaBeta("gpu-peer", peer.Series)
	if !ok {
		return
	}
	f.c.Fits = append(f.c.Fits, Fitted{Stage: "peer", Name: "GPU peer copy " + peer.Target, Series: peer.Series, Fit: r,
		PresetAlpha: float64(f.base.GPU.CopyLatency), PresetBeta: float64(peerRate(f.base))})
	if a := r.Alpha.Value; a > 0 && !math.IsInf(a, 0) {
		f.c.set(f.s, model.Override{Key: "gpu.peer_copy_latency", Value: units.Seconds(a), Source: fmt.Sprintf("fit: α of %s (%s)", seriesName(peer.Series), secI(r.Alpha))})
	}
	b := r.Beta.Value
	if !finiteRate(b) {
		return
	}
	// The model's NVLink copy rate is gpu.nvlink_rate × gpu.nvlink_efficiency:
	// keep the link's rate and fit the efficiency (a link rate above the
	// nominal one raises the rate and sets the efficiency to 1).
	if nv := float64(f.base.GPU.NVLinkRate); nv > 0 {
		if b <= nv {
			f.c.set(f.s, model.Override{Key: "gpu.nvlink_efficiency", Value: b / nv, Source: fmt.Sprintf("fit: β of %s (%s) over gpu.nvlink_rate %s", seriesName(peer.Series), rateI(r.Beta), units.Rate(nv).Compact())})
			return
		}
		f.c.set(f.s, model.Override{Key: "gpu.nvlink_efficiency", Value: 1.0, Source: fmt.Sprintf("fit: β of %s is above gpu.nvlink_rate", seriesName(peer.Series))})
	}
	f.c.set(f.s, model.Override{Key: "gpu.nvlink_rate", Value: units.Rate(b), Source: fmt.Sprintf("fit: β of %s (%s)", seriesName(peer.Series), rateI(r.Beta))})
}

// secI and rateI spell a fitted interval with the unit formatters:
// "6.62µs [6.61µs, 6.7µs]", "55.3GB/s [55.2GB/s, 55.4GB/s]".
func secI(v fit.Interval) string {
	return fmt.Sprintf("%s [%s, %s]", units.Seconds(v.Value).Compact(), units.Seconds(v.Lo).Compact(), units.Seconds(v.Hi).Compact())
}

func rateI(v fit.Interval) string {
	return fmt.Sprintf("%s [%s, %s]", units.Rate(v.Value).Compact(), units.Rate(v.Lo).Compact(), units.Rate(v.Hi).Compact())
}
