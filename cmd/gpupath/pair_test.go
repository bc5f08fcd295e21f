//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/testnet"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// The two-host tests start the real gpupath binary, rank 0 in one test
// host and rank 1 in the other (two network namespaces joined by a veth
// pair, internal/testnet), each with the environment its launcher would
// give it.

var (
	otherBinary string
	otherDone   chan struct{} // closed when the build of otherBinary ends
	otherErr    error
)

// pairBinary is the binary TestMain built (go build ./cmd/gpupath into a
// temporary directory), or with version set a second build that says it
// is gpupath 9.9.9-other.
func pairBinary(t *testing.T, version string) string {
	t.Helper()
	if version == "" {
		return binary
	}
	<-otherDone
	if otherErr != nil {
		t.Fatal(otherErr)
	}
	return otherBinary
}

// buildOther links the binary of another version while the tests run (TestMain
// starts it: it took 2.5 s of TestPairingFaults when built there).
func buildOther() {
	otherBinary = filepath.Join(filepath.Dir(binary), "gpupath-other")
	otherDone = make(chan struct{})
	go func() {
		defer close(otherDone)
		if out, err := exec.Command("go", "build", "-ldflags", "-X main.Version=9.9.9-other", "-o", otherBinary, ".").CombinedOutput(); err != nil {
			otherErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	}()
}

// rank is one started gpupath process.
type rank struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func (r *rank) wait(t *testing.T, d time.Duration) (int, string) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(d):
		r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("%v did not exit within %v; stderr %q", r.cmd.Args, d, r.stderr.String())
	}
	return r.cmd.ProcessState.ExitCode(), r.stderr.String()
}

