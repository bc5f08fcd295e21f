package fit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/internal/stats"
)

// Point is one size of a model-against-measurement comparison.
type Point struct {
	Bytes     float64 `json:"bytes"`
	Predicted float64 `json:"predicted_s"`
	Measured  float64 `json:"measured_s"`
	// Percent is the model's error, 100·(Predicted − Measured)/Measured:
	// negative when the model is too fast (predicts less time than
	// measured), positive when it is too slow.
	Percent float64 `json:"error_pct"`
}

// Comparison summarises how far a model is from measurements over sizes.
type Comparison struct {
	Points []Point `json:"points"`
	// MedianAPE and WorstAPE are the median and the largest absolute
	// percentage error over the sizes.
	MedianAPE float64 `json:"median_ape_pct"`
	WorstAPE  float64 `json:"worst_ape_pct"`
	// WorstBytes is the size with the largest absolute error (the smallest
	// such size on a tie) and WorstPercent its signed error.
	WorstBytes   float64 `json:"worst_bytes"`
	WorstPercent float64 `json:"worst_error_pct"`
}

// Compare puts predicted against measured seconds, size by size. The
// slices must have one entry per size and the same length; sizes must be
// finite and non-negative, predictions finite and non-negative, measurements
// finite and positive. A bad value is a one-line error naming it (nothing is
// dropped: a comparison with holes would look better than it is).
func Compare(bytes, predicted, measured []float64) (Comparison, error) {
	if len(bytes) == 0 {
		return Comparison{}, fmt.Errorf("%w: nothing to compare", ErrNoData)
	}
	if len(predicted) != len(bytes) || len(measured) != len(bytes) {
		return Comparison{}, fmt.Errorf("%w: %d sizes, %d predictions, %d measurements", ErrInput, len(bytes), len(predicted), len(measured))
	}
	if err := checkValues("bytes", bytes, false); err != nil {
		return Comparison{}, err
	}
	if err := checkValues("predicted", predicted, false); err != nil {
		return Comparison{}, err
	}
	if err := checkValues("measured", measured, true); err != nil {
		return Comparison{}, err
	}
	return summarize(bytes, predicted, measured), nil
}

// checkValues returns an error naming the first value that is NaN,
// infinite, negative, or (when positive is set) zero.
func checkValues(name string, xs []float64, positive bool) error {
	for i, x := range xs {
		bad := ""
		switch {
		case math.IsNaN(x):
			bad = "NaN"
		case math.IsInf(x, 0):
			bad = "infinite"
		case x < 0:
			bad = "negative"
		case positive && x == 0:
			bad = "zero"
		}
		if bad != "" {
			return fmt.Errorf("%w: %s[%d] is %s (%v)", ErrInput, name, i, bad, x)
		}
	}
	return nil
}

// summarize is Compare on checked input.
func summarize(bytes, predicted, measured []float64) Comparison {
	c := Comparison{Points: make([]Point, len(bytes))}
	ape := make([]float64, len(bytes))
	for i := range bytes {
		pct := 100 * (predicted[i] - measured[i]) / measured[i]
		c.Points[i] = Point{Bytes: bytes[i], Predicted: predicted[i], Measured: measured[i], Percent: pct}
		ape[i] = math.Abs(pct)
		if i == 0 || ape[i] > c.WorstAPE {
			c.WorstAPE, c.WorstBytes, c.WorstPercent = ape[i], bytes[i], pct
		}
	}
	slices.Sort(ape)
	c.MedianAPE = stats.Quantile(ape, 0.5)
	return c
}

// Stage is one stage's modeled time at each size of a comparison, split into
// its fixed part (the α term) and its size-dependent part (the n/β term).
// Either slice may be nil (meaning 0); otherwise it has one entry per size.
// Name is free text: a letter, a name, whatever the report prints.
type Stage struct {
	Name     string
	Fixed    []float64
	Transfer []float64
}

// Term says which part of a stage a Suspect is.
type Term string

// The terms.
const (
	TermFixed    Term = "fixed"    // the stage's α term
	TermTransfer Term = "transfer" // the stage's n/β term
	TermWhole    Term = "whole"    // both, scaled together
)

func (t Term) phrase() string {
	switch t {
	case TermFixed:
		return "fixed latency α"
	case TermTransfer:
		return "transfer time n/β"
	}
	return "whole time"
}

