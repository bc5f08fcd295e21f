package nccltests

import (
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

// Tool is the name of the format.
const Tool = "nccl-tests"

// OpOf returns the collective of an nccl-tests program name in the
// model's vocabulary ("all_reduce_perf" → "all_reduce", model.CollectiveOp),
// or "" for a program that is not an nccl-tests collective (alltoallv_perf:
// its busbw is not a factor of algbw).
func OpOf(test string) string {
	if !strings.HasSuffix(test, "_perf") {
		return ""
	}
	op, _ := model.CollectiveOp(test)
	return op
}

// programs are the nccl-tests programs, for finding one in a command line.
var programs = []string{"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "broadcast_perf", "reduce_perf",
	"alltoall_perf", "alltoallv_perf", "sendrecv_perf", "gather_perf", "scatter_perf", "hypercube_perf"}

// testIn finds an nccl-tests program name in s (a command line, a file name).
func testIn(s string) string {
	best := ""
	for _, t := range programs {
		if strings.Contains(s, t) && len(t) > len(best) {
			best = t // the longest: "all_reduce_perf" also contains "reduce_perf"
		}
	}
	return best
}

// ranksFromFactor inverts model.BusFactor: the one n whose factor lies in
// [lo, hi] (the busbw/algbw ratios a table allows, given the precision its
// numbers are printed with); false when none or several do.
func ranksFromFactor(op string, lo, hi float64) (int, bool) {
	if g, _, ok := model.BusFactor(op, 3); !ok || g == 1 || lo > hi {
		return 0, false // the factor does not depend on n
	}
	found, count := 0, 0
	for n := 2; n <= 4096; n++ {
		if g, _, _ := model.BusFactor(op, n); g >= lo && g <= hi {
			found, count = n, count+1
		}
	}
	return found, count == 1
}

// printedHalf is half the last printed digit of nccl-tests' algbw and
// busbw ("%7.2f" GB/s): a printed rate is within it of the true one.
const printedHalf = 0.005e9

// ratioBounds is the range of busbw/algbw a row printed as algbw a and
// busbw b (B/s) allows.
func ratioBounds(a, b float64) (lo, hi float64) {
	return (b - printedHalf) / (a + printedHalf), (b + printedHalf) / (a - printedHalf)
}
