package measure

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The sweep schedule: which pairs of ranks a cluster sweep measures and in
// which rounds. In a round no rank is in two pairs, so every pair of a
// round measures at once without sharing a host; each pair is measured in
// both directions, one after the other, within its round.

// Pair is two ranks of a sweep, A < B.
type Pair struct{ A, B int }

// MaxSweepRanks bounds a sweep's world size: past it the schedule of all
// pairs (N²/2 of them) is no longer a sweep anyone waits for.
const MaxSweepRanks = 4096

// Schedule is the rounds of a sweep over ranks 0 … N−1.
type Schedule struct {
	// N is the number of ranks.
	N int
	// Spec is the --pairs value the schedule was made from ("all", "ring",
	// "random:8:1", a file name).
	Spec string
	// all: every pair, by the circle method (rounds computed, not stored).
	all bool
	// rounds of a subset (ring, random, a file), coloured greedily.
	rounds [][]Pair
	// m is the circle's size: N when N is even, N+1 (one rank sits out
	// each round: its partner is the bye) when odd.
	m int
}

// Rounds is how many rounds the schedule has: N−1 for every pair of an
// even N, N for an odd one (one rank has a bye each round), at most
// 2Δ−1 for a subset whose ranks are each in at most Δ pairs.
func (s *Schedule) Rounds() int {
	if s.all {
		return s.m - 1
	}
	return len(s.rounds)
}

// Pairs is how many pairs the schedule measures.
func (s *Schedule) Pairs() int {
	if s.all {
		return s.N * (s.N - 1) / 2
	}
	n := 0
	for _, r := range s.rounds {
		n += len(r)
	}
	return n
}

// Round returns the pairs of round r (0 ≤ r < Rounds()), appended to dst.
//
// Every pair: the circle method. Rank m−1 stays put and the others sit on
// a circle of m−1 places; in round r rank m−1 meets rank r, and the ranks
// r+k and r−k (mod m−1) meet for k = 1 … m/2−1. Ranks a, b < m−1 meet in
// the round r with a+b ≡ 2r (mod m−1), once, since m−1 is odd. For an odd
// N the rank m−1 = N does not exist: its partner of the round has a bye.
func (s *Schedule) Round(r int, dst []Pair) []Pair {
	if !s.all {
		return append(dst, s.rounds[r]...)
	}
	m1 := s.m - 1
	if s.m-1 < s.N {
		dst = append(dst, Pair{r, s.m - 1})
	}
	a, b := r, r
	for k := 1; k < s.m/2; k++ {
		if a++; a == m1 {
			a = 0
		}
		if b--; b < 0 {
			b = m1 - 1
		}
		dst = append(dst, Pair{min(a, b), max(a, b)})
	}
	return dst
}

// AllPairs is the schedule of every pair of n ranks (the circle method).
func AllPairs(n int) (*Schedule, error) {
	if n < 2 || n > MaxSweepRanks {
		return nil, fmt.Errorf("a sweep takes 2 to %d ranks, not %d", MaxSweepRanks, n)
	}
	m := n + n%2
	return &Schedule{N: n, Spec: "all", all: true, m: m}, nil
}

