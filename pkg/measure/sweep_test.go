package measure

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// sweepWorld runs a sweep of n ranks on loopback: rank 0 in this goroutine,
// the others as workers; version gives a rank's version ("" the same as
// rank 0's), kill a rank to stop after its first task.
func sweepWorld(t *testing.T, n int, spec PairsSpec, version map[int]string, kill int) (*record.Manifest, []record.Result, error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := filepath.Join(t.TempDir(), "sweep")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for r := 1; r < n; r++ {
		v := version[r]
		if v == "" {
			v = "test"
		}
		wctx, wcancel := context.WithCancel(ctx)
		w := &SweepWorker{Addr: addr, Wait: 20 * time.Second, Timeout: 3 * time.Second, Heartbeat: 200 * time.Millisecond,
			Hello: PairHello{Tool: "gpupath", Version: v, Rank: r, World: n, Host: record.Host{Hostname: fmt.Sprintf("node-%d", r)}}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer wcancel()
			if r == kill {
				go func() {
					// Stop this rank once the sweep has begun.
					time.Sleep(1500 * time.Millisecond)
					wcancel()
				}()
			}
			w.Run(wctx)
		}()
	}
	m, err := Sweep(ctx, SweepConfig{Listen: addr, Hello: PairHello{Tool: "gpupath", Version: "test", Host: record.Host{Hostname: "node-0"}},
		World: n, Launcher: "flags", Spec: spec, PerPair: 600 * time.Millisecond, Probes: []string{"tcp"},
		Plan: Plan{Sizes: []int64{64, 64 << 10}}, Wait: 10 * time.Second, Timeout: 3 * time.Second, Heartbeat: 200 * time.Millisecond,
		Dir: dir, Version: "test"})
	wg.Wait()
	if m == nil {
		return nil, nil, err
	}
	run, rerr := record.ReadRun(dir)
	if rerr != nil {
		t.Fatalf("the sweep's run does not read back: %v", rerr)
	}
	return m, run.Results, err
}

func TestSweepLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("measures: about 4 s")
	}
	m, rs, err := sweepWorld(t, 4, PairsSpec{Kind: "all"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != record.StatusComplete || m.Sweep.Rounds != 3 || m.Sweep.Planned != 6 || len(m.Sweep.Missing) != 0 {
		t.Fatalf("status %s, %d rounds, %d pairs, missing %v", m.Status, m.Sweep.Rounds, m.Sweep.Planned, m.Sweep.Missing)
	}
	if len(m.Sources) != 4 || len(m.Sweep.Ranks) != 4 {
		t.Fatalf("%d sources, %d ranks", len(m.Sources), len(m.Sweep.Ranks))
	}
	dirs := map[string]int{}
	for _, r := range rs {
		if r.Host == "" || r.Peer == "" || r.Host == r.Peer {
			t.Fatalf("record without its two hosts: %+v", r)
		}
		if r.Variant == "stream" {
			dirs[r.Host+">"+r.Peer]++
		}
	}
	if len(dirs) != 12 {
		t.Fatalf("stream records of %d directions, want 12: %v", len(dirs), dirs)
	}
}

func TestSweepFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("measures: about 6 s")
	}
	// Rank 2 runs another version: refused, its pairs missing; rank 3 is
	// stopped mid-sweep: its pairs from then on missing; the run is partial
	// and reads back.
	m, _, err := sweepWorld(t, 5, PairsSpec{Kind: "all"}, map[int]string{2: "other"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != record.StatusPartial {
		t.Fatalf("status %s (%s)", m.Status, m.Reason)
	}
	st := map[int]string{}
	for _, r := range m.Sweep.Ranks {
		st[r.Rank] = r.Status
	}
	if !strings.HasPrefix(st[2], "refused:") || !strings.Contains(st[2], "other") || !strings.HasPrefix(st[3], "lost") || st[1] != "ok" {
		t.Fatalf("rank statuses %v", st)
	}
	miss := map[string]bool{}
	for _, mp := range m.Sweep.Missing {
		miss[fmt.Sprint(mp.From, mp.To)] = true
		if mp.Reason == "" {
			t.Errorf("missing %d→%d without a reason", mp.From, mp.To)
		}
	}
	for _, o := range []int{0, 1, 3, 4} {
		if !miss[fmt.Sprint(2, o)] || !miss[fmt.Sprint(o, 2)] {
			t.Errorf("pair 2–%d not listed missing: %v", o, m.Sweep.Missing)
		}
	}
	if miss["0 1"] || miss["1 0"] {
		t.Errorf("a pair of two healthy ranks is missing: %v", m.Sweep.Missing)
	}
}
