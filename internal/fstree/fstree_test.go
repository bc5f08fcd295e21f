package fstree

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := []Entry{
		{Kind: 'd', Path: "sys/bus"},
		{Kind: 'f', Path: "sys/bus/x/class", Data: "0x030200\n"},
		{Kind: 'f', Path: "sys/bus/x/config", Data: "\x10\xde" + strings.Repeat("\x00", 4094)},
		{Kind: 'l', Path: "sys/link", Data: "bus/x"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, []string{"a header"}, in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "z sys/bus/x/config 4096 \"\\x10\\xde\"") {
		t.Errorf("config not NUL-compressed:\n%s", buf.String())
	}
	got, err := Parse(&buf)
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Fatalf("parse: %v\n%+v", err, got)
	}
	dir := t.TempDir()
	if err := Unpack(got, dir); err != nil {
		t.Fatal(err)
	}
	walked, err := Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]Entry{{Kind: 'd', Path: "sys"}, {Kind: 'd', Path: "sys/bus"}, {Kind: 'd', Path: "sys/bus/x"}}, in[1:]...)
	Sort(want)
	if !reflect.DeepEqual(walked, want) {
		t.Errorf("walk:\n%+v\nwant\n%+v", walked, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{"x a", "f ../up \"\"", "f a notquoted", "l a", "z a 2 \"abc\"", "z a big \"\"", "d /abs"} {
		if _, err := Parse(strings.NewReader(s)); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// The recorder keeps what was read, with links resolved, and nothing from
// outside the root.
func TestRecorder(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "devices", "d0"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "bus"), 0o755))
	must(os.WriteFile(filepath.Join(root, "devices", "d0", "class"), []byte("c\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "secret"), []byte("s"), 0o644))
	must(os.Symlink("../devices/d0", filepath.Join(root, "bus", "d0")))
	must(os.Symlink("../../secret", filepath.Join(root, "bus", "out")))
	r, err := os.OpenRoot(root)
	must(err)
	defer r.Close()
	rec := &Recorder{FS: r.FS()}
	if b, err := fs.ReadFile(rec, "bus/d0/class"); err != nil || string(b) != "c\n" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := fs.ReadFile(rec, "bus/out"); err == nil {
		t.Fatal("read through a link out of the root")
	}
	if _, err := fs.ReadDir(rec, "bus"); err != nil {
		t.Fatal(err)
	}
	got := rec.Entries()
	want := []Entry{{Kind: 'd', Path: "bus"}, {Kind: 'f', Path: "devices/d0/class", Data: "c\n"},
		{Kind: 'l', Path: "bus/d0", Data: "../devices/d0"}, {Kind: 'l', Path: "bus/out", Data: "../../secret"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries\n%+v\nwant\n%+v", got, want)
	}
	if f := rec.Failures(); len(f) != 1 || !strings.Contains(f[0], "bus/out") {
		t.Errorf("failures %q", f)
	}
}
