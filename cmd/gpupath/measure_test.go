package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

// binary is the gpupath command built once for the tests that run it as a
// process (signals, exit status).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gpupath-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "gpupath")
	buildOther()
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building gpupath: %v\n%s", err, out)
		os.Exit(1)
	}
	_, hadReports := os.Stat("reports")
	code := m.Run()
	<-otherDone
	os.RemoveAll(dir)
	// No test may leave output in the package's directory (a report's quick
	// run lands in ./reports/runs): run commands with --out in a temporary
	// directory, --model-only, or t.Chdir.
	if _, err := os.Stat("reports"); err == nil && hadReports != nil {
		fmt.Fprintln(os.Stderr, "a test left ./reports in cmd/gpupath (a report run with this directory as its working directory)")
		os.RemoveAll("reports")
		code = 1
	}
	os.Exit(code)
}

type outcome struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// gpupath runs the binary with a deadline and returns what it did.
func gpupath(t *testing.T, timeout time.Duration, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	o := outcome{stdout: so.String(), stderr: se.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.code = ee.ExitCode()
	default:
		t.Fatalf("gpupath %v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("gpupath %v ran past %v", args, timeout)
	}
	return o
}

// oneLine checks the error contract: one line on stderr, "gpupath: ...".
func oneLine(t *testing.T, o outcome, want string) {
	t.Helper()
	if strings.Count(o.stderr, "\n") != 1 || !strings.HasPrefix(o.stderr, "gpupath: ") || !strings.HasSuffix(o.stderr, "\n") {
		t.Errorf("stderr is not one line: %q", o.stderr)
	}
	if !strings.Contains(o.stderr, want) {
		t.Errorf("stderr %q does not say %q", o.stderr, want)
	}
}

func TestMeasureBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, busyPort, _ := net.SplitHostPort(busy.Addr().String())
	out := filepath.Join(t.TempDir(), "run")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"measure", "--probes", "tcp,nope"}, `unknown probe "nope"`},
		{[]string{"measure", "--budget", "0"}, "--budget must be positive"},
		{[]string{"measure", "--budget", "-1s"}, "--budget must be positive"},
		{[]string{"measure", "--budget", "soon"}, `invalid argument "soon" for "--budget"`},
		{[]string{"measure", "--probes", "tcp", "--port", busyPort}, "port in use"},
		{[]string{"measure", "--port", "70000"}, "out of range"},
		{[]string{"measure", "--rate", "1Gbit/s"}, "needs the veth target"},
		{[]string{"measure", "--target", "veth", "--rate", "fast"}, "bad rate"},
		{[]string{"measure", "--target", "nowhere"}, "bad target"},
		{[]string{"measure", "--sizes", "64,x"}, `--sizes: "x": no number`},
		{[]string{"measure", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"measure", "--variants", "bogus"}, "unknown variant"},
		{[]string{"measure", "extra-arg"}, "unexpected argument"},
		// Every range up front, before a directory is made: budgets
		// (2,000,000 h overflowed the hard stop), NaN, each probe's sizes,
		// ports.
		{[]string{"measure", "--probes", "syscall", "--budget", "2000000h"}, "--budget must be positive and at most 168h0m0s"},
		// A budget a run cannot keep is refused, not raised in silence
		// to the least a probe is given.
		{[]string{"measure", "--probes", "syscall", "--budget", "1ns"}, "--budget 1ns is shorter than the 100ms a run of 1 probe(s) needs (at least 100ms each)"},
		{[]string{"measure", "--probes", "syscall,tcp,memcpy", "--budget", "250ms"}, "--budget 250ms is shorter than the 300ms a run of 3 probe(s) needs (at least 100ms each)"},
		{[]string{"measure", "--probes", "tcp", "--timeout", "2000000h"}, "--timeout must be positive and at most 24h0m0s"},
		{[]string{"serve", "--timeout", "25h"}, "--timeout must be positive and at most 24h0m0s"},
		{[]string{"measure", "--world-size", "2", "--rank", "1", "--peer", "127.0.0.1:7470", "--peer-wait", "2000000h"}, "--peer-wait must be positive and at most 168h0m0s"},
		{[]string{"measure", "--probes", "syscall", "--tolerance", "NaN"}, "--tolerance must be in [0, 1), got NaN"},
		{[]string{"measure", "--probes", "syscall", "--tolerance", "Inf"}, "--tolerance must be in [0, 1)"},
		{[]string{"measure", "--probes", "memcpy", "--sizes", "1B:1TiB:x1024"}, "--sizes: memcpy: size 1TiB out of range [1B, 1GiB]"},
		{[]string{"measure", "--probes", "syscall", "--sizes", "64,1MiB"}, "--sizes: syscall: size 1MiB out of range [1B, 64KiB]"},
		{[]string{"measure", "--probes", "staged-host", "--sizes", "1GiB"}, "--sizes: staged-host: size 1GiB out of range [1B, 256MiB]"},
		{[]string{"measure", "--world-size", "2", "--rank", "1", "--peer", "127.0.0.1:99999"}, `--peer "127.0.0.1:99999": port "99999" out of range [1, 65535]`},
		{[]string{"measure", "--world-size", "2", "--rank", "1", "--peer", "127.0.0.1:0"}, `port "0" out of range [1, 65535]`},
		{[]string{"measure", "--world-size", "2", "--rank", "1", "--peer", "nohost"}, `--peer "nohost": want host:port`},
		{[]string{"measure", "--world-size", "2", "--rank", "0", "--listen", ":70000"}, `--listen ":70000": port "70000" out of range [0, 65535]`},
		// A negative rank given is refused, not taken as "from the environment".
		{[]string{"measure", "--probes", "syscall", "--rank", "-7"}, "--rank must be 0 or more, got -7"},
		{[]string{"measure", "--probes", "syscall", "--local-rank", "-1"}, "--local-rank must be 0 or more, got -1"},
		{[]string{"gpucheck", "--world-size", "-2"}, "--world-size must be 0 or more, got -2"},
		{[]string{"gpucheck", "--sysfs", "/dev/zero"}, "--sysfs /dev/zero: not a directory"},
		{[]string{"measure", "--probes", "topo", "--sysfs", "/nonexistent-tree"}, "--sysfs /nonexistent-tree: not a directory"},
		{[]string{"serve", "--listen", "127.0.0.1:70000"}, `--listen "127.0.0.1:70000": port "70000" out of range [0, 65535]`},
		{[]string{"serve", "--listen", busy.Addr().String()}, "port in use"},
	} {
		o := gpupath(t, 10*time.Second, append(tc.args, "--out", out)...)
		if tc.args[0] == "serve" {
			o = gpupath(t, 10*time.Second, tc.args...)
		}
		if o.code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tc.args, o.code, o.stderr)
		}
		oneLine(t, o, tc.want)
		if o.stdout != "" {
			t.Errorf("%v: stdout %q", tc.args, o.stdout)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input created the run directory")
	}
}

