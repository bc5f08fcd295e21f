package report

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// simulatedSweep is the run of a sweep of n hosts over the schedule spec,
// every direction measured at 256 KiB (bandwidth, 11–12 GB/s) and 64 B
// (latency, 5–6 µs): the hosts in slow at a third of the bandwidth, the
// pairs in slowPairs at a half, the pairs in late at three times the
// latency.
func simulatedSweep(t testing.TB, n int, spec measure.PairsSpec, slow []int, slowPairs, late []measure.Pair) *record.RunData {
	t.Helper()
	s, err := measure.NewSchedule(spec, n, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	name := func(i int) string { return fmt.Sprintf("gpu-%04d.cluster.example", i) }
	start := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	m := record.Manifest{Format: record.ManifestFormat, Tool: "gpupath", Version: "test", Status: record.StatusComplete, Start: start,
		Host: record.Host{Hostname: name(0)}, Results: record.ResultsFile,
		Sweep: &record.Sweep{Launcher: "slurm", World: n, Pairs: spec.String(), Rounds: s.Rounds(), Planned: s.Pairs(), PerPairS: 2}}
	for i := range n {
		m.Sources = append(m.Sources, record.Host{Hostname: name(i)})
		m.Sweep.Ranks = append(m.Sweep.Ranks, record.SweepRank{Rank: i, Host: name(i), Status: "ok"})
	}
	isSlow := func(i int) bool { return slices.Contains(slow, i) }
	in := func(ps []measure.Pair, a, b int) bool {
		return slices.Contains(ps, measure.Pair{A: min(a, b), B: max(a, b)})
	}
	var rs []record.Result
	var buf []measure.Pair
	for r := range s.Rounds() {
		for _, p := range s.Round(r, buf[:0]) {
			for _, d := range [][2]int{{p.A, p.B}, {p.B, p.A}} {
				bw := 11e9 + 1e9*rng.Float64()
				if isSlow(d[0]) || isSlow(d[1]) {
					bw /= 3
				} else if in(slowPairs, d[0], d[1]) {
					bw /= 2
				}
				lat := 5e-6 + 1e-6*rng.Float64()
				if in(late, d[0], d[1]) {
					lat *= 3
				}
				rs = append(rs,
					record.Result{Probe: "tcp", Variant: "stream", Path: "host-tcp", Host: name(d[0]), Peer: name(d[1]), Bytes: 256 << 10,
						Iterations: 100, MedianS: float64(256<<10) / bw, ThroughputBps: bw, Time: start},
					record.Result{Probe: "tcp", Variant: "pingpong", Path: "host-tcp", Host: name(d[0]), Peer: name(d[1]), Bytes: 64,
						Iterations: 1000, MinS: lat, MedianS: lat * 1.1, ThroughputBps: 64 / lat, Time: start})
			}
		}
	}
	m.Probes = []record.ProbeStatus{{Name: "tcp", Status: record.StatusOK, Results: len(rs)}}
	return &record.RunData{Dir: "sweep-" + fmt.Sprint(n), Manifest: m, Results: rs}
}

// TestSweepVerdicts: a slow host is named once with every pair of it, a
// slow pair between two good hosts is a slow pair, a late pair a latency
// outlier, and nothing else is.
func TestSweepVerdicts(t *testing.T) {
	rd := simulatedSweep(t, 12, measure.PairsSpec{Kind: "all"}, []int{5}, []measure.Pair{{A: 1, B: 2}}, []measure.Pair{{A: 7, B: 9}})
	s := AnalyzeSweep(rd, model.Default())
	if len(s.SlowHosts) != 1 || s.SlowHosts[0].Host != "gpu-0005.cluster.example" || len(s.SlowHosts[0].Pairs) != 22 {
		t.Fatalf("slow hosts %+v", s.SlowHosts)
	}
	var pairs []string
	for _, p := range s.SlowPairs {
		pairs = append(pairs, p.Quantity+" "+p.Host[4:8]+">"+p.Peer[4:8])
	}
	slices.Sort(pairs)
	want := []string{"bandwidth 0001>0002", "bandwidth 0002>0001", "latency 0007>0009", "latency 0009>0007"}
	if !slices.Equal(pairs, want) {
		t.Errorf("slow pairs %v, want %v", pairs, want)
	}
	if len(s.OutlierPairs()) != 11+1+1 {
		t.Errorf("outlier pairs %v", s.OutlierPairs())
	}
	// The report has the section, the table names every outlier, and the
	// heatmaps are there.
	rep, err := Render(Input{Scenario: model.Default(), Source: "preset default", Version: "test", Host: "test",
		Time: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), RunID: "t", Sweeps: []*Sweep{s}})
	if err != nil {
		t.Fatal(err)
	}
	html := string(htmlOf(rep))
	for _, w := range []string{"Cluster sweep", "slow host gpu-0005.cluster.example", "slow pair", "pair-bandwidth", "pair-latency-distribution"} {
		if !strings.Contains(html, w) {
			t.Errorf("the report does not say %q", w)
		}
	}
	// No sweep: no section.
	if AnalyzeSweep(&record.RunData{Manifest: record.Manifest{}}, model.Default()) != nil {
		t.Error("a run without a sweep section was judged a sweep")
	}
}

// BenchmarkSweepReport1024 judges and renders the report of a sweep of
// 1,024 hosts over a ring and 8 random partners per rank (about 9,000
// pairs, 36,000 records): the heatmaps group the hosts into blocks, and
// every outlier is listed by name.
func BenchmarkSweepReport1024(b *testing.B) {
	slow := []int{17, 600, 1001}
	rd := simulatedSweep(b, 1024, measure.PairsSpec{Kind: "random", K: 8, Seed: 1}, slow, nil, nil)
	ring := simulatedSweep(b, 1024, measure.PairsSpec{Kind: "ring"}, slow, nil, nil)
	rd.Results = append(rd.Results, ring.Results...)
	b.ReportMetric(float64(len(rd.Results)), "records")
	for b.Loop() {
		s := AnalyzeSweep(rd, model.Default())
		rep, err := Render(Input{Scenario: model.Default(), Source: "preset default", Version: "test", Host: "test",
			Time: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), RunID: "t", Sweeps: []*Sweep{s}})
		if err != nil {
			b.Fatal(err)
		}
		html := string(htmlOf(rep))
		for _, h := range slow {
			if !strings.Contains(html, fmt.Sprintf("slow host gpu-%04d.cluster.example", h)) {
				b.Fatalf("host %d not named", h)
			}
		}
		if !strings.Contains(html, "blocks of 16 consecutive hosts") {
			b.Fatal("the heatmap does not group the hosts")
		}
	}
}

// htmlOf is a report's index.html.
func htmlOf(r *Report) []byte {
	for _, f := range r.Files {
		if f.Name == HTMLFile {
			return f.Data
		}
	}
	return nil
}
