package nccltests

import (
	"fmt"
	"strings"
)

// Tool is the name of the format.
const Tool = "nccl-tests"

// tests maps the nccl-tests programs to the collective they run.
var tests = map[string]string{
	"all_reduce_perf":     "allreduce",
	"all_gather_perf":     "allgather",
	"reduce_scatter_perf": "reducescatter",
	"broadcast_perf":      "broadcast",
	"reduce_perf":         "reduce",
	"alltoall_perf":       "alltoall",
	"alltoallv_perf":      "alltoallv",
	"sendrecv_perf":       "sendrecv",
	"gather_perf":         "gather",
	"scatter_perf":        "scatter",
	"hypercube_perf":      "hypercube",
}

// OpOf returns the collective of an nccl-tests program name
// ("all_reduce_perf" → "allreduce"), or "".
func OpOf(test string) string { return tests[test] }

// testIn finds an nccl-tests program name in s (a command line, a file name).
func testIn(s string) string {
	best := ""
	for t := range tests {
		if strings.Contains(s, t) && len(t) > len(best) {
			best = t // the longest: "all_reduce_perf" also contains "reduce_perf"
		}
	}
	return best
}

// BusFactor returns busbw/algbw for a collective on n ranks, as each test's
// GetBw computes it (nccl-tests src/*.cu; doc/PERFORMANCE.md explains why),
// and the formula in words. ok is false for an unknown collective or n < 1.
//
//	allreduce                              2(n−1)/n
//	allgather, reducescatter, alltoall,
//	gather, scatter                        (n−1)/n
//	broadcast, reduce, sendrecv, hypercube 1
func BusFactor(op string, n int) (factor float64, formula string, ok bool) {
	if n < 1 {
		return 0, "", false
	}
	fn := float64(n)
	switch op {
	case "allreduce":
		return 2 * (fn - 1) / fn, fmt.Sprintf("2(n−1)/n = 2·%d/%d", n-1, n), true
	case "allgather", "reducescatter", "alltoall", "gather", "scatter":
		return (fn - 1) / fn, fmt.Sprintf("(n−1)/n = %d/%d", n-1, n), true
	case "broadcast", "reduce", "sendrecv", "hypercube":
		return 1, "1", true
	}
	return 0, "", false
}

// ranksFromFactor inverts BusFactor: the one n whose factor is within
// relative tol of f (a busbw/algbw ratio read off the table); false when
// none or several are.
func ranksFromFactor(op string, f, tol float64) (int, bool) {
	if g, _, ok := BusFactor(op, 3); !ok || g == 1 {
		return 0, false // the factor does not depend on n
	}
	found, count := 0, 0
	for n := 2; n <= 4096; n++ {
		g, _, _ := BusFactor(op, n)
		if abs(g-f)/f <= tol {
			found, count = n, count+1
		}
	}
	return found, count == 1
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