// A peer that does not answer fails within the configured timeout, with one
// line, before any probe runs.
func TestMeasureUnreachablePeer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits on connection timeouts")
	}
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	out := filepath.Join(t.TempDir(), "run")
	o := gpupath(t, 10*time.Second, "measure", "--probes", "tcp", "--target", silent.Addr().String(), "--timeout", "1s", "--out", out)
	if o.code != 1 {
		t.Errorf("exit %d, want 1", o.code)
	}
	oneLine(t, o, "did not answer the gpupath handshake within 1 s")
	if o.took > 3*time.Second {
		t.Errorf("took %v with a 1s timeout", o.took)
	}
	// An address nothing answers at (TEST-NET-1, RFC 5737): connect fails
	// at once (no route) or times out; either way within the timeout, one line.
	o = gpupath(t, 10*time.Second, "measure", "--probes", "tcp", "--target", "192.0.2.1:7470", "--timeout", "1s", "--out", out)
	if o.code != 1 || o.took > 3*time.Second {
		t.Errorf("TEST-NET peer: exit %d after %v", o.code, o.took)
	}
	oneLine(t, o, "connect 192.0.2.1:7470")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed peer check created the run directory")
	}
}

// startMeasure starts `gpupath measure` in the background and waits until
// its results file holds at least n lines.
func startMeasure(t *testing.T, dir string, n int, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	return startMeasureTo(t, dir, n, io.Discard, args...)
}

// startMeasureTo is startMeasure with its stdout kept in stdout.
func startMeasureTo(t *testing.T, dir string, n int, stdout io.Writer, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"measure", "--out", dir}, args...)...)
	var se bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(dir, record.ResultsFile))
		if bytes.Count(b, []byte("\n")) >= n {
			return cmd, &se
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %d results after 30s; stderr %q", n, se.String())
	return nil, nil
}

func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		t.Fatalf("still running %v after the signal", limit)
		return -1
	}
}

