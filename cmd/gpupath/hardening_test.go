package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
