package main

import (
	"fmt"
	"github.com/gpupath/gpupath/pkg/units"
	"github.com/gpupath/gpupath/pkg/validate"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// validate --data reads through the bounded reader: a FIFO and a device are
// refused at once, a table over the row cap is refused with the cap named,
// and --help states both limits.
func TestValidateDataBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, errOut, code := invoke(t, "validate", "--data", fifo)
		exit2(t, "fifo", code, errOut, "not a regular file", "FIFO")
		_, errOut, code = invoke(t, "validate", "--data", "/dev/zero")
		exit2(t, "/dev/zero", code, errOut, "not a regular file")
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("validate --data blocked on a FIFO or read /dev/zero without end")
	}

	var b strings.Builder
	b.WriteString("id,path,quantity,unit,msg_bytes,value,gpu,nic,pcie,topology,software,source,notes\n")
	for i := 0; i <= validate.MaxRows; i++ {
		fmt.Fprintf(&b, "X-%d,gdr,latency_oneway,us,8,3,,,,,,,\n", i)
	}
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := invoke(t, "validate", "--data", big)
	exit2(t, "one row past the limit", code, errOut, fmt.Sprintf("big.csv:%d:", validate.MaxRows+2), fmt.Sprintf("more than %d rows", validate.MaxRows))

	out, _, _ := invoke(t, "validate", "--help")
	if !strings.Contains(out, "--data table 16 MiB and "+units.Thousands(validate.MaxRows)+" rows") {
		t.Errorf("validate --help does not state its limits:\n%s", out)
	}
}

// Out-of-range values in a --data table are refused with file:line.
func TestValidateDataRanges(t *testing.T) {
	dir := t.TempDir()
	head := "id,path,quantity,unit,msg_bytes,value,gpu,nic,pcie,topology,software,source,notes\n"
	for _, tc := range []struct{ msg, value, want string }{
		{"8", "5e-324", `value "5e-324" us is out of range`},
		{"-1", "3", `msg_bytes "-1"`},
		{"NaN", "3", `msg_bytes "NaN"`},
		{"1e20", "3", `msg_bytes "1e20"`},
	} {
		p := filepath.Join(dir, "t.csv")
		in := head + "X-1,gdr,latency_oneway,us,8,3,,,,,,,\nX-2,gdr,latency_oneway,us," + tc.msg + "," + tc.value + ",,,,,,,\n"
		if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := invoke(t, "validate", "--data", p)
		exit2(t, tc.msg+" "+tc.value, code, errOut, "t.csv:3: X-2: ", tc.want)
	}
}

// doctor --save-tree checks its destination before doing any work (a
// directory, an existing file or a dangling link without --force: exit 2),
// and with --force replaces a file through the one writer.
func TestDoctorSaveTreeRefuses(t *testing.T) {
	tree := unpackDoctorTree(t, "empty")
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.txt")
	if err := os.WriteFile(mine, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"existing file", mine, "exists (add --force"},
		{"dangling link", dangling, "exists (add --force"},
		{"directory", dir, "is a directory"},
		{"missing parent", filepath.Join(dir, "no", "x.txt"), "does not exist"},
	} {
		out, errOut, code := invoke(t, doctorArgs(tree, "--save-tree", tc.path)...)
		exit2(t, tc.name, code, errOut, "--save-tree", tc.want)
		if out != "" {
			t.Errorf("%s: doctor ran before refusing its destination:\n%s", tc.name, out)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "precious" {
		t.Errorf("--save-tree overwrote %s without --force", mine)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("--save-tree wrote through a dangling link")
	}
	if _, errOut, code := invoke(t, doctorArgs(tree, "--save-tree", mine, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(mine); !strings.HasPrefix(string(b), "# gpupath doctor --save-tree") {
		t.Errorf("--force did not replace the file: %.80q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

// fit --out refuses a dangling link without --force (and writes nothing
// through it).
func TestFitOutRefusesDanglingLink(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "out.yaml")
	if err := os.Symlink(filepath.Join(dir, "target.yaml"), dangling); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := invoke(t, "fit", "--data", run, "--out", dangling)
	exit2(t, "dangling --out", code, errOut, "exists (add --force")
	if _, err := os.Stat(filepath.Join(dir, "target.yaml")); err == nil {
		t.Error("fit wrote through a dangling link")
	}
}
