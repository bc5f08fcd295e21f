package fit

import (
	"fmt"
	"math"
)

// Form names the curve a Result was fitted with.
type Form string

// The forms.
const (
	// FormAlphaBeta is t(n) = α + n/β.
	FormAlphaBeta Form = "alpha-beta"
	// FormPipelined is t(n) = α + min(n, c)/β + (⌈n/c⌉ − 1)·p.
	FormPipelined Form = "pipelined"
)

// Options tune a fit. The zero value is ready to use.
type Options struct {
	// Level is the confidence level of the intervals, in (0, 1); 0 means 0.95.
	Level float64
	// Resamples is the number of bootstrap resamples; 0 means
	// DefaultResamples. At most MaxResamples.
	Resamples int
	// Seed makes the bootstrap deterministic: the same data, options and
	// seed give the same intervals, bit for bit. Every value (0 included) is
	// a valid seed.
	Seed uint64
	// Stop, when set, is asked between resamples (every StopEvery of them
	// and once at the end); a non-nil answer ends the fit with that error.
	// A command passes ctx.Err, so that SIGINT or SIGTERM stops a long
	// bootstrap at its next check.
	Stop func() error
}

// StopEvery is how many loop iterations (resamples) pass between two
// checks of Options.Stop.
const StopEvery = 64

// Stopped is Options.Stop's answer (nil without a Stop): the one check that
// every loop of the package, and a caller between fits, makes.
func (o Options) Stopped() error {
	if o.Stop == nil {
		return nil
	}
	return o.Stop()
}

// stoppedAt checks Stop at every StopEvery-th iteration i.
func (o Options) stoppedAt(i int) error {
	if o.Stop == nil || i%StopEvery != 0 {
		return nil
	}
	return o.Stop()
}

// Defaults and bounds of the options, and the thresholds of the warnings.
const (
	DefaultLevel     = 0.95
	DefaultResamples = 500
	MaxResamples     = 100_000
	// LargeResidual is the relative miss of the fitted curve at one size
	// (|measured − predicted|/measured, for the size's median) above which a
	// result gets CodeLargeResiduals.
	LargeResidual = 0.20
	// WideInterval is the factor Hi/Lo above which an interval counts as
	// not pinning its parameter down.
	WideInterval = 10.0
)

