package fit

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// linear is a model that is linear in non-negative parameters θ:
// μ(n) = Σₖ θₖ·xₖ(n). The rows of x are the regressors at each distinct size.
type linear struct {
	rows, p int
	x       []float64 // rows×p, row-major
	scale   []float64 // per-column max |x|, for equilibration
}

func newLinear(rows, p int, regressors func(i int, row []float64)) *linear {
	l := &linear{rows: rows, p: p, x: make([]float64, rows*p), scale: make([]float64, p)}
	for i := 0; i < rows; i++ {
		row := l.x[i*p : (i+1)*p]
		regressors(i, row)
		for k, v := range row {
			l.scale[k] = math.Max(l.scale[k], math.Abs(v))
		}
	}
	return l
}

func (l *linear) predict(theta []float64, mu []float64) {
	for i := 0; i < l.rows; i++ {
		var s float64
		for k := 0; k < l.p; k++ {
			if theta[k] != 0 {
				s += theta[k] * l.x[i*l.p+k]
			}
		}
		mu[i] = s
	}
}

// maxCond is the condition number (after column equilibration) above which
// a set of regressors counts as collinear: their coefficients are not
// separately determined by the sizes measured.
const maxCond = 1e10

// wlsWork is the workspace of one wls call, kept between calls (wls runs
// tens of thousands of times in one bootstrap; allocating it every time was
// a quarter of the fit's CPU time).
type wlsWork struct {
	a    mat.Dense
	b    mat.VecDense
	qr   mat.QR
	sol  mat.VecDense
	norm []float64
	cols []int
}

var wlsPool = sync.Pool{New: func() any { return new(wlsWork) }}

// wls solves min Σᵢ wᵢ(yᵢ − xᵢ·θ)² for the columns in mask (the others are
// 0), by QR of the weighted, column-equilibrated design (gonum/mat). ok is
// false when the selected columns are collinear or empty.
func (l *linear) wls(mask uint, y, w []float64, theta []float64) (sse float64, ok bool) {
	ws := wlsPool.Get().(*wlsWork)
	defer wlsPool.Put(ws)
	cols := ws.cols[:0]
	defer func() { ws.cols = cols }()
	for k := 0; k < l.p; k++ {
		if mask&(1<<k) != 0 {
			if l.scale[k] == 0 {
				return 0, false
			}
			cols = append(cols, k)
		}
	}
	for k := range theta {
		theta[k] = 0
	}
	if len(cols) > 0 {
		if l.rows < len(cols) {
			return 0, false
		}
		// Weighted design, each column scaled to unit norm so that the
		// condition number measures collinearity, not units.
		a, b := &ws.a, &ws.b
		a.Reset()
		a.ReuseAs(l.rows, len(cols))
		b.Reset()
		b.ReuseAsVec(l.rows)
		norm := ws.norm[:0]
		for range cols {
			norm = append(norm, 0)
		}
		ws.norm = norm
		for i := 0; i < l.rows; i++ {
			sw := math.Sqrt(w[i])
			for j, k := range cols {
				v := sw * l.x[i*l.p+k] / l.scale[k]
				a.Set(i, j, v)
				norm[j] += v * v
			}
			b.SetVec(i, sw*y[i])
		}
		for j := range cols {
			norm[j] = math.Sqrt(norm[j])
			if !(norm[j] > 0) || math.IsInf(norm[j], 0) {
				return 0, false
			}
			for i := 0; i < l.rows; i++ {
				a.Set(i, j, a.At(i, j)/norm[j])
			}
		}
		qr, sol := &ws.qr, &ws.sol
		qr.Factorize(a)
		if c := qr.Cond(); !(c < maxCond) {
			return 0, false
		}
		sol.Reset()
		if err := qr.SolveVecTo(sol, false, b); err != nil {
			return 0, false
		}
		for j, k := range cols {
			v := sol.AtVec(j) / norm[j] / l.scale[k]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, false
			}
			theta[k] = v
		}
	}
	for i := 0; i < l.rows; i++ {
		var m float64
		for _, k := range cols {
			m += theta[k] * l.x[i*l.p+k]
		}
		r := y[i] - m
		sse += w[i] * r * r
	}
	return sse, true
}

