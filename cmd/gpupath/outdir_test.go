package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"
)

// An --out that is not new or an empty directory (a file, a symbolic link,
// dangling or not, a directory holding a file) is bad input for every
// command that makes a run or report directory: exit 2, one line naming
// --out, before any work (measure's probes, report's rendering, import's
// reading), and nothing is created or changed.
func TestOutDirRefusedUpFront(t *testing.T) {
	iperf := fixtures + "iperf3/json-v3.0.11-tcp-1stream-13s.json"
	cmds := map[string][]string{
		"measure":  {"measure", "--probes", "syscall", "--budget", "20s", "--quiet"},
		"gpucheck": {"gpucheck", "--probes", "topo", "--sysfs", t.TempDir(), "--budget", "20s", "--quiet"},
		"report":   {"report", "--model-only"},
		"import":   {"import", iperf},
	}
	targets := map[string]func(dir string) string{
		"file": func(dir string) string {
			p := filepath.Join(dir, "afile")
			if err := os.WriteFile(p, []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"dangling symlink": func(dir string) string {
			p := filepath.Join(dir, "dangling")
			if err := os.Symlink(filepath.Join(dir, "nowhere"), p); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"symlink to an empty directory": func(dir string) string {
			if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "link")
			if err := os.Symlink(filepath.Join(dir, "empty"), p); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"non-empty directory": func(dir string) string {
			p := filepath.Join(dir, "full")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		},
	}
	for cname, args := range cmds {
		for tname, mk := range targets {
			t.Run(cname+"/"+tname, func(t *testing.T) {
				dir := t.TempDir()
				out := mk(dir)
				before := walk(t, dir)
				// A context done already: work (a probe, rendering, reading
				// a file) would stop at its first check, "interrupted".
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				var so, se bytes.Buffer
				code := exitCode(run(ctx, append(slices.Clone(args), "--out", out), &so, &se), &se)
				stdout, stderr := so.String(), se.String()
				if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--out "+out) {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line about --out %s", code, stdout, stderr, out)
				}
				if after := walk(t, dir); !slices.Equal(before, after) {
					t.Errorf("the directory changed: %v, then %v", before, after)
				}
			})
		}
	}
}

// walk lists every path under dir with its mode and size.
func walk(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p+" "+fi.Mode().String()+" "+strings.Repeat("x", int(min(fi.Size(), 64))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An --opt value out of the range its probe declares is bad input before
// anything runs: exit 2, one line naming the option, its value and the
// range, and no run directory.
func TestOptValueRefusedUpFront(t *testing.T) {
	for _, tc := range []struct{ opt, want string }{
		{"flows=100000", "option flows=100000: out of range [1, 64]"},
		{"flows=0", "option flows=0: out of range [1, 64]"},
		{"timeout=0", "option timeout=0: out of range (0s, 3600s]"},
		{"modes=store,bogus", `option modes=store,bogus: unknown "bogus"`},
		{"chunk=1GiB", "option chunk=1GiB: out of range [1B, 256MiB]"},
	} {
		out := filepath.Join(t.TempDir(), "run")
		stdout, stderr, code := invoke(t, "measure", "--probes", "staged-host", "--budget", "2s", "--quiet", "--opt", tc.opt, "--out", out)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--opt %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.opt, code, stdout, stderr, tc.want)
		}
		if _, err := os.Lstat(out); !os.IsNotExist(err) {
			t.Errorf("--opt %s: the run directory was made (%v)", tc.opt, err)
		}
	}
}

// A disk that fills while a command writes its output (a write fails with
// ENOSPC, EDQUOT or EIO) is output that could not be written: exit 1 with
// one line, for every command that writes files, never 2 (bad input,
// before anything runs), and nothing is left at the destination.
func TestFullDiskIsExit1(t *testing.T) {
	dir := t.TempDir()
	run := "../../reports/examples/h200-1gpu/run"
	for _, errno := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO} {
		for i, args := range [][]string{
			{"report", "--model-only", "--out", filepath.Join(dir, "rep")},
			{"report", "--model-only", "--data", run, "--out", filepath.Join(dir, "rep")},
			{"fit", "--data", run, "--out", filepath.Join(dir, "fit.yaml")},
			{"doctor", "--save-tree", filepath.Join(dir, "tree.tar")},
			{"import", fixtures + "osu/pkb-osu_bw-v5.7.1-intelmpi-debug-trimmed.txt", "--out", filepath.Join(dir, "imp")},
		} {
			restore := safeio.FailWrites(errno)
			_, errOut, code := invoke(t, args...)
			restore()
			if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, errno.Error()) {
				t.Errorf("%v, %q: exit %d, want 1: %q", errno, args, code, errOut)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Fatalf("%v, case %d: left behind: %v", errno, i, left)
			}
		}
	}
}

// measure with the default --out checks where its run would go, up front,
// with report's check and message: a working directory where reports/runs
// cannot be made (here "reports" is a file: root writes anywhere) is bad
// input, exit 2 and one line before any probe runs.
func TestDefaultOutUnwritableHere(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("reports", []byte("not a directory"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"measure", "--probes", "syscall", "--budget", "1s"}, "gpupath: cannot write runs into reports/runs here: "},
		{[]string{"report", "--model-only"}, "gpupath: cannot write reports into reports here: "},
	} {
		out, errOut, code := invoke(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, tc.want) || !strings.HasSuffix(errOut, "(give --out DIR)\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q…(give --out DIR)", tc.args, code, out, errOut, tc.want)
		}
	}
}

// --rendezvous names a directory both ranks share: one that does not
// exist, or is a file, is bad input on every rank, exit 2 and one line at
// once (rank 1 waited the whole --peer-wait, then left a run with nothing).
func TestRendezvousCheckedUpFront(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, nil, 0o644)
	for _, rdv := range []string{filepath.Join(dir, "nonexist"), file, filepath.Join(file, "sub")} {
		for _, rank := range []string{"0", "1"} {
			out := filepath.Join(dir, "run"+rank)
			start := time.Now()
			_, errOut, code := invoke(t, "measure", "--rendezvous", rdv, "--world-size", "2", "--rank", rank, "--peer-wait", "20s", "--out", out, "--quiet")
			if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "gpupath: --rendezvous "+rdv+": ") || time.Since(start) > 10*time.Second {
				t.Errorf("rank %s, --rendezvous %s: exit %d after %v: %q", rank, rdv, code, time.Since(start), errOut)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Errorf("rank %s, --rendezvous %s: %s was made", rank, rdv, out)
			}
		}
	}
}
