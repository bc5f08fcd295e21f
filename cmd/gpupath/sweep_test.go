package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/testnet"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
)

// The sweep tests start six real gpupath ranks, each in its own namespace
// host on one bridge (internal/testnet.NewBridge), every link shaped to
// 1 Gbit/s but host 3's to a third of that, on both ends.

const sweepHosts, slowHost = 6, 3

func sixHosts(t *testing.T, tag string) *testnet.Bridge {
	t.Helper()
	needHosts(t)
	const gbit = 125e6
	b, err := testnet.NewBridge(tag, testnet.BridgeConfig{Hosts: sweepHosts, Rate: gbit, Rates: map[int]float64{slowHost: gbit / 3}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// sweepArgs measure tcp at one small and one large size, 1 s a pair, one
// pair at a time: the six test hosts share this machine's CPUs, and three
// pairs at once on two cores put the scheduler's delays into the
// latencies (2–5× the median on some pairs), which hosts of a cluster,
// each with its own CPUs, do not have.
func sweepArgs(out string, extra ...string) []string {
	return append([]string{"measure", "--out", out, "--probes", "tcp", "--sizes", "64,256KiB", "--per-pair", "1s", "--at-once", "1", "--peer-wait", "30s"}, extra...)
}

func readSweep(t *testing.T, dir string) *report.Sweep {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.SweepFileName))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Sweep
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// hostName is the host name of namespace host i (its own UTS namespace).
func hostName(i int) string { return fmt.Sprintf("node-%d", i) }

// startNamed is start in host h named name.
func startNamed(t *testing.T, h *testnet.Host, name string, env []string, args ...string) *rank {
	t.Helper()
	r := &rank{done: make(chan error, 1)}
	r.cmd = exec.Command(binary, args...)
	r.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	r.cmd.Dir = t.TempDir()
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := h.StartNamed(r.cmd, name); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// TestSweepSixHosts: six ranks under Slurm's convention (every rank given
// the same --peer line, as srun does) measure all 15 pairs in 5 rounds;
// the outliers are exactly the five pairs of the shaped host, named a slow
// host, in sweep.json and in the report.
func TestSweepSixHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: six hosts in network namespaces, about 15 s")
	}
	b := sixHosts(t, "sweep")
	out := filepath.Join(t.TempDir(), "sweep")
	peer := b.Hosts[0].Addr + ":7611"
	var ranks []*rank
	for i := range sweepHosts {
		env := []string{fmt.Sprintf("SLURM_PROCID=%d", i), fmt.Sprintf("SLURM_NTASKS=%d", sweepHosts), "SLURM_LOCALID=0",
			"SLURM_JOB_ID=77", "SLURM_STEP_ID=0"}
		ranks = append(ranks, startNamed(t, &b.Hosts[i], hostName(i), env, sweepArgs(out, "--peer", peer)...))
	}
	failed := false
	for i, r := range ranks {
		if code, stderr := r.wait(t, 2*time.Minute); code != 0 {
			t.Errorf("rank %d exited %d: %s\nstdout %s", i, code, stderr, r.stdout.String())
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
	t.Logf("rank 0:\n%s", ranks[0].stdout.String())
	m := readManifest(t, out)
	if m.Status != record.StatusComplete || m.Sweep == nil || m.Sweep.Rounds != 5 || m.Sweep.Planned != 15 || len(m.Sources) != sweepHosts {
		t.Fatalf("manifest: status %s, sweep %+v, %d sources", m.Status, m.Sweep, len(m.Sources))
	}
	if keep := os.Getenv("GPUPATH_SWEEP_EXAMPLE"); keep != "" {
		// scripts/examples.sh keeps this run as the committed example.
		for _, f := range []string{record.ManifestFile, record.ResultsFile, report.SweepFileName} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err == nil {
				err = os.WriteFile(filepath.Join(keep, f), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	s := readSweep(t, out)
	var want []string
	for i := range sweepHosts {
		if i != slowHost {
			want = append(want, min(hostName(i), hostName(slowHost))+"–"+max(hostName(i), hostName(slowHost)))
		}
	}
	slices.Sort(want)
	if got := s.OutlierPairs(); !slices.Equal(got, want) {
		t.Errorf("outlier pairs %v, want the shaped host's %v\n%s", got, want, strings.Join(s.Lines(), "\n"))
	}
	if len(s.SlowHosts) == 0 || s.SlowHosts[0].Host != hostName(slowHost) || len(s.SlowPairs) != 0 {
		t.Errorf("slow hosts %+v, slow pairs %+v; want %s alone", s.SlowHosts, s.SlowPairs, hostName(slowHost))
	}
	if !strings.Contains(ranks[0].stdout.String(), "slow host "+hostName(slowHost)) {
		t.Errorf("rank 0 did not name the slow host: %s", ranks[0].stdout.String())
	}
	// The report of the run has the section, its heatmaps and the verdict.
	rep := filepath.Join(t.TempDir(), "rep")
	r := start(t, binary, nil, nil, "report", "--data", out, "--out", rep)
	if code, stderr := r.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("report exited %d: %s", code, stderr)
	}
	html, err := os.ReadFile(filepath.Join(rep, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Cluster sweep", "slow host " + hostName(slowHost), "pair-bandwidth", "pair-latency"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("the report does not say %q", w)
		}
	}
}

// TestSweepRankKilled: six ranks under torchrun's convention; rank 4 is
// killed mid-sweep. Rank 0 finishes, exits 1 naming the partial run, and
// the run reads back with every direction of rank 4's pairs that was not
// measured listed with why.
func TestSweepRankKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: six hosts in network namespaces, about 15 s")
	}
	b := sixHosts(t, "swkill")
	out := filepath.Join(t.TempDir(), "sweep")
	var ranks []*rank
	for i := range sweepHosts {
		env := []string{fmt.Sprintf("RANK=%d", i), fmt.Sprintf("WORLD_SIZE=%d", sweepHosts), "LOCAL_RANK=0",
			"MASTER_ADDR=" + b.Hosts[0].Addr, "MASTER_PORT=29600"}
		ranks = append(ranks, startNamed(t, &b.Hosts[i], hostName(i), env, sweepArgs(out)...))
	}
	// Two rounds in (about 6 s of 15), rank 4 dies.
	time.Sleep(6 * time.Second)
	ranks[4].cmd.Process.Kill()
	code, stderr := ranks[0].wait(t, 2*time.Minute)
	oneLineErr(t, "rank 0", code, stderr, "sweep partial")
	for i, r := range ranks {
		if i == 0 || i == 4 {
			continue
		}
		if code, stderr := r.wait(t, time.Minute); code != 0 {
			t.Errorf("rank %d exited %d: %s", i, code, stderr)
		}
	}
	rd, err := record.ReadRun(out)
	if err != nil {
		t.Fatalf("the partial run does not read: %v", err)
	}
	m := rd.Manifest
	if m.Status != record.StatusPartial || len(m.Sweep.Missing) == 0 {
		t.Fatalf("status %s, missing %v", m.Status, m.Sweep.Missing)
	}
	for _, mp := range m.Sweep.Missing {
		if mp.From != 4 && mp.To != 4 {
			t.Errorf("a pair without rank 4 is missing: %+v", mp)
		}
		if mp.Reason == "" {
			t.Errorf("missing without why: %+v", mp)
		}
	}
	if st := m.Sweep.Ranks[4].Status; !strings.HasPrefix(st, "lost") {
		t.Errorf("rank 4's status %q", st)
	}
	s := readSweep(t, out)
	if len(s.Missing) != len(m.Sweep.Missing) {
		t.Errorf("sweep.json lists %d missing, the manifest %d", len(s.Missing), len(m.Sweep.Missing))
	}
	rep := filepath.Join(t.TempDir(), "rep")
	r := start(t, binary, nil, nil, "report", "--data", out, "--out", rep, "--model-only")
	if code, stderr := r.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("report of the partial sweep exited %d: %s", code, stderr)
	}
}
