package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// oneLine checks an exit status of 2 with one line on stderr that says want.
func exit2(t *testing.T, name string, code int, errOut string, want ...string) {
	t.Helper()
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "gpupath: ") {
		t.Errorf("%s: exit %d, stderr %q; want 2 and one line", name, code, errOut)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("%s: stderr %q lacks %q", name, errOut, w)
		}
	}
}

func TestNoArgsOneLine(t *testing.T) {
	out, errOut, code := invoke(t)
	exit2(t, "no args", code, errOut, "no command given", "gpupath help")
	if out != "" {
		t.Errorf("stdout %q", out)
	}
}

// fit --out refuses a directory and an existing file (without --force)
// before reading anything; nothing is overwritten.
func TestFitOutRefuses(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "mine.yaml")
	os.WriteFile(existing, []byte("precious"), 0o644)
	run := filepath.Join(dir, "run")
	os.MkdirAll(run, 0o755)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"existing file", []string{"fit", "--data", run, "--out", existing}, "exists (add --force"},
		{"directory", []string{"fit", "--data", run, "--out", dir}, "is a directory"},
		{"missing parent", []string{"fit", "--data", run, "--out", filepath.Join(dir, "no", "x.yaml")}, "does not exist"},
	} {
		_, errOut, code := invoke(t, tc.args...)
		exit2(t, tc.name, code, errOut, tc.want)
	}
	if b, _ := os.ReadFile(existing); string(b) != "precious" {
		t.Errorf("fit overwrote %s", existing)
	}
}

// Scenario files that never end or never come: exit 2 at once, the limit
// or the kind named.
func TestModelScenarioBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "character device"},
		{fifo, "FIFO"},
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, errOut, code := invoke(t, "model", "--scenario", tc.path)
			exit2(t, tc.path, code, errOut, tc.want)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("model --scenario %s does not return", tc.path)
		}
	}
}

// A context cancelled before or while reading: model, fit and report end
// with "interrupted" and write nothing.
func TestInterruptedCommands(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("s.yaml", []byte("name: x\n"), 0o644)
	os.MkdirAll("run", 0o755)
	os.WriteFile("run/manifest.json", []byte(`{"format":1,"status":"complete","start":"2026-11-29T10:00:00Z"}`), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"model", "--scenario", "s.yaml"},
		{"fit", "--data", "run", "--out", "fitted.yaml"},
		{"report", "--model-only", "--out", "rep"},
		{"report", "--model-only", "--data", "run", "--out", "rep"},
	} {
		var out, errb bytes.Buffer
		code := exitCode(run(ctx, args, &out, &errb), &errb)
		if code != 1 || errb.String() != "gpupath: interrupted: nothing written\n" || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	for _, p := range []string{"fitted.yaml", "rep"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written after an interrupt", p)
		}
	}
}

// Escape sequences in a scenario's name and description never reach the
// terminal; nor those in an error message.
func TestTerminalEscapesCleaned(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "evil.yaml")
	os.WriteFile(p, []byte("name: \"\\e]0;owned\\a\\e[2J\"\ndescription: \"\\u202e\\x9b31m\"\n"), 0o644)
	out, errOut, code := invoke(t, "model", "--scenario", p, "--paths", "gdr", "--sizes", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{out, errOut} {
		if strings.ContainsAny(s, "\x1b\x07\u202e\u009b") {
			t.Errorf("raw control characters reach the terminal: %q", s)
		}
	}
	if !strings.Contains(out, `\x1b]0;owned`) {
		t.Errorf("the name is not shown escaped: %q", out)
	}
	os.WriteFile(p, []byte("nic:\n  rate: \"\\e[2J\"\n"), 0o644)
	_, errOut, code = invoke(t, "model", "--scenario", p)
	if code != 2 || strings.ContainsRune(errOut, '\x1b') {
		t.Errorf("error with an escape: exit %d, %q", code, errOut)
	}
}

// A manifest left at running by a writer that died: the report says what
// was found, never "run running."; records it cannot draw are counted.
func TestReportDerivedStatus(t *testing.T) {
	t.Chdir(t.TempDir())
	os.MkdirAll("run", 0o755)
	os.WriteFile("run/manifest.json", []byte(`{"format":1,"tool":"gpupath","status":"running","start":"2026-11-29T10:00:00Z","results":"results.jsonl",
 "host":{"hostname":"h1","cpu_model":"\u001b]0;x\u0007Xeon","cpus":2},"probes":[{"name":"tcp","status":"running","results":0}]}`), 0o644)
	os.WriteFile("run/results.jsonl", []byte(`{"probe":"tcp","variant":"pingpong","target":"loopback","bytes":64,"iterations":100,"min_s":6e-6,"median_s":7e-6,"p99_s":9e-6}
{"probe":"tcp","variant":"pingpong","target":"loopback","bytes":128,"iterations":100,"min_s":0,"median_s":0,"p99_s":0}
`), 0o644)
	os.Mkdir("empty", 0o755)
	_, errOut, code := invoke(t, "report", "--model-only", "--data", "run", "--out", "empty")
	if code != 0 {
		t.Fatalf("report into an existing empty directory: exit %d: %s", code, errOut)
	}
	page, _ := os.ReadFile("empty/index.html")
	for _, want := range []string{"run interrupted (found running with 2 record(s) (the manifest counts 0); the writer died)", "1 record(s) left out"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "run running.") {
		t.Errorf("index.html says run running.")
	}
	// fit says why the records are of no use.
	os.WriteFile("run/results.jsonl", []byte(`{"probe":"tcp","variant":"pingpong","target":"loopback","bytes":128,"iterations":100}`+"\n"), 0o644)
	_, errOut, code = invoke(t, "fit", "--data", "run")
	exit2(t, "fit zero times", code, errOut, "1 record(s), none usable")
}

// The default output directory: a report that finds its directory taken
// at the last moment (another report in the same second) takes the next;
// a working directory where reports/ cannot be made is one line, exit 2,
// naming no directory that was never made.
func TestReportDefaultDirRaces(t *testing.T) {
	t.Chdir(t.TempDir())
	beforeWrite = func(dir string) {
		if !strings.HasSuffix(dir, "-2") {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "index.html"), []byte("another report"), 0o644)
		}
	}
	defer func() { beforeWrite = nil }()
	out, errOut, code := invoke(t, "report", "--model-only")
	if code != 0 || !strings.Contains(out, "-2/index.html") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	beforeWrite = nil
	t.Chdir(t.TempDir())
	os.WriteFile("reports", []byte("a file"), 0o644)
	_, errOut, code = invoke(t, "report", "--model-only")
	exit2(t, "reports is a file", code, errOut, "cannot write reports into reports here")
}