func TestMeasureSIGINT(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	// syscall writes 4 records; the 5th is tcp's first of 20, so the
	// signal lands inside the tcp probe.
	cmd, stderr := startMeasure(t, dir, 5, "--probes", "syscall,tcp", "--budget", "30s", "--quiet")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	code := waitExit(t, cmd, 15*time.Second)
	t.Logf("exited %v after SIGINT", time.Since(sent))
	if code != 1 {
		t.Errorf("exit %d after SIGINT, want 1", code)
	}
	oneLine(t, outcome{stderr: stderr.String()}, "interrupted: ")
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rd.Manifest.Status != record.StatusInterrupted || rd.Manifest.End.IsZero() {
		t.Errorf("manifest status %s, end %v", rd.Manifest.Status, rd.Manifest.End)
	}
	interrupted, counted := 0, 0
	for _, p := range rd.Manifest.Probes {
		counted += p.Results
		if p.Status == record.StatusInterrupted {
			interrupted++
		}
	}
	if interrupted != 1 {
		t.Errorf("probes %+v: want exactly one interrupted", rd.Manifest.Probes)
	}
	if p := rd.Manifest.Probe("tcp"); p == nil || p.Status != record.StatusInterrupted {
		t.Errorf("tcp probe %+v, want interrupted", p)
	}
	if len(rd.Skipped) != 0 || len(rd.Results) < 5 || len(rd.Results) != counted {
		t.Errorf("%d results readable (%d skipped), manifest counts %d", len(rd.Results), len(rd.Skipped), counted)
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("%d results kept", counted)) {
		t.Errorf("stderr %q does not count %d results", stderr.String(), counted)
	}
}

// A script that asked for JSON gets the run's object when the run is
// interrupted: status interrupted, the results it kept.
func TestMeasureSIGINTJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var stdout bytes.Buffer
	cmd, stderr := startMeasureTo(t, dir, 5, &stdout, "--probes", "syscall,tcp", "--budget", "30s", "--quiet", "--format", "json")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 15*time.Second); code != 1 {
		t.Errorf("exit %d after SIGINT, want 1", code)
	}
	oneLine(t, outcome{stderr: stderr.String()}, "interrupted: ")
	var sum record.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("stdout is not the run's JSON object: %v: %q", err, stdout.String())
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != record.StatusInterrupted || sum.Run != dir || sum.Results != len(rd.Results) || sum.Results < 5 {
		t.Errorf("JSON says %s, %d results in %s; the run holds %d", sum.Status, sum.Results, sum.Run, len(rd.Results))
	}
}

func TestMeasureSIGKILL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cmd, _ := startMeasure(t, dir, 3, "--probes", "syscall,tcp", "--budget", "30s")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, 5*time.Second)
	path := filepath.Join(dir, record.ResultsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(b, []byte("\n"))
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Killed: the manifest still says running, but the reader finds its
	// writer gone and says interrupted; every line written is whole (each
	// record is one write(2)), and every one is read back.
	if rd.Manifest.Status != record.StatusInterrupted || rd.Written != record.StatusRunning || rd.Derived == "" {
		t.Errorf("manifest status %s (written %s) after SIGKILL", rd.Manifest.Status, rd.Written)
	}
	if len(rd.Results) != lines || len(rd.Skipped) != 0 {
		t.Errorf("%d of %d lines read, skipped %v", len(rd.Results), lines, rd.Skipped)
	}
	// A kill inside a write would leave a cut last line: simulate it by
	// cutting the file in the middle of its last record.
	last := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	cut := last + (len(b)-last)/2
	if err := os.WriteFile(path, b[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	rd, err = record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Results) != lines-1 || len(rd.Skipped) != 1 || rd.Skipped[0].Line != lines {
		t.Errorf("after the cut: %d results, skipped %v; want %d and line %d", len(rd.Results), rd.Skipped, lines-1, lines)
	}
}

// The remote-peer path end to end: `gpupath serve` in one process,
// `gpupath measure --target` in another, on loopback.
func TestMeasureRemotePeer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a real TCP peer")
	}
	srv := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--for", "60s")
	pr, err := srv.StderrPipe() // the listening line is a log line: stderr
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(line) // gpupath serve: listening on ADDR (...)
	if len(f) < 5 {
		t.Fatalf("serve said %q", line)
	}
	addr := f[4]
	dir := filepath.Join(t.TempDir(), "run")
	o := gpupath(t, 60*time.Second, "measure", "--probes", "tcp", "--target", addr, "--sizes", "64,64KiB", "--budget", "3s", "--out", dir)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	// Progress on stderr (plain lines on a pipe), the run's summary line on stdout.
	if !strings.Contains(o.stderr, "tcp pingpong 64B "+addr) || !strings.HasPrefix(o.stdout, "gpupath measure: complete") || !strings.HasSuffix(o.stdout, ": "+dir+"\n") {
		t.Errorf("plain progress lines on stderr and the summary on stdout expected, got %q and %q", o.stderr, o.stdout)
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Results) != 4 {
		t.Fatalf("%d results", len(rd.Results))
	}
	for _, r := range rd.Results {
		if r.Target != addr || !strings.Contains(r.CPUScope, "peer") || r.Extra["cpu_server_user_s"]+r.Extra["cpu_server_sys_s"]+r.Extra["cpu_server_s_per_byte"] <= 0 {
			t.Errorf("record %+v", r)
		}
	}
	srv.Process.Signal(os.Interrupt)
	if code := waitExit(t, srv, 10*time.Second); code != 0 {
		t.Errorf("serve exited %d on SIGINT", code)
	}
}