// nnls solves the weighted least-squares problem with θ ≥ 0. For p ≤ 3 the
// exact answer is found by enumeration: the constrained optimum is the
// unconstrained optimum over its set of free (non-zero) parameters, which is
// feasible, and every feasible restricted optimum is a feasible point, so the
// best feasible restricted optimum is the constrained optimum.
func (l *linear) nnls(y, w []float64, theta []float64) bool {
	full := uint(1)<<l.p - 1
	if _, ok := l.wls(full, y, w, theta); ok && nonNeg(theta) {
		return true
	}
	best := math.Inf(1)
	found := false
	tmp := make([]float64, l.p)
	for mask := full - 1; ; mask-- {
		sse, ok := l.wls(mask, y, w, tmp)
		if ok && nonNeg(tmp) && sse < best {
			best, found = sse, true
			copy(theta, tmp)
		}
		if mask == 0 {
			break
		}
	}
	if !found {
		for k := range theta {
			theta[k] = 0
		}
	}
	return found
}

func nonNeg(theta []float64) bool {
	for _, v := range theta {
		if !(v >= 0) {
			return false
		}
	}
	return true
}

// irls fits the per-size statistics y (each from cnt[i] repetitions) with
// weights cnt[i]/μᵢ², μ the current fitted curve, until the curve stops
// moving. At convergence θ solves the quasi-likelihood equations for noise
// whose standard deviation is proportional to the mean (constant relative
// error): Σᵢ cntᵢ(yᵢ − μᵢ)xᵢₖ/μᵢ² = 0 on the free parameters. start, when not
// nil, is a warm start for θ.
func (l *linear) irls(y, cnt, start, theta []float64) (converged bool) {
	mu := make([]float64, l.rows)
	w := make([]float64, l.rows)
	next := make([]float64, l.rows)
	if start != nil {
		l.predict(start, mu)
	} else {
		copy(mu, y)
	}
	const maxIter = 100
	for it := 0; it < maxIter; it++ {
		for i := range w {
			// The floor keeps a weight finite where the curve is near 0
			// (a zero-byte size and α = 0).
			m := math.Max(mu[i], 1e-3*y[i])
			w[i] = cnt[i] / (m * m)
		}
		if !l.nnls(y, w, theta) {
			return false
		}
		l.predict(theta, next)
		var change float64
		for i := range next {
			den := math.Max(mu[i], 1e-3*y[i])
			change = math.Max(change, math.Abs(next[i]-mu[i])/den)
		}
		mu, next = next, mu
		if change < 1e-10 {
			return true
		}
	}
	return false
}

// fullRank reports whether the regressors are linearly independent over
// the sizes, so that every parameter is determined by the data.
func (l *linear) fullRank() bool {
	y := make([]float64, l.rows)
	w := make([]float64, l.rows)
	for i := range w {
		w[i] = 1
	}
	_, ok := l.wls(uint(1)<<l.p-1, y, w, make([]float64, l.p))
	return ok
}

// leverage returns the diagonal of the hat matrix of the weighted fit at θ
// (weights cnt/μ², over the parameters that are not held at 0): hᵢ is how
// much size i pulls the curve through itself, from 0 to 1.
func (l *linear) leverage(theta, cnt []float64) []float64 {
	h := make([]float64, l.rows)
	var cols []int
	for k := 0; k < l.p; k++ {
		if theta[k] > 0 && l.scale[k] > 0 {
			cols = append(cols, k)
		}
	}
	if len(cols) == 0 || l.rows < len(cols) {
		return h
	}
	mu := make([]float64, l.rows)
	l.predict(theta, mu)
	a := mat.NewDense(l.rows, len(cols), nil)
	for i := 0; i < l.rows; i++ {
		if !(mu[i] > 0) {
			return h
		}
		sw := math.Sqrt(cnt[i]) / mu[i]
		for j, k := range cols {
			a.Set(i, j, sw*l.x[i*l.p+k]/l.scale[k])
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	if !(qr.Cond() < maxCond) {
		return h
	}
	// h_i = ‖Q_i‖² = ‖R⁻ᵀ a_i‖²: with R (p × p) alone, by forward
	// substitution, so memory stays O(rows × p) (the full Q is rows × rows:
	// 800 MB at 10,000 sizes).
	var r mat.Dense
	qr.RTo(&r)
	p := len(cols)
	z := make([]float64, p)
	for i := range h {
		for j := 0; j < p; j++ {
			v := a.At(i, j)
			for k := 0; k < j; k++ {
				v -= r.At(k, j) * z[k]
			}
			z[j] = v / r.At(j, j)
			h[i] += z[j] * z[j]
		}
	}
	return h
}