// start runs the binary with args and exactly env (plus PATH and HOME), in
// host h (nil: this namespace).
func start(t *testing.T, bin string, h *testnet.Host, env []string, args ...string) *rank {
	t.Helper()
	r := &rank{done: make(chan error, 1)}
	r.cmd = exec.Command(bin, args...)
	r.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	r.cmd.Dir = t.TempDir()
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	var err error
	if h != nil {
		err = h.Start(r.cmd)
	} else {
		err = r.cmd.Start()
	}
	if err != nil {
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

func needHosts(t *testing.T) {
	t.Helper()
	if err := testnet.Available(); err != nil {
		t.Skipf("skipped: %v", err)
	}
}

func newHosts(t *testing.T, cfg testnet.Config) *testnet.Pair {
	t.Helper()
	p, err := testnet.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func readManifest(t *testing.T, dir string) *record.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, record.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := record.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// oneLineErr checks the error contract of a failing rank: non-zero exit,
// one line on stderr that says want.
func oneLineErr(t *testing.T, who string, code int, stderr, want string) {
	t.Helper()
	if code == 0 {
		t.Errorf("%s exited 0; stderr %q", who, stderr)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "gpupath: ") {
		t.Errorf("%s: stderr is not one line: %q", who, stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("%s: stderr %q does not say %q", who, stderr, want)
	}
}

// modelHostTCP is the model's host-tcp streaming bandwidth over a link
// shaped by tbf to tbfRate with segments of mss payload under hdr bytes of
// IP and TCP headers. The model prices a frame on an Ethernet wire with 38 B
// of framing (preamble, MAC header, FCS, gap) where tbf meters 14 B (the MAC
// header): the same link, as the model sees it, runs at tbfRate ×
// (mss+hdr+38)/(mss+hdr+14). With that nic.rate the model's bandwidth is
// GoodputForFrameRate's rate × mss/(mss+hdr+14), and the test checks that
// the two agree before it holds the measurement against the model.
func modelHostTCP(t *testing.T, tbfRate float64, mss, hdr int) float64 {
	t.Helper()
	s := model.Default()
	wire := tbfRate * float64(mss+hdr+38) / float64(mss+hdr+14)
	for k, v := range map[string]string{"nic.kind": "ethernet", "nic.mtu": "1500", "nic.rate": fmt.Sprintf("%.6fGbit/s", wire*8/1e9)} {
		if err := s.Set(k, v); err != nil {
			t.Fatalf("--set %s=%s: %v", k, v, err)
		}
	}
	p, err := model.LookupPath("host-tcp")
	if err != nil {
		t.Fatal(err)
	}
	return float64(p.Route(s).Evaluate(1 << 30).Bandwidth)
}

// TestTwoHosts pairs two namespace hosts through each launcher's
// convention. The torchrun case is the full measurement: the tcp probe and
// the host-memory staged transfer across a veth shaped to 1 Gbit/s, the
// streaming rate within 3% of the model's host-tcp bandwidth, and one run
// directory holding both hosts and rank 0's records.
func TestTwoHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two hosts in network namespaces")
	}
	needHosts(t)
	bin := pairBinary(t, "")
	const gbit = 125e6 // 1 Gbit/s in bytes per second
	hosts := newHosts(t, testnet.Config{Rate: gbit, Both: true})
	short := []string{"--probes", "tcp", "--variants", "pingpong", "--sizes", "64", "--budget", "500ms", "--peer-wait", "20s", "--quiet"}
	cases := []struct {
		name       string
		env0, env1 []string
		args0      []string
		args1      []string
		launcher   string
		full       bool
	}{
		{name: "torchrun", launcher: "torchrun", full: true,
			env0: []string{"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0", "MASTER_ADDR=" + hosts.A.Addr, "MASTER_PORT=29500", "TORCHELASTIC_RUN_ID=t1"},
			env1: []string{"RANK=1", "WORLD_SIZE=2", "LOCAL_RANK=0", "MASTER_ADDR=" + hosts.A.Addr, "MASTER_PORT=29500", "TORCHELASTIC_RUN_ID=t1"}},
		{name: "openmpi", launcher: "openmpi",
			env0:  []string{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=0"},
			env1:  []string{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=0"},
			args0: []string{"--listen", hosts.A.Addr + ":7601"}, args1: []string{"--peer", hosts.A.Addr + ":7601"}},
		{name: "slurm-rendezvous", launcher: "slurm",
			env0:  []string{"SLURM_PROCID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=4242", "SLURM_STEP_ID=0"},
			env1:  []string{"SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=4242", "SLURM_STEP_ID=0"},
			args0: []string{"--rendezvous", "RDV"}, args1: []string{"--rendezvous", "RDV"}},
		// srun and mpirun give every rank the same command line: rank 0
		// serves on the port of --peer, not its default.
		{name: "slurm-same-line", launcher: "slurm",
			env0:  []string{"SLURM_PROCID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=4243", "SLURM_STEP_ID=0"},
			env1:  []string{"SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_LOCALID=0", "SLURM_JOB_ID=4243", "SLURM_STEP_ID=0"},
			args0: []string{"--peer", hosts.A.Addr + ":7604"}, args1: []string{"--peer", hosts.A.Addr + ":7604"}},
		{name: "mpich", launcher: "mpich",
			env0:  []string{"PMI_RANK=0", "PMI_SIZE=2", "MPI_LOCALRANKID=0"},
			env1:  []string{"PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALRANKID=0"},
			args0: []string{"--listen", ":7602"}, args1: []string{"--peer", hosts.A.Addr + ":7602"}},
		{name: "pmix-ompi-size", launcher: "pmix",
			env0:  []string{"PMIX_RANK=0", "OMPI_COMM_WORLD_SIZE=2", "PMIX_NAMESPACE=prte-1"},
			env1:  []string{"PMIX_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "PMIX_NAMESPACE=prte-1"},
			args0: []string{"--listen", ":7603"}, args1: []string{"--peer", hosts.A.Addr + ":7603"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			rdv := t.TempDir()
			fix := func(args []string) []string {
				var a []string
				for _, s := range args {
					a = append(a, strings.ReplaceAll(s, "RDV", rdv))
				}
				return a
			}
			args1 := []string{"measure", "--out", out}
			if c.full {
				args1 = append(args1, "--budget", "8s", "--peer-wait", "20s", "--quiet", "--sizes", "128KiB,4MiB",
					"--opt", "flows=2", "--opt", "chunk=512KiB")
			} else {
				args1 = append(args1, short...)
			}
			r0 := start(t, bin, &hosts.A, c.env0, append([]string{"measure", "--peer-wait", "20s", "--quiet"}, fix(c.args0)...)...)
			r1 := start(t, bin, &hosts.B, c.env1, append(args1, fix(c.args1)...)...)
			code1, err1 := r1.wait(t, 60*time.Second)
			code0, err0 := r0.wait(t, 20*time.Second)
			if code1 != 0 || code0 != 0 {
				t.Fatalf("rank 1 exit %d (%q), rank 0 exit %d (%q)", code1, err1, code0, err0)
			}
			m := readManifest(t, out)
			if m.Status != record.StatusComplete || m.Peer == nil || m.Pairing == nil {
				t.Fatalf("manifest: status %s, peer %v, pairing %v", m.Status, m.Peer, m.Pairing)
			}
			if len(m.Hosts()) != 2 || m.Pairing.Launcher != c.launcher || m.Pairing.Rank != 1 || m.Pairing.WorldSize != 2 {
				t.Errorf("hosts %d, pairing %+v, want launcher %s", len(m.Hosts()), *m.Pairing, c.launcher)
			}
			rd, err := record.ReadRun(out)
			if err != nil {
				t.Fatal(err)
			}
			byProbe := map[string][]record.Result{}
			for _, r := range rd.Results {
				byProbe[r.Probe] = append(byProbe[r.Probe], r)
			}
			if len(byProbe["peer"]) == 0 {
				t.Errorf("no records of rank 0's side (probe peer)")
			}
			if !c.full {
				return
			}
			// Every stream record is checked against the ceiling; the floor
			// uses the best of them, since a stream of one size can lose to
			// a core busy elsewhere (the test suite beside this test) while
			// the shaper, not the CPU, sets the best one.
			var stream *record.Result
			for i, r := range byProbe["tcp"] {
				if r.Variant == "stream" && (stream == nil || r.ThroughputBps > stream.ThroughputBps) {
					stream = &byProbe["tcp"][i]
				}
			}
			if stream == nil {
				t.Fatalf("no stream record in %v", byProbe["tcp"])
			}
			mss, hdr := int(stream.Extra["mss"]), int(stream.Extra["tcp_header_bytes"])
			if mss < 1000 || mss > 1460 || (hdr != 40 && hdr != 52) {
				t.Fatalf("mss %d, header %d: not a 1500-byte MTU Ethernet link", mss, hdr)
			}
			want := modelHostTCP(t, gbit, mss, hdr)
			if g := measureGoodput(gbit, mss, hdr); math.Abs(want/g-1) > 1e-6 {
				t.Errorf("model's host-tcp %v B/s and the goodput formula %v B/s disagree", want, g)
			}
			for _, r := range byProbe["tcp"] {
				if r.Variant != "stream" {
					continue
				}
				dev := r.ThroughputBps/want - 1
				t.Logf("1 Gbit/s tbf, stream of %d B: measured %.4g B/s (%.1f Mbit/s), model host-tcp %.4g B/s (%.1f Mbit/s), %+.2f%% (mss %d, headers %d+14)",
					r.Bytes, r.ThroughputBps, r.ThroughputBps*8/1e6, want, want*8/1e6, 100*dev, mss, hdr)
				// Above the model by more than 3 % is a model error: the
				// shaper lets no more through, however fast the machine.
				if dev > 0.03 {
					t.Errorf("streaming rate %.4g B/s at %d B is %+.1f%% above the model's %.4g B/s", r.ThroughputBps, r.Bytes, 100*dev, want)
				}
			}
			// Below it, the best stream within 25 %: a model that forgot the
			// headers or the MSS is off by a few per cent either way and
			// is caught by the formula check above; this floor catches a
			// link that is not the shaped one (measured alone: −0.11 %,
			// reports/examples/two-hosts-veth; −11.6 % at 128 KiB once
			// under the full suite on two cores).
			if dev := stream.ThroughputBps/want - 1; dev < -0.25 {
				t.Errorf("best streaming rate %.4g B/s is %+.1f%% off the model's %.4g B/s", stream.ThroughputBps, 100*dev, want)
			}
			for _, v := range []string{"store", "pipelined"} {
				found := false
				for _, r := range byProbe["staged-host"] {
					if r.Variant == v && r.Extra["verified"] == 1 && r.Extra["flows"] == 2 {
						found = true
						t.Logf("staged-host %s %d B, 2 flows: %.1f Mbit/s", v, r.Bytes, r.ThroughputBps*8/1e6)
						if r.Bytes == 4<<20 && (r.ThroughputBps > 1.03*want || r.ThroughputBps < 0.5*want) {
							t.Errorf("staged %s 4 MiB at %.4g B/s: not bounded by the 1 Gbit/s link (%.4g B/s)", v, r.ThroughputBps, want)
						}
					}
				}
				if !found {
					t.Errorf("no verified staged-host %s record over 2 flows", v)
				}
			}
		})
	}
}

// measureGoodput is pkg/measure's formula for the same link.
func measureGoodput(rate float64, mss, hdr int) float64 {
	return rate * float64(mss) / float64(mss+hdr+14)
}

// The peer killed mid-run (SIGKILL of rank 0 while rank 1 measures), and
// the link taken down mid-run: rank 1 keeps what it measured, marks the run
// partial with the reason and exits non-zero with one line; with the link
// down, rank 0 also gives up with one line.
func TestTwoHostsFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two hosts in network namespaces, waiting on timeouts")
	}
	needHosts(t)
	bin := pairBinary(t, "")
	for _, fault := range []string{"kill-rank0", "kill-rank1", "link-down"} {
		t.Run(fault, func(t *testing.T) {
			hosts := newHosts(t, testnet.Config{Rate: 125e6, Both: true})
			out := filepath.Join(t.TempDir(), "run")
			r0 := start(t, bin, &hosts.A, nil, "measure", "--rank", "0", "--world-size", "2", "--listen", ":7610", "--quiet")
			r1 := start(t, bin, &hosts.B, nil, "measure", "--rank", "1", "--world-size", "2", "--peer", hosts.A.Addr+":7610",
				"--out", out, "--budget", "30s", "--quiet", "--timeout", "2s", "--probes", "tcp", "--sizes", "1,64,1KiB,16KiB,256KiB,1MiB,4MiB")
			// Let it measure a little.
			deadline := time.Now().Add(15 * time.Second)
			for {
				b, _ := os.ReadFile(filepath.Join(out, record.ResultsFile))
				if bytes.Count(b, []byte("\n")) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no results after 15s: rank 1 %q", r1.stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			switch fault {
			case "kill-rank0":
				r0.cmd.Process.Signal(syscall.SIGKILL)
			case "kill-rank1":
				// The survivor is rank 0: it exits non-zero with one line.
				r1.cmd.Process.Signal(syscall.SIGKILL)
				code0, err0 := r0.wait(t, 30*time.Second)
				oneLineErr(t, "rank 0", code0, err0, "vanished mid-run")
				t.Logf("rank 0: %s", strings.TrimSpace(err0))
				r1.wait(t, 5*time.Second)
				// What rank 1 measured before it died is readable.
				rd, err := record.ReadRun(out)
				if err != nil {
					t.Fatal(err)
				}
				if len(rd.Results) < 2 {
					t.Errorf("%d results kept", len(rd.Results))
				}
				return
			case "link-down":
				if err := hosts.SetLink(false); err != nil {
					t.Fatal(err)
				}
			}
			code1, err1 := r1.wait(t, 30*time.Second)
			oneLineErr(t, "rank 1", code1, err1, "partial run")
			m := readManifest(t, out)
			if m.Status != record.StatusPartial || m.Reason == "" {
				t.Errorf("manifest status %s, reason %q: want partial with a reason", m.Status, m.Reason)
			}
			rd, err := record.ReadRun(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(rd.Results) < 2 || m.Peer == nil {
				t.Errorf("%d results kept, peer %v", len(rd.Results), m.Peer)
			}
			t.Logf("rank 1: %s", strings.TrimSpace(err1))
			if fault == "link-down" {
				code0, err0 := r0.wait(t, 30*time.Second)
				oneLineErr(t, "rank 0", code0, err0, "vanished")
				t.Logf("rank 0: %s", strings.TrimSpace(err0))
			}
		})
	}
}

// Faults found at pairing: a peer that never comes, a peer of another
// version, garbage on the port. Each is a bounded wait and one line; rank
// 1 leaves a partial run with the reason.
func TestPairingFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the gpupath binary")
	}
	bin := pairBinary(t, "")
	other := pairBinary(t, "other")
	port := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	r1args := func(out, peer string) []string {
		return []string{"measure", "--rank", "1", "--world-size", "2", "--peer", peer, "--out", out, "--peer-wait", "1s", "--quiet",
			"--probes", "tcp", "--variants", "pingpong", "--sizes", "64", "--budget", "500ms"}
	}
	checkPartial := func(t *testing.T, out, want string) {
		m := readManifest(t, out)
		if m.Status != record.StatusPartial || !strings.Contains(m.Reason, want) {
			t.Errorf("manifest status %s, reason %q: want partial saying %q", m.Status, m.Reason, want)
		}
	}

	t.Run("rank1-peer-never-comes", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "run")
		t0 := time.Now()
		code, stderr := start(t, bin, nil, nil, r1args(out, port(t))...).wait(t, 20*time.Second)
		oneLineErr(t, "rank 1", code, stderr, "did not come within 1 s")
		checkPartial(t, out, "did not come")
		if el := time.Since(t0); el > 10*time.Second {
			t.Errorf("gave up after %v", el)
		}
	})
	t.Run("rank0-peer-never-comes", func(t *testing.T) {
		t.Parallel()
		code, stderr := start(t, bin, nil, nil, "measure", "--rank", "0", "--world-size", "2", "--listen", port(t), "--peer-wait", "1s").wait(t, 20*time.Second)
		oneLineErr(t, "rank 0", code, stderr, "rank 1 did not come")
	})
	t.Run("rendezvous-never-written", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "run")
		code, stderr := start(t, bin, nil, []string{"SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_JOB_ID=7"},
			"measure", "--rendezvous", t.TempDir(), "--peer-wait", "1s", "--out", out, "--quiet").wait(t, 20*time.Second)
		oneLineErr(t, "rank 1", code, stderr, "the peer did not come")
	})
	t.Run("other-version", func(t *testing.T) {
		t.Parallel()
		addr := port(t)
		out := filepath.Join(t.TempDir(), "run")
		r0 := start(t, bin, nil, nil, "measure", "--rank", "0", "--world-size", "2", "--listen", addr, "--peer-wait", "10s")
		r1 := start(t, other, nil, nil, append(r1args(out, addr)[:len(r1args(out, addr))], "--peer-wait", "10s")...)
		code1, err1 := r1.wait(t, 20*time.Second)
		code0, err0 := r0.wait(t, 20*time.Second)
		t.Logf("rank 0: %s", strings.TrimSpace(err0))
		t.Logf("rank 1: %s", strings.TrimSpace(err1))
		for _, s := range []struct {
			who, stderr string
			code        int
		}{{"rank 0", err0, code0}, {"rank 1", err1, code1}} {
			oneLineErr(t, s.who, s.code, s.stderr, "9.9.9-other")
			oneLineErr(t, s.who, s.code, s.stderr, Version)
		}
		checkPartial(t, out, "refused")
	})
	t.Run("garbage-to-rank1", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
				time.Sleep(200 * time.Millisecond)
				c.Close()
			}
		}()
		out := filepath.Join(t.TempDir(), "run")
		code, stderr := start(t, bin, nil, nil, r1args(out, ln.Addr().String())...).wait(t, 20*time.Second)
		oneLineErr(t, "rank 1", code, stderr, "not the gpupath pairing protocol")
		t.Logf("rank 1: %s", strings.TrimSpace(stderr))
		checkPartial(t, out, "not the gpupath pairing protocol")
	})
	t.Run("garbage-to-rank0", func(t *testing.T) {
		t.Parallel()
		addr := port(t)
		r0 := start(t, bin, nil, nil, "measure", "--rank", "0", "--world-size", "2", "--listen", addr, "--peer-wait", "10s")
		var c net.Conn
		var err error
		for i := 0; i < 100; i++ {
			if c, err = net.Dial("tcp", addr); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		code, stderr := r0.wait(t, 20*time.Second)
		oneLineErr(t, "rank 0", code, stderr, "not the gpupath pairing protocol")
		t.Logf("rank 0: %s", strings.TrimSpace(stderr))
	})
}

