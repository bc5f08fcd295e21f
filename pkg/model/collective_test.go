package model

import (
	"math"
	"testing"
)

// TestBusFactor: nccl-tests' GetBw of each test (src/*.cu at a0b82b2), for
// every spelling people write.
func TestBusFactor(t *testing.T) {
	for _, tc := range []struct {
		op   string
		n    int
		want float64
	}{
		{"all_reduce", 16, 2 * 15.0 / 16}, {"allreduce", 2, 1}, {"all_gather_perf", 8, 7.0 / 8}, {"ReduceScatter", 4, 3.0 / 4},
		{"alltoall", 16, 15.0 / 16}, {"broadcast", 16, 1}, {"reduce", 8, 1}, {"sendrecv", 8, 1}, {"gather", 4, 3.0 / 4},
		{"scatter", 2, 0.5}, {"hypercube", 8, 1},
	} {
		f, _, ok := BusFactor(tc.op, tc.n)
		if !ok || math.Abs(f-tc.want) > 1e-12 {
			t.Errorf("%s n=%d: %v, want %v", tc.op, tc.n, f, tc.want)
		}
	}
	if _, _, ok := BusFactor("all_reduce", 0); ok {
		t.Error("n=0 accepted")
	}
	if _, _, ok := BusFactor("alltoallv", 8); ok {
		t.Error("alltoallv has no factor")
	}
	if f, formula, _ := BusFactor(AllReduce, 8); formula != "2(n−1)/n = 2·7/8" || f != 1.75 {
		t.Errorf("formula %q, factor %v", formula, f)
	}
	if BusFormula("allgather") != "(n−1)/n" || BusFormula("x") != "" {
		t.Error("BusFormula")
	}
}