func (o Options) withDefaults() (Options, error) {
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if !(o.Level > 0 && o.Level < 1) {
		return o, fmt.Errorf("%w: level %v is not in (0, 1)", ErrInput, o.Level)
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Resamples < 0 || o.Resamples > MaxResamples {
		return o, fmt.Errorf("%w: %d resamples is not in [1, %d]", ErrInput, o.Resamples, MaxResamples)
	}
	return o, nil
}

// Residual is the fitted curve against the data at one size. The measured
// value is the median of the size's repetitions; residuals are data minus
// fit (positive: the data are slower than the curve).
type Residual struct {
	Bytes     float64 `json:"bytes"`
	Measured  float64 `json:"measured_s"`
	Predicted float64 `json:"predicted_s"`
	// Seconds is Measured − Predicted.
	Seconds float64 `json:"residual_s"`
	// Relative is (Measured − Predicted)/Measured.
	Relative float64 `json:"relative"`
}

// Result is a fitted curve with bootstrap intervals and diagnostics. All
// values are base units: seconds, bytes, bytes per second.
type Result struct {
	Form Form `json:"form"`
	// Alpha is the fixed latency α in seconds (never negative; when the
	// interval reaches 0, report "< Alpha.Hi").
	Alpha Interval `json:"alpha_s"`
	// Beta is the bandwidth β in bytes per second (may be +Inf when no
	// size-dependent time is seen: report "> Beta.Lo"). In the pipelined
	// form it is the rate of one chunk through all stages in series.
	Beta Interval `json:"beta_Bps"`
	// Chunk is the chunk size c in bytes (pipelined form only).
	Chunk float64 `json:"chunk_bytes,omitempty"`
	// Period is the time each further chunk adds, in seconds: the period of
	// the slowest stage including its per-chunk overhead (pipelined form
	// only).
	Period Interval `json:"period_s,omitzero"`
	// Stream is Chunk/Period, the steady-state rate of the pipeline in
	// bytes per second (pipelined form only).
	Stream Interval `json:"stream_Bps,omitzero"`

	// Level is the confidence level of the intervals; Resamples how many
	// bootstrap resamples gave them.
	Level     float64 `json:"level"`
	Resamples int     `json:"resamples"`
	// Sizes is the number of distinct sizes and Repetitions the number of
	// times used.
	Sizes       int `json:"sizes"`
	Repetitions int `json:"repetitions"`

	// Residuals, one per size in ascending size.
	Residuals []Residual `json:"residuals"`
	// MedianAPE and WorstAPE are the median and the largest absolute
	// percentage error of the curve against the per-size medians
	// (100·|predicted − measured|/measured); WorstBytes is the size of the
	// largest.
	MedianAPE  float64 `json:"median_ape_pct"`
	WorstAPE   float64 `json:"worst_ape_pct"`
	WorstBytes float64 `json:"worst_bytes"`

	// Warnings say where the fit is poorly determined or suspicious.
	Warnings []Warning `json:"warnings,omitempty"`
}

// Predict returns the fitted time in seconds for a message of n bytes.
func (r Result) Predict(n float64) float64 {
	t := r.Alpha.Value
	per := 1 / r.Beta.Value // 0 when β is +Inf
	if r.Form == FormPipelined {
		if r.Period.Value > 0 {
			t += chunksAfterFirst(n, r.Chunk) * r.Period.Value
		}
		n = math.Min(n, r.Chunk)
	}
	if per > 0 {
		t += n * per
	}
	return t
}

// Has reports whether the result carries a warning with the given code.
func (r Result) Has(c Code) bool {
	for _, w := range r.Warnings {
		if w.Code == c {
			return true
		}
	}
	return false
}

// chunksAfterFirst is ⌈n/c⌉ − 1, at least 0.
func chunksAfterFirst(n, c float64) float64 {
	return math.Max(0, math.Ceil(n/c)-1)
}

// AlphaBeta fits t(n) = α + n/β: a fixed latency α (seconds) and a
// bandwidth β (bytes per second), both constrained non-negative.
//
// The fit counts relative error, so that a 4-byte message and a 256-MiB one
// both matter: timings have a roughly constant relative spread, so the
// variance of the median at size n is proportional to μ(n)², and the fit
// minimises Σ rᵢ(mᵢ − μᵢ)²/μᵢ² over the sizes (mᵢ the median of the rᵢ
// repetitions, μᵢ = α + nᵢ/β), reweighting by the fitted curve until it stops
// moving (iteratively reweighted least squares; each step a non-negative
// weighted least-squares solve by QR). Weights 1/μ² from the fitted curve
// rather than 1/t² from the data avoid the bias of dividing by a noisy value
// (a fast repetition would weigh more); an unweighted fit would let the
// largest sizes decide α. Medians rather than means keep the occasional
// slow repetition (an interrupt, a page fault) from moving the curve; with
// lognormal noise the median is the unbiased centre.
//
// Intervals come from a bootstrap over repetitions (see Options); sizes with
// a single repetition switch it to a residual bootstrap, with a warning.
// Percentile intervals of bootstrapped medians err on the wide side: in the
// package's simulations (lognormal noise of 2–5%, 27 sizes from 4 B to
// 256 MiB) the 95% intervals held the true α and β in 96–99% of trials with
// 3 to 20 repetitions, and in 92–95% with single repetitions.
// Fewer than two distinct sizes cannot separate α from β: ErrTooFewSizes.
func AlphaBeta(obs []Observation, opt Options) (Result, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return Result{}, err
	}
	d, err := prepare(obs)
	if err != nil {
		return Result{}, err
	}
	if len(d.bytes) < 2 {
		return Result{}, fmt.Errorf("%w: only one distinct size (%s B, median %.3g s): α ≤ %.3g s and β ≥ %.3g B/s is all it says",
			ErrTooFewSizes, fmtBytes(d.bytes[0]), d.med[0], d.med[0], d.bytes[0]/d.med[0])
	}
	lin := newLinear(len(d.bytes), 2, func(i int, row []float64) {
		row[0], row[1] = 1, d.bytes[i]
	})
	point, samples, warns, err := estimate(d, lin, opt)
	if err != nil {
		return Result{}, err
	}
	r := Result{
		Form:  FormAlphaBeta,
		Alpha: interval(point[0], samples[0], opt.Level),
		Beta:  inverse(interval(point[1], samples[1], opt.Level)),
	}
	r.finish(d, opt, warns)
	r.warnAlpha(opt)
	r.warnBeta(opt, d)
	if err := r.check(); err != nil {
		return Result{}, err
	}
	return r, nil
}