// SubsetPairs is the schedule of the given pairs of n ranks: each pair once
// (repeats and a pair given both ways are one pair), in rounds found by a
// greedy edge colouring: each pair goes into the first round where
// neither of its ranks is busy.
func SubsetPairs(n int, spec string, pairs []Pair) (*Schedule, error) {
	if n < 2 || n > MaxSweepRanks {
		return nil, fmt.Errorf("a sweep takes 2 to %d ranks, not %d", MaxSweepRanks, n)
	}
	seen := make(map[Pair]bool, len(pairs))
	s := &Schedule{N: n, Spec: spec}
	// busy[r] lists, per rank, the rounds it is in (bitset).
	busy := make([][]uint64, n)
	for _, p := range pairs {
		if p.A > p.B {
			p.A, p.B = p.B, p.A
		}
		if p.A == p.B || p.A < 0 || p.B >= n {
			return nil, fmt.Errorf("pair %d–%d is not two ranks of 0 … %d", p.A, p.B, n-1)
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		r := 0
		for ; ; r++ {
			if !bit(busy[p.A], r) && !bit(busy[p.B], r) {
				break
			}
		}
		if r == len(s.rounds) {
			s.rounds = append(s.rounds, nil)
		}
		s.rounds[r] = append(s.rounds[r], p)
		busy[p.A], busy[p.B] = setBit(busy[p.A], r), setBit(busy[p.B], r)
	}
	if len(s.rounds) == 0 {
		return nil, fmt.Errorf("--pairs %s names no pair", spec)
	}
	return s, nil
}

func bit(b []uint64, i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

func setBit(b []uint64, i int) []uint64 {
	for len(b) <= i/64 {
		b = append(b, 0)
	}
	b[i/64] |= 1 << (i % 64)
	return b
}

// RingPairs are each rank's neighbours on a ring: r and r+1 (mod n).
func RingPairs(n int) []Pair {
	var ps []Pair
	for r := range n {
		if n == 2 && r == 1 {
			break // two ranks: one pair
		}
		ps = append(ps, Pair{r, (r + 1) % n})
	}
	return ps
}

// RandomPairs gives each rank k partners drawn at random (without
// repeats, from a generator seeded with seed, so the same seed gives the
// same pairs): each rank ends in at least k pairs, more where others drew
// it.
func RandomPairs(n, k int, seed uint64) []Pair {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	k = min(k, n-1)
	var ps []Pair
	for r := range n {
		// k distinct others: a partial Fisher–Yates over the n−1 others.
		others := make([]int, 0, n-1)
		for o := range n {
			if o != r {
				others = append(others, o)
			}
		}
		for i := range k {
			j := i + rng.IntN(len(others)-i)
			others[i], others[j] = others[j], others[i]
			ps = append(ps, Pair{r, others[i]})
		}
	}
	return ps
}

// MaxRandomPartners bounds K of --pairs random:K.
const MaxRandomPartners = 256

// PairsSpec is a parsed --pairs value: all, ring, random:K[:DRAW], or a
// file of pairs (read with the file reader given to Schedule).
type PairsSpec struct {
	Kind string // "all", "ring", "random", "file"
	K    int
	Seed uint64
	File string
}

// ParsePairs reads a --pairs value. Anything that is not all, ring or
// random:… is a file name.
func ParsePairs(s string) (PairsSpec, error) {
	switch {
	case s == "" || s == "all":
		return PairsSpec{Kind: "all"}, nil
	case s == "ring":
		return PairsSpec{Kind: "ring"}, nil
	case strings.HasPrefix(s, "random:"):
		f := strings.Split(strings.TrimPrefix(s, "random:"), ":")
		if len(f) > 2 {
			return PairsSpec{}, fmt.Errorf("--pairs %q: want random:K or random:K:DRAW", s)
		}
		k, err := strconv.Atoi(f[0])
		if err != nil || k < 1 || k > MaxRandomPartners {
			return PairsSpec{}, fmt.Errorf("--pairs %q: K must be a whole number from 1 to %d", s, MaxRandomPartners)
		}
		sp := PairsSpec{Kind: "random", K: k, Seed: 1}
		if len(f) == 2 {
			if sp.Seed, err = strconv.ParseUint(f[1], 10, 64); err != nil {
				return PairsSpec{}, fmt.Errorf("--pairs %q: DRAW (which random draw) must be a whole number ≥ 0", s)
			}
		}
		return sp, nil
	}
	return PairsSpec{Kind: "file", File: s}, nil
}

// String is the spec as --pairs takes it.
func (p PairsSpec) String() string {
	switch p.Kind {
	case "random":
		return fmt.Sprintf("random:%d:%d", p.K, p.Seed)
	case "file":
		return p.File
	}
	return p.Kind
}

// PairLine is one line of a pairs file: two ranks or two host names.
type PairLine struct {
	Line int
	A, B string
}

// MaxPairLines bounds a pairs file.
const MaxPairLines = 1 << 20

// ParsePairFile reads a pairs file: one pair a line, two fields (ranks or
// host names) separated by blanks or a comma; '#' starts a comment; blank
// lines are skipped. A line of one field or of three is an error naming it.
func ParsePairFile(b []byte) ([]PairLine, error) {
	var out []PairLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 4096)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' })
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d holds %d fields: want two ranks or two host names", n, len(f))
		}
		if len(out) == MaxPairLines {
			return nil, fmt.Errorf("more than %d pairs", MaxPairLines)
		}
		out = append(out, PairLine{Line: n, A: f[0], B: f[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("a line longer than 4 KiB (%v)", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no pair in it")
	}
	return out, nil
}

// ResolvePairLines turns a file's pairs into ranks: a field is a rank
// number, else the host name of a rank (hosts[r]). A name no rank runs on,
// a rank out of range or a rank paired with itself is an error naming the
// line.
func ResolvePairLines(lines []PairLine, hosts []string) ([]Pair, error) {
	byName := make(map[string][]int, len(hosts))
	for r, h := range hosts {
		byName[h] = append(byName[h], r)
	}
	rank := func(l PairLine, s string) (int, error) {
		if n, err := strconv.Atoi(s); err == nil {
			if n < 0 || n >= len(hosts) {
				return 0, fmt.Errorf("line %d: rank %d is not one of 0 … %d", l.Line, n, len(hosts)-1)
			}
			return n, nil
		}
		rs := byName[s]
		switch len(rs) {
		case 0:
			return 0, fmt.Errorf("line %d: no rank runs on host %q", l.Line, s)
		case 1:
			return rs[0], nil
		}
		return 0, fmt.Errorf("line %d: host %q runs ranks %v: name a rank", l.Line, s, rs)
	}
	var ps []Pair
	for _, l := range lines {
		a, err := rank(l, l.A)
		if err != nil {
			return nil, err
		}
		b, err := rank(l, l.B)
		if err != nil {
			return nil, err
		}
		if a == b {
			return nil, fmt.Errorf("line %d pairs rank %d with itself", l.Line, a)
		}
		ps = append(ps, Pair{a, b})
	}
	return ps, nil
}

// NewSchedule makes the schedule of spec over n ranks; lines are a pairs
// file's, parsed (nil for the other kinds), resolved against hosts.
func NewSchedule(spec PairsSpec, n int, lines []PairLine, hosts []string) (*Schedule, error) {
	switch spec.Kind {
	case "all":
		return AllPairs(n)
	case "ring":
		return SubsetPairs(n, spec.String(), RingPairs(n))
	case "random":
		return SubsetPairs(n, spec.String(), RandomPairs(n, spec.K, spec.Seed))
	}
	ps, err := ResolvePairLines(lines, hosts)
	if err != nil {
		return nil, fmt.Errorf("--pairs %s: %w", spec.File, err)
	}
	return SubsetPairs(n, spec.String(), ps)
}

// Ranks of a schedule that take part in at least one pair, sorted.
func (s *Schedule) Ranks() []int {
	if s.all {
		rs := make([]int, s.N)
		for i := range rs {
			rs[i] = i
		}
		return rs
	}
	in := map[int]bool{}
	for _, r := range s.rounds {
		for _, p := range r {
			in[p.A], in[p.B] = true, true
		}
	}
	var rs []int
	for r := range in {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}
