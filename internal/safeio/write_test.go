package safeio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFileRefusesWhatExists(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.yaml")
	if err := WriteFile(p, []byte("one\n"), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two\n"), false); !errors.Is(err, ErrExists) {
		t.Errorf("existing file without force: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\n" {
		t.Errorf("the user's file changed: %q", b)
	}
	if err := WriteFile(p, []byte("two\n"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two\n" {
		t.Errorf("force: %q", b)
	}
	// A dangling link is something that exists.
	link := filepath.Join(dir, "link.yaml")
	os.Symlink(filepath.Join(dir, "nowhere"), link)
	if err := WriteFile(link, []byte("x"), false); !errors.Is(err, ErrExists) {
		t.Errorf("dangling link without force: %v", err)
	}
	// With force, the link is replaced, never the file it points to.
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link2 := filepath.Join(dir, "link2")
	os.Symlink(target, link2)
	if err := WriteFile(link2, []byte("new"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, _ := os.Lstat(link2); st.Mode()&os.ModeSymlink != 0 {
		t.Errorf("the link is still a link")
	}
	if err := WriteFile(dir, []byte("x"), true); err == nil {
		t.Errorf("a directory was replaced")
	}
}

func TestWriteWithFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("before"), 0o644)
	boom := errors.New("boom")
	err := WriteWith(p, true, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "before" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("a temporary file was left: %v", ents)
	}
}

func TestCheckCreate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		force bool
		want  string
	}{
		{filepath.Join(dir, "new"), false, ""},
		{file, false, "exists (add --force"},
		{file, true, ""},
		{dangling, false, "exists (add --force"},
		{dir, true, "is a directory"},
		{filepath.Join(dir, "no", "such"), false, "its directory"},
		{filepath.Join(file, "x"), false, "not a directory"},
	} {
		err := CheckCreate(tc.path, tc.force)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s force=%v: %v, want %q", tc.path, tc.force, err, tc.want)
		}
	}
	if err := CanWrite(dir); err != nil {
		t.Error(err)
	}
	if err := CanWrite(filepath.Join(dir, "no")); err == nil {
		t.Error("CanWrite of a missing directory")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

// A FIFO at an output path is refused with or without --force, and the
// line does not ask for the --force already given; it is an ErrExists.
func TestCreateNeverReplacesAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ff")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	_, err := Create(p, false)
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "add --force") {
		t.Errorf("without --force: %v", err)
	}
	_, err = Create(p, true)
	if !errors.Is(err, ErrExists) || !errors.Is(err, ErrNotReplaceable) || strings.Contains(err.Error(), "add --force") || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("with --force: %v", err)
	}
}
