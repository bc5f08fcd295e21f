package measured

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// rate formats a rate; an unbounded one is "—".
func rate(r units.Rate) string {
	if math.IsInf(float64(r), 1) {
		return "—"
	}
	return r.Human()
}

func rateOf(v float64) string { return rate(units.Rate(v)) }

func seconds(v float64) string { return units.Seconds(v).Human() }

// trim formats x with two significant digits below 10 and none above.
func trim(x float64) string {
	switch a := math.Abs(x); {
	case a >= 10:
		return fmt.Sprintf("%.0f", x)
	case a >= 1:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", x), "0"), ".")
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}

// signed formats a percentage with its sign: "+12%", "−3.4%", "0%".
func signed(p float64) string {
	switch {
	case math.IsNaN(p):
		return "—"
	case p == 0:
		return "0%"
	case p > 0:
		return "+" + trim(p) + "%"
	}
	return "−" + trim(-p) + "%"
}

// share formats a fraction as a whole percentage ("< 1%" for a sliver).
func share(x float64) string {
	if x > 0 && x < 0.005 {
		return "< 1%"
	}
	return fmt.Sprintf("%.0f%%", x*100)
}

// ratio formats a ratio ≥ 1, with two decimals when it is close to 1.
func ratio(x float64) string {
	if x < 1.1 {
		return fmt.Sprintf("%.2f", x)
	}
	return trim(x)
}