// check refuses a result that is not a physical α–β pair: α finite and not
// negative, β positive (+Inf is a flat curve: no per-byte cost resolved).
func (r *Result) check() error {
	a, b := r.Alpha, r.Beta
	if math.IsNaN(a.Value) || math.IsInf(a.Value, 0) || a.Value < 0 || math.IsNaN(a.Lo) || math.IsNaN(a.Hi) {
		return fmt.Errorf("%w: fitted latency α = %g s", ErrDegenerate, a.Value)
	}
	if math.IsNaN(b.Value) || b.Value <= 0 {
		return fmt.Errorf("%w: fitted rate β = %g B/s", ErrDegenerate, b.Value)
	}
	return nil
}

// Pipelined fits a transfer cut into chunks of c bytes that flow through a
// pipeline of stages (copies and socket transfers overlapping):
//
//	t(n) = α + min(n, c)/β + (⌈n/c⌉ − 1)·p
//
// The first chunk (or the whole message, when n ≤ c) passes through every
// stage in series — a fixed latency α plus min(n, c)/β, β the series rate
// 1/Σₛ(1/βₛ) — and each further chunk adds one period p of the slowest
// stage, p = oₛ + c/βₛ with oₛ that stage's per-chunk overhead. This is the
// shape of a pipeline: below c the slope is the sum of the stages' costs per
// byte; above c it is p/c, which overlap makes smaller. (The form
// α + n/β + (⌈n/c⌉ − 1)·o cannot describe overlap: with o ≥ 0 its slope can
// only grow past c.) One chunk size cannot separate oₛ from c/βₛ; measure
// several chunk sizes and fit p(c) with AlphaBeta for that. The last chunk
// counts as a whole period, exact when c divides n.
//
// The form is linear in (α, 1/β, p), so it is fitted like AlphaBeta (relative
// error, non-negative, bootstrap intervals). It needs a size below c and
// two sizes at or above c in different numbers of chunks; otherwise
// ErrTooFewSizes.
// Result.Stream is c/p, the pipeline's steady-state rate.
func Pipelined(obs []Observation, chunk float64, opt Options) (Result, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if !(chunk > 0) || math.IsInf(chunk, 0) {
		return Result{}, fmt.Errorf("%w: chunk size %v is not a positive number of bytes", ErrInput, chunk)
	}
	d, err := prepare(obs)
	if err != nil {
		return Result{}, err
	}
	below, above := 0, 0
	for _, b := range d.bytes {
		if b > chunk {
			above++
		}
		if b < chunk {
			below++
		}
	}
	lin := newLinear(len(d.bytes), 3, func(i int, row []float64) {
		n := d.bytes[i]
		row[0], row[1], row[2] = 1, math.Min(n, chunk), chunksAfterFirst(n, chunk)
	})
	// α, β and p are separated only by a size below c, and two sizes above
	// it in different numbers of chunks (or one size at c and one above).
	if above == 0 || below == 0 || !lin.fullRank() {
		return Result{}, fmt.Errorf("%w: the pipelined form needs a size below the chunk (%s B) and two sizes at or above it in different numbers of chunks: %d below, %d above, %d in all",
			ErrTooFewSizes, fmtBytes(chunk), below, above, len(d.bytes))
	}
	point, samples, warns, err := estimate(d, lin, opt)
	if err != nil {
		return Result{}, err
	}
	r := Result{
		Form:   FormPipelined,
		Chunk:  chunk,
		Alpha:  interval(point[0], samples[0], opt.Level),
		Beta:   inverse(interval(point[1], samples[1], opt.Level)),
		Period: interval(point[2], samples[2], opt.Level),
	}
	s := inverse(r.Period)
	r.Stream = Interval{Value: chunk * s.Value, Lo: chunk * s.Lo, Hi: chunk * s.Hi}
	r.finish(d, opt, warns)
	r.warnAlpha(opt)
	r.warnBeta(opt, d)
	pct := pctLevel(opt.Level)
	switch {
	case r.Period.Lo <= 0:
		r.Warnings = append(r.Warnings, warnf(CodePeriodUnresolved,
			"the per-chunk period is not distinguishable from 0 at the %s level: report p < %.3g s", pct, r.Period.Hi))
	case r.Period.Ratio() > WideInterval:
		r.Warnings = append(r.Warnings, warnf(CodePeriodUnresolved,
			"the per-chunk period's %s interval spans a factor of %.0f (%.3g to %.3g s)", pct, r.Period.Ratio(), r.Period.Lo, r.Period.Hi))
	}
	if sf := chunk / r.Beta.Value; r.Period.Value > 0 && r.Period.Value >= sf {
		r.Warnings = append(r.Warnings, warnf(CodeNoOverlap,
			"each further chunk adds %.3g s, no less than one chunk store-and-forward (%.3g s): the stages do not overlap", r.Period.Value, sf))
	}
	if err := r.check(); err != nil {
		return Result{}, err
	}
	if p := r.Period.Value; math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
		return Result{}, fmt.Errorf("%w: fitted per-chunk period = %g s", ErrDegenerate, p)
	}
	return r, nil
}

