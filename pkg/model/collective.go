package model

import (
	"fmt"
	"strings"
)

// Collective operations, named as nccl-tests names its programs
// (all_reduce for all_reduce_perf): the vocabulary of CollectiveSpec.Op, of
// imported nccl-tests records and of the bus-bandwidth table (BusFactor).
const (
	AllReduce     = "all_reduce"
	AllGather     = "all_gather"
	ReduceScatter = "reduce_scatter"
	Broadcast     = "broadcast"
	Reduce        = "reduce"
	AllToAll      = "alltoall"
	SendRecv      = "sendrecv"
	Gather        = "gather"
	Scatter       = "scatter"
	Hypercube     = "hypercube"
)

// busFactors is the one table of nccl-tests' bus bandwidth: busbw = algbw ×
// factor(n) on n ranks, as each test's GetBw computes it (nccl-tests
// src/all_reduce.cu … src/hypercube.cu at a0b82b2, version 2.19.6;
// doc/PERFORMANCE.md says why), with the formula in words.
var busFactors = []struct {
	op      string
	formula string
	factor  func(n float64) float64
}{
	{AllReduce, "2(n−1)/n", func(n float64) float64 { return 2 * (n - 1) / n }},
	{AllGather, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{ReduceScatter, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{AllToAll, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{Gather, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{Scatter, "(n−1)/n", func(n float64) float64 { return (n - 1) / n }},
	{Broadcast, "1", func(float64) float64 { return 1 }},
	{Reduce, "1", func(float64) float64 { return 1 }},
	{SendRecv, "1", func(float64) float64 { return 1 }},
	{Hypercube, "1", func(float64) float64 { return 1 }},
}

// CollectiveOp returns the operation's name in the model's vocabulary for
// any way people write it ("all_reduce", "allreduce", "all_reduce_perf",
// "AllReduce"), or false for none of the table's.
func CollectiveOp(name string) (string, bool) {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), "_perf"))
		return opSeparators.Replace(s)
	}
	n := norm(name)
	for _, b := range busFactors {
		if norm(b.op) == n {
			return b.op, true
		}
	}
	return "", false
}

// opSeparators is built once: a Replacer built per call cost an import of
// a million nccl-tests rows gigabytes of allocations.
var opSeparators = strings.NewReplacer("_", "", "-", "", " ", "")

// BusFactor is busbw/algbw for the operation on n ranks (nccl-tests), the
// formula in words with n filled in ("2(n−1)/n = 2·7/8"), and false for an
// operation the table does not know or n < 1. The operation may be written
// any way CollectiveOp reads.
func BusFactor(op string, n int) (factor float64, formula string, ok bool) {
	name, ok := CollectiveOp(op)
	if !ok || n < 1 {
		return 0, "", false
	}
	for _, b := range busFactors {
		if b.op != name {
			continue
		}
		f := b.factor(float64(n))
		switch b.formula {
		case "2(n−1)/n":
			return f, fmt.Sprintf("2(n−1)/n = 2·%d/%d", n-1, n), true
		case "(n−1)/n":
			return f, fmt.Sprintf("(n−1)/n = %d/%d", n-1, n), true
		}
		return f, b.formula, true
	}
	return 0, "", false
}

// BusFormula is the operation's bus-bandwidth factor in words, without n:
// "2(n−1)/n", "(n−1)/n" or "1"; "" for an unknown operation.
func BusFormula(op string) string {
	name, _ := CollectiveOp(op)
	for _, b := range busFactors {
		if b.op == name {
			return b.formula
		}
	}
	return ""
}

// NCCL's protocols.
const (
	ProtoLL     = "LL"
	ProtoLL128  = "LL128"
	ProtoSimple = "Simple"
)

// Protocols lists NCCL's protocols in its order (LL, LL128, Simple).
var Protocols = []string{ProtoLL, ProtoLL128, ProtoSimple}

func protoIndex(p string) (int, error) {
	for i, q := range Protocols {
		if strings.EqualFold(p, q) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("protocol %q is not one of %s", p, strings.Join(Protocols, ", "))
}