// Suspect is one stage term considered as the cause of a disagreement.
type Suspect struct {
	Stage string `json:"stage"`
	Term  Term   `json:"term"`
	// Factor is what the term's modeled time must be multiplied by for the
	// model to come closest to the measurements: above 1 the model has the
	// stage too fast, below 1 too slow; 0 means even removing the term
	// is not enough.
	Factor float64 `json:"factor"`
	// Explained is the fraction (0 to 1) of the squared relative error
	// that rescaling this term alone removes.
	Explained float64 `json:"explained"`
}

// TooFast reports whether the model has this term faster than measured.
func (s Suspect) TooFast() bool { return s.Factor > 1 }

// Verdict is Blame's answer.
type Verdict struct {
	// Suspect is the most likely culprit; its Stage is empty when the model
	// matches the measurements exactly or no term explains any of the error.
	Suspect
	// Candidates lists every term considered, the culprit first, then by
	// explained fraction.
	Candidates []Suspect `json:"candidates"`
	// Comparison is the total model (the sum of all stage terms) against
	// the measured totals.
	Comparison Comparison `json:"comparison"`
}

// String says in one sentence which stage the model gets wrong, e.g.
// `stage "B" (its transfer time n/β) is modeled too fast: the model matches best if it takes 1.8× its modeled value (explains 93% of the error; worst -35.0% at 65536 B)`,
// followed by the other suspects that explain the error as well, if any
// ("; as well explained by "A" transfer ×3.1").
func (v Verdict) String() string {
	c := v.Comparison
	if v.Stage == "" && c.WorstAPE < agreeAPE {
		return "the model matches the measurements at every size"
	}
	if v.Stage == "" {
		return fmt.Sprintf("no single stage explains the error (median %.1f%%, worst %+.1f%% at %s B)", c.MedianAPE, c.WorstPercent, fmtBytes(c.WorstBytes))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "stage %q (its %s) is modeled ", v.Stage, v.Term.phrase())
	switch {
	case v.Factor == 0:
		b.WriteString("too slow: the model comes closest with it removed entirely")
	case v.TooFast():
		fmt.Fprintf(&b, "too fast: the model matches best if it takes %.3g× its modeled value", v.Factor)
	default:
		fmt.Fprintf(&b, "too slow: the model matches best if it takes %.3g× its modeled value", v.Factor)
	}
	fmt.Fprintf(&b, " (explains %.0f%% of the error; worst %+.1f%% at %s B)", 100*v.Explained, c.WorstPercent, fmtBytes(c.WorstBytes))
	var alike []string
	for _, s := range v.Candidates[1:] {
		if s.Explained >= v.Explained-BlameTie && s.Factor > 0 {
			alike = append(alike, fmt.Sprintf("%q %s ×%.3g", s.Stage, s.Term, s.Factor))
		}
	}
	if len(alike) > 0 {
		fmt.Fprintf(&b, "; as well explained by %s", strings.Join(alike, ", "))
	}
	return b.String()
}

// agreeAPE is the worst absolute percentage error under which a model
// matches its measurements up to rounding: there is nothing to blame.
const agreeAPE = 1e-7

// BlameTie is the margin of explained fraction within which two suspects
// count as explaining the error equally well; the smaller correction wins.
const BlameTie = 0.05