func pctLevel(level float64) string { return fmt.Sprintf("%.4g%%", 100*level) }

// estimate runs the point fit and the bootstrap. samples[k] holds the sorted
// bootstrap values of parameter k.
func estimate(d *data, lin *linear, opt Options) (point []float64, samples [][]float64, warns []Warning, err error) {
	warns = append(warns, d.warns...)
	cnt := make([]float64, len(d.reps))
	for i, r := range d.reps {
		cnt[i] = float64(len(r))
	}
	point = make([]float64, lin.p)
	if !lin.irls(d.med, cnt, nil, point) {
		warns = append(warns, warnf(CodeNotConverged, "the reweighted fit did not settle in 100 iterations; the estimate is the last one"))
	}
	if len(d.bytes) <= lin.p {
		warns = append(warns, warnf(CodeFewSizes,
			"only %d distinct sizes for %d parameters: nothing checks that the form fits (measure at least %d sizes)",
			len(d.bytes), lin.p, lin.p+1))
	}
	mu := make([]float64, lin.rows)
	lin.predict(point, mu)
	warns = append(warns, d.checkMonotonic(mu)...)
	var residual bool
	samples, residual, err = bootstrap(d, lin, point, cnt, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	if residual {
		warns = append(warns, warnf(CodeResidualBootstrap,
			"some sizes have a single repetition: the intervals come from resampling relative residuals, which assumes the form is right"))
	}
	return point, samples, warns, nil
}

// finish fills the residuals, the error summary and the bookkeeping.
func (r *Result) finish(d *data, opt Options, warns []Warning) {
	r.Level, r.Resamples = opt.Level, opt.Resamples
	r.Sizes, r.Repetitions = len(d.bytes), d.n
	r.Warnings = warns
	pred := make([]float64, len(d.bytes))
	r.Residuals = make([]Residual, len(d.bytes))
	for i, b := range d.bytes {
		p := r.Predict(b)
		pred[i] = p
		m := d.med[i]
		r.Residuals[i] = Residual{Bytes: b, Measured: m, Predicted: p, Seconds: m - p, Relative: (m - p) / m}
	}
	c := summarize(d.bytes, pred, d.med)
	r.MedianAPE, r.WorstAPE, r.WorstBytes = c.MedianAPE, c.WorstAPE, c.WorstBytes
	if r.WorstAPE > 100*LargeResidual {
		r.Warnings = append(r.Warnings, warnf(CodeLargeResiduals,
			"the fitted curve is off the median by %+.0f%% at %s B (more than ±%.0f%%): the form does not describe the data there (a protocol change, a cache edge?)",
			c.WorstPercent, fmtBytes(c.WorstBytes), 100*LargeResidual))
	}
}

func (r *Result) warnAlpha(opt Options) {
	pct := pctLevel(opt.Level)
	switch {
	case r.Alpha.Lo <= 0:
		r.Warnings = append(r.Warnings, warnf(CodeAlphaUnresolved,
			"the latency α is not distinguishable from 0 at the %s level: report α < %.3g s", pct, r.Alpha.Hi))
	case r.Alpha.Ratio() > WideInterval:
		r.Warnings = append(r.Warnings, warnf(CodeAlphaUnresolved,
			"the latency α's %s interval spans a factor of %.0f (%.3g to %.3g s): the smallest sizes do not pin it down", pct, r.Alpha.Ratio(), r.Alpha.Lo, r.Alpha.Hi))
	}
}

func (r *Result) warnBeta(opt Options, d *data) {
	pct := pctLevel(opt.Level)
	largest := fmtBytes(d.bytes[len(d.bytes)-1])
	switch {
	case r.Beta.LowerBound():
		r.Warnings = append(r.Warnings, warnf(CodeBetaUnresolved,
			"the bandwidth term n/β is lost in the noise up to %s B: β > %.3g B/s is all the data say (measure larger sizes)", largest, r.Beta.Lo))
	case r.Beta.Ratio() > WideInterval:
		r.Warnings = append(r.Warnings, warnf(CodeBetaUnresolved,
			"the bandwidth β's %s interval spans a factor of %.0f (%.3g to %.3g B/s): sizes up to %s B do not pin it down", pct, r.Beta.Ratio(), r.Beta.Lo, r.Beta.Hi, largest))
	}
}
