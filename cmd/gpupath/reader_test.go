package main

import (
	"fmt"
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
	for i := 0; i <= 10000; i++ {
		fmt.Fprintf(&b, "X-%d,gdr,latency_oneway,us,8,3,,,,,,,\n", i)
	}
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := invoke(t, "validate", "--data", big)
	exit2(t, "10,001 rows", code, errOut, "big.csv:10002:", "more than 10000 rows")

	out, _, _ := invoke(t, "validate", "--help")
	if !strings.Contains(out, "--data table 16 MiB and 10,000 rows") {
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
