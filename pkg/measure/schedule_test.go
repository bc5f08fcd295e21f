package measure

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// checkSchedule checks a schedule of n ranks: every pair of want exactly
// once (want nil: every pair of n ranks), no rank twice in a round, and
// the number of rounds. It returns the first problem found ("" for none).
func checkSchedule(s *Schedule, n int, wantRounds int) string {
	if s.Rounds() != wantRounds {
		return "rounds " + itoa(s.Rounds()) + ", want " + itoa(wantRounds)
	}
	seen := make([]uint64, (n*n+63)/64)
	stamp := make([]int32, n)
	for i := range stamp {
		stamp[i] = -1
	}
	var buf []Pair
	count := 0
	for r := range s.Rounds() {
		buf = s.Round(r, buf[:0])
		for _, p := range buf {
			if p.A < 0 || p.B >= n || p.A >= p.B {
				return "round " + itoa(r) + ": bad pair " + itoa(p.A) + "-" + itoa(p.B)
			}
			if stamp[p.A] == int32(r) || stamp[p.B] == int32(r) {
				return "round " + itoa(r) + ": a rank twice"
			}
			stamp[p.A], stamp[p.B] = int32(r), int32(r)
			i := p.A*n + p.B
			if seen[i/64]&(1<<(i%64)) != 0 {
				return "pair " + itoa(p.A) + "-" + itoa(p.B) + " twice"
			}
			seen[i/64] |= 1 << (i % 64)
			count++
		}
	}
	if count != n*(n-1)/2 {
		return "pairs " + itoa(count) + ", want " + itoa(n*(n-1)/2)
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestAllPairsEveryN checks the circle method for every world size from 2
// to MaxSweepRanks: each pair once, no rank in two pairs of a round, N−1
// rounds for even N and N for odd. Short mode and the race detector (which
// slows the 1.15e10 pair visits tenfold, and the schedule has no
// goroutines) check every N up to 1,024 and every 61st beyond.
func TestAllPairsEveryN(t *testing.T) {
	ns := make(chan int)
	var mu sync.Mutex
	var fails []string
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range ns {
				s, err := AllPairs(n)
				if err != nil {
					mu.Lock()
					fails = append(fails, err.Error())
					mu.Unlock()
					continue
				}
				want := n - 1
				if n%2 == 1 {
					want = n
				}
				if s.Pairs() != n*(n-1)/2 {
					mu.Lock()
					fails = append(fails, "N="+itoa(n)+": Pairs() wrong")
					mu.Unlock()
				}
				if msg := checkSchedule(s, n, want); msg != "" {
					mu.Lock()
					fails = append(fails, "N="+itoa(n)+": "+msg)
					mu.Unlock()
				}
			}
		}()
	}
	// Largest first, so the workers finish together.
	for n := MaxSweepRanks; n >= 2; n-- {
		if (testing.Short() || raceEnabled) && n > 1024 && n%61 != 0 && n != MaxSweepRanks {
			continue
		}
		ns <- n
	}
	close(ns)
	wg.Wait()
	if len(fails) > 0 {
		t.Fatalf("%d world sizes fail, first: %v", len(fails), fails[:min(5, len(fails))])
	}
	for _, n := range []int{0, 1, MaxSweepRanks + 1} {
		if _, err := AllPairs(n); err == nil {
			t.Errorf("AllPairs(%d) took it", n)
		}
	}
}

func TestSubsetSchedules(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 17, 64, 1024} {
		for _, spec := range []PairsSpec{{Kind: "ring"}, {Kind: "random", K: 3, Seed: 7}, {Kind: "random", K: 8, Seed: 1}} {
			s, err := NewSchedule(spec, n, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Each pair once, no rank twice a round; degrees bound rounds.
			deg := make([]int, n)
			seen := map[Pair]bool{}
			for r := range s.Rounds() {
				in := map[int]bool{}
				for _, p := range s.Round(r, nil) {
					if in[p.A] || in[p.B] || seen[p] || p.A >= p.B {
						t.Fatalf("n=%d %s round %d: %v repeated", n, spec, r, p)
					}
					in[p.A], in[p.B], seen[p] = true, true, true
					deg[p.A]++
					deg[p.B]++
				}
			}
			maxDeg := 0
			for r, d := range deg {
				maxDeg = max(maxDeg, d)
				if spec.Kind == "random" && d < min(spec.K, n-1) {
					t.Errorf("n=%d %s: rank %d in %d pairs, want ≥ %d", n, spec, r, d, spec.K)
				}
				if spec.Kind == "ring" && n > 2 && d != 2 {
					t.Errorf("n=%d ring: rank %d in %d pairs", n, r, d)
				}
			}
			if s.Rounds() > 2*maxDeg-1 && maxDeg > 0 {
				t.Errorf("n=%d %s: %d rounds for degree %d (greedy bound 2Δ−1)", n, spec, s.Rounds(), maxDeg)
			}
			if s.Pairs() != len(seen) {
				t.Errorf("n=%d %s: Pairs() %d, counted %d", n, spec, s.Pairs(), len(seen))
			}
		}
	}
	// The same seed gives the same pairs; another seed others.
	a, b, c := RandomPairs(100, 4, 3), RandomPairs(100, 4, 3), RandomPairs(100, 4, 4)
	if len(a) != len(b) || a[7] != b[7] || (a[7] == c[7] && a[8] == c[8] && a[9] == c[9]) {
		t.Error("random pairs are not determined by their seed")
	}
}

func TestParsePairs(t *testing.T) {
	for s, want := range map[string]string{"": "all", "all": "all", "ring": "ring", "random:8": "random:8:1", "random:2:99": "random:2:99", "pairs.txt": "pairs.txt"} {
		p, err := ParsePairs(s)
		if err != nil || p.String() != want {
			t.Errorf("ParsePairs(%q) = %v, %v; want %s", s, p, err, want)
		}
	}
	for _, s := range []string{"random:", "random:0", "random:x", "random:257", "random:1:2:3", "random:1:-1"} {
		if _, err := ParsePairs(s); err == nil {
			t.Errorf("ParsePairs(%q) took it", s)
		}
	}
	lines, err := ParsePairFile([]byte("# racks\n0 1\nnode-a, node-c # spine\n\n2\t3\n"))
	if err != nil || len(lines) != 3 {
		t.Fatalf("ParsePairFile: %v %v", lines, err)
	}
	ps, err := ResolvePairLines(lines, []string{"node-a", "node-b", "node-c", "node-d"})
	if err != nil || len(ps) != 3 || ps[1] != (Pair{0, 2}) {
		t.Fatalf("ResolvePairLines: %v %v", ps, err)
	}
	for _, bad := range []string{"0 1 2\n", "0\n", "#\n", strings.Repeat("x", 5000) + " 1\n"} {
		if _, err := ParsePairFile([]byte(bad)); err == nil {
			t.Errorf("ParsePairFile(%.20q) took it", bad)
		}
	}
	for _, bad := range [][]PairLine{{{1, "0", "0"}}, {{1, "0", "9"}}, {{1, "0", "node-x"}}, {{1, "-1", "2"}}} {
		if _, err := ResolvePairLines(bad, []string{"node-a", "node-b", "node-a"}); err == nil {
			t.Errorf("ResolvePairLines(%v) took it", bad)
		}
	}
	if _, err := ResolvePairLines([]PairLine{{1, "node-a", "1"}}, []string{"node-a", "node-b", "node-a"}); err == nil {
		t.Error("a host of two ranks was taken for one")
	}
}
