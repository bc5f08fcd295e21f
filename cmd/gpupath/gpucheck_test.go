package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/gputest"
	"github.com/gpupath/gpupath/pkg/measure/gpu"
	"github.com/gpupath/gpupath/pkg/record"
)

// gpucheck is measure --diagnose: it writes a run directory (manifest and
// results, as measure does) and its summary, and with -quiet nothing on
// stderr. A run whose probes all found nothing to measure is a failure
// (exit 1, "measured nothing" with each probe's reason), and keeps what it
// wrote.
func TestGPUCheckWithoutHardware(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"gpucheck", "-out", out, "-probes", "topo,rdma,perftest", "-sysfs", t.TempDir(), "-quiet"}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 1 || !strings.Contains(stderr.String(), "gpupath: measured nothing: topo unavailable (") {
		t.Fatalf("exit %d, stderr %q; want 1 and measured nothing", code, stderr.String())
	}
	stderr.Reset()
	if stderr.Len() != 0 {
		t.Errorf("stderr with -quiet: %s", stderr.String())
	}
	for _, f := range []string{record.ManifestFile, record.ResultsFile, "summary.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	rd, err := record.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if rd.Manifest.Status != record.StatusFailed || !strings.Contains(rd.Manifest.Reason, "measured nothing") || len(rd.Manifest.Probes) != 3 {
		t.Fatalf("manifest %+v", rd.Manifest)
	}
	for _, p := range rd.Manifest.Probes {
		if p.Status != record.StatusUnavailable || p.Reason == "" {
			t.Errorf("%s: %s %s", p.Name, p.Status, p.Reason)
		}
	}
	if !strings.Contains(stdout.String(), "rdma      unavailable") {
		t.Errorf("summary:\n%s", stdout.String())
	}
}

func TestGPUCheckBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gpucheck", "-probes", "nosuch"}, `unknown probe "nosuch"`},
		{[]string{"gpucheck", "-sizes", "4,x"}, `--sizes: "x": no number`},
		{[]string{"gpucheck", "-opt", "novalue"}, "expected key=value"},
		{[]string{"gpucheck", "-probes", "staged", "-opt", "chunck=1MiB"}, `unknown option "chunck" for probes staged (valid: chunk, gpus, slots, variants)`},
		{[]string{"measure", "--probes", "tcp,staged", "--opt", "chunck=1MiB"}, `(valid: chunk, gpus, pingpong_max, port, rate, rcvbuf, slots, sndbuf, timeout, variants)`},
		{[]string{"measure", "--probes", "staged", "--opt", "chunk=lots"}, "option chunk=lots: want a size like 512KiB"},
		{[]string{"measure", "--probes", "cuda", "--rate", "1Gbit/s"}, "--rate is an option of the tcp probe"},
		{[]string{"measure", "--diagnose", "--opt", "chunk=1MiB"}, `unknown option "chunk" for probes nvml,topo,rdma,cuda,perftest`},
	} {
		out := filepath.Join(t.TempDir(), "run")
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(tc.args, "-out", out), &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 2 {
			t.Errorf("%v: exit %d (%v)", tc.args, code, err)
		}
		if strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q, want one line saying %q", tc.args, stderr.String(), tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: bad input created the run directory", tc.args)
		}
	}
}

// One runner, one format: `gpupath fit --data` and `gpupath report --data`
// accept a run of `gpupath measure` (TCP ping-pong over loopback) and one
// of `gpupath gpucheck` (the CUDA copies, on the stub driver library:
// no GPU needed) alike.
func TestFitAndReportReadMeasureAndGPUCheckRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real probes on stub GPU libraries")
	}
	t.Setenv(gpu.LibCUDAEnv, gputest.CUDAStub(t))
	tmp := t.TempDir()
	runs := map[string][]string{
		"measure":  {"measure", "--probes", "tcp", "--variants", "pingpong", "--sizes", "1,64,1KiB,16KiB", "--budget", "3s", "--quiet"},
		"gpucheck": {"gpucheck", "-probes", "nvml,cuda", "-sizes", "4,1KiB,64KiB,1MiB", "-budget", "4s", "-opt", "pageable=off", "-quiet"},
	}
	for name, args := range runs {
		dir := filepath.Join(tmp, name)
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), append(args, "-out", dir), &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr.String())
		}
		rd, err := record.ReadRun(dir)
		if err != nil || len(rd.Results) == 0 || rd.Manifest.Status != record.StatusComplete {
			t.Fatalf("%s: %v, %+v", name, err, rd)
		}
		stdout.Reset()
		if err := run(context.Background(), []string{"fit", "--data", dir}, &stdout, &stderr); err != nil {
			t.Errorf("fit --data %s: %v", name, err)
		} else if !strings.Contains(stdout.String(), "scenario keys set:") {
			t.Errorf("fit --data %s:\n%s", name, stdout.String())
		}
		rep := filepath.Join(tmp, name+"-report")
		stdout.Reset()
		if err := run(context.Background(), []string{"report", "--model-only", "--data", dir, "--out", rep}, &stdout, &stderr); err != nil {
			t.Errorf("report --data %s: %v", name, err)
		} else if _, err := os.Stat(filepath.Join(rep, "index.html")); err != nil {
			t.Errorf("report --data %s: %v", name, err)
		}
	}
}
