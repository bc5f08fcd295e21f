package safeio

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	os.WriteFile(p, []byte("name: x\n"), 0o644)
	b, err := ReadFile(context.Background(), p, 64)
	if err != nil || string(b) != "name: x\n" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := ReadFile(context.Background(), p, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "4 B") {
		t.Errorf("over the limit: %v", err)
	}
}

func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(context.Background(), fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a FIFO with no writer blocked the read")
	}
	for _, p := range []string{"/dev/zero", "/dev/urandom", dir} {
		if _, err := ReadFile(context.Background(), p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestReader(t *testing.T) {
	r := NewReader(context.Background(), strings.NewReader("0123456789"), 10)
	b := make([]byte, 32)
	n, _ := r.Read(b)
	if n != 10 {
		t.Fatalf("read %d", n)
	}
	if _, err := r.Read(b); err == nil || err.Error() != "EOF" {
		t.Errorf("at the limit exactly: %v", err)
	}
	r = NewReader(context.Background(), strings.NewReader("0123456789x"), 10)
	r.Read(b)
	if _, err := r.Read(b); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewReader(ctx, strings.NewReader("x"), 10).Read(b); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := ReadAll(ctx, strings.NewReader("x"), 10); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAll cancelled: %v", err)
	}
}

// ReadFSFile refuses a FIFO (without blocking on it: nobody writes it), a
// directory and a file over the limit, and reads a regular file.
func TestReadFSFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "attr"), []byte("0x030200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, fsys := range []fs.FS{os.DirFS(dir), root.FS()} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if b, err := ReadFSFile(fsys, "attr", 64); err != nil || string(b) != "0x030200\n" {
				t.Errorf("attr: %q %v", b, err)
			}
			if _, err := ReadFSFile(fsys, "attr", 4); !errors.Is(err, ErrTooLarge) {
				t.Errorf("attr over a 4-byte limit: %v", err)
			}
			if _, err := ReadFSFile(fsys, "fifo", 64); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a FIFO") {
				t.Errorf("fifo: %v", err)
			}
			if _, err := ReadFSFile(fsys, "sub", 64); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
				t.Errorf("directory: %v", err)
			}
			if _, err := ReadFSFile(fsys, "missing", 64); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "read missing:") {
				t.Errorf("missing: %v", err)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("ReadFSFile blocked (on the FIFO?)")
		}
	}
}

// ReadFileHead hands the file's beginning to check and stops at its error
// without reading the rest; a file shorter than head is checked whole.
func TestReadFileHead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, append([]byte("BIN\x00"), make([]byte, 3<<20)...), 0o644)
	var saw int
	boom := errors.New("binary")
	_, err := ReadFileHead(context.Background(), p, 8<<20, 16, func(h []byte) error { saw = len(h); return boom })
	if !errors.Is(err, boom) || saw != 16 {
		t.Errorf("err %v, head %d", err, saw)
	}
	short := filepath.Join(dir, "s")
	os.WriteFile(short, []byte("abc"), 0o644)
	b, err := ReadFileHead(context.Background(), short, 64, 16, func(h []byte) error { saw = len(h); return nil })
	if err != nil || string(b) != "abc" || saw != 3 {
		t.Errorf("short: %q %v head %d", b, err, saw)
	}
	if _, err := ReadFileHead(context.Background(), p, 1<<20, 16, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}
