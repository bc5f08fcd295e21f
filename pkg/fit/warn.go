package fit

import (
	"errors"
	"fmt"
)

// Code classifies a Warning. Codes are stable strings so that a report can
// filter or style them; the Message says the same thing in a sentence.
type Code string

// The warning codes.
const (
	// CodeDropped: some sizes or times were not usable (NaN, ±Inf, negative,
	// or a zero time) and were left out; the fit uses the rest.
	CodeDropped Code = "dropped"
	// CodeFewSizes: fewer than three distinct sizes; the curve passes through
	// the data and nothing checks that the form fits.
	CodeFewSizes Code = "few-sizes"
	// CodeResidualBootstrap: at least one size has a single repetition, so the
	// intervals come from resampling residuals (which assumes the form is
	// right) rather than repetitions.
	CodeResidualBootstrap Code = "residual-bootstrap"
	// CodeAlphaUnresolved: the latency α is not distinguishable from 0 (its
	// interval reaches 0: report it as "< Hi") or its interval spans more than
	// a factor of ten.
	CodeAlphaUnresolved Code = "alpha-unresolved"
	// CodeBetaUnresolved: the bandwidth term n/β is lost in the noise at every
	// measured size (β's interval is unbounded above: report it as "> Lo"),
	// or β's interval spans more than a factor of ten.
	CodeBetaUnresolved Code = "beta-unresolved"
	// CodePeriodUnresolved: the pipelined per-chunk period is not
	// distinguishable from 0 or spans more than a factor of ten.
	CodePeriodUnresolved Code = "period-unresolved"
	// CodeNoOverlap: the pipelined fit finds that each further chunk costs at
	// least as much as one chunk store-and-forward: the stages do not overlap.
	CodeNoOverlap Code = "no-overlap"
	// CodeLargeResiduals: the fitted curve misses some size's median by more
	// than LargeResidual; the form does not describe the data there (a
	// protocol change, a cache edge, a noisy size).
	CodeLargeResiduals Code = "large-residuals"
	// CodeNonMonotonic: a larger size was measured clearly faster than a
	// smaller one; time should not fall as size grows.
	CodeNonMonotonic Code = "non-monotonic"
	// CodeNotConverged: the iteratively reweighted fit did not settle; the
	// estimate is the last iterate.
	CodeNotConverged Code = "not-converged"
	// CodeThinned: the series held more than MaxTimes times in all; each
	// size kept evenly spaced order statistics of its times (its median
	// from all of them), so that a fit's work is bounded by its sizes, not
	// by the records of the run.
	CodeThinned Code = "thinned"
)

// Warning is attached to a result whose fit is usable but poorly determined
// or suspicious. Message is one human sentence without a trailing newline.
type Warning struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// String returns "code: message".
func (w Warning) String() string { return string(w.Code) + ": " + w.Message }

func warnf(c Code, format string, args ...any) Warning {
	return Warning{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Sentinel errors, to be tested with errors.Is. Every error the package
// returns is one line and wraps one of these.
var (
	// ErrNoData: no observation, or none that is usable.
	ErrNoData = errors.New("fit: no usable observations")
	// ErrTooFewSizes: the sizes cannot separate the parameters of the form
	// (one distinct size for α–β; for the pipelined form, no size above the
	// chunk or fewer than two distinct sizes up to it).
	ErrTooFewSizes = errors.New("fit: too few distinct sizes")
	// ErrInput: malformed arguments (mismatched lengths, a bad option, a
	// non-finite value where no value may be dropped).
	ErrInput = errors.New("fit: bad input")
	// ErrDegenerate says the data gave no finite fit (every candidate's
	// error was NaN or infinite, or a fitted value came out non-finite).
	ErrDegenerate = errors.New("fit: degenerate data")
)
