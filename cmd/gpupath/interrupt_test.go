package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/pkg/validate"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/cli"
	"github.com/gpupath/gpupath/pkg/record"
)

// bigRun writes a run directory of copies × the records of the committed
// H200 run, each copy at sizes of its own, so that fitting it (its
// bootstraps over thousands of sizes) takes far longer than a second.
func bigRun(t *testing.T, dir string, copies int) {
	t.Helper()
	src := filepath.Join("..", "..", "reports", "examples", "h200-1gpu", "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile(filepath.Join(src, record.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.ManifestFile), man, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile(filepath.Join(src, record.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(in), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	f, err := os.Create(filepath.Join(dir, record.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for k := range copies {
		for _, r := range recs {
			c := make(map[string]any, len(r))
			for key, v := range r {
				c[key] = v
			}
			if b, ok := r["bytes"].(float64); ok && b > 0 {
				c["bytes"] = float64(int64(b*(1+float64(k)/997)) + int64(k))
			}
			line, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(append(line, '\n'))
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSIGTERMStopsLongCommands: model, fit and report stop at their next
// check after SIGTERM, well past their reading phase: exit 1 within 10 s,
// the documented line, nothing written. (They used to finish their work
// and exit 0 with the output written.)
func TestSIGTERMStopsLongCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large run and waits for signals")
	}
	tmp := t.TempDir()
	run := filepath.Join(tmp, "big")
	bigRun(t, run, 60)
	// The published table repeated to validate's row limit: seconds of
	// modeling.
	pub, err := os.ReadFile(filepath.Join("..", "..", "pkg", "validate", "data", "published.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(pub), "\n"), "\n")
	var table strings.Builder
	table.WriteString(lines[0] + "\n")
	for n := 0; n < validate.MaxRows; n++ {
		row := lines[1+n%(len(lines)-1)]
		id, rest, _ := strings.Cut(row, ",")
		fmt.Fprintf(&table, "%s-%d,%s\n", id, n, rest) // ids are unique
	}
	csv := filepath.Join(tmp, "table.csv")
	if err := os.WriteFile(csv, []byte(table.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		out  string // what must not exist afterwards
	}{
		// About 10,000 sizes of every path, as JSON: seconds of work.
		{"model", []string{"model", "--sizes", "1B:1GiB:x1.00209", "--format", "json"}, ""},
		{"fit", []string{"fit", "--data", run, "--out", filepath.Join(tmp, "fitted.yaml")}, filepath.Join(tmp, "fitted.yaml")},
		{"report", []string{"report", "--model-only", "--data", run, "--out", filepath.Join(tmp, "rep")}, filepath.Join(tmp, "rep")},
		{"validate", []string{"validate", "--data", csv}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binary, tc.args...)
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			code := waitExit(t, cmd, 10*time.Second)
			t.Logf("%s exited %d, %v after SIGTERM", tc.name, code, time.Since(sent).Round(time.Millisecond))
			if code != 1 {
				t.Errorf("exit %d, want 1 (stderr %q)", code, se.String())
			}
			if se.String() != "gpupath: interrupted: nothing written\n" {
				t.Errorf("stderr %q", se.String())
			}
			if so.Len() != 0 {
				t.Errorf("stdout holds %d bytes", so.Len())
			}
			if tc.out != "" {
				if _, err := os.Stat(tc.out); err == nil {
					t.Errorf("%s written after SIGTERM", tc.out)
				}
			}
		})
	}
}

// TestInterruptedCanceledNeverBadInput: an interrupt that reaches exitCode
// wrapped as bad input (fit wraps calibration errors so) still exits 1.
func TestInterruptedCanceledNeverBadInput(t *testing.T) {
	var errb bytes.Buffer
	if code := exitCode(badInput(fmt.Errorf("calibrating: %w", context.Canceled)), &errb); code != 1 || errb.String() != "gpupath: interrupted: nothing written\n" {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestReportInterruptSaysRunKept: an interrupt after the quick probes made
// their run says where the run is kept, not "nothing written".
func TestReportInterruptSaysRunKept(t *testing.T) {
	t.Chdir(t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := quickProbes
	defer func() { quickProbes = old }()
	var made string
	quickProbes = func(ctx context.Context, dir string, stderr io.Writer) error {
		made = dir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		cancel() // SIGINT while the quick run ends
		return os.WriteFile(filepath.Join(dir, record.ManifestFile), []byte(`{"format":1,"status":"interrupted","start":"2026-11-29T10:00:00Z"}`), 0o644)
	}
	var out, errb bytes.Buffer
	err := run(ctx, []string{"report", "--out", "rep"}, &out, &errb)
	code := exitCode(err, &errb)
	if made == "" {
		t.Fatal("no quick run made")
	}
	want := fmt.Sprintf("gpupath: interrupted: kept the quick-probe run in %s (give it to gpupath report --data); no report written\n", made)
	if code != 1 || errb.String() != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errb.String(), want)
	}
	if _, err := os.Stat("rep"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("report directory: %v", err)
	}
	if !strings.HasPrefix(made, filepath.Join("reports", "runs")) {
		t.Errorf("quick run in %s", made)
	}
}

// A command whose stdout is a pipe nobody reads blocks in its first write;
// a signal still ends it within about a second (cli.StopWriter under every
// command's output), with exit 1 and the interruption named.
func TestSignalEndsABlockedWrite(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, pw := io.Pipe() // never read
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- exitCode(run(ctx, []string{"model", "--sizes", "8,64KiB"}, pw, &errb), &errb) }()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(errb.String(), "interrupted: the output is cut short") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a command blocked writing its output ignored the signal")
	}
}

// The commands that read runs and outputs run under the soft memory limit
// (unless GOMEMLIMIT sets one); the others do not.
func TestReadersRunUnderSoftMemory(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, name := range []string{"report", "fit", "import", "validate", "doctor", "model"} {
		if !commands[name].reads {
			t.Errorf("%s does not run under the soft memory limit", name)
		}
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if _, _, code := invoke(t, "model", "--sizes", "8"); code != 0 || debug.SetMemoryLimit(-1) != cli.SoftMemory {
		t.Errorf("model: exit %d, memory limit %d", code, debug.SetMemoryLimit(-1))
	}
}