// Blame names the stage term most likely responsible for the disagreement
// between a model, given as its stages' terms, and the measured totals. The
// model's total at each size is the sum of all terms.
//
// The heuristic looks for the term whose shape over sizes matches the shape
// of the error. With the relative residual eᵢ = (measuredᵢ − modelᵢ)/measuredᵢ
// and a term's relative share uᵢ = termᵢ/measuredᵢ, it finds the k that
// minimises Σ(eᵢ − k·uᵢ)² — rescaling the term by Factor = 1 + k (at least
// 0: a stage cannot take negative time) — and scores the term by the
// fraction of Σeᵢ² that removes. Relative errors make the sizes where the
// error is largest count most. A fixed term is constant, so it explains an
// error that matters at small sizes; a transfer term grows with n, so it
// explains one at large sizes; the sign of k says whether the model is too
// fast or too slow there. Terms of the same shape (every stage's fixed term
// is a constant) explain the error equally; among suspects within BlameTie
// of the best score, the one needing the smallest correction |ln Factor| —
// the largest term, the one that dominates — is named.
func Blame(bytes, measured []float64, stages []Stage) (Verdict, error) {
	if len(stages) == 0 {
		return Verdict{}, fmt.Errorf("%w: no stages to blame", ErrInput)
	}
	n := len(bytes)
	total := make([]float64, n)
	for _, s := range stages {
		for _, part := range []struct {
			name string
			v    []float64
		}{{"fixed", s.Fixed}, {"transfer", s.Transfer}} {
			if part.v == nil {
				continue
			}
			if len(part.v) != n {
				return Verdict{}, fmt.Errorf("%w: stage %q has %d %s times for %d sizes", ErrInput, s.Name, len(part.v), part.name, n)
			}
			if err := checkValues(fmt.Sprintf("stage %q %s", s.Name, part.name), part.v, false); err != nil {
				return Verdict{}, err
			}
			for i, x := range part.v {
				total[i] += x
			}
		}
	}
	c, err := Compare(bytes, total, measured)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Comparison: c}
	if c.WorstAPE < agreeAPE {
		return v, nil
	}
	// The relative residual e and each term's relative share u are scaled
	// by their largest magnitude before squaring, so that extreme inputs
	// cannot overflow; the scales cancel in k and in the explained
	// fraction.
	e := make([]float64, n)
	var se float64
	for i := range e {
		e[i] = (measured[i] - total[i]) / measured[i]
		se = math.Max(se, math.Abs(e[i]))
	}
	if math.IsInf(se, 0) || math.IsNaN(se) {
		return Verdict{}, fmt.Errorf("%w: the model and the measurements differ beyond floating-point range", ErrInput)
	}
	var ee float64
	for i := range e {
		e[i] /= se
		ee += e[i] * e[i]
	}
	u := make([]float64, n)
	consider := func(stage string, term Term, parts ...[]float64) {
		var su float64
		for i := range u {
			u[i] = 0
			for _, p := range parts {
				if p != nil {
					u[i] += p[i]
				}
			}
			u[i] /= measured[i]
			su = math.Max(su, math.Abs(u[i]))
		}
		if !(su > 0) || math.IsInf(su, 0) {
			return
		}
		var uu, eu float64
		for i := range u {
			u[i] /= su
			uu += u[i] * u[i]
			eu += e[i] * u[i]
		}
		// e·se ≈ k·u·su: k = (eu/uu)·se/su, at least −1.
		ks := eu / uu
		k := ks * se / su
		if math.IsNaN(k) || math.IsInf(k, 0) {
			return
		}
		if k < -1 {
			k, ks = -1, -su/se
		}
		var rr float64
		for i := range u {
			r := e[i] - ks*u[i]
			rr += r * r
		}
		explained := 1 - rr/ee
		if !(explained > 0) {
			explained = 0
		}
		v.Candidates = append(v.Candidates, Suspect{Stage: stage, Term: term, Factor: 1 + k, Explained: explained})
	}
	for _, s := range stages {
		consider(s.Name, TermFixed, s.Fixed)
		consider(s.Name, TermTransfer, s.Transfer)
		if s.Fixed != nil && s.Transfer != nil {
			consider(s.Name, TermWhole, s.Fixed, s.Transfer)
		}
	}
	if len(v.Candidates) == 0 {
		return v, nil
	}
	correction := func(s Suspect) float64 {
		if s.Factor <= 0 {
			return math.Inf(1)
		}
		return math.Abs(math.Log(s.Factor))
	}
	slices.SortStableFunc(v.Candidates, func(a, b Suspect) int {
		if a.Explained != b.Explained {
			return cmpFloat(b.Explained, a.Explained)
		}
		return cmpFloat(correction(a), correction(b))
	})
	best := 0
	for j, s := range v.Candidates {
		if s.Explained >= v.Candidates[0].Explained-BlameTie && correction(s) < correction(v.Candidates[best]) {
			best = j
		}
	}
	if v.Candidates[best].Explained <= 0 {
		return v, nil
	}
	chosen := v.Candidates[best]
	v.Candidates = slices.Delete(v.Candidates, best, best+1)
	v.Candidates = slices.Insert(v.Candidates, 0, chosen)
	v.Suspect = chosen
	return v, nil
}