// The quick run of `gpupath report`: bounded, all three probes, nothing
// printed with --quiet, and the this-host scenario written.
func TestMeasureQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real probes of this host (tcp, memcpy, syscall)")
	}
	dir := filepath.Join(t.TempDir(), "run")
	o := gpupath(t, 60*time.Second, "measure", "--quick", "--quiet", "--out", dir)
	if o.code != 0 || o.stdout != "" || o.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	if o.took > measure.QuickBudget+8*time.Second {
		t.Errorf("quick run took %v", o.took)
	}
	t.Logf("quick run took %v", o.took)
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rd.Manifest.Status != record.StatusComplete {
		t.Errorf("status %s", rd.Manifest.Status)
	}
	// A machine busy enough (the test suite beside this test) can end a
	// probe's budget before its plan: the probe is partial, keeps what it
	// measured and the run still succeeds — the contract this checks.
	for _, p := range measure.QuickProbes {
		st := rd.Manifest.Probe(p)
		if st == nil || st.Results == 0 || (st.Status != record.StatusOK && st.Status != record.StatusPartial) {
			t.Errorf("probe %s: %+v", p, st)
		} else if st.Status == record.StatusPartial {
			t.Logf("probe %s partial on a busy machine: %s", p, st.Reason)
		}
	}
	y, err := os.ReadFile(filepath.Join(dir, "host-scenario.yaml"))
	if err != nil || !bytes.Contains(y, []byte("memcpy_rate:")) || !bytes.Contains(y, []byte("syscall:")) {
		t.Errorf("host-scenario.yaml: %v\n%s", err, y)
	}
	// A second run into the same directory is bad input.
	o = gpupath(t, 10*time.Second, "measure", "--quick", "--out", dir)
	if o.code != 2 {
		t.Errorf("reused --out: exit %d", o.code)
	}
	oneLine(t, o, "already holds a run")
}

// Interrupting a run on the veth target removes its network namespaces.
func TestMeasureVethInterruptCleansUp(t *testing.T) {
	if err := measure.VethAvailable(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	cmd, _ := startMeasure(t, dir, 1, "--probes", "tcp", "--target", "veth", "--rate", "300Mbit/s", "--budget", "30s")
	pid := cmd.Process.Pid
	if n := len(gpupathNetns(t, pid)); n != 2 {
		t.Errorf("%d gpupath namespaces while running, want 2", n)
	}
	cmd.Process.Signal(os.Interrupt)
	if code := waitExit(t, cmd, 15*time.Second); code != 1 {
		t.Errorf("exit %d", code)
	}
	if left := gpupathNetns(t, pid); len(left) != 0 {
		t.Errorf("namespaces left after SIGINT: %v", left)
	}
	rd, err := record.ReadRun(dir)
	if err != nil || rd.Manifest.Status != record.StatusInterrupted || len(rd.Results) == 0 || !strings.HasPrefix(rd.Results[0].Target, "veth tbf 300Mbit/s") {
		t.Errorf("run after SIGINT: %v %+v", err, rd)
	}
}

// gpupathNetns lists the network namespaces made by process pid.
func gpupathNetns(t *testing.T, pid int) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	mine := fmt.Sprintf("%s%d-", measure.NetnsPrefix, pid)
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], mine) {
			names = append(names, f[0])
		}
	}
	return names
}

// TestMeasureBadTargetAndOut: bad --target values and an --out that is a
// file or a user's directory exit 2 with one line (issue 12, items 7 and 9).
func TestMeasureBadTargetAndOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "thesis.tex"), []byte("x"), 0o644)
	for _, args := range [][]string{
		{"measure", "--probes", "tcp", "--target", "127.0.0.1:0"},
		{"measure", "--probes", "tcp", "--target", ":99999"},
		{"measure", "--probes", "tcp", "--target", "http://x"},
		{"measure", "--probes", "memcpy", "--out", file},
		{"measure", "--probes", "memcpy", "--out", full},
	} {
		var out, errb, msg bytes.Buffer
		err := run(context.Background(), args, &out, &errb)
		if code := exitCode(err, &msg); code != 2 || strings.Count(msg.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, msg.String())
		}
	}
	if _, err := os.Stat(filepath.Join(full, "thesis.tex")); err != nil {
		t.Error("the user's file is gone")
	}
}