// Where the rank comes from, and the clear errors: a world of three, a
// rank 1 with no way to find rank 0.
func TestPairResolve(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	flags := pairFlags{rank: -1, worldSize: -1, localRank: -1, peerWait: time.Second}
	if pr, err := flags.resolve(env()); pr != nil || err != nil {
		t.Errorf("no launcher: %v, %v; want a one-host run", pr, err)
	}
	if pr, err := flags.resolve(env("SLURM_PROCID", "2", "SLURM_NTASKS", "3")); err != nil || !pr.sweep || pr.rank.Rank != 2 {
		t.Errorf("world of 3: %+v, %v; want a sweep", pr, err)
	}
	pr, err := flags.resolve(env("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "SLURM_PROCID", "0", "SLURM_NTASKS", "1"))
	if err != nil || pr.rank.From != "openmpi" || pr.rank.Rank != 1 {
		t.Errorf("mpirun inside sbatch: %+v, %v", pr, err)
	}
	f := &measureFlags{pair: flags}
	if _, _, err := f.pair.meeting(pr).Rank0(context.Background()); err == nil || !strings.Contains(err.Error(), "no peer address") {
		t.Errorf("rank 1 without a peer: %v", err)
	}
	fl := flags
	fl.rank, fl.worldSize = 0, 2
	if pr, err := fl.resolve(env()); err != nil || pr.role != 0 || pr.rank.From != "flags" {
		t.Errorf("--rank 0 --world-size 2: %+v, %v", pr, err)
	}
}
